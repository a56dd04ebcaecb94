#!/usr/bin/env bash
# The quickstart: copies a file through a topic with two wasm connectors, on the embedded
# store (no Kafka). Builds the guests and the worker, writes an input file, starts a
# standalone worker with FileStreamSource -> topic `quickstart` -> FileStreamSink, waits
# until the output matches the input, shows the connectors' status over REST, and stops the
# worker. `--keep` leaves it running (Ctrl-C stops it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
KEEP="${1:-}"
WORK=/tmp/wasm-connect
REST=http://localhost:8083

scripts/build-guests.sh >/dev/null
cargo build --release --quiet
BIN="$CARGO_TARGET_DIR/release/wasm-connect"

mkdir -p "$WORK"
rm -f "$WORK/standalone.db" "$WORK/standalone.db-wal" "$WORK/standalone.db-shm" "$WORK/output.txt"
seq 1 1000 | sed 's/^/hello from line /' >"$WORK/input.txt"

"$BIN" standalone examples/configs/standalone.properties \
  examples/configs/file-source.json examples/configs/file-sink.properties \
  >"$WORK/worker.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT

for _ in $(seq 1 600); do
  if cmp -s "$WORK/input.txt" "$WORK/output.txt" 2>/dev/null; then break; fi
  if ! kill -0 $PID 2>/dev/null; then echo "the worker exited; see $WORK/worker.log" >&2; exit 1; fi
  sleep 0.1
done
cmp "$WORK/input.txt" "$WORK/output.txt"
echo "copied $(wc -l <"$WORK/output.txt") lines: $WORK/input.txt -> topic quickstart -> $WORK/output.txt"
echo
echo "GET $REST/connectors?expand=status"
if command -v python3 >/dev/null; then
  curl -fsS "$REST/connectors?expand=status" | python3 -m json.tool
else
  curl -fsS "$REST/connectors?expand=status"; echo
fi
if [[ "$KEEP" == "--keep" ]]; then
  echo "The worker keeps running (REST on $REST); append to $WORK/input.txt and watch $WORK/output.txt. Ctrl-C stops it."
  wait $PID
fi
