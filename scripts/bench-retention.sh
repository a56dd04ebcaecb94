#!/usr/bin/env bash
# The embedded store's size over a long standalone run at a steady rate, with or without
# retention, printed as a table (one row per sample) for BENCHMARKS.md.
#
# One standalone worker on the embedded store: Datagen (8-byte keys, 100-byte values,
# StringConverter, paced at $RATE records/s over $TASKS tasks) writes topic `bench`, which
# KIP-158's `topic.creation.default.*` keys create with retention.ms=$RETENTION_MS (and
# retention.bytes=$RETENTION_BYTES); FileStreamSink reads it into /dev/null. The worker
# applies retention every $CHECK_MS ms (log.retention.check.interval.ms). Every $SAMPLE_S
# seconds a row gives the database file's size (and its -wal file's), the records produced
# and consumed so far, and the production rate since the previous row.
#
# Needs: scripts/build-guests.sh and `cargo build --release -p wasm-connect`.
# Environment: DURATION_S (1200), RATE (20000), TASKS (2), RETENTION_MS (120000; -1 keeps
# every record), RETENTION_BYTES (-1), CHECK_MS (30000), SAMPLE_S (60), BENCH_DIR (a new
# directory under /var/tmp, removed after), WASM_CONNECT (the worker binary).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DURATION_S="${DURATION_S:-1200}"
RATE="${RATE:-20000}"
TASKS="${TASKS:-2}"
RETENTION_MS="${RETENTION_MS:-120000}"
RETENTION_BYTES="${RETENTION_BYTES:--1}"
CHECK_MS="${CHECK_MS:-30000}"
SAMPLE_S="${SAMPLE_S:-60}"
BIN="${WASM_CONNECT:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
[[ -x "$BIN" ]] || { echo "no worker binary at $BIN: cargo build --release -p wasm-connect" >&2; exit 2; }
[[ -f build/plugins/datagen.wasm ]] || { echo "run scripts/build-guests.sh first" >&2; exit 2; }

WORK="${BENCH_DIR:-$(mktemp -d /var/tmp/bench-retention.XXXXXX)}"
mkdir -p "$WORK"
cleanup=("rm -rf '$WORK'")
trap 'for ((i = ${#cleanup[@]} - 1; i >= 0; i--)); do eval "${cleanup[i]}"; done' EXIT

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
REST="http://127.0.0.1:$PORT"
DB="$WORK/worker.db"
cat >"$WORK/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins/datagen.wasm,$ROOT/build/plugins/file-sink.wasm
listeners=$REST
offset.storage.file.filename=$DB
offset.flush.interval.ms=5000
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
log.retention.check.interval.ms=$CHECK_MS
EOF
"$BIN" standalone "$WORK/worker.properties" --cache-dir "$WORK/cache" >"$WORK/worker.log" 2>&1 &
WORKER=$!
cleanup+=("kill $WORKER 2>/dev/null; wait $WORKER 2>/dev/null || true")
for _ in $(seq 600); do curl -sf "$REST/" >/dev/null && break; sleep 0.1; done
curl -sf "$REST/" >/dev/null || { echo "the worker did not start; its log:" >&2; tail -20 "$WORK/worker.log" >&2; exit 1; }

put() { curl -sf -X PUT -H 'Content-Type: application/json' "$REST/connectors/$1/config" -d "$2" >/dev/null; }
per_task=$((RATE / TASKS))
put gen '{"connector.class": "Datagen", "topic": "bench", "tasks.max": "'"$TASKS"'", "rate": "'"$per_task"'",
  "topic.creation.default.replication.factor": "-1", "topic.creation.default.partitions": "1",
  "topic.creation.default.retention.ms": "'"$RETENTION_MS"'",
  "topic.creation.default.retention.bytes": "'"$RETENTION_BYTES"'"}'
put sink '{"connector.class": "FileStreamSink", "topics": "bench", "file": "/dev/null"}'

metric() { curl -sf "$REST/metrics" | awk -v m="$1" '$1 ~ "^"m"[{ ]" { s += $NF } END { printf "%d\n", s }'; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

echo "rate $RATE records/s over $TASKS tasks, retention.ms=$RETENTION_MS retention.bytes=$RETENTION_BYTES, check every $CHECK_MS ms, $DURATION_S s"
echo
echo "| minute | store file MiB | -wal MiB | records produced | records consumed | produced/s since last row |"
echo "|---|---|---|---|---|---|"
start=$(date +%s)
last_produced=0
last_t=$start
max_db=0
while :; do
    sleep "$SAMPLE_S"
    now=$(date +%s)
    produced=$(metric wasm_connect_source_records_produced_total)
    consumed=$(metric wasm_connect_sink_records_put_total)
    db=$(size "$DB")
    wal=$(size "$DB-wal")
    (( db > max_db )) && max_db=$db
    rate=$(( (produced - last_produced) / (now - last_t > 0 ? now - last_t : 1) ))
    printf '| %.1f | %s | %s | %s | %s | %s |\n' "$(awk -v s=$((now - start)) 'BEGIN { print s / 60 }')" \
        "$(mib "$db")" "$(mib "$wal")" "$produced" "$consumed" "$rate"
    last_produced=$produced
    last_t=$now
    kill -0 "$WORKER" 2>/dev/null || { echo "the worker exited; its log:" >&2; tail -20 "$WORK/worker.log" >&2; exit 1; }
    (( now - start >= DURATION_S )) && break
done
elapsed=$(( $(date +%s) - start ))
echo
echo "average rate $((produced / elapsed)) records/s; largest store file $(mib "$max_db") MiB"
echo "retention passes that deleted records: $(grep -c 'Deleted records of an embedded topic by retention' "$WORK/worker.log" || true)"
