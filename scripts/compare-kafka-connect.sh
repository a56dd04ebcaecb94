#!/usr/bin/env bash
# Side by side: runs one list of REST scenarios against a wasm-connect worker and an Apache
# Kafka Connect 4.3.1 worker, both in distributed mode on the same broker, and compares the
# answers: the status code and the body's shape (JSON types and key sets, recursively, plus
# the values of enumerations such as `state` and `type`; see scripts/compare-shapes.py).
#
#   scripts/compare-kafka-connect.sh         run the scenarios, print the table and a summary
#   scripts/compare-kafka-connect.sh fetch   only download the Kafka Connect jars
#
# Prints one row per scenario (here = wasm-connect, there = Kafka Connect) and ends with
# `N scenarios, N same, N deliberate, N different`. Differences listed in DELIBERATE below
# print as deliberate and do not count; the exit status is 1 when any other remains. A
# report with both bodies of every differing scenario is written to the work dir (kept when
# something differs, or with COMPARE_KEEP=1).
#
# Kafka Connect's jars (connect-runtime, connect-file, connect-json, connect-test-plugins
# 4.3.1 and their dependencies) come from Maven Central through `mvn
# dependency:copy-dependencies` and are cached in $CONNECT_HOME_CACHE, so only the first run
# downloads. Connect stays at 4.3.1 (Maven Central serves no 4.4 file connectors, and the
# 4.3 ones do not run on the 4.4 runtime); the broker is scripts/kafka.sh's. The fetch and the
# worker start-up live in scripts/lib/connect.sh, shared with scripts/bench-vs-kafka-connect.sh.
# Needs java (17+), mvn (first run), curl, jq and python3.
#
# Environment:
#   KAFKA_BOOTSTRAP       use this broker instead of starting one with scripts/kafka.sh
#   KAFKA_PORT            port of the scripts/kafka.sh broker to start or reuse (default 9092);
#                         a broker this script started is stopped on exit
#   WASM_CONNECT_BIN      the worker binary (default $CARGO_TARGET_DIR/release/wasm-connect,
#                         CARGO_TARGET_DIR defaulting to target/)
#   WASM_CONNECT_PLUGINS  plugin.path of the wasm-connect worker (default build/plugins, built
#                         by scripts/build-guests.sh)
#   WC_REST_PORT, KC_REST_PORT   loopback REST ports (default 18084 and 18083)
#   CONNECT_VERSION       Kafka Connect version (default 4.3.1)
#   CONNECT_HOME_CACHE    jar cache (default ~/.cache/wasm-connect/connect-$CONNECT_VERSION)
#   COMPARE_START_TIMEOUT seconds to wait for each worker to serve /connectors (default 120)
#   COMPARE_WAIT_TIMEOUT  seconds to wait for a connector state between steps (default 20)
#   COMPARE_KEEP          1: keep the work dir (configs, logs, bodies, report) on success too
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=compare-kafka-connect.sh
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
KAFKA_PORT="${KAFKA_PORT:-9092}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
WC_REST_PORT="${WC_REST_PORT:-18084}"
KC_REST_PORT="${KC_REST_PORT:-18083}"
START_TIMEOUT="${COMPARE_START_TIMEOUT:-120}"
WAIT_TIMEOUT="${COMPARE_WAIT_TIMEOUT:-20}"
SIDES=(wc kc)

# Differences that are on purpose: `scenario-glob | path-glob | reason`, one per line. The
# path is `status` for the status code, else the body path the table shows.
DELIBERATE='
create-malformed | status | a body that is not JSON is the client'"'"'s error: 400 here; Kafka Connect answers 500 (its exception mapper sees no ConnectException)
offsets-alter-bad | status | an offsets body without a required field is the client'"'"'s error: 400 here; Kafka Connect answers 500 ("Partition objects cannot be null")
validate-unknown | status | Kafka Connect throws a BadRequestException (400) but wraps it into a 500; here the 400 it means, with its message
plugins-all | [].type | the converters, header converters, transformations and predicates listed here are fewer than Kafka Connect'"'"'s (its numeric converters among those not built in)
plugin-config* | [].type | this worker'"'"'s own retry and restart keys (task.reconfiguration.*, restart.*) are DOUBLE, and the keys Kafka Connect defines that this worker does not (its *.plugin.version keys) are absent
validate-* | configs[].definition.type | the same keys as plugin-config, seen through validate
validate-* | configs[].value.recommended_values | Kafka Connect also recommends plugin versions for its *.plugin.version keys, which this worker does not define
tasks | [].config.batch.size | a connector starts with its declared defaults filled in, so the file source'"'"'s task config carries batch.size
'

