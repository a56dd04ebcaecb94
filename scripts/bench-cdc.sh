#!/usr/bin/env bash
# PostgreSQL change data capture, Debezium 3.6.1.Final on Apache Kafka Connect 4.3.1 against
# wasm-connect's `io.debezium.connector.postgresql.PostgresConnector`, one after the other on
# the same broker and database, and one Markdown table:
#   measure | Debezium on Kafka Connect | wasm-connect
#
#   scripts/bench-cdc.sh            both sides (a side whose worker offers no such connector
#                                   prints n/a; BENCH_SIDES=kc runs Debezium alone)
#
# Per side, with its own slot, publication and topic prefix (benchkc / benchwc) over one table
# bench_rows (id bigserial, n int4, payload text(100), at timestamptz) in schema
# $CDC_BENCH_SCHEMA, made again with BENCH_SNAPSHOT_ROWS rows before each side starts:
#   snapshot   rows/s of the initial snapshot: (rows - 1) / the span between the first and the
#              last snapshot record's log-append time (the topic is created beforehand with
#              message.timestamp.type=LogAppendTime, so the broker stamps each record)
#   streaming  events/s at steady state: the connector is stopped (PUT .../stop), then
#              BENCH_STREAM_TX transactions of BENCH_STREAM_ROWS inserts each are committed, then
#              it resumes; the rate is the catch-up's, between the first and the last of those
#              inserts' log-append times
#   latency    COMMIT → Kafka, p50 and p99 over the records of a paced writer (BENCH_LAT_TPS
#              transactions/s of 10 rows for BENCH_LAT_SECONDS s, connector running): each
#              record's log-append time minus its source.ts_ms (the commit time). Both clocks
#              are this machine's
#   RSS        the worker process's resident set after the latency phase, and its peak (VmHWM)
# Kafka Connect runs with Kafka's production JVM options (CONNECT_PRODUCTION_JVM_OPTS).
# Transaction metadata is off; the connector config is otherwise scripts/lib/cdc.sh's. Progress
# goes to stderr, the table to stdout; the work dir is kept with BENCH_KEEP=1 or a failure.
#
# Environment (defaults):
#   BENCH_SIDES           kc wc
#   BENCH_SNAPSHOT_ROWS   200000
#   BENCH_STREAM_TX, BENCH_STREAM_ROWS   200 transactions × 500 rows
#   BENCH_LAT_TPS, BENCH_LAT_SECONDS     20 transactions/s for 15 s
#   CDC_BENCH_SCHEMA      cdc_bench
#   KAFKA_BOOTSTRAP, POSTGRES_*, WASM_CONNECT_BIN, WASM_CONNECT_PLUGINS, WC_REST_PORT (18284),
#   KC_REST_PORT (18283): as scripts/compare-debezium.sh
# Needs java 17+, javac, mvn (first run), curl, jq, psql and python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=bench-cdc.sh
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# shellcheck source=lib/debezium.sh
source "$ROOT/scripts/lib/debezium.sh"
CDC_SCHEMA="${CDC_BENCH_SCHEMA:-cdc_bench}"
# shellcheck source=lib/cdc.sh
source "$ROOT/scripts/lib/cdc.sh"
KAFKA_PORT="${KAFKA_PORT:-9092}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
WC_REST_PORT="${WC_REST_PORT:-18284}"
KC_REST_PORT="${KC_REST_PORT:-18283}"
SIDES="${BENCH_SIDES:-kc wc}"
ROWS="${BENCH_SNAPSHOT_ROWS:-200000}"
STREAM_TX="${BENCH_STREAM_TX:-200}"
STREAM_ROWS="${BENCH_STREAM_ROWS:-500}"
LAT_TPS="${BENCH_LAT_TPS:-20}"
LAT_SECONDS="${BENCH_LAT_SECONDS:-15}"
START_TIMEOUT=300
TABLE=bench_rows

WORK="" BOOTSTRAP="" PREFIX="" PID_NOW="" RUN=""
declare -A R=()

log() { echo "$*" >&2; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    [[ -z "$PID_NOW" ]] || stop_worker "$PID_NOW"
    if [[ -n "$PREFIX" ]]; then cdc_drop_side "$PREFIX" "${PREFIX}_pub"; fi
    if [[ -n "$BOOTSTRAP" ]]; then
        cdc_delete_topics "bench(kc|wc)\\..*"
        [[ -z "$RUN" ]] || cdc_delete_topics "cdc-bench-$RUN-.*"
    fi
    cdc_psql -c "DROP SCHEMA IF EXISTS $CDC_SCHEMA CASCADE" >/dev/null 2>&1 || true
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${BENCH_KEEP:-}" != 1 ]]; then rm -rf -- "$WORK"; else log "work dir kept: $WORK"; fi
    fi
    exit "$rc"
}

