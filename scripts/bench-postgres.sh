#!/usr/bin/env bash
# Rows/s through the PostgreSQL connectors on one standalone worker (embedded store), and
# prints one table:
#   - into PostgreSQL: JdbcSinkConnector (insert, pk.mode=none) at batch.size 100 and 1000,
#     from a topic already holding $ROWS records (JsonConverter with schemas, 3 columns),
#     with consumer.max.poll.records=2000 (so each put is one transaction of 2000 rows), into
#     a table with a primary key (the source reads it back by that key);
#   - out of PostgreSQL: JdbcSourceConnector (incrementing) at batch.max.rows 100 and 1000,
#     reading the $ROWS-row table into a topic that FileStreamSink writes to a file.
# Each figure is rows / seconds from creating the connector to the last row landing
# (counted with psql, or lines in the file, every 100 ms).
#
# Needs: scripts/build-guests.sh, `cargo build --release -p wasm-connect`, and a server from
# scripts/postgres.sh (started here if POSTGRES_URL is unset, and stopped after).
# Environment: ROWS (default 200000), WASM_CONNECT (the worker binary).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ROWS="${ROWS:-200000}"
BIN="${WASM_CONNECT:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
[[ -x "$BIN" ]] || { echo "no worker binary at $BIN: cargo build --release -p wasm-connect" >&2; exit 2; }
[[ -f build/plugins/postgres-sink.wasm ]] || { echo "run scripts/build-guests.sh first" >&2; exit 2; }

WORK="$(mktemp -d)"
cleanup=("rm -rf '$WORK'")
trap 'for ((i = ${#cleanup[@]} - 1; i >= 0; i--)); do eval "${cleanup[i]}"; done' EXIT
if [[ -z "${POSTGRES_URL:-}" ]]; then
    scripts/postgres.sh status >/dev/null 2>&1 || cleanup+=('scripts/postgres.sh stop >/dev/null')
    eval "$(scripts/postgres.sh start)"
fi
LIBPQ="${POSTGRES_URL/jdbc:postgresql:\/\//postgresql://$POSTGRES_USER@}"
psql_() { PGPASSWORD="$POSTGRES_PASSWORD" psql "$LIBPQ" -X -q -At -v ON_ERROR_STOP=1 -c "$1"; }
now() { date +%s.%N; }

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
REST="http://127.0.0.1:$PORT"
cat >"$WORK/worker.properties" <<EOF
plugin.path=$ROOT/build/plugins
listeners=$REST
offset.storage.file.filename=$WORK/worker.db
offset.flush.interval.ms=1000
consumer.max.poll.records=2000
EOF
"$BIN" standalone "$WORK/worker.properties" --cache-dir "$WORK/cache" >"$WORK/worker.log" 2>&1 &
cleanup+=("kill $! 2>/dev/null; wait $! 2>/dev/null || true")
for _ in $(seq 300); do curl -sf "$REST/" >/dev/null && break; sleep 0.1; done

put() { curl -sf -X PUT -H 'Content-Type: application/json' "$REST/connectors/$1/config" -d "$2" >/dev/null; }
conn="\"connection.url\": \"$POSTGRES_URL\", \"connection.user\": \"$POSTGRES_USER\", \"connection.password\": \"$POSTGRES_PASSWORD\""
json='"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true"'

# The input topic: $ROWS envelopes, written by FileStreamSource and counted by FileStreamSink.
schema='{"type":"struct","name":"bench","optional":false,"fields":[{"field":"id","type":"int64","optional":false},{"field":"name","type":"string","optional":true},{"field":"qty","type":"int32","optional":true}]}'
awk -v n="$ROWS" -v s="$schema" 'BEGIN { for (i = 1; i <= n; i++)
    printf "{\"schema\":%s,\"payload\":{\"id\":%d,\"name\":\"row %d\",\"qty\":%d}}\n", s, i, i, i % 100 }' >"$WORK/in.txt"
put fill '{"connector.class": "FileStreamSource", "file": "'"$WORK/in.txt"'", "topic": "bench-in", "batch.size": "2000",
  "value.converter": "org.apache.kafka.connect.storage.StringConverter"}'
put fill-check '{"connector.class": "FileStreamSink", "file": "'"$WORK/fill.txt"'", "topics": "bench-in"}'
until [[ -f "$WORK/fill.txt" && "$(wc -l <"$WORK/fill.txt")" -ge "$ROWS" ]]; do sleep 0.2; done

# wait_for CMD: until CMD prints a number >= $ROWS.
wait_for() { until [[ "$(eval "$1" 2>/dev/null || echo 0)" -ge "$ROWS" ]]; do sleep 0.1; done; }

declare -A RATE
for b in 100 1000; do
    psql_ "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_sink_$b; CREATE TABLE bench_sink_$b (id BIGINT PRIMARY KEY, name TEXT, qty INT)"
    t0="$(now)"
    put "sink-$b" "{\"connector.class\": \"JdbcSinkConnector\", \"topics\": \"bench-in\", $conn, $json,
      \"table.name.format\": \"bench_sink_$b\", \"batch.size\": \"$b\"}"
    wait_for "psql_ 'SELECT count(*) FROM bench_sink_$b'"
    RATE["sink $b"]="$(echo "$ROWS / ($(now) - $t0)" | bc -l)"
done
for b in 100 1000; do
    t0="$(now)"
    put "source-$b" "{\"connector.class\": \"JdbcSourceConnector\", $conn, $json, \"mode\": \"incrementing\",
      \"incrementing.column.name\": \"id\", \"table.whitelist\": \"bench_sink_1000\", \"topic.prefix\": \"out$b-\",
      \"batch.max.rows\": \"$b\", \"poll.interval.ms\": \"1000\"}"
    put "out-$b" "{\"connector.class\": \"FileStreamSink\", \"file\": \"$WORK/out$b.txt\", \"topics\": \"out$b-bench_sink_1000\"}"
    wait_for "wc -l <'$WORK/out$b.txt'"
    RATE["source $b"]="$(echo "$ROWS / ($(now) - $t0)" | bc -l)"
done
psql_ "DROP TABLE bench_sink_100; DROP TABLE bench_sink_1000"

printf '\n%-44s %12s\n' "PostgreSQL ($ROWS rows, $(nproc) cores)" "rows/s"
printf '%-44s %12.0f\n' "into PostgreSQL, JdbcSink batch.size=100" "${RATE[sink 100]}"
printf '%-44s %12.0f\n' "into PostgreSQL, JdbcSink batch.size=1000" "${RATE[sink 1000]}"
printf '%-44s %12.0f\n' "out of PostgreSQL, JdbcSource batch.max.rows=100" "${RATE[source 100]}"
printf '%-44s %12.0f\n' "out of PostgreSQL, JdbcSource batch.max.rows=1000" "${RATE[source 1000]}"
