#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, broker+controller in one JVM) for tests and local runs.
#
#   scripts/kafka.sh start            start a broker on 127.0.0.1:$KAFKA_PORT (waits until it serves metadata),
#                                     with its secure listeners beside it (below); prints every port
#   scripts/kafka.sh stop [--keep-data]   stop it (SIGTERM, then SIGKILL after $KAFKA_STOP_TIMEOUT s);
#                                     deletes its data dir unless --keep-data
#   scripts/kafka.sh restart          stop --keep-data, then start on the same data (topics survive)
#   scripts/kafka.sh status           exit 0 if running; prints the ports and the TLS dir
#   scripts/kafka.sh run CLASS ARGS   run a Kafka CLI class with the broker's classpath, e.g.
#                                     run org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:9092 --list
#
# The broker jars come from Maven Central via `mvn dependency:copy-dependencies` and are cached in
# $KAFKA_HOME_CACHE, so only the first start downloads. Needs java (17+) and mvn on PATH.
#
# Environment:
#   KAFKA_PORT             broker port (default 9092); the controller listens on KAFKA_CONTROLLER_PORT
#                          (default KAFKA_PORT+1), both on 127.0.0.1
#   KAFKA_VERSION          Kafka version (default 4.4.0)
#   KAFKA_HOME_CACHE       jar cache (default ~/.cache/wasm-connect/kafka-$KAFKA_VERSION)
#   KAFKA_STATE_DIR        pid, data-dir pointer, config and broker log (default /tmp/wasm-connect-kafka-$KAFKA_PORT)
#   KAFKA_START_TIMEOUT    seconds to wait for readiness (default 90)
#   KAFKA_STOP_TIMEOUT     seconds to wait after SIGTERM before SIGKILL (default 30)
#   KAFKA_HEAP_OPTS        broker heap (default "-Xms256m -Xmx1g")
#   KAFKA_AUTO_CREATE_TOPICS  auto.create.topics.enable (default false: tests create their topics)
#   KAFKA_SASL_SSL_PORT    SASL_SSL listener (default KAFKA_PORT+2)
#   KAFKA_SSL_PORT         SSL listener (default KAFKA_PORT+3)
#   KAFKA_SASL_PLAINTEXT_PORT  SASL_PLAINTEXT listener (default KAFKA_PORT+4)
#
# Secure listeners, all on 127.0.0.1 (inter-broker and controller traffic stay PLAINTEXT):
#   SASL_SSL and SASL_PLAINTEXT accept PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, each with the one
#   user `connect`, password `connect-secret` (PLAIN through the listeners' PlainLoginModule,
#   SCRAM users written at format time by Kafka's StorageTool --add-scram, or by its
#   ConfigCommand on a restart on data formatted without them). SSL needs no login and
#   requests, but does not require, a client certificate.
# TLS files, made with openssl at each fresh start (kept by restart) in $KAFKA_STATE_DIR/tls/
# (EC P-256, valid 10 years; keys 0600, certificates 0644):
#   ca.pem                 the test CA that signed the others: the clients' trust store
#   ca.key                 its key
#   broker.pem, broker.key the broker's certificate (CN=localhost, SAN IP:127.0.0.1 and
#                          DNS:localhost) and key; broker-keystore.pem is both, its PEM key store
#   client.pem, client.key a client certificate (CN=connect, clientAuth) and its key, for
#                          ssl.keystore.* / ssl.client.auth tests
set -euo pipefail

KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
# log4j2 binding for Kafka's slf4j 1.7 API; keep in step with the log4j-core that kafka-server pulls in.
KAFKA_LOG4J_VERSION="${KAFKA_LOG4J_VERSION:-2.25.5}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_SASL_SSL_PORT="${KAFKA_SASL_SSL_PORT:-$((KAFKA_PORT + 2))}"
KAFKA_SSL_PORT="${KAFKA_SSL_PORT:-$((KAFKA_PORT + 3))}"
KAFKA_SASL_PLAINTEXT_PORT="${KAFKA_SASL_PLAINTEXT_PORT:-$((KAFKA_PORT + 4))}"
KAFKA_HOME_CACHE="${KAFKA_HOME_CACHE:-$HOME/.cache/wasm-connect/kafka-$KAFKA_VERSION}"
KAFKA_STATE_DIR="${KAFKA_STATE_DIR:-/tmp/wasm-connect-kafka-$KAFKA_PORT}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx1g}"
KAFKA_AUTO_CREATE_TOPICS="${KAFKA_AUTO_CREATE_TOPICS:-false}"
JAVA="${JAVA:-java}"

