#!/usr/bin/env bash
# Side by side with a real Schema Registry: Avro records written by one worker and read by
# the other, in both directions, compared field by field. The two workers are wasm-connect
# (its AvroConverter, `io.confluent.connect.avro.AvroConverter`) and Apache Kafka Connect
# 4.3.1 with Apicurio's `io.apicurio.registry.utils.converter.AvroConverter` 2.6.13.Final in
# Confluent's wire format. Both run in distributed mode on the same broker and share one
# Apicurio Registry 3.3.3 (scripts/schema-registry.sh; Confluent's API at /apis/ccompat/v7
# for wasm-connect, Apicurio's v2 API for Apicurio's converter).
#
#   scripts/compare-registry-kafka-connect.sh         run both directions, print the tables
#   scripts/compare-registry-kafka-connect.sh fetch   only download the jars
#
# 1. Kafka Connect writes: its FileStreamSource reads JSON envelope lines (schema +
#    payload, from scripts/lib/compare-registry-records.py) that
#    scripts/lib/ConnectEnvelope.java (mode=parse, compiled here) turns into Connect data of
#    every type: int8..float64, boolean, string, bytes, optional fields (set and null),
#    Decimal (with and without a precision), Date, Time, Timestamp, an array, a map with
#    string keys and one with int keys, a nested optional struct, defaults, docs and
#    parameters. Apicurio's converter writes them as Avro.
# 2. wasm-connect writes: its FileStreamSource reads text lines that a chain of Kafka's own
#    transformations (HoistField, InsertField, Cast, TimestampConverter, SetSchemaMetadata)
#    turns into a named struct with a nested struct, int8..float64, boolean, strings,
#    Date, Time, Timestamp and null optional fields; its AvroConverter writes them.
# 3. Kafka Connect runs the lines of 2. through the same transformations and writes them
#    with Apicurio's converter.
# Keys are Avro too (ValueToKey of two fields): every sink decodes them, and the key
# schemas registered in 2. and 3. are compared; FileStreamSink prints no keys.
# Each topic is then read by both workers into a FileStreamSink: wasm-connect's prints the
# payload as JSON, Kafka Connect's prints the JsonConverter envelope (ConnectEnvelope,
# mode=format). scripts/compare-registry-values.py compares the records field by field and
# prints six tables (field, type, here = wasm-connect, there = Kafka Connect, same?):
# 1. and 2. as both workers read them; 3. against 2., both as Kafka Connect read them
# (schemas compared too); the Avro value schemas registered in 2. and 3.; 1. as sent against
# what wasm-connect read; the Avro key schemas registered in 2. and 3. Then the summary `N fields, N same, N different` (`, N known` when
# some differences are listed in KNOWN below); the exit status is 1 on any other difference.
#
# Kafka Connect's jars come from scripts/lib/connect.sh (cached), Apicurio's converter and
# its dependencies from Maven Central through `mvn dependency:copy-dependencies` (cached in
# $APICURIO_CONVERTER_CACHE, without kafka-clients, connect-api, connect-json and
# slf4j-api, which the worker provides). Needs java 17+ (and 21+ for the registry), javac,
# mvn (first run), curl, jq and python3. Everything it starts is stopped on exit: the
# workers, the registry, the broker if it started it; its topics are deleted from a broker
# it did not start.
#
# Environment:
#   KAFKA_BOOTSTRAP       use this broker instead of starting one with scripts/kafka.sh
#   KAFKA_PORT            port of the scripts/kafka.sh broker to start or reuse (default 9092)
#   WASM_CONNECT_BIN      the worker binary (default $CARGO_TARGET_DIR/release/wasm-connect)
#   WASM_CONNECT_PLUGINS  plugin.path of the wasm-connect worker (default build/plugins)
#   WC_REST_PORT, KC_REST_PORT   loopback REST ports (default 18094 and 18093)
#   SCHEMA_REGISTRY_PORT  the registry's port (default: a free one)
#   APICURIO_CONVERTER_CACHE  jar cache (default ~/.cache/wasm-connect/apicurio-converter-2.6.13.Final)
#   COMPARE_START_TIMEOUT seconds to wait for each worker to serve /connectors (default 120)
#   COMPARE_WAIT_TIMEOUT  seconds to wait for the records in each output file (default 90)
#   COMPARE_KEEP          1: keep the work dir (configs, logs, outputs) on success too
#   COMPARE_MARKDOWN      1: print the tables as Markdown (docs/schema-registry-compare.md)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=compare-registry-kafka-connect.sh
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# shellcheck source=lib/apicurio-converter.sh
source "$ROOT/scripts/lib/apicurio-converter.sh"
KAFKA_PORT="${KAFKA_PORT:-9092}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
WC_REST_PORT="${WC_REST_PORT:-18094}"
KC_REST_PORT="${KC_REST_PORT:-18093}"
START_TIMEOUT="${COMPARE_START_TIMEOUT:-120}"
WAIT_TIMEOUT="${COMPARE_WAIT_TIMEOUT:-90}"
WC_AVRO=io.confluent.connect.avro.AvroConverter
KC_AVRO=io.apicurio.registry.utils.converter.AvroConverter

