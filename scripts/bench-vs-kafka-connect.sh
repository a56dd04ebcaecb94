#!/usr/bin/env bash
# Issue 18's table in one run: Apache Kafka Connect 4.3.1, the wasm-connect worker and native
# rdkafka clients doing the same work on the same broker, one after the other, and ONE table
#   measure | Kafka Connect | wasm-connect | native rdkafka | ratio | goal | met
# (ratio: wasm-connect / Kafka Connect for rates; Kafka Connect / wasm-connect for times and
# sizes, so > 1 is always "wasm-connect is better"; the goal column says which ratio it needs).
#
#   scripts/build-guests.sh && cargo build --release -p wasm-connect
#   scripts/bench-vs-kafka-connect.sh
#
# Rows (BENCH_ROWS picks them; default all but scale, which BENCH_SCALE=1 adds):
#   source    source → Kafka at 1 and 4 tasks, records/s: VerifiableSource (connect-test-plugins,
#             throughput -1, complete.record.data: ~90-byte JSON values) vs Datagen (value.size
#             $BENCH_VALUE_SIZE) vs a native idempotent acks=all producer (one per thread). All
#             three are timed the same way: the topic's end offsets, polled every 5 ms, from the
#             first record seen until N.
#   filesource  FileStreamSource → Kafka, 1 task, records/s: a file of $BENCH_FILE_LINES lines of
#             $BENCH_VALUE_SIZE bytes read into a 4-partition topic with StringConverter (null key,
#             the line as value): Kafka Connect's FileStreamSource (connect-file) vs
#             build/plugins/file-source.wasm (both batch.size 2000, their default) vs a native
#             program producing the file's lines with the worker's producer settings
#             (native_kafka produce-file). Timed as the source row: the topic's end offsets,
#             from the first record seen until every line.
#   sink      Kafka → FileStreamSink at 1 and 4 tasks, lines/s: a 4-partition topic pre-filled
#             with N lines; FileStreamSink vs build/plugins/file-sink.wasm vs a native consumer
#             appending the lines to a file (partitions split over threads); timed by the file's
#             line count, from the first line until N.
#   restart   POST /connectors/c/restart?includeTasks=true of an 8-task source connector,
#             $BENCH_RESTARTS times: median and p99 from the POST until GET status shows the
#             connector and all 8 tasks RUNNING again. A restart counts once the 202 body shows
#             RESTARTING and a status GET saw an instance not RUNNING. Each restart starts
#             BENCH_RESTART_SETTLE_MS (1000) after the previous one showed all RUNNING.
#   restartearly  the same restart, BENCH_RESTART_EARLY_MS (100) after the connector's tasks
#             first showed RUNNING: a fresh connector (the same config) is created for each of
#             the BENCH_RESTARTS restarts and deleted after it, so every restart meets tasks
#             (and producers) that have just started.
#   idle      process RSS and threads with 100 connectors x 1 task (Datagen at rate 1 vs
#             VerifiableSource at throughput 1), 10 s after all are RUNNING.
#   idlecpu   CPU of an idle worker: $BENCH_IDLECPU_TASKS (100) connectors x 1 FileStreamSource
#             task (org.apache.kafka.connect.file.FileStreamSourceConnector on both sides) reading
#             one empty file; % of one core (utime+stime of the worker process, /proc/PID/stat)
#             over $BENCH_IDLECPU_SECONDS (30) s, measured once all are RUNNING plus a 10 s
#             settle. 10,000 tasks on our side need a larger instance pool (a connector and a
#             task take a slot each): BENCH_WC_PROPS=wasm.pool.instances=20500.
#   restart100  what installing a plugin costs when it needs a restart: $BENCH_RESTART100_CONNECTORS
#             (100) connectors x 1 task (Datagen at rate 1 vs VerifiableSource at throughput 1)
#             all RUNNING; the worker is stopped gracefully (TERM, as an operator would) and
#             started again with the same group and internal topics: ms from the TERM until
#             the process exited, and until GET /connectors?expand=status shows every
#             connector and task RUNNING again (polled every 100 ms). Every connector of the
#             worker is down for that time.
#   coldstart from the start of a worker process until its REST API answers, until a
#             FileStreamSource created then runs, and (ours) until every plugin is loaded: Kafka
#             Connect with its jars, ours standalone with the README's plugin.path (the Rust,
#             Python and JavaScript examples, 92 MB) and an empty artifact cache.
#   scale     10,000 tasks on one worker (BENCH_SCALE_CONNECTORS x BENCH_SCALE_TASKS at 1
#             record/s): time until all RUNNING (or what a worker reached within
#             BENCH_SCALE_TIMEOUT), RSS, threads, and the p99 of GET /connectors?expand=status
#             meanwhile.
#   eos       exactly-once source delivery (KIP-618) beside the same sources without it, at 1
#             and 4 tasks, records/s a read_committed consumer counts (transaction markers and
#             aborted records left out), from the first committed record until
#             BENCH_EOS_RECORDS or for BENCH_EOS_TIMEOUT s at most (a cell marked * is the
#             rate over that time). Each side's baseline runs on its ordinary worker; then a
#             second worker with exactly.once.source.support=enabled (a fresh group and
#             internal topics) runs transaction.boundary=poll and interval
#             (transaction.boundary.interval.ms $BENCH_EOS_INTERVAL_MS). VerifiableSource
#             returns one record per poll, Datagen batch.size records (1000): our side also
#             runs its baseline and the poll boundary at batch.size=1 (BENCH_EOS_MATCHED=0
#             leaves them out). The relative cost rows are EOS rate / baseline rate. Our
#             standalone worker (embedded store, which Kafka Connect lacks) runs the same
#             three ways, counted by its records-produced metric (under exactly-once: records
#             committed).
#   languages the guest rates of `cargo bench --bench languages` beside their goals (needs
#             scripts/build-python-guests.sh and scripts/build-js-guests.sh; or give its output
#             in BENCH_LANGUAGES_OUTPUT).
# Both workers run in distributed mode with their own group and internal topics; each side is
# started, measured and stopped before the next. The native probes and baselines are
# host/examples/native_kafka.rs (built here when missing). Progress goes to stderr, the table
# to stdout; the work dir (configs, logs, per-row JSON) is kept with BENCH_KEEP=1 or a failure.
# Needs java 17+, mvn (first run: fetches the jars as scripts/compare-kafka-connect.sh does,
# see scripts/lib/connect.sh), curl, jq, a release build and scripts/build-guests.sh's plugins.
#
# Environment:
#   BENCH_RECORDS       records per throughput row (default 1000000)
#   BENCH_VALUE_SIZE    Datagen's and the native producer's value bytes (default 80)
#   BENCH_ROWS          rows to run (default "source filesource sink restart restartearly idle
#                       idlecpu restart100 coldstart languages")
#   BENCH_FILE_LINES    lines of the filesource row's file (default 3000000)
#   BENCH_RUNS          runs of each throughput row; cells show the median (and the range)
#   BENCH_RESTARTS      restarts timed (default 25); BENCH_RESTART_SETTLE_MS (1000),
#                       BENCH_RESTART_EARLY_MS (100)
#   BENCH_IDLE_CONNECTORS      connectors of the idle row (default 100)
#   BENCH_IDLECPU_TASKS (100), BENCH_IDLECPU_SECONDS (30): the idlecpu row's tasks and window
#   BENCH_RESTART100_CONNECTORS connectors of the restart100 row (default 100)
#   BENCH_SCALE=1, BENCH_SCALE_CONNECTORS (100), BENCH_SCALE_TASKS (100),
#   BENCH_SCALE_TIMEOUT (900 s per worker)
#   BENCH_SIDES         which to run (default "kc wc native")
#   BENCH_EOS_RECORDS (1000000), BENCH_EOS_TIMEOUT (60 s per run), BENCH_EOS_INTERVAL_MS
#   (1000), BENCH_EOS_MATCHED (1)
#   KAFKA_BOOTSTRAP     the broker (default 127.0.0.1:$KAFKA_PORT, KAFKA_PORT 9092: a running
#                       scripts/kafka.sh broker, or one this script starts and stops)
#   BENCH_WC_PROPS      extra wasm-connect worker properties, one per line
#   WASM_CONNECT_BIN, WASM_CONNECT_PLUGINS, NATIVE_KAFKA_BIN, WC_REST_PORT (18184),
#   KC_REST_PORT (18183), CONNECT_HEAP (Kafka Connect's -Xmx, default 2g here, as
#   connect-distributed.sh sets it), BENCH_CONNECT_JVM_OPTS (default: Kafka's production
#   options, CONNECT_PRODUCTION_JVM_OPTS in scripts/lib/connect.sh)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPT_NAME=bench-vs-kafka-connect.sh
CONNECT_HEAP="${CONNECT_HEAP:-2g}"
# shellcheck source=lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# Kafka Connect runs as bin/connect-distributed.sh runs it (G1, C2, its heap), never with the
# quick-start options the REST comparison uses.
CONNECT_JVM_OPTS="${BENCH_CONNECT_JVM_OPTS:-$CONNECT_PRODUCTION_JVM_OPTS}"

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM_CONNECT_BIN="${WASM_CONNECT_BIN:-$TARGET/release/wasm-connect}"
WASM_CONNECT_PLUGINS="${WASM_CONNECT_PLUGINS:-$ROOT/build/plugins}"
NATIVE_KAFKA_BIN="${NATIVE_KAFKA_BIN:-$TARGET/release/examples/native_kafka}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
WC_REST_PORT="${WC_REST_PORT:-18184}"
KC_REST_PORT="${KC_REST_PORT:-18183}"
N="${BENCH_RECORDS:-1000000}"
VALUE_SIZE="${BENCH_VALUE_SIZE:-80}"
ROWS="${BENCH_ROWS:-source filesource sink restart restartearly idle idlecpu restart100 coldstart languages}"
FILE_LINES="${BENCH_FILE_LINES:-3000000}"
[[ "${BENCH_SCALE:-}" == 1 ]] && ROWS+=" scale"
RUNS="${BENCH_RUNS:-1}"
RESTARTS="${BENCH_RESTARTS:-25}"
RESTART_SETTLE_MS="${BENCH_RESTART_SETTLE_MS:-1000}"
RESTART_EARLY_MS="${BENCH_RESTART_EARLY_MS:-100}"
IDLE_CONNECTORS="${BENCH_IDLE_CONNECTORS:-100}"
RESTART100_CONNECTORS="${BENCH_RESTART100_CONNECTORS:-100}"
IDLECPU_TASKS="${BENCH_IDLECPU_TASKS:-100}"
IDLECPU_SECONDS="${BENCH_IDLECPU_SECONDS:-30}"
SCALE_CONNECTORS="${BENCH_SCALE_CONNECTORS:-100}"
SCALE_TASKS="${BENCH_SCALE_TASKS:-100}"
SCALE_TIMEOUT="${BENCH_SCALE_TIMEOUT:-900}"
SIDES="${BENCH_SIDES:-kc wc native}"
EOS_N="${BENCH_EOS_RECORDS:-1000000}"
EOS_TIMEOUT="${BENCH_EOS_TIMEOUT:-60}"
EOS_INTERVAL_MS="${BENCH_EOS_INTERVAL_MS:-1000}"
EOS_MATCHED="${BENCH_EOS_MATCHED:-1}"