LIBS="$KAFKA_HOME_CACHE/libs"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
PID_FILE="$KAFKA_STATE_DIR/kafka.pid"
DATA_FILE="$KAFKA_STATE_DIR/data-dir"   # path of the data dir in use
KEEP_FILE="$KAFKA_STATE_DIR/data-kept"  # written by `stop --keep-data`: next start reuses the data
LOG_FILE="$KAFKA_STATE_DIR/kafka.log"
CONFIG="$KAFKA_STATE_DIR/server.properties"
TLS_DIR="$KAFKA_STATE_DIR/tls"
# The one login of the SASL listeners, for every mechanism.
SASL_USER=connect
SASL_PASSWORD=connect-secret
# Short-lived CLI JVMs: start fast, little memory.
TOOL_JVM_OPTS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss1m -Xmx256m
    "-Dlog4j2.configurationFile=file:$KAFKA_STATE_DIR/tools-log4j2.properties")

die() { echo "kafka.sh: $*" >&2; exit 1; }

usage() {
    echo "usage: $0 start | stop [--keep-data] | restart | status | run CLASS [ARGS...]" >&2
    exit 2
}

need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"; }

# --- jars ----------------------------------------------------------------------------------

fetch_jars() {
    [[ -f "$KAFKA_HOME_CACHE/.complete" ]] && return 0
    need mvn "needed once to fetch the Kafka $KAFKA_VERSION jars from Maven Central"
    mkdir -p "$KAFKA_HOME_CACHE"
    # One download at a time per cache (parallel starts on other ports share it).
    exec 8>"$KAFKA_HOME_CACHE/.lock"
    flock 8
    if [[ -f "$KAFKA_HOME_CACHE/.complete" ]]; then exec 8>&-; return 0; fi
    local work
    work="$(mktemp -d "$KAFKA_HOME_CACHE/.fetch.XXXXXX")"
    # kafka_2.13 brings the broker (kafka-server, -metadata, -storage, -raft, coordinators, ...);
    # kafka-tools brings TopicCommand, console producer/consumer (without the Connect runtime,
    # which only its connect-plugin-path tool uses); log4j-slf4j-impl routes slf4j to log4j2.
    cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>wasm-connect</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>$KAFKA_VERSION</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version>
      <exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId></exclusion></exclusions>
    </dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>$KAFKA_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$KAFKA_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$KAFKA_LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    if ! mvn -B -q -Dstyle.color=never -f "$work/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1; then
        sed 's/\x1b\[[0-9;]*m//g' "$work/mvn.log" | grep -F '[ERROR]' | head -n 3 >&2 || tail -n 20 "$work/mvn.log" >&2
        rm -rf "$work"
        die "mvn could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION (see above)"
    fi
    [[ -f "$work/libs/kafka_2.13-$KAFKA_VERSION.jar" ]] || { rm -rf "$work"; die "mvn fetched no kafka_2.13-$KAFKA_VERSION.jar"; }
    rm -rf "$LIBS"
    mv "$work/libs" "$LIBS"
    rm -rf "$work"
    touch "$KAFKA_HOME_CACHE/.complete"
    exec 8>&-
}

# --- process bookkeeping -------------------------------------------------------------------

# Prints the pid of this state dir's broker if it is alive, else fails.
broker_pid() {
    local pid
    [[ -f "$PID_FILE" ]] || return 1
    pid="$(<"$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    # Guard against pid reuse: it must be a kafka.Kafka JVM running our config.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka.Kafka $CONFIG" || return 1
    echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Only ever delete directories this script created.
remove_data_dir() {
    local dir
    [[ -f "$DATA_FILE" ]] || return 0
    dir="$(<"$DATA_FILE")"
    case "$dir" in
        */wasm-connect-kafka-data.*) rm -rf -- "$dir" ;;
        *) echo "kafka.sh: not deleting unexpected data dir '$dir'" >&2 ;;
    esac
    rm -f "$DATA_FILE" "$KEEP_FILE"
}