# --- processes -----------------------------------------------------------------------------

WORK="" STARTED_BROKER="" BOOTSTRAP="" RUN="" TOPIC=""
declare -A PID=()

cleanup() {
    local rc=$? side pids=()
    trap - EXIT INT TERM
    for side in "${SIDES[@]}"; do
        [[ -n "${PID[$side]:-}" ]] && pids+=("${PID[$side]}")
    done
    stop_worker "${pids[@]}"
    if [[ -n "$STARTED_BROKER" ]]; then
        KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" stop >/dev/null || true
    elif [[ -n "$RUN" && -n "$BOOTSTRAP" ]]; then
        # A broker we did not start keeps running: drop this run's topics from it.
        timeout 60 kafka_topics --bootstrap-server "$BOOTSTRAP" --delete --topic "compare-$RUN-.*" >/dev/null 2>&1 || true
    fi
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${COMPARE_KEEP:-}" != 1 ]]; then
            rm -rf -- "$WORK"
        else
            echo "work dir kept: $WORK (report.md, *.log, results/)" >&2
        fi
    fi
    exit "$rc"
}

start_broker() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        BOOTSTRAP="$KAFKA_BOOTSTRAP"
        return 0
    fi
    BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
    if KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" status >/dev/null 2>&1; then
        echo "using the running broker on $BOOTSTRAP" >&2
        return 0
    fi
    KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" start >&2
    STARTED_BROKER=1
}

create_topic() {
    kafka_topics --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$1" \
        --partitions 1 --replication-factor 1 >"$WORK/topic.log" 2>&1
}

start_kafka_connect_side() {
    {
        connect_properties "compare-$RUN-kc" "$KC_REST_PORT" "$BOOTSTRAP"
        # connect-file and connect-test-plugins are on the classpath, found by service loading.
        echo "plugin.discovery=hybrid_warn"
    } >"$WORK/kc.properties"
    start_kafka_connect "$WORK/kc.properties" "$WORK/kc.log"
    PID[kc]=$STARTED_PID
}

start_wasm_connect_side() {
    {
        connect_properties "compare-$RUN-wc" "$WC_REST_PORT" "$BOOTSTRAP"
        echo "plugin.path=$WASM_CONNECT_PLUGINS"
    } >"$WORK/wc.properties"
    start_wasm_connect "$WASM_CONNECT_BIN" "$WORK/wc.properties" "$WORK/wc.log"
    PID[wc]=$STARTED_PID
}

base_url() { if [[ "$1" == wc ]]; then echo "http://127.0.0.1:$WC_REST_PORT"; else echo "http://127.0.0.1:$KC_REST_PORT"; fi; }

await_ready() { await_worker "$(base_url "$1")" "${PID[$1]}" "$WORK/$1.log" "$START_TIMEOUT"; }

# --- scenarios -----------------------------------------------------------------------------

# The per-side values in paths and bodies: @DIR@ the side's file dir, @SIDE@ its tag (it
# makes sink names, hence their consumer groups connect-NAME, unique on the shared broker),
# @TOPIC@ the data topic both sides share.
subst() {
    local side="$1" s="$2"
    s="${s//@DIR@/$WORK/files-$side}"
    s="${s//@SIDE@/$side}"
    s="${s//@TOPIC@/$TOPIC}"
    printf '%s' "$s"
}

# call SIDE METHOD PATH BODY OUT: one request; the status code to OUT.code, the body to OUT.body.
call() {
    local side="$1" method="$2" path body code
    path="$(subst "$side" "$3")"
    body="$(subst "$side" "$4")"
    local args=(-s -o "$5.body" -w '%{http_code}' -X "$method" --max-time 30)
    [[ -n "$body" ]] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    code="$(curl "${args[@]}" "$(base_url "$side")$path")" || code=000
    echo "$code" >"$5.code"
}