WORK="" RUN="" BOOTSTRAP="" STARTED_BROKER="" WORKER_PID="" SIDE=""
declare -A R=()   # R[row|side] = the cell

has_row() { [[ " $ROWS " == *" $1 "* ]]; }
has_side() { [[ " $SIDES " == *" $1 "* ]]; }
log() { echo "[$(date +%T)] $*" >&2; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    [[ -n "$WORKER_PID" ]] && stop_worker "$WORKER_PID"
    if [[ -n "$STARTED_BROKER" ]]; then
        KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" stop >/dev/null || true
    elif [[ -n "$RUN" ]]; then
        kafka_topics --bootstrap-server "$BOOTSTRAP" --delete --topic "bench-$RUN-.*" >/dev/null 2>&1 || true
    fi
    if [[ -n "$WORK" ]]; then
        if ((rc == 0)) && [[ "${BENCH_KEEP:-}" != 1 ]]; then rm -rf -- "$WORK"; else echo "work dir kept: $WORK" >&2; fi
    fi
    exit "$rc"
}

url() { if [[ "$SIDE" == wc || "$SIDE" == sa ]]; then echo "http://127.0.0.1:$WC_REST_PORT"; else echo "http://127.0.0.1:$KC_REST_PORT"; fi; }

# rest METHOD PATH [BODY]: one request to the current side; the body on stdout, fails on >= 400.
rest() {
    local args=(-sS --fail-with-body -X "$1" --max-time 60)
    [[ -n "${3:-}" ]] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    curl "${args[@]}" "$(url)$2"
}

create_topic() { kafka_topics --bootstrap-server "$BOOTSTRAP" --create --topic "$1" --partitions "$2" --replication-factor 1 >/dev/null; }

# The connector configs of each side: a fast source, a paced source (1 record/s per task),
# and the file sink.
source_config() {  # TOPIC TASKS [paced]
    if [[ "$SIDE" == kc ]]; then
        local tp=-1; [[ -n "${3:-}" ]] && tp=1
        echo "{\"connector.class\":\"org.apache.kafka.connect.tools.VerifiableSourceConnector\",\"tasks.max\":\"$2\",\"topic\":\"$1\",\"throughput\":\"$tp\",\"complete.record.data\":\"true\"}"
    elif [[ -n "${3:-}" ]]; then
        echo "{\"connector.class\":\"Datagen\",\"tasks.max\":\"$2\",\"topic\":\"$1\",\"rate\":\"1\",\"value.size\":\"$VALUE_SIZE\"}"
    else
        echo "{\"connector.class\":\"Datagen\",\"tasks.max\":\"$2\",\"topic\":\"$1\",\"records\":\"$N\",\"value.size\":\"$VALUE_SIZE\"}"
    fi
}
sink_config() {  # TOPIC TASKS FILE
    echo "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"tasks.max\":\"$2\",\"topics\":\"$1\",\"file\":\"$3\",\"key.converter\":\"org.apache.kafka.connect.storage.StringConverter\",\"value.converter\":\"org.apache.kafka.connect.storage.StringConverter\"}"
}

