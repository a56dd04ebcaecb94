#!/usr/bin/env bash
# Side by side with the real Debezium: the PostgreSQL change-data-capture scenario of
# tests/cdc/ (schema.sql, snapshot.sql, changes.sql) captured by Debezium 3.6.1.Final's
# PostgreSQL connector on Apache Kafka Connect 4.3.1 (topic.prefix dbz, slot dbz, publication
# dbz_pub) and by wasm-connect running `io.debezium.connector.postgresql.PostgresConnector`
# from its plugin.path (topic.prefix wc, slot wc, publication wc_pub), both in distributed mode
# on one broker and one database, then compared event by event.
#
#   scripts/compare-debezium.sh                 both sides; prints a table per topic and a summary
#   scripts/compare-debezium.sh debezium-only   only Debezium; keeps its capture (below)
#   scripts/compare-debezium.sh takeover        Debezium streams as connector `cdc`, stops; more
#                                               changes; wasm-connect joins the same group and
#                                               topics and must resume from Debezium's offset
#   scripts/compare-debezium.sh fetch           only download the jars
#
# Both connectors get the same config (scripts/lib/cdc.sh cdc_config): plugin.name=pgoutput,
# publication.autocreate.mode=filtered, snapshot.mode=initial, skipped.operations=none,
# provide.transaction.metadata=true, JsonConverter with schemas for keys and values. The run:
# the schema made again and its snapshot rows loaded, both connectors created, each awaited
# until its walsender streams (pg_stat_replication), tests/cdc/changes.sql applied, then every
# topic of each prefix dumped once quiet (key, value, headers, in order; scripts/lib/TopicDump.java)
# and compared by scripts/compare-cdc-events.py: `dbz` becomes `wc` in topic names, schema
# names and values; volatile fields are masked (its MASKED list); the differences in
# DELIBERATE below print as deliberate. The exit status is 1 on any other difference.
#
# The capture of each side is kept as JSON lines per topic in $WORK/capture-<prefix>/; with
# debezium-only (or CDC_GOLDEN_DIR set) Debezium's is copied to CDC_GOLDEN_DIR (default
# /var/tmp/dbz-golden). Slots, publications and the prefixes' topics are dropped at start and on
# exit, the schema on exit (COMPARE_KEEP=1 keeps the topics, the schema and the work dir).
#
# take-over checks, per data topic: every change made before the hand-over (by Kafka Connect)
# and after it (by wasm-connect, from tests/cdc/handover.sql) is there exactly once: no
# snapshot again, no event twice (same source lsn, op and key), none missing.
#
# Environment:
#   KAFKA_BOOTSTRAP       the broker (default: scripts/kafka.sh's on KAFKA_PORT, 9092, started if needed)
#   POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_PSQL   the database (default:
#                         scripts/postgres.sh start); see scripts/lib/cdc.sh
#   CDC_SCHEMA            the scenario's schema (default cdc)
#   WASM_CONNECT_BIN      the worker binary (default $CARGO_TARGET_DIR/release/wasm-connect)
#   WASM_CONNECT_PLUGINS  plugin.path of the wasm-connect worker (default build/plugins)
#   WC_REST_PORT, KC_REST_PORT   loopback REST ports (default 18184 and 18183)
#   CDC_START_TIMEOUT     seconds for a worker to serve /connectors and a connector to stream (default 180)
#   CDC_QUIET             seconds without a new record that mean a side is done (default 10)
#   CDC_GOLDEN_DIR        where debezium-only copies Debezium's capture (default /var/tmp/dbz-golden)
#   CDC_OURS              kc: "our" side (prefix wc) is a second Kafka Connect worker running
#                         Debezium too, a check of the script and the diff (expect all same)
#   CDC_TAKEOVER_TO       kc: the take-over's second worker is Kafka Connect again (Debezium
#                         resuming itself: a check of the script and its checks); default wc
#   COMPARE_KEEP          1: keep the work dir and topics on success too
# Needs java 17+, javac, mvn (first run), curl, jq, psql and python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=compare-debezium.sh
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# shellcheck source=lib/debezium.sh
source "$ROOT/scripts/lib/debezium.sh"
# shellcheck source=lib/cdc.sh
source "$ROOT/scripts/lib/cdc.sh"
KAFKA_PORT="${KAFKA_PORT:-9092}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
WC_REST_PORT="${WC_REST_PORT:-18184}"
KC_REST_PORT="${KC_REST_PORT:-18183}"
START_TIMEOUT="${CDC_START_TIMEOUT:-180}"
QUIET="${CDC_QUIET:-10}"
TAKEOVER_TO="${CDC_TAKEOVER_TO:-wc}"
OURS="${CDC_OURS:-wc}"
KC_URL="http://127.0.0.1:$KC_REST_PORT"
WC_URL="http://127.0.0.1:$WC_REST_PORT"

