# Sourced by scripts/compare-kafka-connect.sh and scripts/bench-vs-kafka-connect.sh: fetches
# Apache Kafka Connect's jars from Maven Central, writes a distributed worker's properties
# for either side, and starts, awaits and stops a Kafka Connect or a wasm-connect worker.
# It defines functions and defaults only; the sourcing script owns the run (work dir, broker,
# traps). The caller sets SCRIPT_NAME (for messages) and ROOT (the repository).
#
# Environment (defaults): CONNECT_VERSION (4.3.1), CONNECT_LOG4J_VERSION (2.25.5),
# CONNECT_HOME_CACHE (~/.cache/wasm-connect/connect-$CONNECT_VERSION), JAVA (java),
# CONNECT_HEAP (768m: Kafka Connect's -Xmx).

CONNECT_VERSION="${CONNECT_VERSION:-4.3.1}"
# log4j2 binding for Connect's slf4j 1.7 API, also what /admin/loggers drives.
CONNECT_LOG4J_VERSION="${CONNECT_LOG4J_VERSION:-2.25.5}"
CONNECT_HOME_CACHE="${CONNECT_HOME_CACHE:-$HOME/.cache/wasm-connect/connect-$CONNECT_VERSION}"
CONNECT_LIBS="$CONNECT_HOME_CACHE/libs"
CONNECT_HEAP="${CONNECT_HEAP:-768m}"
JAVA="${JAVA:-java}"

die() { echo "$SCRIPT_NAME: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ensure_jq() {
    command -v jq >/dev/null 2>&1 && return 0
    if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
        echo "jq not found; installing it with apt-get" >&2
        { apt-get install -y -q jq || { apt-get update -q && apt-get install -y -q jq; }; } >/dev/null \
            || die "apt-get could not install jq; install it (https://jqlang.org) and run again"
    else
        die "jq not found on PATH: install it (apt-get install jq, brew install jq, https://jqlang.org)"
    fi
}

# Kafka Connect's jars (connect-runtime, connect-file, connect-json, connect-test-plugins and
# their dependencies, plus the log4j2 binding) from Maven Central through `mvn
# dependency:copy-dependencies`, cached in $CONNECT_HOME_CACHE: only the first run downloads.
fetch_jars() {
    [[ -f "$CONNECT_HOME_CACHE/.complete" ]] && return 0
    need mvn "needed once to fetch the Kafka Connect $CONNECT_VERSION jars from Maven Central"
    mkdir -p "$CONNECT_HOME_CACHE"
    exec 8>"$CONNECT_HOME_CACHE/.lock"
    flock 8
    if [[ -f "$CONNECT_HOME_CACHE/.complete" ]]; then exec 8>&-; return 0; fi
    local work dep deps=""
    work="$(mktemp -d "$CONNECT_HOME_CACHE/.fetch.XXXXXX")"
    for dep in connect-runtime connect-file connect-json connect-test-plugins; do
        deps+="    <dependency><groupId>org.apache.kafka</groupId><artifactId>$dep</artifactId><version>$CONNECT_VERSION</version></dependency>"$'\n'
    done
    cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>wasm-connect</groupId>
  <artifactId>kafka-connect-jars</artifactId>
  <version>$CONNECT_VERSION</version>
  <dependencies>
$deps    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>$CONNECT_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$CONNECT_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$CONNECT_LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    echo "fetching Kafka Connect $CONNECT_VERSION from Maven Central into $CONNECT_HOME_CACHE ..." >&2
    # Progress: one line per artifact mvn downloads (it is quiet when ~/.m2 has them).
    if ! mvn -B -Dstyle.color=never -f "$work/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$work/libs" 2>&1 | tee "$work/mvn.log" \
        | sed -un 's/\x1b\[[0-9;]*m//g; s/^.*Downloaded from [^:]*: .*\/\([^/]*\.jar\) .*/  downloaded \1/p' >&2 \
        || ! grep -q 'BUILD SUCCESS' "$work/mvn.log"; then
        sed 's/\x1b\[[0-9;]*m//g' "$work/mvn.log" | grep -F '[ERROR]' | head -n 3 >&2 || tail -n 20 "$work/mvn.log" >&2
        rm -rf "$work"
        die "mvn could not fetch org.apache.kafka:connect-runtime:$CONNECT_VERSION (see above)"
    fi
    [[ -f "$work/libs/connect-runtime-$CONNECT_VERSION.jar" ]] || { rm -rf "$work"; die "mvn fetched no connect-runtime-$CONNECT_VERSION.jar"; }
    rm -rf "$CONNECT_LIBS"
    mv "$work/libs" "$CONNECT_LIBS"
    rm -rf "$work"
    touch "$CONNECT_HOME_CACHE/.complete"
    echo "Kafka Connect $CONNECT_VERSION: $(find "$CONNECT_LIBS" -name '*.jar' | wc -l) jars in $CONNECT_LIBS" >&2
    exec 8>&-
}