# The exactly-once rows' source: SOURCE_CONFIG of the fast source with N records, plus the
# transaction boundary (none: the worker's default) and Datagen's batch.size.
eos_config() {  # TOPIC TASKS [BOUNDARY] [BATCH]
    local extra=""
    [[ -n "${3:-}" ]] && extra+=",\"transaction.boundary\":\"$3\""
    [[ "${3:-}" == interval ]] && extra+=",\"transaction.boundary.interval.ms\":\"$EOS_INTERVAL_MS\""
    if [[ "$SIDE" == kc ]]; then
        echo "{\"connector.class\":\"org.apache.kafka.connect.tools.VerifiableSourceConnector\",\"tasks.max\":\"$2\",\"topic\":\"$1\",\"throughput\":\"-1\",\"complete.record.data\":\"true\"$extra}"
    else
        [[ -n "${4:-}" ]] && extra+=",\"batch.size\":\"$4\""
        echo "{\"connector.class\":\"Datagen\",\"tasks.max\":\"$2\",\"topic\":\"$1\",\"records\":\"$EOS_N\",\"value.size\":\"$VALUE_SIZE\"$extra}"
    fi
}

native() { "$NATIVE_KAFKA_BIN" "$@"; }

# start_side [eos]: the side's distributed worker; with eos, exactly.once.source.support=enabled
# on a group and internal topics of its own (enabled from their start).
start_side() {
    local tag="$SIDE${1:+-$1}" props
    props="$WORK/$tag.properties"
    log "starting $tag"
    if [[ "$SIDE" == kc ]]; then
        {
            connect_properties "bench-$RUN-$tag" "$KC_REST_PORT" "$BOOTSTRAP"
            echo "plugin.discovery=hybrid_warn"
            [[ -n "${1:-}" ]] && echo "exactly.once.source.support=enabled"
        } >"$props"
        # VerifiableSource prints a line per record and per commit on stdout: not kept.
        start_kafka_connect "$props" "$WORK/$tag.log" /dev/null
    else
        {
            connect_properties "bench-$RUN-$tag" "$WC_REST_PORT" "$BOOTSTRAP"
            echo "plugin.path=$WASM_CONNECT_PLUGINS"
            [[ -n "${1:-}" ]] && echo "exactly.once.source.support=enabled"
            # Extra worker properties, one per line (to try a setting).
            if [[ -n "${BENCH_WC_PROPS:-}" ]]; then printf '%s\n' "$BENCH_WC_PROPS"; fi
        } >"$props"
        start_wasm_connect "$WASM_CONNECT_BIN" "$props" "$WORK/$tag.log"
    fi
    WORKER_PID=$STARTED_PID
    await_worker "$(url)" "$WORKER_PID" "$WORK/$tag.log" 180
    log "$tag serves $(url)"
}

# start_standalone [eos]: our standalone worker on the embedded store (a fresh file).
start_standalone() {
    local tag="sa${1:+-$1}" props
    props="$WORK/$tag.properties"
    {
        echo "offset.storage.file.filename=$WORK/$tag.db"
        echo "plugin.path=$WASM_CONNECT_PLUGINS"
        echo "listeners=http://127.0.0.1:$WC_REST_PORT"
        echo "offset.flush.interval.ms=1000"
        printf '%s\n' key.converter=org.apache.kafka.connect.json.JsonConverter \
            value.converter=org.apache.kafka.connect.json.JsonConverter \
            key.converter.schemas.enable=false value.converter.schemas.enable=false
        [[ -n "${1:-}" ]] && echo "exactly.once.source.support=enabled"
        if [[ -n "${BENCH_WC_PROPS:-}" ]]; then printf '%s\n' "$BENCH_WC_PROPS"; fi
    } >"$props"
    log "starting $tag"
    setsid "$WASM_CONNECT_BIN" standalone "$props" >"$WORK/$tag.log" 2>&1 </dev/null &
    WORKER_PID=$!
    await_worker "$(url)" "$WORKER_PID" "$WORK/$tag.log" 180
}

stop_side() { stop_worker "$WORKER_PID"; WORKER_PID=""; }

# running_tasks: connectors RUNNING with all their tasks RUNNING, and RUNNING tasks in total.
running_counts() {
    rest GET '/connectors?expand=status' 2>/dev/null | jq -r '[.[] | .status] |
        "\([.[] | select(.connector.state == "RUNNING" and (.tasks | length) > 0 and all(.tasks[]; .state == "RUNNING"))] | length) \([.[].tasks[] | select(.state == "RUNNING")] | length)"' 2>/dev/null || echo "0 0"
}

await_running() {  # CONNECTORS TASKS TIMEOUT: 0 when reached
    local deadline=$((SECONDS + $3)) c t last=$SECONDS
    while :; do
        read -r c t < <(running_counts)
        ((c >= $1 && t >= $2)) && return 0
        ((SECONDS >= deadline)) && { log "  $c of $1 connectors and $t of $2 tasks RUNNING after $3 s"; return 1; }
        ((SECONDS - last >= 15)) && { log "  $c of $1 connectors, $t of $2 tasks RUNNING"; last=$SECONDS; }
        sleep 1
    done
}

proc_figures() {  # "RSS_MiB THREADS" of the worker process
    awk '/^VmRSS/ {rss = $2} /^Threads/ {th = $2} END {printf "%d %d\n", rss / 1024, th}' "/proc/$WORKER_PID/status"
}

# median_cell VALUES...: the median, and the range when there are several.
# median_cell RATE...: the median (and range) of the runs that produced a rate; "failed" when
# none did (a failed probe must never read as a rate of 0).
median_cell() {
    printf '%s\n' "$@" | grep -E '^[0-9]' | sort -n | awk '{v[NR] = $1} END {
        if (NR == 0) { printf "failed"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        if (NR > 1) printf "%d (%d-%d)", m, v[1], v[NR]; else printf "%d", m }'
}

# --- rows ---------------------------------------------------------------------------------

