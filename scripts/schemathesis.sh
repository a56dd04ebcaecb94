#!/usr/bin/env bash
# Fuzzes the REST API against its own document: starts a standalone worker (release binary,
# embedded SQLite store, plugins from build/plugins) in a temporary directory, runs
# schemathesis with every check against GET /openapi.json, stops the worker, and exits
# non-zero on any failure.
#
# Bounded: at most SCHEMATHESIS_MAX_EXAMPLES cases per operation and phase (default 30),
# repeated until SCHEMATHESIS_MAX_TIME seconds have passed (default 120: about two and a
# half minutes in all, on 2 cores); SCHEMATHESIS_SEED fixes the data (default 1, so that
# runs repeat; `random` for a new seed each time). Every check runs (`--checks all`); the
# only failures dropped are the answers scripts/schemathesis/hooks.py lists, each one
# Kafka Connect gives too and documented in openapi.json (e.g. the 500 for an unknown
# connector.class); the run prints how many it dropped.
#
# schemathesis (scripts/schemathesis/requirements.txt, pinned) is installed from PyPI into
# a venv at ${WASM_CONNECT_TOOLS:-build/tools}/schemathesis when missing or when the
# requirements changed. The worker is built with `cargo build --release` when needed; the
# guest components with scripts/build-guests.sh when build/plugins has none. The report
# (JUnit XML), the failing cases (`.schemathesis/`, for `schemathesis replay`) and the
# worker's log are left in build/schemathesis/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
TOOLS="${WASM_CONNECT_TOOLS:-$ROOT/build/tools}/schemathesis"
REQUIREMENTS="$ROOT/scripts/schemathesis/requirements.txt"
OUT="$ROOT/build/schemathesis"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-30}"
MAX_TIME="${SCHEMATHESIS_MAX_TIME:-120}"
SEED="${SCHEMATHESIS_SEED:-1}"

if ! cmp -s "$REQUIREMENTS" "$TOOLS/requirements.txt" 2>/dev/null \
    || [ ! -x "$TOOLS/bin/schemathesis" ]; then
    echo "Installing schemathesis into $TOOLS" >&2
    rm -rf "$TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --disable-pip-version-check --progress-bar on \
        -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$TOOLS/requirements.txt"
fi
PY="$TOOLS/bin/python"

if ! compgen -G "build/plugins/*.wasm" >/dev/null; then
    scripts/build-guests.sh
fi
echo "Building the worker (release)" >&2
# The same build as the test command's `cargo test --release --workspace` (which builds the
# binary too): a plain `cargo build -p wasm-connect` resolves dependency features without the
# dev-dependencies and would rebuild much of the tree.
cargo test --release --workspace --no-run
BIN="$CARGO_TARGET_DIR/release/wasm-connect"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/wasm-connect-schemathesis.XXXXXX")"
PID=""
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null || true
    fi
    mkdir -p "$OUT"
    [ -f "$WORK/worker.log" ] && cp "$WORK/worker.log" "$OUT/worker.log"
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
cat >"$WORK/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins
listeners=$BASE
offset.storage.file.filename=$WORK/standalone.db
offset.flush.interval.ms=1000
EOF
echo "Starting a standalone worker on $BASE (log: $OUT/worker.log)" >&2
"$BIN" standalone "$WORK/worker.properties" >"$WORK/worker.log" 2>&1 &
PID=$!
if ! "$PY" - "$BASE" "$PID" <<'EOF'; then
import os, sys, time, urllib.request
base, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the worker exited")
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.2)
sys.exit("the worker did not become healthy within 60 s")
EOF
    tail -n 30 "$WORK/worker.log" >&2
    exit 1
fi

mkdir -p "$OUT"
seed=()
[ "$SEED" = random ] || seed=(--seed "$SEED")
status=0
# From $OUT: schemathesis keeps the failing cases for `st replay` in ./.schemathesis.
(cd "$OUT" && SCHEMATHESIS_HOOKS="$ROOT/scripts/schemathesis/hooks.py" "$TOOLS/bin/schemathesis" run \
    "$BASE/openapi.json" \
    --checks all \
    --max-examples "$MAX_EXAMPLES" --max-time "$MAX_TIME" "${seed[@]}" \
    --workers 1 --request-timeout 30 --generation-database none \
    --report junit --report-junit-path "$OUT/junit.xml") \
    || status=$?
if ! kill -0 "$PID" 2>/dev/null; then
    echo "The worker died during the run; the end of its log:" >&2
    tail -n 30 "$WORK/worker.log" >&2
    status=1
fi
# One closing line for the test command: the operations (and the stateful run) that passed
# and failed, from the JUnit report.
"$PY" - "$OUT/junit.xml" "$status" <<'EOF'
import sys
import xml.etree.ElementTree as ET
try:
    suites = ET.parse(sys.argv[1]).getroot()
    tests = int(suites.get("tests", 0))
    failed = int(suites.get("failures", 0)) + int(suites.get("errors", 0))
except (OSError, ET.ParseError, ValueError):
    tests, failed = 0, 0
if failed == 0 and sys.argv[2] != "0":
    failed = 1
print(f"schemathesis: {max(tests - failed, 0)} passed, {failed} failed")
EOF
exit "$status"
