#!/usr/bin/env bash
# Issue 36's table: records/s of the Schema Registry converters beside JsonConverter
# (schemas.enable=true), through a source into Kafka and through a sink reading the topic back,
# at 1 and 4 tasks, with the registry requests each run sent. One wasm-connect distributed
# worker, one throwaway registry (scripts/schema-registry.sh), the shared broker.
#
#   scripts/build-guests.sh && cargo build --release -p wasm-connect
#   scripts/bench-registry.sh
#
# The record: Datagen's text value (value.size $BENCH_VALUE_SIZE) hoisted into a struct
# (HoistField$Value, field `text`), then InsertField$Value adds `topic` (string), `ts` (an
# optional Timestamp), `n`, `ratio` and `ok`, which Cast$Value turns into int64, float64 and
# boolean: every format writes a struct of six fields. The key is Datagen's text through
# StringConverter, so only the value goes through the converter measured.
#   source  Datagen → Kafka (a 4-partition topic per run), records/s from the topic's end
#           offsets polled every 5 ms, from the first record until N (native_kafka
#           watch-topic, as bench-vs-kafka-connect.sh's source row).
#   sink    the 4-task source run's topic → FileStreamSink writing to a file on tmpfs
#           (/dev/shm), the same converter on the value; lines/s from the file's line count,
#           from the first line until N (native_kafka watch-file).
#   requests  wasm_connect_schema_registry_requests_total of the run's connector (GET
#           /metrics, summed over tasks and sides) just before it is deleted, and that count
#           per 1,000,000 records.
# Progress goes to stderr, the table to stdout. The work dir is kept with BENCH_KEEP=1 or a
# failure; the run's topics are deleted at the end.
#
# Environment:
#   BENCH_RECORDS      records per run (default 1000000)
#   BENCH_VALUE_SIZE   Datagen's text bytes (default 80)
#   BENCH_CONVERTERS   which to run (default "json avro protobuf jsonschema")
#   BENCH_TASKS        task counts (default "1 4"; the sink reads the last one's topic)
#   BENCH_WC_PROPS     extra worker properties, one per line
#   SCHEMA_REGISTRY_URL  a registry's ccompat URL to use (default: one started here with
#                      scripts/schema-registry.sh, stopped at the end; set
#                      SCHEMA_REGISTRY_STATE_DIR to keep it apart from another one)
#   KAFKA_BOOTSTRAP (default 127.0.0.1:9092, a running scripts/kafka.sh broker),
#   WASM_CONNECT_BIN, WASM_CONNECT_PLUGINS, NATIVE_KAFKA_BIN, WC_REST_PORT (18186)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=bench-registry.sh
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-$TARGET/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
NATIVE_KAFKA_BIN="${NATIVE_KAFKA_BIN:-$TARGET/release/examples/native_kafka}"
WC_REST_PORT="${WC_REST_PORT:-18186}"
BOOTSTRAP="${KAFKA_BOOTSTRAP:-127.0.0.1:${KAFKA_PORT:-9092}}"
N="${BENCH_RECORDS:-1000000}"
VALUE_SIZE="${BENCH_VALUE_SIZE:-80}"
CONVERTERS="${BENCH_CONVERTERS:-json avro protobuf jsonschema}"
TASKS="${BENCH_TASKS:-1 4}"
URL="http://127.0.0.1:$WC_REST_PORT"

WORK="" RUN="" WORKER_PID="" STARTED_REGISTRY="" REGISTRY_URL="${SCHEMA_REGISTRY_URL:-}"
declare -A RATE=() REQ=()   # [converter|direction|tasks]

log() { echo "[$(date +%T)] $*" >&2; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    [[ -n "$WORKER_PID" ]] && stop_worker "$WORKER_PID"
    if [[ -n "$RUN" ]]; then
        kafka_topics --bootstrap-server "$BOOTSTRAP" --delete --topic "bench-reg-$RUN-.*" >/dev/null 2>&1 || true
    fi
    [[ -n "$STARTED_REGISTRY" ]] && { "$ROOT/scripts/schema-registry.sh" stop >/dev/null 2>&1 || true; }
    rm -f /dev/shm/bench-reg-"$RUN"-* 2>/dev/null || true
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${BENCH_KEEP:-}" != 1 ]]; then rm -rf -- "$WORK"; else echo "work dir kept: $WORK" >&2; fi
    fi
    exit "$rc"
}

rest() {  # METHOD PATH [BODY]
    local args=(-sS --fail-with-body -X "$1" --max-time 60)
    [[ -n "${3:-}" ]] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    curl "${args[@]}" "$URL$2"
}