# Differences that are understood: `table | field | reason`, one per line (tables numbered
# as printed). They print as `known` and do not fail the run.
KNOWN='
3 | inner.line | a plugin'"'"'s text is an OPTIONAL string to wasm-connect'"'"'s transformations (transforms/src/data: the plugin kind carries no optionality); Kafka'"'"'s FileStreamSource declares a required STRING, so HoistField nests a required field there
4 | inner.line | the same optional line, as Avro: ["null","string"] with default null against "string"
5 | label | Kafka Connect'"'"'s JsonConverter, reading the envelope line, gives the null of a field with a default as its default ("dflt"), before anything is written as Avro
'

WORK="" STARTED_BROKER="" BOOTSTRAP="" RUN="" REGISTRY_STATE="" WC_PID="" KC_PID=""

cleanup() {
    local rc=$? pids=()
    trap - EXIT INT TERM
    [[ -n "$WC_PID" ]] && pids+=("$WC_PID")
    [[ -n "$KC_PID" ]] && pids+=("$KC_PID")
    stop_worker "${pids[@]}"
    [[ -n "$REGISTRY_STATE" ]] && SCHEMA_REGISTRY_STATE_DIR="$REGISTRY_STATE" "$ROOT/scripts/schema-registry.sh" stop || true
    if [[ -n "$STARTED_BROKER" ]]; then
        KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" stop >/dev/null || true
    elif [[ -n "$RUN" && -n "$BOOTSTRAP" ]]; then
        # A broker we did not start keeps running: drop this run's topics from it.
        # (timeout runs programs, not shell functions: call kafka.sh itself.)
        KAFKA_PORT="$KAFKA_PORT" timeout 60 "$ROOT/scripts/kafka.sh" run org.apache.kafka.tools.TopicCommand \
            --bootstrap-server "$BOOTSTRAP" --delete --topic "compare-registry-$RUN-.*" >/dev/null 2>&1 || true
    fi
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${COMPARE_KEEP:-}" != 1 ]]; then
            rm -rf -- "$WORK"
        else
            echo "work dir kept: $WORK (*.log, out/)" >&2
        fi
    fi
    exit "$rc"
}

start_registry() {
    REGISTRY_STATE="$WORK/registry"
    local env
    env="$(SCHEMA_REGISTRY_STATE_DIR="$REGISTRY_STATE" "$ROOT/scripts/schema-registry.sh" start)"
    eval "$env"
    CCOMPAT_URL="$SCHEMA_REGISTRY_URL"
    APICURIO_URL="${SCHEMA_REGISTRY_URL%/apis/ccompat/v7}/apis/registry/v2"
}

start_broker() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then BOOTSTRAP="$KAFKA_BOOTSTRAP"; return 0; fi
    BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
    if KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" status >/dev/null 2>&1; then
        echo "using the running broker on $BOOTSTRAP" >&2
        return 0
    fi
    KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" start >&2
    STARTED_BROKER=1
}