row_source() {
    local tasks run topic rates out
    for tasks in 1 4; do
        rates=()
        for ((run = 1; run <= RUNS; run++)); do
            topic="bench-$RUN-src-$SIDE-$tasks-$run"
            create_topic "$topic" 4
            log "source → Kafka, $tasks task(s), $SIDE, run $run: $N records"
            out="$WORK/source-$SIDE-$tasks-$run.json"
            native watch-topic --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$N" >"$out" &
            local watch=$!
            if [[ "$SIDE" == native ]]; then
                native produce --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$N" --value-size "$VALUE_SIZE" --threads "$tasks"
            else
                rest POST /connectors "{\"name\":\"src-$tasks-$run\",\"config\":$(source_config "$topic" "$tasks")}" >/dev/null
            fi
            wait "$watch" || true
            [[ "$SIDE" != native ]] && { rest DELETE "/connectors/src-$tasks-$run" >/dev/null || true; }
            rates+=("$(jq -r 'if .timeout then empty else .rate // empty end' "$out")")
            log "  ${rates[-1]:-failed} records/s"
        done
        R["source-$tasks|$SIDE"]="$(median_cell "${rates[@]}")"
    done
}

# The filesource row's file: FILE_LINES lines of VALUE_SIZE bytes (a number, then padding), written
# once per run of the script.
source_file() {
    SOURCE_FILE="$WORK/filesource-lines.txt"
    [[ -s "$SOURCE_FILE" ]] && return 0
    log "writing $FILE_LINES lines of $VALUE_SIZE bytes to $SOURCE_FILE"
    awk -v n="$FILE_LINES" -v size="$VALUE_SIZE" 'BEGIN {
        pad = ""; while (length(pad) < size) pad = pad "abcdefghijklmnopqrstuvwxyz0123456789"
        for (i = 0; i < n; i++) { head = sprintf("line %09d ", i); print head substr(pad, 1, size - length(head)) } }' >"$SOURCE_FILE"
}

filesource_config() {  # TOPIC FILE
    local class=FileStreamSource string=org.apache.kafka.connect.storage.StringConverter
    [[ "$SIDE" == kc ]] && class=org.apache.kafka.connect.file.FileStreamSourceConnector
    echo "{\"connector.class\":\"$class\",\"tasks.max\":\"1\",\"topic\":\"$1\",\"file\":\"$2\",\"key.converter\":\"$string\",\"value.converter\":\"$string\"}"
}

row_filesource() {
    local run topic rates=() out name
    source_file
    for ((run = 1; run <= RUNS; run++)); do
        topic="bench-$RUN-filesrc-$SIDE-$run" name="filesrc-$run"
        create_topic "$topic" 4
        log "FileStreamSource → Kafka, 1 task, $SIDE, run $run: $FILE_LINES lines"
        out="$WORK/filesource-$SIDE-$run.json"
        native watch-topic --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$FILE_LINES" >"$out" &
        local watch=$!
        if [[ "$SIDE" == native ]]; then
            native produce-file --bootstrap "$BOOTSTRAP" --topic "$topic" --file "$SOURCE_FILE"
        else
            rest POST /connectors "{\"name\":\"$name\",\"config\":$(filesource_config "$topic" "$SOURCE_FILE")}" >/dev/null
        fi
        wait "$watch" || true
        [[ "$SIDE" != native ]] && { rest DELETE "/connectors/$name" >/dev/null || true; }
        rates+=("$(jq -r 'if .timeout then empty else .rate // empty end' "$out")")
        log "  ${rates[-1]:-failed} records/s"
    done
    R["filesource|$SIDE"]="$(median_cell "${rates[@]}")"
}

# eos_run KEY TASKS [BOUNDARY] [BATCH]: RUNS runs of the exactly-once rows' source on the
# current worker, counted by a read_committed consumer (or, standalone, by the worker's
# records-produced metric); R[KEY|SIDE] gets the median, marked * when a run hit
# EOS_TIMEOUT (its rate is then over that time).
eos_run() {
    local key="$1" tasks="$2" boundary="${3:-}" batch="${4:-}" run topic name out rates=() mark=""
    for ((run = 1; run <= RUNS; run++)); do
        topic="bench-$RUN-$key-$SIDE-$tasks-$run" name="$key-$tasks-$run"
        out="$WORK/$key-$SIDE-$tasks-$run.json"
        log "$key, $tasks task(s), $SIDE${boundary:+, boundary $boundary}${batch:+, batch.size $batch}, run $run: $EOS_N records or ${EOS_TIMEOUT}s"
        if [[ "$SIDE" == sa ]]; then
            native watch-metric --url "$(url)/metrics" --name wasm_connect_source_records_produced_total \
                --connector "$name" --records "$EOS_N" --timeout "$EOS_TIMEOUT" >"$out" &
        else
            create_topic "$topic" 4
            native watch-committed --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$EOS_N" \
                --timeout "$EOS_TIMEOUT" >"$out" &
        fi
        local watch=$!
        rest POST /connectors "{\"name\":\"$name\",\"config\":$(eos_config "$topic" "$tasks" "$boundary" "$batch")}" >/dev/null
        wait "$watch" || true
        rest DELETE "/connectors/$name" >/dev/null || true
        rates+=("$(jq -r '.rate // empty' "$out")")
        if [[ "$(jq -r '.timeout // false' "$out")" == true ]]; then mark=" *"; fi
        log "  ${rates[-1]:-failed} records/s$mark"
    done
    R["$key-$tasks|$SIDE"]="$(median_cell "${rates[@]}")$mark"
}

# The exactly-once rows' baseline, on the side's ordinary worker.
row_eos_base() {
    local tasks
    for tasks in 1 4; do
        eos_run eos-base "$tasks"
        if [[ "$SIDE" == wc && "$EOS_MATCHED" == 1 ]]; then eos_run eos-base-b1 "$tasks" "" 1; fi
    done
}

# The exactly-once rows, on a worker with exactly-once enabled.
row_eos_txn() {
    local tasks
    for tasks in 1 4; do
        eos_run eos-poll "$tasks" poll
        if [[ "$SIDE" == wc && "$EOS_MATCHED" == 1 ]]; then eos_run eos-poll-b1 "$tasks" poll 1; fi
        eos_run eos-interval "$tasks" interval
    done
}

# Our standalone worker on the embedded store, without and with exactly-once (R[...|sa]).
row_eos_standalone() {
    local tasks
    SIDE=sa
    start_standalone
    for tasks in 1 4; do eos_run eos-base "$tasks"; done
    stop_side
    start_standalone eos
    for tasks in 1 4; do
        eos_run eos-poll "$tasks" poll
        eos_run eos-interval "$tasks" interval
    done
    stop_side
    SIDE=""
}

prefill_lines() {
    LINES_TOPIC="bench-$RUN-lines"
    create_topic "$LINES_TOPIC" 4
    log "pre-filling $LINES_TOPIC (4 partitions) with $N lines"
    native produce --bootstrap "$BOOTSTRAP" --topic "$LINES_TOPIC" --records "$N" --value-size "$VALUE_SIZE" --threads 1
}

