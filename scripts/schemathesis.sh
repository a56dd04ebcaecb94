#!/usr/bin/env bash
# Fuzzes the REST API against its own document: runs schemathesis with every check against
# GET /openapi.json of a standalone worker (release binary, embedded SQLite store, plugins
# from build/plugins) in a temporary directory, and exits non-zero on any failure.
#
# Deterministic: the same seeds send the same requests on any machine. The budget is a
# number of cases, never a time: schemathesis' `--max-time` repeats its fuzzing and stateful
# phases until the time is up, so a slower machine ran fewer cycles, and so other
# sequences, than the machine that passed. Instead the whole run (examples, coverage,
# fuzzing, stateful) is repeated once per seed of SCHEMATHESIS_SEEDS (default `1 2 3 4 5
# 6`: each seed's stateful phase follows other links), at most SCHEMATHESIS_MAX_EXAMPLES
# cases per operation and phase (default 30). `random` as a seed draws a new one. Each seed
# runs against a fresh worker with an empty store, so nothing carries from one run to the
# next, seeded with two connectors made the same way each time
# (scripts/schemathesis/seed_connectors.py; random data never creates one, and without them
# the stateful phase has no connector to follow links from). Every check runs (`--checks
# all`); the only failures dropped are the answers scripts/schemathesis/hooks.py lists, each
# one Kafka Connect gives too and documented in openapi.json (e.g. the 500 for an unknown
# connector.class); each run prints how many it dropped.
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
SEEDS="${SCHEMATHESIS_SEEDS:-1 2 3 4 5 6}"

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
# The filter itself first: what hooks.py drops, and what it must keep.
"$PY" -m pytest -q -p no:cacheprovider "$ROOT/scripts/schemathesis/test_hooks.py"

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

# Starts a fresh standalone worker with an empty store for the run named $1 and waits for
# /health; sets PID and BASE.
start_worker() {
    local run="$1" dir="$WORK/$1" port
    mkdir -p "$dir"
    port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    BASE="http://127.0.0.1:$port"
    cat >"$dir/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins
listeners=$BASE
offset.storage.file.filename=$dir/standalone.db
offset.flush.interval.ms=1000
EOF
    echo "Starting a standalone worker for run $run on $BASE (log: $OUT/worker-$run.log)" >&2
    "$BIN" standalone "$dir/worker.properties" >"$WORK/worker-$run.log" 2>&1 &
    PID=$!
    if ! "$PY" "$ROOT/scripts/schemathesis/wait_healthy.py" "$BASE" "$PID"; then
        tail -n 30 "$WORK/worker-$run.log" >&2
        exit 1
    fi
}

status=0
for seed in $SEEDS; do
    start_worker "$seed"
    "$PY" "$ROOT/scripts/schemathesis/seed_connectors.py" "$BASE"
    args=()
    [ "$seed" = random ] || args=(--seed "$seed")
    echo "schemathesis: seed $seed, at most $MAX_EXAMPLES cases per operation and phase" >&2
    # From $OUT: schemathesis keeps the failing cases for `st replay` in ./.schemathesis.
    (cd "$OUT" && SCHEMATHESIS_HOOKS="$ROOT/scripts/schemathesis/hooks.py" "$TOOLS/bin/schemathesis" run \
        "$BASE/openapi.json" \
        --checks all \
        --max-examples "$MAX_EXAMPLES" "${args[@]}" \
        --workers 1 --request-timeout 30 --generation-database none \
        --report junit --report-junit-path "$OUT/junit-$seed.xml") \
        || status=$?
    if ! kill -0 "$PID" 2>/dev/null; then
        echo "The worker died during the run of seed $seed; the end of its log:" >&2
        tail -n 30 "$WORK/worker-$seed.log" >&2
        status=1
    fi
    stop_worker
done
# One closing line for the test command: the operations (and the stateful run) that passed
# and failed in every seed's run, from their JUnit reports (a missing one counts as failed).
reports=()
for seed in $SEEDS; do reports+=("$OUT/junit-$seed.xml"); done
"$PY" "$ROOT/scripts/schemathesis/summary.py" "$status" "${reports[@]}"
exit "$status"