# put SIDE NAME JSON: creates (or updates) connector NAME on SIDE (wc or kc).
put() {
    local port="$WC_REST_PORT" code
    [[ "$1" == kc ]] && port="$KC_REST_PORT"
    code="$(curl -s -o "$WORK/put-$2.body" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
        --data-binary "$3" --max-time 30 "http://127.0.0.1:$port/connectors/$2/config")" || code=000
    [[ "$code" == 20? ]] || die "$1: PUT /connectors/$2/config answered $code: $(head -c 600 "$WORK/put-$2.body")"
}

# The converter settings of each side, for keys and values, as JSON object members.
wc_avro() {
    local side
    for side in key value; do
        printf '"%s.converter":"%s","%s.converter.schema.registry.url":"%s",' "$side" "$WC_AVRO" "$side" "$CCOMPAT_URL"
    done | sed 's/,$//'
}
kc_avro() {
    local side p
    for side in key value; do
        p="$side.converter.apicurio.registry"
        printf '"%s.converter":"%s","%s.url":"%s","%s.auto-register":"true",' "$side" "$KC_AVRO" "$p" "$APICURIO_URL" "$p"
        printf '"%s.as-confluent":"true","%s.headers.enabled":"false","%s.use-id":"contentId",' "$p" "$p" "$p"
    done | sed 's/,$//'
}
FILE_SOURCE='"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","tasks.max":"1"'
FILE_SINK='"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","tasks.max":"1"'
# envelope MODE: the members of a transformation `env`, ConnectEnvelope in MODE.
envelope() { printf '"transforms.env.type":"wasmconnect.compare.ConnectEnvelope","transforms.env.mode":"%s"' "$1"; }
# key FIELDS: the members of a transformation `key`, Kafka's ValueToKey of FIELDS.
key() { printf '"transforms.key.type":"org.apache.kafka.connect.transforms.ValueToKey","transforms.key.fields":"%s"' "$1"; }

# The transformations that make wasm-connect's struct out of a text line (Kafka's own SMTs).
wc_chain() {
    local t='org.apache.kafka.connect.transforms' at='2026-12-07 01:02:03.456' fmt='yyyy-MM-dd HH:mm:ss.SSS'
    local names=(line nest) body=""
    body+="\"transforms.line.type\":\"$t.HoistField\$Value\",\"transforms.line.field\":\"line\","
    body+="\"transforms.nest.type\":\"$t.HoistField\$Value\",\"transforms.nest.field\":\"inner\","
    local f v
    for f in i8:-8 i16:-1600 i32:320000 i64:6400000000 f32:1.5 f64:-0.25 flag:true \
        day:"$at" clock:"$at" at:"$at" note:"two words, one comma"; do
        v="${f#*:}" f="${f%%:*}"
        names+=("$f")
        body+="\"transforms.$f.type\":\"$t.InsertField\$Value\",\"transforms.$f.static.field\":\"$f\",\"transforms.$f.static.value\":\"$v\","
    done
    names+=(meta cast key tday tclock tat name)
    body+="$(key i32,note),"
    # A source record has no Kafka partition yet: an optional field that stays null.
    body+="\"transforms.meta.type\":\"$t.InsertField\$Value\",\"transforms.meta.partition.field\":\"part\","
    body+="\"transforms.cast.type\":\"$t.Cast\$Value\",\"transforms.cast.spec\":\"i8:int8,i16:int16,i32:int32,i64:int64,f32:float32,f64:float64,flag:boolean\","
    for f in day:Date clock:Time at:Timestamp; do
        body+="\"transforms.t${f%%:*}.type\":\"$t.TimestampConverter\$Value\",\"transforms.t${f%%:*}.field\":\"${f%%:*}\","
        body+="\"transforms.t${f%%:*}.target.type\":\"${f#*:}\",\"transforms.t${f%%:*}.format\":\"$fmt\","
    done
    body+="\"transforms.name.type\":\"$t.SetSchemaMetadata\$Value\",\"transforms.name.schema.name\":\"compare.Generated\",\"transforms.name.schema.version\":\"3\","
    local IFS=,
    printf '%s"transforms":"%s"' "$body" "${names[*]}"
}