# --- config --------------------------------------------------------------------------------

write_config() {
    local data="$1"
    local listeners="PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT"
    listeners+=",SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT,SSL://127.0.0.1:$KAFKA_SSL_PORT"
    listeners+=",SASL_PLAINTEXT://127.0.0.1:$KAFKA_SASL_PLAINTEXT_PORT"
    cat >"$CONFIG" <<EOF
# Generated by scripts/kafka.sh: single-node KRaft broker+controller.
process.roles=broker,controller
node.id=1
listeners=$listeners
advertised.listeners=$listeners
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
log.dirs=$data/logs
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=$KAFKA_AUTO_CREATE_TOPICS
delete.topic.enable=true
# TLS (SASL_SSL and SSL): the PEM stores make_tls writes.
ssl.keystore.type=PEM
ssl.keystore.location=$TLS_DIR/broker-keystore.pem
ssl.truststore.type=PEM
ssl.truststore.location=$TLS_DIR/ca.pem
listener.name.ssl.ssl.client.auth=requested
# SASL (SASL_SSL and SASL_PLAINTEXT): PLAIN's user is in its JAAS config, SCRAM's in the metadata.
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
EOF
    local listener
    for listener in sasl_ssl sasl_plaintext; do
        cat >>"$CONFIG" <<EOF
listener.name.$listener.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$SASL_PASSWORD";
listener.name.$listener.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.$listener.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
EOF
    done
    cat >"$KAFKA_STATE_DIR/log4j2.properties" <<'EOF'
# Broker log: stdout, which kafka.sh appends to kafka.log in the state dir.
status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = info
logger.statechange.name = state.change.logger
logger.statechange.level = warn
logger.cleaner.name = kafka.log.LogCleaner
logger.cleaner.level = warn
EOF
    write_tool_config
}

# Logging and client timeouts for the short-lived CLI JVMs.
write_tool_config() {
    cat >"$KAFKA_STATE_DIR/tools-log4j2.properties" <<'EOF'
status = error
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.err.ref = STDERR
EOF
    cat >"$KAFKA_STATE_DIR/tools.properties" <<'EOF'
request.timeout.ms=5000
default.api.timeout.ms=10000
EOF
}

# A fresh test CA, and the broker's and a client's certificates signed by it, in $TLS_DIR.
# Fails (after showing openssl's output) if any step does.
make_tls() {
    need openssl "needed to make the test certificates of the TLS listeners"
    rm -rf "$TLS_DIR"
    mkdir -p "$TLS_DIR"
    # Each step is checked by hand: `set -e` does not apply inside a tested subshell.
    if ! (
        cd "$TLS_DIR" || exit 1
        umask 077
        key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
        days=3650
        sign() { # NAME SUBJECT EXTENSION...
            local name="$1" subject="$2"
            shift 2
            openssl req "${key[@]}" -keyout "$name.key" -out "$name.csr" -subj "$subject" &&
                printf '%s\n' "basicConstraints=CA:FALSE" "$@" >"$name.ext" &&
                openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
                    -days "$days" -extfile "$name.ext" -out "$name.pem" &&
                rm -f "$name.csr" "$name.ext"
        }
        openssl req -x509 "${key[@]}" -keyout ca.key -out ca.pem -days "$days" \
            -subj "/CN=wasm-connect test CA" \
            -addext "basicConstraints=critical,CA:TRUE" \
            -addext "keyUsage=critical,keyCertSign,cRLSign" &&
            sign broker /CN=localhost "subjectAltName=IP:127.0.0.1,DNS:localhost" \
                "extendedKeyUsage=serverAuth" &&
            sign client "/CN=$SASL_USER" "extendedKeyUsage=clientAuth" &&
            cat broker.key broker.pem >broker-keystore.pem &&
            rm -f ca.srl &&
            chmod 0644 ca.pem broker.pem client.pem
    ) >>"$LOG_FILE" 2>&1; then
        tail -n 20 "$LOG_FILE" >&2
        return 1
    fi
}