row_sink() {
    local tasks run file rates out
    for tasks in 1 4; do
        rates=()
        for ((run = 1; run <= RUNS; run++)); do
            file="$WORK/sink-$SIDE-$tasks-$run.txt"
            out="$WORK/sink-$SIDE-$tasks-$run.json"
            log "Kafka → file, $tasks task(s), $SIDE, run $run: $N lines"
            native watch-file --file "$file" --records "$N" >"$out" &
            local watch=$!
            if [[ "$SIDE" == native ]]; then
                native consume-to-file --bootstrap "$BOOTSTRAP" --topic "$LINES_TOPIC" --records "$N" --file "$file" --threads "$tasks"
            else
                rest POST /connectors "{\"name\":\"bench-$RUN-sink-$SIDE-$tasks-$run\",\"config\":$(sink_config "$LINES_TOPIC" "$tasks" "$file")}" >/dev/null
            fi
            wait "$watch" || true
            [[ "$SIDE" != native ]] && { rest DELETE "/connectors/bench-$RUN-sink-$SIDE-$tasks-$run" >/dev/null || true; }
            rm -f "$file"
            rates+=("$(jq -r 'if .timeout then empty else .rate // empty end' "$out")")
            log "  ${rates[-1]:-failed} lines/s"
        done
        R["sink-$tasks|$SIDE"]="$(median_cell "${rates[@]}")"
    done
}

row_restart() {
    local topic="bench-$RUN-restart-$SIDE" out="$WORK/restart-$SIDE.json"
    create_topic "$topic" 1
    rest POST /connectors "{\"name\":\"restart\",\"config\":$(source_config "$topic" 8 paced)}" >/dev/null
    await_running 1 8 120 || { R["restart-median|$SIDE"]="not RUNNING"; return 0; }
    log "restart of an 8-task connector, $SIDE: $RESTARTS restarts"
    if native restart --url "$(url)" --connector restart --tasks 8 --count "$RESTARTS" \
        --settle-ms "$RESTART_SETTLE_MS" >"$out"; then
        R["restart-median|$SIDE"]="$(jq -r '.median_ms' "$out")"
        R["restart-p99|$SIDE"]="$(jq -r '.p99_ms' "$out")"
        log "  $(cat "$out")"
    else
        R["restart-median|$SIDE"]="failed"
    fi
    rest DELETE /connectors/restart >/dev/null || true
}

row_restartearly() {
    local topic="bench-$RUN-restartearly-$SIDE" out="$WORK/restartearly-$SIDE.json"
    create_topic "$topic" 1
    log "restart of a fresh 8-task connector ${RESTART_EARLY_MS} ms after its tasks first ran, $SIDE: $RESTARTS restarts"
    if native restart --url "$(url)" --connector early --tasks 8 --count "$RESTARTS" \
        --settle-ms "$RESTART_EARLY_MS" --fresh-config "$(source_config "$topic" 8 paced)" >"$out"; then
        R["restartearly-median|$SIDE"]="$(jq -r '.median_ms' "$out")"
        R["restartearly-p99|$SIDE"]="$(jq -r '.p99_ms' "$out")"
        log "  $(cat "$out")"
    else
        R["restartearly-median|$SIDE"]="failed"
    fi
}

row_idle() {
    local topic="bench-$RUN-idle-$SIDE" i rss th
    create_topic "$topic" 1
    log "idle: $IDLE_CONNECTORS connectors x 1 task, $SIDE"
    for ((i = 0; i < IDLE_CONNECTORS; i++)); do
        rest POST /connectors "{\"name\":\"idle-$i\",\"config\":$(source_config "$topic" 1 paced)}" >/dev/null
    done
    if await_running "$IDLE_CONNECTORS" "$IDLE_CONNECTORS" 300; then
        sleep 10
        read -r rss th < <(proc_figures)
        R["idle-rss|$SIDE"]="$rss"
        R["idle-threads|$SIDE"]="$th"
        log "  RSS $rss MiB, $th threads"
    else
        R["idle-rss|$SIDE"]="not RUNNING"
    fi
    for ((i = 0; i < IDLE_CONNECTORS; i++)); do rest DELETE "/connectors/idle-$i" >/dev/null || true; done
}

# cpu_ticks: utime + stime of the worker process, in clock ticks (fields 14 and 15 of
# /proc/PID/stat, counted after the command name, which may hold spaces).
cpu_ticks() { sed 's/^.*) //' "/proc/$WORKER_PID/stat" | awk '{print $12 + $13}'; }

row_idlecpu() {
    local n="$IDLECPU_TASKS" topic="bench-$RUN-idlecpu-$SIDE" file="$WORK/idlecpu-empty.txt" i t0 t1 cpu
    : >"$file"
    create_topic "$topic" 1
    log "idle CPU: $n connectors x 1 FileStreamSource task on an empty file, $SIDE"
    for ((i = 0; i < n; i++)); do
        rest POST /connectors "{\"name\":\"idlecpu-$i\",\"config\":{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSourceConnector\",\"tasks.max\":\"1\",\"topic\":\"$topic\",\"file\":\"$file\"}}" >/dev/null \
            || log "  creating idlecpu-$i failed"
    done
    if await_running "$n" "$n" $((300 + n / 10)); then
        sleep 10
        t0=$(cpu_ticks)
        sleep "$IDLECPU_SECONDS"
        t1=$(cpu_ticks)
        cpu="$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" -v s="$IDLECPU_SECONDS" \
            'BEGIN {printf "%.1f", 100 * (b - a) / hz / s}')"
        R["idlecpu|$SIDE"]="$cpu"
        log "  $cpu % of one core over $IDLECPU_SECONDS s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    else
        R["idlecpu|$SIDE"]="not RUNNING"
    fi
    for ((i = 0; i < n; i++)); do rest DELETE "/connectors/idlecpu-$i" >/dev/null || true; done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

row_restart100() {
    local topic="bench-$RUN-r100-$SIDE" n="$RESTART100_CONNECTORS" i t0 deadline c t
    create_topic "$topic" 1
    log "restart100: $n connectors x 1 task, $SIDE"
    for ((i = 0; i < n; i++)); do
        rest POST /connectors "{\"name\":\"r100-$i\",\"config\":$(source_config "$topic" 1 paced)}" >/dev/null
    done
    if ! await_running "$n" "$n" 300; then
        R["restart100-stop|$SIDE"]="not RUNNING"
        return 0
    fi
    sleep 5
    t0=$(now_ms)
    stop_side
    R["restart100-stop|$SIDE"]=$(($(now_ms) - t0))
    start_side
    deadline=$((SECONDS + 300))
    while :; do
        read -r c t < <(running_counts)
        ((c >= n && t >= n)) && break
        ((SECONDS >= deadline)) && { log "  $c of $n connectors, $t tasks RUNNING after 300 s"; break; }
        sleep 0.1
    done
    if ((c >= n && t >= n)); then
        R["restart100-back|$SIDE"]=$(($(now_ms) - t0))
    else
        R["restart100-back|$SIDE"]="not RUNNING"
    fi
    log "  stopped in ${R["restart100-stop|$SIDE"]} ms, all RUNNING again ${R["restart100-back|$SIDE"]} ms after the stop"
    for ((i = 0; i < n; i++)); do rest DELETE "/connectors/r100-$i" >/dev/null || true; done
}