# converter_members NAME: the value converter's settings as JSON object members (trailing comma).
converter_members() {
    local class
    case "$1" in
        json) printf '"value.converter":"org.apache.kafka.connect.json.JsonConverter","value.converter.schemas.enable":"true",'; return ;;
        avro) class=io.confluent.connect.avro.AvroConverter ;;
        protobuf) class=io.confluent.connect.protobuf.ProtobufConverter ;;
        jsonschema) class=io.confluent.connect.json.JsonSchemaConverter ;;
        *) die "unknown converter $1 (json, avro, protobuf, jsonschema)" ;;
    esac
    printf '"value.converter":"%s","value.converter.schema.registry.url":"%s",' "$class" "$REGISTRY_URL"
}

source_config() {  # CONVERTER TOPIC TASKS
    local smt=org.apache.kafka.connect.transforms
    cat <<EOF
{"connector.class":"Datagen","tasks.max":"$3","topic":"$2","records":"$N","value.size":"$VALUE_SIZE",
 "key.converter":"org.apache.kafka.connect.storage.StringConverter",$(converter_members "$1")
 "transforms":"hoist,meta,ratio,ok,cast",
 "transforms.hoist.type":"$smt.HoistField\$Value","transforms.hoist.field":"text",
 "transforms.meta.type":"$smt.InsertField\$Value","transforms.meta.topic.field":"topic",
 "transforms.meta.timestamp.field":"ts","transforms.meta.static.field":"n","transforms.meta.static.value":"42",
 "transforms.ratio.type":"$smt.InsertField\$Value","transforms.ratio.static.field":"ratio","transforms.ratio.static.value":"0.5",
 "transforms.ok.type":"$smt.InsertField\$Value","transforms.ok.static.field":"ok","transforms.ok.static.value":"true",
 "transforms.cast.type":"$smt.Cast\$Value","transforms.cast.spec":"n:int64,ratio:float64,ok:boolean"}
EOF
}

sink_config() {  # CONVERTER TOPIC TASKS FILE
    echo "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"tasks.max\":\"$3\",\"topics\":\"$2\",\"file\":\"$4\",\"key.converter\":\"org.apache.kafka.connect.storage.StringConverter\",$(converter_members "$1" | sed 's/,$//')}"
}

# requests NAME: the registry requests the connector's tasks sent, summed.
requests() {
    curl -sS --max-time 30 "$URL/metrics" | awk -v c="connector=\"$1\"" \
        'index($0, "wasm_connect_schema_registry_requests_total{") == 1 && index($0, c) {s += $NF} END {printf "%d", s}'
}

# run_connector NAME CONFIG OUT WATCH_PID KEY: creates the connector, waits for the watcher,
# records the rate and the registry requests under KEY, deletes the connector.
run_connector() {
    local name="$1" config="$2" out="$3" watch="$4" key="$5" state
    rest POST /connectors "{\"name\":\"$name\",\"config\":$config}" >/dev/null
    wait "$watch" || true
    RATE[$key]="$(jq -r 'if .timeout then "failed" else (.rate // "failed" | floor) end' "$out" 2>/dev/null || true)"
    [[ -n "${RATE[$key]}" ]] || RATE[$key]=failed
    REQ[$key]="$(requests "$name")"
    if [[ "${RATE[$key]}" == failed ]]; then
        state="$(rest GET "/connectors/$name/status" 2>/dev/null | jq -c '[.connector.state, (.tasks[] | .state, (.trace // "" | .[0:300]))]' 2>/dev/null || true)"
        log "  failed: $state"
    fi
    rest DELETE "/connectors/$name" >/dev/null || true
    log "  ${RATE[$key]} records/s, ${REQ[$key]} registry requests"
}