random_cluster_id() {
    # Same shape as org.apache.kafka.common.Uuid.randomUuid(): 16 random bytes, url-safe base64,
    # no padding, never starting with '-'.
    local id
    while :; do
        id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
        [[ "$id" != -* && "$id" != AAAAAAAAAAAAAAAAAAAAA* ]] && break
    done
    echo "$id"
}

# --- commands ------------------------------------------------------------------------------

# The secure listeners, for start and status.
ports() {
    echo "SASL_SSL 127.0.0.1:$KAFKA_SASL_SSL_PORT, SSL 127.0.0.1:$KAFKA_SSL_PORT," \
        "SASL_PLAINTEXT 127.0.0.1:$KAFKA_SASL_PLAINTEXT_PORT (user $SASL_USER), TLS files in $TLS_DIR"
}

# Asks the broker for metadata (topic list); succeeds only if it answers.
serves_metadata() {
    timeout "$1" "$JAVA" "${TOOL_JVM_OPTS[@]}" -cp "$LIBS/*" org.apache.kafka.tools.TopicCommand \
        --bootstrap-server "$BOOTSTRAP" --command-config "$KAFKA_STATE_DIR/tools.properties" \
        --list >/dev/null 2>&1
}

# After a failed start: drop a fresh data dir; keep reused (restart) data for the next try.
start_failed() {
    rm -f "$PID_FILE"
    if [[ -n "$1" ]]; then touch "$KEEP_FILE"; else remove_data_dir; fi
}

# Writes the SCRAM users into a running broker's metadata with Kafka's ConfigCommand.
add_scram_users() {
    local mechanism
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
        "$JAVA" "${TOOL_JVM_OPTS[@]}" -cp "$LIBS/*" org.apache.kafka.tools.ConfigCommand \
            --bootstrap-server "$BOOTSTRAP" --command-config "$KAFKA_STATE_DIR/tools.properties" \
            --alter --entity-type users --entity-name "$SASL_USER" \
            --add-config "$mechanism=[password=$SASL_PASSWORD]" >>"$LOG_FILE" 2>&1 ||
            die "could not add the $mechanism user $SASL_USER (log: $LOG_FILE)"
    done
    touch "$1/scram-users"
}