# req NAME METHOD PATH [BODY [MAPS]]: one scenario, asked of both workers. MAPS is a comma
# list of body paths whose objects have data-dependent keys (e.g. `body` for loggers).
req() {
    local name="$1" method="$2" path="$3" body="${4:-}" maps="${5:-}" side
    printf '%s\t%s\t%s\t%s\n' "$name" "$method" "$path" "$maps" >>"$RES/scenarios.tsv"
    for side in "${SIDES[@]}"; do call "$side" "$method" "$path" "$body" "$RES/$name.$side"; done
}

# await NAME PATH JQ: a wait between steps, itself a scenario (ok or timeout on each side;
# the bodies it polls are compared by the scenarios that follow, not here): polls GET PATH
# until the jq expression holds for {code, body} (body null if not JSON).
await() {
    local name="wait-$1" path="$2" expr="$3" side deadline out
    printf '%s\tWAIT\t%s\t\n' "$name" "$path" >>"$RES/scenarios.tsv"
    for side in "${SIDES[@]}"; do
        out="$RES/$name.$side"
        deadline=$((SECONDS + WAIT_TIMEOUT))
        while :; do
            call "$side" GET "$path" "" "$out"
            if jq -en --arg code "$(<"$out.code")" --rawfile raw "$out.body" \
                "{code: (\$code | tonumber? // 0), body: (\$raw | fromjson? // null)} | $expr" >/dev/null 2>&1; then
                echo ok >"$out.code"
                break
            fi
            if ((SECONDS >= deadline)); then
                echo "  $side: $name timed out after ${WAIT_TIMEOUT}s (last: $(<"$out.code") $(head -c 300 "$out.body"))" >&2
                echo timeout >"$out.code"
                break
            fi
            sleep 0.25
        done
    done
}

RUNNING='.body.connector.state == "RUNNING" and (.body.tasks | length) > 0 and all(.body.tasks[]; .state == "RUNNING")'

