#!/usr/bin/env bash
# Fuzzes the REST API against its own document: runs schemathesis with every check against
# GET /openapi.json of a standalone worker (release binary, embedded SQLite store, plugins
# from build/plugins) in a temporary directory, and exits non-zero on any failure.
#
# Deterministic: the same seed sends the same requests on any machine. The budget is a
# number of cases, never a time: schemathesis' `--max-time` repeats its fuzzing and stateful
# phases until the time is up, so a slower machine ran fewer cycles, and so another
# sequence, than the machine that passed. SCHEMATHESIS_MAX_EXAMPLES cases per operation and
# phase (default 30); SCHEMATHESIS_SEED fixes the data (default 1; `random` for a new seed
# each time). The run has two parts, each against a fresh worker with an empty store, so no
# state carries from one to the other: `examples,coverage,fuzzing`, then `stateful` (the
# sequences of linked calls). Every check runs (`--checks all`); the only failures dropped
# are the answers scripts/schemathesis/hooks.py lists, each one Kafka Connect gives too and
# documented in openapi.json (e.g. the 500 for an unknown connector.class); the run prints
# how many it dropped.
#
# schemathesis (scripts/schemathesis/requirements.txt, pinned) is installed from PyPI into
# a venv at ${WASM_CONNECT_TOOLS:-build/tools}/schemathesis when missing or when the
# requirements changed. The worker is built when needed; the guest components with
# scripts/build-guests.sh when build/plugins has none. The JUnit reports, the failing cases
# (`.schemathesis/`, for `schemathesis replay`) and the workers' logs are left in
# build/schemathesis/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
TOOLS="${WASM_CONNECT_TOOLS:-$ROOT/build/tools}/schemathesis"
REQUIREMENTS="$ROOT/scripts/schemathesis/requirements.txt"
OUT="$ROOT/build/schemathesis"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-30}"
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
stop_worker() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null || true
    fi
    PID=""
}
cleanup() {
    stop_worker
    cp "$WORK"/worker-*.log "$OUT/" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

# Starts a fresh standalone worker with an empty store for part $1 and waits for /health;
# sets PID and BASE.
start_worker() {
    local part="$1" dir="$WORK/$1" port
    mkdir -p "$dir"
    port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    BASE="http://127.0.0.1:$port"
    cat >"$dir/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins
listeners=$BASE
offset.storage.file.filename=$dir/standalone.db
offset.flush.interval.ms=1000
EOF
    echo "Starting a standalone worker for the $part part on $BASE (log: $OUT/worker-$part.log)" >&2
    "$BIN" standalone "$dir/worker.properties" >"$WORK/worker-$part.log" 2>&1 &
    PID=$!
    if ! "$PY" "$ROOT/scripts/schemathesis/wait_healthy.py" "$BASE" "$PID"; then
        tail -n 30 "$WORK/worker-$part.log" >&2
        exit 1
    fi
}

seed=()
[ "$SEED" = random ] || seed=(--seed "$SEED")
status=0
for phases in examples,coverage,fuzzing stateful; do
    part=stateless
    [ "$phases" = stateful ] && part=stateful
    start_worker "$part"
    echo "schemathesis: phases $phases, at most $MAX_EXAMPLES cases per operation, seed $SEED" >&2
    # From $OUT: schemathesis keeps the failing cases for `st replay` in ./.schemathesis.
    (cd "$OUT" && SCHEMATHESIS_HOOKS="$ROOT/scripts/schemathesis/hooks.py" "$TOOLS/bin/schemathesis" run \
        "$BASE/openapi.json" \
        --phases "$phases" \
        --checks all \
        --max-examples "$MAX_EXAMPLES" "${seed[@]}" \
        --workers 1 --request-timeout 30 --generation-database none \
        --report junit --report-junit-path "$OUT/junit-$part.xml") \
        || status=$?
    if ! kill -0 "$PID" 2>/dev/null; then
        echo "The worker died during the $part part; the end of its log:" >&2
        tail -n 30 "$WORK/worker-$part.log" >&2
        status=1
    fi
    stop_worker
done
# One closing line for the test command: the operations (and the stateful run) that passed
# and failed, from both parts' JUnit reports.
"$PY" "$ROOT/scripts/schemathesis/summary.py" "$status" "$OUT/junit-stateless.xml" "$OUT/junit-stateful.xml"
exit "$status"