cmd_start() {
    local pid
    if pid="$(broker_pid)"; then
        # A broker started by an older version of this script has no secure listeners.
        grep -q "SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT" "$CONFIG" ||
            die "the broker on $BOOTSTRAP (pid $pid) has no SASL_SSL listener on $KAFKA_SASL_SSL_PORT: restart it"
        echo "kafka already running on $BOOTSTRAP (pid $pid); $(ports)"
        return 0
    fi
    need "$JAVA" "Java 17+ is needed to run the broker"
    need flock "util-linux"
    for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_SSL_PORT" "$KAFKA_SSL_PORT" \
        "$KAFKA_SASL_PLAINTEXT_PORT"; do
        port_open "$p" && die "127.0.0.1:$p is already in use by another process (not this script's broker; state dir $KAFKA_STATE_DIR)"
    done
    fetch_jars
    mkdir -p "$KAFKA_STATE_DIR"
    rm -f "$PID_FILE"

    local data="" reused=""
    if [[ -f "$KEEP_FILE" && -f "$DATA_FILE" ]]; then
        data="$(<"$DATA_FILE")"
        if [[ -f "$data/logs/meta.properties" ]]; then reused=1; else data=""; fi
    fi
    if [[ -z "$reused" ]]; then
        remove_data_dir   # leftovers of a broker that died without `stop`
        data="$(mktemp -d "${TMPDIR:-/tmp}/wasm-connect-kafka-data.XXXXXX")"
        echo "$data" >"$DATA_FILE"
    fi
    rm -f "$KEEP_FILE"
    write_config "$data"

    if [[ -z "$reused" ]]; then
        : >"$LOG_FILE"
        if ! make_tls; then
            start_failed ""
            die "making the test certificates in $TLS_DIR failed"
        fi
        if ! "$JAVA" "${TOOL_JVM_OPTS[@]}" -cp "$LIBS/*" kafka.tools.StorageTool format \
            --config "$CONFIG" --cluster-id "$(random_cluster_id)" --standalone \
            --add-scram "SCRAM-SHA-256=[name=$SASL_USER,password=$SASL_PASSWORD]" \
            --add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]" \
            >>"$LOG_FILE" 2>&1 && touch "$data/scram-users"; then
            tail -n 20 "$LOG_FILE" >&2
            start_failed ""
            die "formatting the storage in $data failed"
        fi
    else
        echo "=== kafka.sh: restart on kept data $data ===" >>"$LOG_FILE"
        if [[ ! -f "$TLS_DIR/broker-keystore.pem" ]] && ! make_tls; then
            start_failed "$reused"
            die "making the test certificates in $TLS_DIR failed"
        fi
    fi

    # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM flags
    setsid "$JAVA" $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
        -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
        -Djava.awt.headless=true -Dkafka.logs.dir="$KAFKA_STATE_DIR" \
        "-Dlog4j2.configurationFile=file:$KAFKA_STATE_DIR/log4j2.properties" \
        -cp "$LIBS/*" kafka.Kafka "$CONFIG" >>"$LOG_FILE" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PID_FILE"

    local deadline=$((SECONDS + KAFKA_START_TIMEOUT)) left
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 40 "$LOG_FILE" >&2
            start_failed "$reused"
            die "broker exited during startup (log: $LOG_FILE)"
        fi
        left=$((deadline - SECONDS)); ((left >= 1)) || left=1
        if port_open "$KAFKA_PORT" && port_open "$KAFKA_SASL_SSL_PORT" && port_open "$KAFKA_SSL_PORT" \
            && port_open "$KAFKA_SASL_PLAINTEXT_PORT" && serves_metadata "$left"; then
            break
        fi
        if ((SECONDS >= deadline)); then
            tail -n 40 "$LOG_FILE" >&2
            kill -KILL "$pid" 2>/dev/null || true
            { wait "$pid"; } 2>/dev/null || true
            start_failed "$reused"
            die "broker not ready on $BOOTSTRAP after ${KAFKA_START_TIMEOUT}s (log: $LOG_FILE)"
        fi
        sleep 0.3
    done
    # Kept data formatted by an older version of this script lacks the SCRAM users.
    [[ -f "$data/scram-users" ]] || add_scram_users "$data"
    echo "kafka $KAFKA_VERSION started on $BOOTSTRAP (pid $pid, ${reused:+reused }data $data, log $LOG_FILE)"
    echo "$(ports)"
}

cmd_stop() {
    local keep="" pid
    case "${1:-}" in
        "") ;;
        --keep-data) keep=1 ;;
        *) usage ;;
    esac
    if pid="$(broker_pid)"; then
        kill -TERM "$pid" 2>/dev/null || true
        local deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "kafka.sh: broker (pid $pid) still running after ${KAFKA_STOP_TIMEOUT}s, sending SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
            while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
        fi
        rm -f "$PID_FILE"
        if [[ -n "$keep" ]]; then
            touch "$KEEP_FILE"
            echo "kafka stopped (pid $pid, data kept in $(<"$DATA_FILE"))"
        else
            remove_data_dir
            echo "kafka stopped (pid $pid)"
        fi
    else
        rm -f "$PID_FILE"
        if [[ -n "$keep" ]]; then
            [[ -f "$DATA_FILE" ]] && touch "$KEEP_FILE"
        else
            remove_data_dir
        fi
        echo "kafka not running on $BOOTSTRAP"
    fi
}

cmd_status() {
    local pid
    if pid="$(broker_pid)"; then
        echo "kafka running on $BOOTSTRAP (pid $pid); $(ports)"
    else
        echo "kafka not running on $BOOTSTRAP"
        return 1
    fi
}

cmd_run() {
    (($# >= 1)) || usage
    need "$JAVA" "Java 17+"
    fetch_jars
    mkdir -p "$KAFKA_STATE_DIR"
    [[ -f "$KAFKA_STATE_DIR/tools-log4j2.properties" ]] || write_tool_config
    exec "$JAVA" "${TOOL_JVM_OPTS[@]}" -cp "$LIBS/*" "$@"
}

case "${1:-}" in
    start) shift; (($# == 0)) || usage; cmd_start ;;
    stop) shift; cmd_stop "$@" ;;
    restart) shift; (($# == 0)) || usage; cmd_stop --keep-data; cmd_start ;;
    status) shift; cmd_status ;;
    run) shift; cmd_run "$@" ;;
    *) usage ;;
esac