run_scenarios() {
    local src sink srcfile sinkfile bad
    src='/connectors/file-source'
    sink='/connectors/file-sink-@SIDE@'
    srcfile='"file":"@DIR@/input.txt","topic":"@TOPIC@"'
    sinkfile='"file":"@DIR@/output.txt","topics":"@TOPIC@"'
    local SRC_CLASS='"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector"'
    local SINK_CLASS='"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector"'
    local SRC_CONFIG="{$SRC_CLASS,\"tasks.max\":\"1\",$srcfile}"
    local SINK_CONFIG="{$SINK_CLASS,\"tasks.max\":\"1\",$sinkfile}"

    req root GET /
    req plugins GET /connector-plugins
    req plugins-all GET '/connector-plugins?connectorsOnly=false'
    req plugins-slash GET /connector-plugins/
    req plugin-config GET /connector-plugins/org.apache.kafka.connect.file.FileStreamSourceConnector/config
    req plugin-config-alias GET /connector-plugins/FileStreamSink/config
    req plugin-config-unknown GET /connector-plugins/com.example.NoSuchConnector/config
    req validate-good PUT /connector-plugins/FileStreamSourceConnector/config/validate \
        "{\"name\":\"file-source\",${SRC_CONFIG:1}"
    # Invalid: tasks.max is no number, topic is missing.
    bad="{$SRC_CLASS,\"tasks.max\":\"many\",\"file\":\"@DIR@/input.txt\"}"
    req validate-bad PUT /connector-plugins/FileStreamSourceConnector/config/validate \
        "{\"name\":\"invalid\",${bad:1}"
    req validate-class-mismatch PUT /connector-plugins/FileStreamSinkConnector/config/validate "$SRC_CONFIG"
    req validate-unknown PUT /connector-plugins/com.example.NoSuchConnector/config/validate \
        '{"connector.class":"com.example.NoSuchConnector"}'

    req list-empty GET /connectors
    req create POST /connectors "{\"name\":\"file-source\",\"config\":$SRC_CONFIG}"
    req create-duplicate POST /connectors "{\"name\":\"file-source\",\"config\":$SRC_CONFIG}"
    req create-malformed POST /connectors '{"name": "broken", "config": {'
    req create-no-name POST /connectors "{\"config\":$SRC_CONFIG}"
    req create-invalid POST /connectors "{\"name\":\"invalid\",\"config\":$bad}"
    req create-sink POST /connectors "{\"name\":\"file-sink-@SIDE@\",\"config\":$SINK_CONFIG}"
    await source-running "$src/status" "$RUNNING"
    await sink-running "$sink/status" "$RUNNING"

    req list GET /connectors
    req list-slash GET /connectors/
    req list-expand-status GET '/connectors?expand=status'
    req list-expand-info GET '/connectors?expand=info'
    req list-expand-both GET '/connectors?expand=status&expand=info'
    req info GET "$src"
    req info-slash GET "$src/"
    req status GET "$src/status"
    req status-sink GET "$sink/status"
    req tasks GET "$src/tasks"
    req task-status GET "$src/tasks/0/status"
    req task-status-unknown GET "$src/tasks/7/status"
    await source-topics "$src/topics" '.code == 200 and ([.body[]?.topics[]?] | length) > 0'
    req topics GET "$src/topics"
    req topics-reset PUT "$src/topics/reset"

    req restart POST "$src/restart"
    await restart "$src/status" "$RUNNING"
    req restart-include-tasks POST "$src/restart?includeTasks=true"
    await restart-include-tasks "$src/status" "$RUNNING"
    req restart-only-failed POST "$src/restart?onlyFailed=true"
    await restart-only-failed "$src/status" "$RUNNING"
    req restart-both POST "$src/restart?includeTasks=true&onlyFailed=true"
    await restart-both "$src/status" "$RUNNING"
    req task-restart POST "$src/tasks/0/restart"
    await task-restart "$src/status" "$RUNNING"
    req task-restart-unknown POST "$src/tasks/7/restart"

    req pause PUT "$src/pause"
    await paused "$src/status" '.body.connector.state == "PAUSED" and all(.body.tasks[]; .state == "PAUSED")'
    req status-paused GET "$src/status"
    req resume PUT "$src/resume"
    await resumed "$src/status" "$RUNNING"

    req config-get GET "$src/config"
    req config-put PUT "$src/config" "{$SRC_CLASS,\"tasks.max\":\"1\",$srcfile,\"batch.size\":\"500\"}"
    await config-put "$src/status" "$RUNNING"
    req config-put-invalid PUT "$src/config" "$bad"
    req config-put-new PUT /connectors/file-source-2/config "{$SRC_CLASS,\"tasks.max\":\"1\",\"file\":\"@DIR@/input-2.txt\",\"topic\":\"@TOPIC@\"}"
    req config-patch PATCH "$src/config" '{"batch.size":"100"}'
    await config-patch "$src/status" "$RUNNING"
    req config-after-patch GET "$src/config"

    await source-offsets "$src/offsets" '.code == 200 and (.body.offsets | length) > 0'
    req offsets-get GET "$src/offsets"
    await sink-offsets "$sink/offsets" '.code == 200 and (.body.offsets | length) > 0'
    req offsets-get-sink GET "$sink/offsets"
    req offsets-alter-running PATCH "$src/offsets" \
        '{"offsets":[{"partition":{"filename":"@DIR@/input.txt"},"offset":{"position":5}}]}'
    req stop PUT "$src/stop"
    req stop-sink PUT "$sink/stop"
    await stopped "$src/status" '.body.connector.state == "STOPPED" and (.body.tasks | length) == 0'
    await sink-stopped "$sink/status" '.body.connector.state == "STOPPED" and (.body.tasks | length) == 0'
    req status-stopped GET "$src/status"
    req tasks-stopped GET "$src/tasks"
    req offsets-get-stopped GET "$src/offsets"
    req offsets-alter PATCH "$src/offsets" \
        '{"offsets":[{"partition":{"filename":"@DIR@/input.txt"},"offset":{"position":5}}]}'
    req offsets-alter-bad PATCH "$src/offsets" '{"offsets":[{"offset":{"position":5}}]}'
    req offsets-alter-sink PATCH "$sink/offsets" \
        '{"offsets":[{"partition":{"kafka_topic":"@TOPIC@","kafka_partition":0},"offset":{"kafka_offset":1}}]}'
    req offsets-reset DELETE "$src/offsets"
    req offsets-reset-sink DELETE "$sink/offsets"
    req offsets-after-reset GET "$src/offsets"
    req resume-stopped PUT "$src/resume"
    await resumed-stopped "$src/status" "$RUNNING"

    req loggers GET /admin/loggers '' body
    req logger-root GET /admin/loggers/root
    req logger-unknown GET /admin/loggers/com.example.never.configured
    req logger-put PUT /admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask '{"level":"DEBUG"}'
    req logger-get GET /admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask
    req logger-put-bad-level PUT /admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask '{"level":"LOUD"}'
    req logger-put-no-level PUT /admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask '{}'
    req logger-put-cluster PUT '/admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask?scope=cluster' '{"level":"INFO"}'

    req unknown-info GET /connectors/no-such-connector
    req unknown-info-slash GET /connectors/no-such-connector/
    req unknown-status GET /connectors/no-such-connector/status
    req unknown-config GET /connectors/no-such-connector/config
    req unknown-tasks GET /connectors/no-such-connector/tasks
    req unknown-topics GET /connectors/no-such-connector/topics
    req unknown-offsets GET /connectors/no-such-connector/offsets
    req unknown-pause PUT /connectors/no-such-connector/pause
    req unknown-resume PUT /connectors/no-such-connector/resume
    req unknown-stop PUT /connectors/no-such-connector/stop
    req unknown-restart POST /connectors/no-such-connector/restart
    req unknown-patch PATCH /connectors/no-such-connector/config '{"batch.size":"1"}'
    req unknown-delete DELETE /connectors/no-such-connector

    req delete DELETE "$src"
    req delete-sink DELETE "$sink"
    req delete-2 DELETE /connectors/file-source-2
    await deleted "$src" '.code == 404'
    req info-deleted GET "$src"
    await all-deleted /connectors '.code == 200 and (.body | length) == 0'
    req list-after-delete GET /connectors
}

