#!/usr/bin/env bash
# The quickstart: copies a file through a topic with two wasm connectors, on the embedded
# store (no Kafka). Builds the guests and the worker, writes an input file, starts a
# standalone worker with FileStreamSource -> topic `quickstart` -> FileStreamSink, waits
# until the output matches the input, shows the connectors' status over REST, and stops the
# worker. `--keep` leaves it running (Ctrl-C stops it).
#
# The worker's config is examples/configs/standalone.properties with one change: its
# plugin.path names only the two components this run uses (build/plugins/file-source.wasm
# and file-sink.wasm), so the worker does not compile every example in build/ (the Python
# and JavaScript ones take minutes on a cold cache; the worker would serve REST meanwhile,
# but the run would wait for nothing it uses). It is written to
# /tmp/wasm-connect/worker.properties.
#
# Environment: CARGO_TARGET_DIR (default ./target), QUICKSTART_PORT (the REST port, default
# 8083), QUICKSTART_TIMEOUT (seconds to wait for each of the worker's start and the copy,
# default 600: a loaded two-core machine compiles slowly).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
KEEP="${1:-}"
WORK=/tmp/wasm-connect
PORT="${QUICKSTART_PORT:-8083}"
REST="http://localhost:$PORT"
TIMEOUT="${QUICKSTART_TIMEOUT:-600}"
LINES=1000
PLUGINS=("$ROOT/build/plugins/file-source.wasm" "$ROOT/build/plugins/file-sink.wasm")

step() { printf '\n==> %s\n' "$*"; }
fail() {
  printf '\nquickstart failed: %s\n' "$*" >&2
  if [[ -s "$WORK/worker.log" ]]; then
    printf '\nthe last lines of %s:\n' "$WORK/worker.log" >&2
    tail -n 40 "$WORK/worker.log" >&2
  fi
  exit 1
}
lines_in() { if [[ -f "$1" ]]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }

step "building the guest components into build/ (first build: several minutes)"
scripts/build-guests.sh
step "building the worker, $CARGO_TARGET_DIR/release/wasm-connect (first build: 10-15 minutes)"
cargo build --release -p wasm-connect
BIN="$CARGO_TARGET_DIR/release/wasm-connect"

step "preparing $WORK: input.txt ($LINES lines) and worker.properties"
if curl -s -o /dev/null --max-time 2 "$REST/"; then
  fail "something already answers on $REST (another worker?); stop it or set QUICKSTART_PORT"
fi
mkdir -p "$WORK"
rm -f "$WORK/standalone.db" "$WORK/standalone.db-wal" "$WORK/standalone.db-shm" \
  "$WORK/output.txt" "$WORK/worker.log"
seq 1 "$LINES" | sed 's/^/hello from line /' >"$WORK/input.txt"
plugin_path="$(IFS=,; echo "${PLUGINS[*]}")"
sed -e "s|^plugin\.path=.*|plugin.path=$plugin_path|" \
  -e "s|^listeners=http://localhost:8083\$|listeners=$REST|" \
  examples/configs/standalone.properties >"$WORK/worker.properties"
grep -qx "plugin.path=$plugin_path" "$WORK/worker.properties" \
  || fail "examples/configs/standalone.properties has no plugin.path line to replace"
grep -qx "listeners=$REST" "$WORK/worker.properties" \
  || fail "examples/configs/standalone.properties has no listeners line to replace"
echo "plugin.path=$plugin_path"

step "starting the worker (log: $WORK/worker.log)"
"$BIN" standalone "$WORK/worker.properties" \
  examples/configs/file-source.json examples/configs/file-sink.properties \
  >"$WORK/worker.log" 2>&1 &
PID=$!
trap 'if kill $PID 2>/dev/null; then wait $PID 2>/dev/null || true; fi' EXIT

# wait_for WHAT CHECK PROGRESS: runs CHECK every 0.2 s until it succeeds, printing WHAT and
# PROGRESS's output every 5 s; fails when the worker exits or TIMEOUT seconds pass.
wait_for() {
  local what="$1" check="$2" progress="$3" start=$SECONDS next=$((SECONDS + 5))
  echo "waiting for $what ($($progress))"
  until $check; do
    kill -0 $PID 2>/dev/null || fail "the worker exited while waiting for $what"
    ((SECONDS - start < TIMEOUT)) || fail "gave up waiting for $what after $TIMEOUT s ($($progress))"
    if ((SECONDS >= next)); then
      echo "  still waiting for $what: $((SECONDS - start)) s of $TIMEOUT s ($($progress))"
      next=$((SECONDS + 5))
    fi
    sleep 0.2
  done
  echo "  done after $((SECONDS - start)) s"
}
rest_up() { curl -fs -o /dev/null --max-time 2 "$REST/"; }
log_lines() { echo "worker log: $(lines_in "$WORK/worker.log") lines"; }
copied() { cmp -s "$WORK/input.txt" "$WORK/output.txt"; }
output_lines() { echo "$(lines_in "$WORK/output.txt") so far"; }

echo "(the worker compiles the two components, then opens its REST port)"
wait_for "the worker's REST port, $REST" rest_up log_lines
wait_for "$LINES lines in $WORK/output.txt" copied output_lines

echo
echo "copied $(lines_in "$WORK/output.txt") lines: $WORK/input.txt -> topic quickstart -> $WORK/output.txt"
step "GET $REST/connectors?expand=status"
if command -v python3 >/dev/null; then
  curl -fsS "$REST/connectors?expand=status" | python3 -m json.tool
else
  curl -fsS "$REST/connectors?expand=status"
  echo
fi
if [[ "$KEEP" == "--keep" ]]; then
  echo
  echo "The worker keeps running (REST on $REST, dashboard at $REST/ui); append to"
  echo "$WORK/input.txt and watch $WORK/output.txt. Ctrl-C stops it."
  wait $PID
fi