# poll_ms URL PID SECONDS: waits until GET URL answers 200, polling every 20 ms; prints the
# ms since T0 (a global set by the caller), or "never" when the process exits or time is up.
poll_ms() {
    local deadline=$((SECONDS + $3))
    while :; do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$1" 2>/dev/null)" == 200 ]] \
            && { echo $(($(now_ms) - T0)); return 0; }
        kill -0 "$2" 2>/dev/null && ((SECONDS < deadline)) || { echo never; return 1; }
        sleep 0.02
    done
}

# row_coldstart: from the start of the process until REST answers (GET /connectors 200),
# until a FileStreamSource connector created at that moment runs with its task, and (ours)
# until the whole plugin path is loaded. Kafka Connect: a distributed worker with its jars
# (plugin.discovery=hybrid_warn, as the other rows). wasm-connect: a standalone worker on a
# fresh embedded store with the README's plugin.path (build/plugins and build/examples: the
# Rust, Python and JavaScript examples) and an EMPTY artifact cache, so everything compiles.
row_coldstart() {
    local props input="$WORK/cold-input.txt" body st
    : >"$input"
    for SIDE in kc wc; do
        has_side "$SIDE" || continue
        props="$WORK/cold-$SIDE.properties"
        log "coldstart: $SIDE"
        T0=$(now_ms)
        if [[ "$SIDE" == kc ]]; then
            { connect_properties "bench-$RUN-cold" "$KC_REST_PORT" "$BOOTSTRAP"; echo "plugin.discovery=hybrid_warn"; } >"$props"
            start_kafka_connect "$props" "$WORK/cold-kc.log"
        else
            rm -rf "$WORK/cold-cache"
            {
                echo "offset.storage.file.filename=$WORK/cold.db"
                echo "plugin.path=$ROOT/build/plugins,$ROOT/build/examples"
                echo "wasm.cache.dir=$WORK/cold-cache"
                echo "listeners=http://127.0.0.1:$WC_REST_PORT"
            } >"$props"
            setsid "$WASM_CONNECT_BIN" standalone "$props" >"$WORK/cold-wc.log" 2>&1 </dev/null &
            STARTED_PID=$!
        fi
        WORKER_PID=$STARTED_PID
        R["coldstart-rest|$SIDE"]=$(poll_ms "$(url)/connectors" "$WORKER_PID" 600 || true)
        body="{\"name\":\"cold\",\"config\":{\"connector.class\":\"FileStreamSource\",\"tasks.max\":\"1\",\"file\":\"$input\",\"topic\":\"bench-$RUN-cold\"}}"
        rest POST /connectors "$body" >/dev/null || log "  creating the connector failed"
        while :; do
            # No status yet is an answer too (404): the loop goes on.
            st="$(rest GET /connectors/cold/status 2>/dev/null | jq -r '"\(.connector.state) \(.tasks[0].state // "none")"' 2>/dev/null || true)"
            [[ "$st" == "RUNNING RUNNING" ]] && { R["coldstart-connector|$SIDE"]=$(($(now_ms) - T0)); break; }
            kill -0 "$WORKER_PID" 2>/dev/null || { R["coldstart-connector|$SIDE"]="worker exited"; break; }
            (($(now_ms) - T0 > 600000)) && { R["coldstart-connector|$SIDE"]="not RUNNING"; break; }
            sleep 0.02
        done
        if [[ "$SIDE" == wc ]]; then
            while [[ "$(rest GET /wasm-connect/plugins/loading 2>/dev/null | jq -r .loading || true)" != false ]]; do
                kill -0 "$WORKER_PID" 2>/dev/null || break
                (($(now_ms) - T0 > 900000)) && break
                sleep 0.1
            done
            R["coldstart-loaded|$SIDE"]=$(($(now_ms) - T0))
            log "  $(grep -c 'Loaded plugin' "$WORK/cold-wc.log") plugins loaded; log: $WORK/cold-wc.log"
        fi
        log "  REST ${R["coldstart-rest|$SIDE"]} ms, connector RUNNING ${R["coldstart-connector|$SIDE"]} ms${R["coldstart-loaded|$SIDE"]:+, all loaded ${R["coldstart-loaded|$SIDE"]} ms}"
        stop_side
    done
    SIDE=""
}

row_scale() {
    local topic="bench-$RUN-scale-$SIDE" i rss th t0 total=$((SCALE_CONNECTORS * SCALE_TASKS)) lat="$WORK/scale-$SIDE-latency.json"
    create_topic "$topic" 1
    log "scale: $SCALE_CONNECTORS connectors x $SCALE_TASKS tasks, $SIDE (timeout ${SCALE_TIMEOUT}s)"
    t0=$SECONDS
    native latency --url "$(url)/connectors?expand=status" --seconds "$SCALE_TIMEOUT" >"$lat" 2>/dev/null &
    local lat_pid=$!
    for ((i = 0; i < SCALE_CONNECTORS; i++)); do
        rest POST /connectors "{\"name\":\"scale-$i\",\"config\":$(source_config "$topic" "$SCALE_TASKS" paced)}" >/dev/null \
            || log "  creating scale-$i failed"
    done
    if await_running "$SCALE_CONNECTORS" "$total" "$SCALE_TIMEOUT"; then
        R["scale-time|$SIDE"]="$((SECONDS - t0))"
    else
        local c t; read -r c t < <(running_counts)
        R["scale-time|$SIDE"]="gave up: $t/$total RUNNING after ${SCALE_TIMEOUT}s"
    fi
    if kill -0 "$WORKER_PID" 2>/dev/null; then
        sleep 30
        read -r rss th < <(proc_figures)
        R["scale-rss|$SIDE"]="$rss"; R["scale-threads|$SIDE"]="$th"
    else
        R["scale-rss|$SIDE"]="worker exited"
    fi
    kill -INT "$lat_pid" 2>/dev/null; kill "$lat_pid" 2>/dev/null || true; wait "$lat_pid" 2>/dev/null || true
    R["scale-p99|$SIDE"]="$(jq -r '.p99_ms // "none"' "$lat" 2>/dev/null || echo none)"
    log "  ${R["scale-time|$SIDE"]}; RSS ${R["scale-rss|$SIDE"]:-?} MiB, ${R["scale-threads|$SIDE"]:-?} threads"
}

row_languages() {
    local out="${BENCH_LANGUAGES_OUTPUT:-}"
    if [[ -z "$out" ]]; then
        out="$WORK/languages.md"
        log "cargo bench --bench languages (guest rates)"
        (cd "$ROOT" && cargo bench -q -p wasm-connect --bench languages) >"$out" 2>"$WORK/languages.log" \
            || { log "  the languages bench failed (see $WORK/languages.log)"; return 0; }
    fi
    # | lang | plugin | kind | size | ... | 123.4 k (100000 records) |
    awk -F'|' '$2 ~ /^ *(rust|python|js) *$/ {
        gsub(/ /, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4)
        rate = $(NF - 1); if (match(rate, /[0-9.]+ k/)) { r = substr(rate, RSTART, RLENGTH) + 0 } else next
        printf "%s\t%s\t%s\t%d\n", $2, $3, $4, r * 1000 }' "$out" >"$WORK/languages.tsv"
}