main() {
    case "${1:-}" in
        fetch) fetch_jars; return 0 ;;
        "") ;;
        *) echo "usage: $0 [fetch]" >&2; exit 2 ;;
    esac
    need "$JAVA" "Java 17+ runs Kafka Connect"
    need curl "the scenarios are HTTP requests"
    need python3 "scripts/compare-shapes.py compares the bodies"
    need flock "util-linux"
    ensure_jq
    [[ -x "$WASM_CONNECT_BIN" ]] || die "no wasm-connect binary at $WASM_CONNECT_BIN (cargo build --release, or set WASM_CONNECT_BIN)"
    compgen -G "$WASM_CONNECT_PLUGINS/*.wasm" >/dev/null \
        || die "no plugins in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh builds them)"
    for p in "$WC_REST_PORT" "$KC_REST_PORT"; do
        port_open "$p" && die "127.0.0.1:$p is in use (set WC_REST_PORT / KC_REST_PORT)"
    done
    fetch_jars

    WORK="$(mktemp -d "${TMPDIR:-/tmp}/compare-kafka-connect.XXXXXX")"
    RES="$WORK/results"
    RUN="$(date +%s)-$$"
    TOPIC="compare-$RUN-data"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    mkdir -p "$RES"
    for side in "${SIDES[@]}"; do
        mkdir -p "$WORK/files-$side"
        seq 1 200 | sed 's/^/line /' >"$WORK/files-$side/input.txt"
        seq 1 10 | sed 's/^/other line /' >"$WORK/files-$side/input-2.txt"
    done
    printf '%s\n' "$DELIBERATE" >"$WORK/deliberate.txt"

    start_broker
    echo "broker $BOOTSTRAP; Kafka Connect $CONNECT_VERSION on :$KC_REST_PORT, wasm-connect ($WASM_CONNECT_BIN) on :$WC_REST_PORT" >&2
    create_topic "$TOPIC" &
    local topic_pid=$!
    start_kafka_connect_side
    start_wasm_connect_side
    wait "$topic_pid" || { cat "$WORK/topic.log" >&2; die "could not create topic $TOPIC"; }
    await_ready wc
    await_ready kc
    echo "both workers serve /connectors; running the scenarios" >&2

    run_scenarios
    local rc=0
    python3 "$ROOT/scripts/compare-shapes.py" "$RES" "$WORK/deliberate.txt" "$WORK/report.md" || rc=$?
    ((rc == 0)) || echo "bodies of each differing scenario: $WORK/report.md" >&2
    return "$rc"
}

main "$@"