# connect_properties PREFIX PORT BOOTSTRAP: a distributed worker's properties shared by both
# sides: group PREFIX and internal topics PREFIX-*, JSON converters without schemas, REST on
# loopback at PORT, offsets committed every second.
connect_properties() {
    local prefix="$1" port="$2" bootstrap="$3"
    cat <<EOF
bootstrap.servers=$bootstrap
group.id=$prefix
config.storage.topic=$prefix-configs
config.storage.replication.factor=1
offset.storage.topic=$prefix-offsets
offset.storage.replication.factor=1
offset.storage.partitions=1
status.storage.topic=$prefix-status
status.storage.replication.factor=1
status.storage.partitions=1
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter.schemas.enable=false
listeners=http://127.0.0.1:$port
rest.advertised.host.name=127.0.0.1
rest.advertised.port=$port
offset.flush.interval.ms=1000
scheduled.rebalance.max.delay.ms=0
EOF
}

# JVM options of Kafka Connect. The default starts fast (C1 only, serial GC), which is what
# the REST comparison needs; a benchmark must set Kafka's own production options
# (KAFKA_JVM_PERFORMANCE_OPTS of bin/kafka-run-class.sh and connect-distributed.sh's heap):
# see CONNECT_PRODUCTION_JVM_OPTS.
CONNECT_PRODUCTION_JVM_OPTS="-Xms256m -Xmx$CONNECT_HEAP -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent"
CONNECT_JVM_OPTS="${CONNECT_JVM_OPTS:--Xms128m -Xmx$CONNECT_HEAP -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"

# start_kafka_connect PROPS LOG [STDOUT]: starts ConnectDistributed in its own session; its
# log4j2 log goes to LOG, its stdout (VerifiableSource prints a line per record) to STDOUT
# (default: LOG too). Sets STARTED_PID.
start_kafka_connect() {
    local props="$1" log="$2" out="${3:-$2}" log4j="${1%.properties}-log4j2.properties"
    if [[ "$out" == "$log" ]]; then
        printf '%s\n' 'appender.out.type = Console' 'appender.out.name = OUT' >"$log4j"
    else
        printf '%s\n' 'appender.out.type = File' 'appender.out.name = OUT' "appender.out.fileName = $log" >"$log4j"
    fi
    cat >>"$log4j" <<'EOF'
status = warn
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = OUT
logger.reflections.name = org.reflections
logger.reflections.level = error
EOF
    # shellcheck disable=SC2086 # CONNECT_JVM_OPTS is a list of options
    setsid "$JAVA" $CONNECT_JVM_OPTS -Djava.awt.headless=true \
        "-Dlog4j2.configurationFile=file:$log4j" \
        -cp "$CONNECT_LIBS/*" org.apache.kafka.connect.cli.ConnectDistributed "$props" \
        >"$out" 2>&1 </dev/null &
    STARTED_PID=$!
}

# start_wasm_connect BIN PROPS LOG: starts `BIN distributed PROPS` in its own session. Sets
# STARTED_PID.
start_wasm_connect() {
    setsid "$1" distributed "$2" >"$3" 2>&1 </dev/null &
    STARTED_PID=$!
}

# await_worker URL PID LOG TIMEOUT: waits until GET URL/connectors answers 200 (the worker
# has joined its group); dies when the process exits or the time is up.
await_worker() {
    local url="$1/connectors" pid="$2" log="$3" deadline=$((SECONDS + $4))
    while :; do
        kill -0 "$pid" 2>/dev/null || { tail -n 30 "$log" >&2; die "the worker exited during start-up (log $log)"; }
        [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" 2>/dev/null)" == 200 ]] && return 0
        ((SECONDS < deadline)) || { tail -n 30 "$log" >&2; die "the worker does not serve $url after $4s (log $log)"; }
        sleep 0.3
    done
}

# stop_worker PID...: TERM, then KILL whatever still runs after 20 s.
stop_worker() {
    local pid deadline=$((SECONDS + 20))
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
}

# kafka_topics ARGS...: Kafka's TopicCommand against the scripts/kafka.sh broker's tools.
kafka_topics() {
    KAFKA_PORT="${KAFKA_PORT:-9092}" "$ROOT/scripts/kafka.sh" run org.apache.kafka.tools.TopicCommand "$@"
}