# --- the table ----------------------------------------------------------------------------

# line MEASURE KEY GOAL KIND: KIND rate (higher is better; ratio wc/kc), time or size (lower is
# better; ratio kc/wc). GOAL is "RATIO NATIVE_SHARE" for rates, "RATIO MAX" for times.
line() {
    local measure="$1" key="$2" kind="$3" goal_ratio="$4" goal_abs="${5:-}" kc wc nat ratio="" met="" goal=""
    kc="${R["$key|kc"]:--}" wc="${R["$key|wc"]:--}" nat="${R["$key|native"]:--}"
    local kcn="${kc%% *}" wcn="${wc%% *}" natn="${nat%% *}"
    num() { [[ "$1" =~ ^[0-9]+([.][0-9]+)?$ ]]; }
    if num "$kcn" && num "$wcn"; then
        if [[ "$kind" == rate ]]; then ratio="$(awk -v a="$wcn" -v b="$kcn" 'BEGIN {printf "%.2f×", a / b}')"
        else ratio="$(awk -v a="$kcn" -v b="$wcn" 'BEGIN {printf "%.2f×", (b > 0) ? a / b : 0}')"; fi
    fi
    case "$kind" in
        rate)
            goal="≥ ${goal_ratio}× KC, ≥ ${goal_abs}% native"
            if num "$kcn" && num "$wcn" && num "$natn"; then
                met="$(awk -v w="$wcn" -v k="$kcn" -v n="$natn" -v r="$goal_ratio" -v p="$goal_abs" \
                    'BEGIN {print (w >= r * k && w >= p / 100 * n) ? "yes" : "no"}')"
                nat="$nat ($(awk -v w="$wcn" -v n="$natn" 'BEGIN {printf "%d%%", 100 * w / n}'))"
            fi ;;
        time)
            goal="≤ $goal_abs ms${goal_ratio:+, ≥ ${goal_ratio}× KC}"
            num "$wcn" && met="$(awk -v w="$wcn" -v k="${kcn:-0}" -v m="$goal_abs" -v r="${goal_ratio:-0}" \
                'BEGIN {print (w <= m && (r == 0 || k + 0 >= r * w)) ? "yes" : "no"}')" ;;
        size)
            goal="$goal_abs"
            [[ -n "$goal_ratio" ]] && num "$wcn" && met="$(awk -v w="$wcn" -v m="$goal_ratio" 'BEGIN {print (w <= m) ? "yes" : "no"}')" ;;
        *) goal="$goal_abs" ;;
    esac
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$measure" "$kc" "$wc" "$nat" "$ratio" "$goal" "$met"
}

# eos_line MEASURE KEY: a rate of both sides and wasm-connect / Kafka Connect.
eos_line() {
    local kc="${R["$2|kc"]:--}" wc="${R["$2|wc"]:--}" ratio=""
    local kcn="${kc%% *}" wcn="${wc%% *}"
    if [[ "$kcn" =~ ^[0-9]+$ && "$wcn" =~ ^[0-9]+$ ]] && ((kcn > 0)); then
        ratio="$(awk -v a="$wcn" -v b="$kcn" 'BEGIN {printf "%.2f×", a / b}')"
    fi
    printf '| %s | %s | %s | %s |\n' "$1" "$kc" "$wc" "$ratio"
}

# cost SIDE EOS_KEY BASE_KEY: EOS rate / baseline rate of a side, in %, or nothing.
cost() {
    local e="${R["$2|$1"]:-}" b="${R["$3|$1"]:-}"
    e="${e%% *}" b="${b%% *}"
    [[ "$e" =~ ^[0-9]+$ && "$b" =~ ^[0-9]+$ ]] && ((b > 0)) && awk -v e="$e" -v b="$b" 'BEGIN {printf "%.1f", 100 * e / b}'
}

# cost_line MEASURE EOS_KEY BASE_KEY [WC_EOS_KEY WC_BASE_KEY]: the relative cost of each side
# (EOS rate / baseline rate) and wasm-connect's / Kafka Connect's (> 1: ours loses less).
cost_line() {
    local kc wc ratio=""
    kc="$(cost kc "$2" "$3")" wc="$(cost wc "${4:-$2}" "${5:-$3}")"
    [[ -n "$kc" && -n "$wc" ]] && ratio="$(awk -v a="$wc" -v b="$kc" 'BEGIN {if (b > 0) printf "%.2f×", a / b}')"
    printf '| %s | %s | %s | %s |\n' "$1" "${kc:+$kc %}" "${wc:+$wc %}" "$ratio"
}

print_eos_table() {
    local t
    echo
    echo "Exactly-once source, records/s counted by a read_committed consumer: first committed record until $EOS_N or ${EOS_TIMEOUT} s (* = the rate over ${EOS_TIMEOUT} s); transaction.boundary.interval.ms $EOS_INTERVAL_MS; VerifiableSource (one record per poll) vs Datagen (batch.size 1000 unless said)"
    echo
    echo "| measure | Kafka Connect | wasm-connect | ratio |"
    echo "|---|---|---|---|"
    for t in 1 4; do
        eos_line "$t task(s): without exactly-once" "eos-base-$t"
        eos_line "$t task(s): exactly-once, boundary poll" "eos-poll-$t"
        eos_line "$t task(s): exactly-once, boundary interval" "eos-interval-$t"
        cost_line "$t task(s): relative cost, poll (EOS / without)" "eos-poll-$t" "eos-base-$t"
        cost_line "$t task(s): relative cost, interval (EOS / without)" "eos-interval-$t" "eos-base-$t"
        if [[ "$EOS_MATCHED" == 1 ]]; then
            printf '| %s | | %s | |\n' "$t task(s): without exactly-once, Datagen batch.size=1" "${R["eos-base-b1-$t|wc"]:--}"
            printf '| %s | | %s | |\n' "$t task(s): exactly-once, boundary poll, Datagen batch.size=1" "${R["eos-poll-b1-$t|wc"]:--}"
            cost_line "$t task(s): relative cost, poll, one record per poll on both sides" "eos-poll-$t" "eos-base-$t" \
                "eos-poll-b1-$t" "eos-base-b1-$t"
        fi
    done
    has_side wc || return 0
    echo
    echo "wasm-connect standalone, embedded store (records committed to it, from its metric)"
    echo
    echo "| tasks | without exactly-once | exactly-once, poll | exactly-once, interval | relative cost poll / interval |"
    echo "|---|---|---|---|---|"
    for t in 1 4; do
        printf '| %s | %s | %s | %s | %s %% / %s %% |\n' "$t" "${R["eos-base-$t|sa"]:--}" "${R["eos-poll-$t|sa"]:--}" \
            "${R["eos-interval-$t|sa"]:--}" "$(cost sa "eos-poll-$t" "eos-base-$t")" "$(cost sa "eos-interval-$t" "eos-base-$t")"
    done
}