# The table, its snapshot rows, and the data topic with broker-stamped times.
prepare() {
    cdc_drop_side "$PREFIX" "${PREFIX}_pub"
    cdc_delete_topics "$PREFIX\\..*"
    cdc_psql -c "DROP SCHEMA IF EXISTS $CDC_SCHEMA CASCADE" -c "CREATE SCHEMA $CDC_SCHEMA" \
        -c "CREATE TABLE $CDC_SCHEMA.$TABLE (id bigserial PRIMARY KEY, n int4 NOT NULL, payload text, at timestamptz NOT NULL DEFAULT now())" \
        -c "INSERT INTO $CDC_SCHEMA.$TABLE (n, payload) SELECT g, repeat(md5(g::text), 3) FROM generate_series(1, $ROWS) AS g" \
        -c "VACUUM ANALYZE $CDC_SCHEMA.$TABLE" >/dev/null
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        kafka_topics --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$PREFIX.$CDC_SCHEMA.$TABLE" \
            --partitions 1 --replication-factor 1 --config message.timestamp.type=LogAppendTime >"$WORK/topic.log" 2>&1 && return 0
        sleep 2 # the previous run's topic may still be being deleted
    done
    cat "$WORK/topic.log" >&2
    die "could not create $PREFIX.$CDC_SCHEMA.$TABLE"
}

# dump_brief NAME MIN: the data topic's brief dump once it holds MIN records and is quiet.
dump_brief() {
    rm -rf "$WORK/$SIDE-$1"
    cdc_dump "$PREFIX\\.$CDC_SCHEMA\\.$TABLE" "$WORK/$SIDE-$1" 5 900 "$2" brief >/dev/null 2>&1 \
        || die "$SIDE: the topic did not reach $2 records (phase $1)"
    cat "$WORK/$SIDE-$1/$PREFIX.$CDC_SCHEMA.$TABLE.jsonl"
}

# rate FILE OP SKIP: records/s of op OP after the first SKIP lines, by log-append time.
rate() {
    python3 - "$@" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[3]):]
ts = [r["timestamp"] for r in recs if r["op"] == sys.argv[2]]
span = (max(ts) - min(ts)) / 1000 if ts else 0
print(f"{(len(ts) - 1) / span:,.0f}" if span > 0 else "n/a", len(ts))
PY
}

latency() {
    python3 - "$@" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
lat = sorted(r["timestamp"] - r["source_ts_ms"] for r in recs if r["op"] == "c" and r["source_ts_ms"])
pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"{pick(0.5)} {pick(0.99)} {len(lat)}" if lat else "n/a n/a 0")
PY
}