row_converter() {  # CONVERTER
    local conv="$1" tasks topic file out last=""
    for tasks in $TASKS; do
        topic="bench-reg-$RUN-$conv-$tasks" out="$WORK/source-$conv-$tasks.json"
        kafka_topics --bootstrap-server "$BOOTSTRAP" --create --topic "$topic" --partitions 4 --replication-factor 1 >/dev/null
        sleep 2  # the partitions' leaders settle (a watcher started at once can fail on metadata)
        log "$conv: Datagen → Kafka, $tasks task(s), $N records"
        "$NATIVE_KAFKA_BIN" watch-topic --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$N" >"$out" &
        run_connector "src-$conv-$tasks" "$(source_config "$conv" "$topic" "$tasks")" "$out" $! "$conv|source|$tasks"
        [[ -n "$last" ]] && kafka_topics --bootstrap-server "$BOOTSTRAP" --delete --topic "$last" >/dev/null 2>&1
        last="$topic"
    done
    for tasks in $TASKS; do
        file="/dev/shm/bench-reg-$RUN-$conv-$tasks.txt" out="$WORK/sink-$conv-$tasks.json"
        log "$conv: Kafka → FileStreamSink, $tasks task(s), $N records of $last"
        "$NATIVE_KAFKA_BIN" watch-file --file "$file" --records "$N" >"$out" &
        run_connector "sink-$conv-$tasks" "$(sink_config "$conv" "$last" "$tasks" "$file")" "$out" $! "$conv|sink|$tasks"
        [[ -s "$file" ]] && log "  first line: $(head -c 300 "$file" | head -1)"
        rm -f "$file"
    done
    kafka_topics --bootstrap-server "$BOOTSTRAP" --delete --topic "$last" >/dev/null 2>&1 || true
}

print_table() {
    local conv dir tasks rate base share req per
    echo
    echo "wasm-connect $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'), broker $BOOTSTRAP, registry Apicurio (ccompat), $(nproc) cores, $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg); N = $N records per run, value.size $VALUE_SIZE"
    echo
    echo "| converter | direction | tasks | records/s | vs JsonConverter | registry requests | per 1,000,000 records |"
    echo "|---|---|---|---|---|---|---|"
    for dir in source sink; do
        for tasks in $TASKS; do
            for conv in $CONVERTERS; do
                rate="${RATE[$conv|$dir|$tasks]:--}" base="${RATE[json|$dir|$tasks]:-}" share="" req="${REQ[$conv|$dir|$tasks]:--}" per=""
                [[ "$rate" =~ ^[0-9]+$ && "$base" =~ ^[0-9]+$ && "$conv" != json ]] && ((base > 0)) \
                    && share="$(awk -v a="$rate" -v b="$base" 'BEGIN {printf "%d %%", 100 * a / b}')"
                [[ "$req" =~ ^[0-9]+$ ]] && per="$(awk -v r="$req" -v n="$N" 'BEGIN {printf "%.1f", r * 1000000 / n}')"
                printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$conv" "$dir" "$tasks" "$rate" "$share" "$req" "$per"
            done
        done
    done
}

main() {
    need curl "the runs drive the REST API"
    ensure_jq
    [[ -x "$WASM_CONNECT_BIN" ]] || die "no wasm-connect binary at $WASM_CONNECT_BIN (cargo build --release -p wasm-connect)"
    [[ -f "$WASM_CONNECT_PLUGINS/datagen.wasm" && -f "$WASM_CONNECT_PLUGINS/file-sink.wasm" ]] \
        || die "no datagen.wasm and file-sink.wasm in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh)"
    port_open "$WC_REST_PORT" && die "127.0.0.1:$WC_REST_PORT is in use (set WC_REST_PORT)"
    if [[ ! -x "$NATIVE_KAFKA_BIN" ]]; then
        log "building native_kafka (cargo build --release -p wasm-connect --example native_kafka)"
        (cd "$ROOT" && cargo build -q --release -p wasm-connect --example native_kafka) >&2
    fi
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/bench-registry.XXXXXX")"
    RUN="$(date +%s)-$$"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    if [[ -z "$REGISTRY_URL" && "$CONVERTERS" != json ]]; then
        log "starting a schema registry (scripts/schema-registry.sh)"
        STARTED_REGISTRY=1
        eval "$("$ROOT/scripts/schema-registry.sh" start | grep 'SCHEMA_REGISTRY_URL=')"
        REGISTRY_URL="$SCHEMA_REGISTRY_URL"
    fi
    {
        connect_properties "bench-reg-$RUN" "$WC_REST_PORT" "$BOOTSTRAP"
        echo "plugin.path=$WASM_CONNECT_PLUGINS"
        if [[ -n "${BENCH_WC_PROPS:-}" ]]; then printf '%s\n' "$BENCH_WC_PROPS"; fi
    } >"$WORK/worker.properties"
    log "broker $BOOTSTRAP, registry ${REGISTRY_URL:-none}, converters: $CONVERTERS; work dir $WORK"
    start_wasm_connect "$WASM_CONNECT_BIN" "$WORK/worker.properties" "$WORK/worker.log"
    WORKER_PID=$STARTED_PID
    await_worker "$URL" "$WORKER_PID" "$WORK/worker.log" 180
    local conv
    for conv in $CONVERTERS; do row_converter "$conv"; done
    print_table
}

main "$@"