print_table() {
    echo
    echo "wasm-connect $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?') vs Kafka Connect $CONNECT_VERSION, broker $BOOTSTRAP, $(nproc) cores, $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg); N = $N, runs $RUNS"
    has_row eos && print_eos_table
    [[ " $ROWS " =~ \ (source|filesource|sink|restart|restartearly|idle|idlecpu|restart100|coldstart|scale|languages)\  ]] || return 0
    echo
    echo "| measure | Kafka Connect | wasm-connect | native rdkafka | ratio | goal | met |"
    echo "|---|---|---|---|---|---|---|"
    if has_row source; then
        line "source → Kafka, 1 task, records/s" source-1 rate 2 80
        line "source → Kafka, 4 tasks, records/s" source-4 rate 2 80
    fi
    if has_row filesource; then
        line "FileStreamSource → Kafka, $FILE_LINES lines, 1 task, records/s" filesource rate 2 80
    fi
    if has_row sink; then
        line "Kafka → FileStreamSink, 1 task, lines/s" sink-1 rate 2 80
        line "Kafka → FileStreamSink, 4 tasks, lines/s" sink-4 rate 2 80
    fi
    if has_row restart; then
        line "restart includeTasks=true, 8 tasks, median ms ($RESTARTS)" restart-median time 5 50
        line "restart includeTasks=true, 8 tasks, p99 ms ($RESTARTS)" restart-p99 time "" 50
    fi
    if has_row restartearly; then
        line "restart ${RESTART_EARLY_MS} ms after the first start, 8 tasks, median ms ($RESTARTS)" restartearly-median time 5 50
        line "restart ${RESTART_EARLY_MS} ms after the first start, 8 tasks, p99 ms ($RESTARTS)" restartearly-p99 time "" 50
    fi
    if has_row idle; then
        line "RSS MiB, $IDLE_CONNECTORS connectors × 1 task" idle-rss size "" ""
        line "threads, $IDLE_CONNECTORS connectors × 1 task" idle-threads size "" ""
    fi
    if has_row idlecpu; then
        local kc_cpu="${R["idlecpu|kc"]:-}"
        [[ "${kc_cpu%% *}" =~ ^[0-9]+([.][0-9]+)?$ ]] || kc_cpu=""
        line "idle CPU % of one core, $IDLECPU_TASKS FileStreamSource tasks on an empty file" idlecpu size \
            "${kc_cpu%% *}" "≤ Kafka Connect's"
    fi
    if has_row restart100; then
        line "graceful stop, $RESTART100_CONNECTORS connectors × 1 task, ms" restart100-stop size "" ""
        line "stop → all $RESTART100_CONNECTORS connectors and tasks RUNNING again, ms" restart100-back size "" ""
    fi
    if has_row coldstart; then
        line "cold start → REST answers, ms" coldstart-rest time "" 2000
        line "cold start → a FileStreamSource RUNNING, ms" coldstart-connector size "" ""
        line "cold start → every plugin loaded (92 MB, empty cache), ms" coldstart-loaded size "" ""
    fi
    if has_row scale; then
        local total=$((SCALE_CONNECTORS * SCALE_TASKS))
        line "$total tasks: s until all RUNNING" scale-time size "" ""
        line "$total tasks: RSS MiB" scale-rss size 1536 "≤ 1536 MiB"
        line "$total tasks: threads" scale-threads size "$((8 * $(nproc)))" "≤ 8 × cores"
        line "$total tasks: REST p99 ms, GET /connectors?expand=status" scale-p99 size 100 "≤ 100 ms"
    fi
    if has_row languages && [[ -s "$WORK/languages.tsv" ]]; then
        local lang plugin kind rate goal
        while IFS=$'\t' read -r lang plugin kind rate; do
            goal=200000; [[ "$lang" == rust ]] && goal=2000000
            printf '| guest %s %s (%s), records/s | | %s | | | ≥ %s | %s |\n' "$lang" "$plugin" "$kind" "$rate" "$goal" \
                "$( ((rate >= goal)) && echo yes || echo no)"
        done <"$WORK/languages.tsv"
    fi
}

main() {
    need "$JAVA" "Java 17+ runs Kafka Connect"
    need curl "the rows drive the REST API"
    need flock "util-linux"
    ensure_jq
    [[ -x "$WASM_CONNECT_BIN" ]] || die "no wasm-connect binary at $WASM_CONNECT_BIN (cargo build --release -p wasm-connect, or set WASM_CONNECT_BIN)"
    [[ -f "$WASM_CONNECT_PLUGINS/datagen.wasm" && -f "$WASM_CONNECT_PLUGINS/file-sink.wasm" ]] \
        || die "no datagen.wasm and file-sink.wasm in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh builds them)"
    if has_row filesource && [[ ! -f "$WASM_CONNECT_PLUGINS/file-source.wasm" ]]; then
        die "no file-source.wasm in $WASM_CONNECT_PLUGINS (scripts/build-guests.sh builds it)"
    fi
    for p in "$WC_REST_PORT" "$KC_REST_PORT"; do
        port_open "$p" && die "127.0.0.1:$p is in use (set WC_REST_PORT / KC_REST_PORT)"
    done
    if [[ ! -x "$NATIVE_KAFKA_BIN" ]]; then
        log "building the native baselines (cargo build --release -p wasm-connect --example native_kafka)"
        (cd "$ROOT" && cargo build -q --release -p wasm-connect --example native_kafka) >&2
        NATIVE_KAFKA_BIN="$TARGET/release/examples/native_kafka"
    fi
    has_side kc && fetch_jars

    WORK="$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-kafka-connect.XXXXXX")"
    RUN="$(date +%s)-$$"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        BOOTSTRAP="$KAFKA_BOOTSTRAP"
    else
        BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
        if ! KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" status >/dev/null 2>&1; then
            KAFKA_PORT="$KAFKA_PORT" "$ROOT/scripts/kafka.sh" start >&2
            STARTED_BROKER=1
        fi
    fi
    log "broker $BOOTSTRAP; rows: $ROWS; sides: $SIDES; work dir $WORK"
    has_row sink && prefill_lines

    for SIDE in kc wc native; do
        has_side "$SIDE" || continue
        [[ "$SIDE" != native ]] && start_side
        has_row source && row_source
        has_row filesource && row_filesource
        has_row sink && row_sink
        if [[ "$SIDE" != native ]]; then
            has_row restart && row_restart
            has_row restartearly && row_restartearly
            has_row idle && row_idle
            has_row idlecpu && row_idlecpu
            has_row restart100 && row_restart100
            has_row scale && row_scale
            has_row eos && row_eos_base
            stop_side
            if has_row eos; then
                start_side eos
                row_eos_txn
                stop_side
            fi
        fi
    done
    SIDE=""
    has_row eos && has_side wc && row_eos_standalone
    has_row coldstart && row_coldstart
    has_row languages && row_languages
    print_table
}

main "$@"