# await_lines FILE N: waits until FILE has N lines.
await_lines() {
    local deadline=$((SECONDS + WAIT_TIMEOUT))
    until [[ -f "$1" ]] && (($(wc -l <"$1") >= $2)); do
        ((SECONDS < deadline)) || die "$1 has $( [[ -f "$1" ]] && wc -l <"$1" || echo 0) of $2 lines after ${WAIT_TIMEOUT}s (logs in $WORK)"
        sleep 0.5
    done
}

main() {
    case "${1:-}" in
        fetch) fetch_jars; fetch_apicurio; return 0 ;;
        "") ;;
        *) echo "usage: $0 [fetch]" >&2; exit 2 ;;
    esac
    need "$JAVA" "Java 17+ runs Kafka Connect"
    need javac "compiles scripts/lib/ConnectEnvelope.java"
    need jar "packs ConnectEnvelope"
    need curl "connectors are created over REST"
    need python3 "scripts/compare-registry-values.py compares the records"
    need flock "util-linux"
    ensure_jq
    [[ -x "$WASM_CONNECT_BIN" ]] || die "no wasm-connect binary at $WASM_CONNECT_BIN (cargo build --release, or set WASM_CONNECT_BIN)"
    [[ -f "$WASM_CONNECT_PLUGINS/file-source.wasm" && -f "$WASM_CONNECT_PLUGINS/file-sink.wasm" ]] \
        || die "no file-source.wasm / file-sink.wasm in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh builds them)"
    for p in "$WC_REST_PORT" "$KC_REST_PORT"; do
        port_open "$p" && die "127.0.0.1:$p is in use (set WC_REST_PORT / KC_REST_PORT)"
    done
    fetch_jars
    fetch_apicurio

    WORK="$(mktemp -d "${TMPDIR:-/tmp}/compare-registry.XXXXXX")"
    RUN="$(date +%s)-$$"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    local out="$WORK/out" t1="compare-registry-$RUN-kc-wrote" t2="compare-registry-$RUN-wc-wrote" t3="compare-registry-$RUN-kc-chain"
    mkdir -p "$out"
    kc_plugins
    python3 "$ROOT/scripts/lib/compare-registry-records.py" "$WORK/envelopes.jsonl"
    printf '%s\n' "first line" "second, with a comma" "ünïcode ✓" >"$WORK/lines.txt"
    local n1 n2
    n1="$(wc -l <"$WORK/envelopes.jsonl")" n2="$(wc -l <"$WORK/lines.txt")"

    start_broker
    start_registry
    echo "broker $BOOTSTRAP; registry $CCOMPAT_URL; Kafka Connect $CONNECT_VERSION on :$KC_REST_PORT, wasm-connect on :$WC_REST_PORT" >&2
    { connect_properties "compare-registry-$RUN-kc" "$KC_REST_PORT" "$BOOTSTRAP"
      echo "plugin.path=$WORK/kc-plugins"; echo "plugin.discovery=hybrid_warn"; } >"$WORK/kc.properties"
    # The shared broker may not create topics on first use: create both while the workers start.
    { kafka_topics --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$t1" --partitions 1 --replication-factor 1 &&
      kafka_topics --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$t2" --partitions 1 --replication-factor 1 &&
      kafka_topics --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$t3" --partitions 1 --replication-factor 1; } >"$WORK/topics.log" 2>&1 &
    local topics_pid=$!
    start_kafka_connect "$WORK/kc.properties" "$WORK/kc.log"
    KC_PID=$STARTED_PID
    { connect_properties "compare-registry-$RUN-wc" "$WC_REST_PORT" "$BOOTSTRAP"
      echo "plugin.path=$WASM_CONNECT_PLUGINS"; } >"$WORK/wc.properties"
    start_wasm_connect "$WASM_CONNECT_BIN" "$WORK/wc.properties" "$WORK/wc.log"
    WC_PID=$STARTED_PID
    echo "waiting for both workers to serve /connectors ..." >&2
    await_worker "http://127.0.0.1:$WC_REST_PORT" "$WC_PID" "$WORK/wc.log" "$START_TIMEOUT"
    await_worker "http://127.0.0.1:$KC_REST_PORT" "$KC_PID" "$WORK/kc.log" "$START_TIMEOUT"
    wait "$topics_pid" || { cat "$WORK/topics.log" >&2; die "could not create the topics $t1, $t2 and $t3"; }

    echo "1. Kafka Connect writes $n1 records to $t1; both read them" >&2
    put kc kc-source "{$FILE_SOURCE,\"file\":\"$WORK/envelopes.jsonl\",\"topic\":\"$t1\",$(kc_avro),\"transforms\":\"env,key\",$(envelope parse),$(key i32,text)}"
    put kc kc-sink-1 "{$FILE_SINK,\"file\":\"$out/1-there.txt\",\"topics\":\"$t1\",$(kc_avro),\"transforms\":\"env\",$(envelope format)}"
    put wc wc-sink-1 "{$FILE_SINK,\"file\":\"$out/1-here.txt\",\"topics\":\"$t1\",$(wc_avro)}"
    echo "2. wasm-connect writes $n2 records to $t2; both read them" >&2
    put wc wc-source "{$FILE_SOURCE,\"file\":\"$WORK/lines.txt\",\"topic\":\"$t2\",$(wc_avro),$(wc_chain)}"
    put kc kc-sink-2 "{$FILE_SINK,\"file\":\"$out/2-there.txt\",\"topics\":\"$t2\",$(kc_avro),\"transforms\":\"env\",$(envelope format)}"
    put wc wc-sink-2 "{$FILE_SINK,\"file\":\"$out/2-here.txt\",\"topics\":\"$t2\",$(wc_avro)}"
    echo "3. Kafka Connect writes the same $n2 lines through the same transformations to $t3" >&2
    put kc kc-source-3 "{$FILE_SOURCE,\"file\":\"$WORK/lines.txt\",\"topic\":\"$t3\",$(kc_avro),$(wc_chain)}"
    put kc kc-sink-3 "{$FILE_SINK,\"file\":\"$out/3-there.txt\",\"topics\":\"$t3\",$(kc_avro),\"transforms\":\"env\",$(envelope format)}"

    echo "waiting for the records in the four sink files (up to ${WAIT_TIMEOUT}s each) ..." >&2
    await_lines "$out/1-there.txt" "$n1"
    await_lines "$out/1-here.txt" "$n1"
    await_lines "$out/2-there.txt" "$n2"
    await_lines "$out/2-here.txt" "$n2"
    await_lines "$out/3-there.txt" "$n2"
    # The Avro schemas each converter registered for the same Connect schema (2. and 3.),
    # and Apicurio's for 1. (kept in the work dir with COMPARE_KEEP=1).
    local t side
    for t in "$t1" "$t2" "$t3"; do
        for side in key value; do
            curl -fsS --max-time 30 "$CCOMPAT_URL/subjects/$t-$side/versions/latest" | jq -c '.schema | fromjson' \
                >"$out/schema-$t-$side.json" || die "no schema registered under $t-$side"
        done
    done

    printf '%s\n' "$KNOWN" >"$WORK/known.txt"
    local markdown=()
    [[ "${COMPARE_MARKDOWN:-}" == 1 ]] && markdown=(--markdown)
    python3 "$ROOT/scripts/compare-registry-values.py" "${markdown[@]}" --known "$WORK/known.txt" \
        "Kafka Connect + Apicurio's AvroConverter wrote, both read" "$out/1-here.txt" "$out/1-there.txt" \
        "wasm-connect's AvroConverter wrote, both read" "$out/2-here.txt" "$out/2-there.txt" \
        "the lines of 2. through the same transformations in each worker, read by Kafka Connect: here = wasm-connect wrote, there = Kafka Connect wrote" \
        "$out/2-there.txt" "$out/3-there.txt" \
        "the Avro value schema each converter registered for 2. and 3." "$out/schema-$t2-value.json" "$out/schema-$t3-value.json" \
        "the records of 1. as sent (there: the envelope lines Kafka Connect's source read) and as wasm-connect read them from Avro (here)" \
        "$out/1-here.txt" "$WORK/envelopes.jsonl" \
        "the Avro key schema each converter registered for 2. and 3." "$out/schema-$t2-key.json" "$out/schema-$t3-key.json"
}

main "$@"