run_side() {
    SIDE="$1"
    PREFIX="bench$SIDE"
    local url port props config n skip
    port="$KC_REST_PORT"; [[ "$SIDE" == wc ]] && port="$WC_REST_PORT"
    url="http://127.0.0.1:$port"
    log "== $SIDE: $ROWS rows into $CDC_SCHEMA.$TABLE"
    prepare
    props="$WORK/$SIDE.properties"
    connect_properties "cdc-bench-$RUN-$SIDE" "$port" "$BOOTSTRAP" >"$props"
    if [[ "$SIDE" == kc ]]; then
        echo "plugin.path=$DEBEZIUM_PLUGIN_PATH" >>"$props"
        CONNECT_JVM_OPTS="$CONNECT_PRODUCTION_JVM_OPTS" start_kafka_connect "$props" "$WORK/$SIDE.log"
    else
        echo "plugin.path=$WASM_CONNECT_PLUGINS" >>"$props"
        start_wasm_connect "$WASM_CONNECT_BIN" "$props" "$WORK/$SIDE.log"
    fi
    PID_NOW=$STARTED_PID
    await_worker "$url" "$PID_NOW" "$WORK/$SIDE.log" 180
    if ! curl -s "$url/connector-plugins" | jq -e --arg c "$DEBEZIUM_CLASS" 'any(.[]; .class == $c)' >/dev/null; then
        log "$SIDE: the worker offers no $DEBEZIUM_CLASS; its column stays n/a"
        stop_worker "$PID_NOW"; PID_NOW=""
        return 0
    fi
    config="$(cdc_config "$PREFIX" "$(jq -cn --arg t "$CDC_SCHEMA.$TABLE" '{"provide.transaction.metadata": "false", "table.include.list": $t}')")"
    cdc_put_connector "$url" bench "$config"
    cdc_await_streaming "$url" bench "$PREFIX" "$START_TIMEOUT"
    dump_brief snapshot "$ROWS" >"$WORK/$SIDE-snapshot.jsonl"
    read -r R["snapshot|$SIDE"] n < <(rate "$WORK/$SIDE-snapshot.jsonl" r 0)
    log "$SIDE: snapshot $n rows at ${R["snapshot|$SIDE"]} rows/s"

    curl -s -o /dev/null -X PUT "$url/connectors/bench/stop"
    cdc_await_state "$url" bench STOPPED 60
    local i
    for ((i = 0; i < STREAM_TX; i++)); do
        echo "INSERT INTO $CDC_SCHEMA.$TABLE (n, payload) SELECT g, repeat(md5(g::text), 3) FROM generate_series(1, $STREAM_ROWS) AS g;"
    done >"$WORK/stream.sql"
    cdc_psql -f "$WORK/stream.sql" >/dev/null
    log "$SIDE: $STREAM_TX transactions × $STREAM_ROWS rows committed while stopped; resuming"
    curl -s -o /dev/null -X PUT "$url/connectors/bench/resume"
    skip=$ROWS
    dump_brief stream $((skip + STREAM_TX * STREAM_ROWS)) >"$WORK/$SIDE-stream.jsonl"
    read -r R["stream|$SIDE"] n < <(rate "$WORK/$SIDE-stream.jsonl" c "$skip")
    log "$SIDE: streamed $n events at ${R["stream|$SIDE"]} events/s"

    skip=$((skip + STREAM_TX * STREAM_ROWS))
    python3 - "$LAT_TPS" "$LAT_SECONDS" "$CDC_SCHEMA.$TABLE" >"$WORK/paced.sql" <<'PY'
import sys
tps, secs, table = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for i in range(tps * secs):
    print(f"INSERT INTO {table} (n, payload) SELECT g, 'paced' FROM generate_series(1, 10) AS g;")
    print(f"SELECT pg_sleep({1 / tps});")
PY
    cdc_psql -f "$WORK/paced.sql" >/dev/null
    dump_brief latency $((skip + LAT_TPS * LAT_SECONDS * 10)) >"$WORK/$SIDE-latency.jsonl"
    read -r R["p50|$SIDE"] R["p99|$SIDE"] n < <(latency "$WORK/$SIDE-latency.jsonl" "$skip")
    log "$SIDE: latency over $n records: p50 ${R["p50|$SIDE"]} ms, p99 ${R["p99|$SIDE"]} ms"
    read -r R["rss|$SIDE"] R["hwm|$SIDE"] < <(awk '/^VmRSS/ {r = $2} /^VmHWM/ {h = $2} END {printf "%d %d\n", r / 1024, h / 1024}' "/proc/$PID_NOW/status")
    curl -s -o /dev/null -X DELETE "$url/connectors/bench"
    stop_worker "$PID_NOW"; PID_NOW=""
    cdc_drop_side "$PREFIX" "${PREFIX}_pub"
}

main() {
    need "$JAVA" "Java 17+ runs Kafka Connect"
    need javac "scripts/lib/TopicDump.java reads the topics"
    need curl "the connectors are created through REST"
    need python3 "the figures"
    ensure_jq
    fetch_jars
    fetch_debezium
    cdc_postgres
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/bench-cdc.XXXXXX")"
    RUN="$(date +%s)-$$"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    BOOTSTRAP="${KAFKA_BOOTSTRAP:-127.0.0.1:$KAFKA_PORT}"
    local side
    for side in $SIDES; do
        if [[ "$side" == wc && ! -x "$WASM_CONNECT_BIN" ]]; then log "no wasm-connect binary at $WASM_CONNECT_BIN: its column stays n/a"; continue; fi
        run_side "$side"
    done
    local row
    echo "| measure | Debezium $DEBEZIUM_VERSION on Kafka Connect $CONNECT_VERSION | wasm-connect |"
    echo "|---|---:|---:|"
    for row in "snapshot|snapshot rows/s ($ROWS rows)" "stream|streaming events/s ($STREAM_TX tx × $STREAM_ROWS rows)" \
        "p50|COMMIT → Kafka p50 ms ($LAT_TPS tx/s)" "p99|COMMIT → Kafka p99 ms" "rss|RSS MiB after the run" "hwm|peak RSS MiB"; do
        echo "| ${row#*|} | ${R["${row%%|*}|kc"]:-n/a} | ${R["${row%%|*}|wc"]:-n/a} |"
    done
}

main "$@"; exit $?