# Differences that are on purpose: `topic-glob | path-glob | reason`, one per line. Topics are
# named as wasm-connect's (wc.*); paths as scripts/compare-cdc-events.py prints them (a record
# on one side only: `<record>`). source.version, source.connector and source.name (after the
# dbz → wc mapping) are compared like any field: a chosen difference belongs here.
DELIBERATE='
'

WORK="" BOOTSTRAP="" MODE="" RUN="" STARTED_BROKER=""
declare -A PID=()
SLOTS=()

cleanup() {
    local rc=$? pids=() side slot
    trap - EXIT INT TERM
    for side in "${!PID[@]}"; do pids+=("${PID[$side]}"); done
    ((${#pids[@]} == 0)) || stop_worker "${pids[@]}"
    for slot in "${SLOTS[@]}"; do cdc_drop_side "$slot" "${slot}_pub"; done
    if [[ "${COMPARE_KEEP:-}" != 1 && -n "$BOOTSTRAP" ]]; then
        for slot in "${SLOTS[@]}"; do cdc_delete_topics "$slot\\..*"; done
        [[ -n "$RUN" ]] && cdc_delete_topics "cdc-$RUN-.*"
        [[ -z "${PG_DB:-}" ]] || cdc_psql -c "DROP SCHEMA IF EXISTS $CDC_SCHEMA CASCADE" >/dev/null 2>&1 || true
    fi
    if [[ -n "$STARTED_BROKER" ]]; then KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" stop >/dev/null || true; fi
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${COMPARE_KEEP:-}" != 1 ]]; then rm -rf -- "$WORK"; else echo "work dir kept: $WORK (*.log, capture-*/, report.md)" >&2; fi
    fi
    exit "$rc"
}

start_broker() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then BOOTSTRAP="$KAFKA_BOOTSTRAP"; return 0; fi
    BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
    KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" status >/dev/null 2>&1 && return 0
    KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" start >&2
    STARTED_BROKER=1
}

# start_side kc|wc GROUP: a distributed worker in group GROUP (internal topics GROUP-*).
start_side() {
    local side="$1" group="$2"
    if [[ "$side" == kc ]]; then
        { connect_properties "$group" "$KC_REST_PORT" "$BOOTSTRAP"; echo "plugin.path=$DEBEZIUM_PLUGIN_PATH"; } >"$WORK/kc.properties"
        start_kafka_connect "$WORK/kc.properties" "$WORK/kc.log"
        PID[kc]=$STARTED_PID
        await_worker "$KC_URL" "${PID[kc]}" "$WORK/kc.log" "$START_TIMEOUT"
    elif [[ "$OURS" == kc ]]; then
        { connect_properties "$group" "$WC_REST_PORT" "$BOOTSTRAP"; echo "plugin.path=$DEBEZIUM_PLUGIN_PATH"; } >"$WORK/wc.properties"
        start_kafka_connect "$WORK/wc.properties" "$WORK/wc.log"
        PID[wc]=$STARTED_PID
        await_worker "$WC_URL" "${PID[wc]}" "$WORK/wc.log" "$START_TIMEOUT"
    else
        { connect_properties "$group" "$WC_REST_PORT" "$BOOTSTRAP"; echo "plugin.path=$WASM_CONNECT_PLUGINS"; } >"$WORK/wc.properties"
        start_wasm_connect "$WASM_CONNECT_BIN" "$WORK/wc.properties" "$WORK/wc.log"
        PID[wc]=$STARTED_PID
        await_worker "$WC_URL" "${PID[wc]}" "$WORK/wc.log" "$START_TIMEOUT"
    fi
}

check_wasm_connect() {
    [[ "$OURS" != kc ]] || return 0
    [[ -x "$WASM_CONNECT_BIN" ]] || die "no wasm-connect binary at $WASM_CONNECT_BIN (cargo build --release, or set WASM_CONNECT_BIN)"
    compgen -G "$WASM_CONNECT_PLUGINS/*.wasm" >/dev/null || die "no plugins in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh builds them)"
}

# prepare PREFIX...: a clean database and broker for these prefixes.
prepare() {
    local prefix
    for prefix in "$@"; do
        SLOTS+=("$prefix")
        cdc_drop_side "$prefix" "${prefix}_pub"
        cdc_delete_topics "$prefix\\..*"
    done
    cdc_load_schema
}

# capture PREFIX MIN: waits until PREFIX's topics are quiet, then dumps them to capture-PREFIX/.
capture() {
    echo "waiting for the $1.* topics to be quiet for ${QUIET}s ..." >&2
    cdc_dump "$1\\..*" "$WORK/capture-$1" "$QUIET" $((START_TIMEOUT * 2)) "${2:-1}"
}

compare_mode() {
    local golden="${CDC_GOLDEN_DIR:-}" rc=0
    [[ "$MODE" == debezium-only ]] || check_wasm_connect
    if [[ "$MODE" == debezium-only ]]; then prepare dbz; else prepare dbz wc; fi
    echo "schema $CDC_SCHEMA loaded; starting the workers" >&2
    start_side kc "cdc-$RUN-kc"
    cdc_put_connector "$KC_URL" dbz "$(cdc_config dbz)"
    if [[ "$MODE" != debezium-only ]]; then
        start_side wc "cdc-$RUN-wc"
        cdc_put_connector "$WC_URL" wc "$(cdc_config wc)"
    fi
    cdc_await_streaming "$KC_URL" dbz dbz "$START_TIMEOUT"
    echo "Debezium streams" >&2
    if [[ "$MODE" != debezium-only ]]; then
        cdc_await_streaming "$WC_URL" wc wc "$START_TIMEOUT"
        echo "the wc side streams" >&2
    fi
    cdc_run_sql changes.sql
    echo "changes.sql applied" >&2
    capture dbz
    if [[ "$MODE" == debezium-only ]]; then
        golden="${golden:-/var/tmp/dbz-golden}"
        mkdir -p "$golden"
        rm -f "$golden"/*.jsonl
        cp "$WORK"/capture-dbz/*.jsonl "$golden/"
        echo "Debezium's capture ($(cat "$WORK"/capture-dbz/*.jsonl | wc -l) records): $golden" >&2
        for f in "$golden"/*.jsonl; do printf '  %-40s %5d\n' "$(basename "$f" .jsonl)" "$(wc -l <"$f")"; done
        return 0
    fi
    capture wc || echo "wasm-connect's topics did not settle; comparing what is there" >&2
    [[ -z "$golden" ]] || { mkdir -p "$golden"; cp "$WORK"/capture-dbz/*.jsonl "$golden/"; }
    printf '%s\n' "$DELIBERATE" >"$WORK/deliberate.txt"
    python3 "$ROOT/scripts/compare-cdc-events.py" "$WORK/capture-dbz" "$WORK/capture-wc" \
        --deliberate "$WORK/deliberate.txt" --report "$WORK/report.md" || rc=$?
    ((rc == 0)) || echo "records of each difference: $WORK/report.md" >&2
    return "$rc"
}

takeover_mode() {
    [[ "$TAKEOVER_TO" == kc ]] || check_wasm_connect
    local group config url
    group="cdc-$RUN"
    prepare tko
    config="$(cdc_config tko)"
    start_side kc "$group"
    cdc_put_connector "$KC_URL" cdc "$config"
    cdc_await_streaming "$KC_URL" cdc tko "$START_TIMEOUT"
    cdc_run_sql changes.sql
    capture tko
    mv "$WORK/capture-tko" "$WORK/capture-before"
    echo "Kafka Connect streamed changes.sql; stopping connector cdc and the worker" >&2
    curl -s -o /dev/null -X PUT --max-time 30 "$KC_URL/connectors/cdc/stop"
    cdc_await_state "$KC_URL" cdc STOPPED 60
    sleep 2 # the last offset flush (offset.flush.interval.ms=1000)
    stop_worker "${PID[kc]}"
    unset 'PID[kc]'
    mv "$WORK/kc.log" "$WORK/kc-before.log"
    cdc_run_sql handover.sql
    echo "handover.sql applied with no worker running; starting $TAKEOVER_TO in group $group" >&2
    start_side "$TAKEOVER_TO" "$group"
    url="$WC_URL"
    [[ "$TAKEOVER_TO" == kc ]] && url="$KC_URL"
    curl -s -o /dev/null -X PUT --max-time 30 "$url/connectors/cdc/resume"
    cdc_await_state "$url" cdc RUNNING "$START_TIMEOUT"
    sleep "$QUIET"
    capture tko
    python3 "$ROOT/scripts/compare-cdc-events.py" --takeover "$WORK/capture-before" "$WORK/capture-tko" --expect "$CDC_SQL_DIR/handover.sql" \
        --report "$WORK/report.md"
}

main() {
    MODE="${1:-both}"
    case "$MODE" in
        fetch) fetch_jars; fetch_debezium; return 0 ;;
        both | debezium-only | takeover) ;;
        *) echo "usage: $0 [debezium-only|takeover|fetch]" >&2; exit 2 ;;
    esac
    need "$JAVA" "Java 17+ runs Kafka Connect"
    need javac "scripts/lib/TopicDump.java dumps the topics"
    need curl "the connectors are created through REST"
    need python3 "scripts/compare-cdc-events.py compares the captures"
    need flock "util-linux"
    ensure_jq
    for p in "$WC_REST_PORT" "$KC_REST_PORT"; do port_open "$p" && die "127.0.0.1:$p is in use (set WC_REST_PORT / KC_REST_PORT)"; done
    fetch_jars
    fetch_debezium
    cdc_postgres
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/compare-debezium.XXXXXX")"
    RUN="$MODE-$(date +%s)-$$"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    start_broker
    echo "broker $BOOTSTRAP; PostgreSQL $PG_HOST:$PG_PORT/$PG_DB schema $CDC_SCHEMA; work dir $WORK" >&2
    if [[ "$MODE" == takeover ]]; then takeover_mode; else compare_mode; fi
}

main "$@"; exit $?
