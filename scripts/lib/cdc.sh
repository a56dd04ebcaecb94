# Sourced after scripts/lib/connect.sh by scripts/compare-debezium.sh and scripts/bench-cdc.sh:
# the PostgreSQL side of a change-data-capture run (the scenario's schema, its SQL files, the
# slot and publication of each side), the Debezium-compatible connector config both workers
# get, the waits (the connector streams; its topics are quiet) and the topic dump. Functions
# and defaults only: the sourcing script owns the run (work dir, workers, traps) and sets
# SCRIPT_NAME, ROOT, WORK and BOOTSTRAP.
#
# PostgreSQL: POSTGRES_URL (jdbc:postgresql://HOST:PORT/DB), POSTGRES_USER, POSTGRES_PASSWORD
# (a user with REPLICATION who owns the database) and POSTGRES_PSQL (a superuser psql command
# line), as `scripts/postgres.sh start` prints them; when POSTGRES_URL is unset,
# scripts/postgres.sh starts (or reuses) its server. CDC_SCHEMA (default cdc) is the schema the
# scenario's tables live in; it is dropped and made again by cdc_load_schema.

CDC_SCHEMA="${CDC_SCHEMA:-cdc}"
CDC_SQL_DIR="${CDC_SQL_DIR:-$ROOT/tests/cdc}"
DEBEZIUM_CLASS=io.debezium.connector.postgresql.PostgresConnector

# cdc_postgres: reads or starts the server's coordinates; sets PG_HOST, PG_PORT, PG_DB.
cdc_postgres() {
    if [[ -z "${POSTGRES_URL:-}" ]]; then
        eval "$("$ROOT/scripts/postgres.sh" start)"
    fi
    [[ -n "${POSTGRES_PSQL:-}" ]] || die "POSTGRES_PSQL (a superuser psql command line) is not set"
    local rest="${POSTGRES_URL#jdbc:postgresql://}"
    PG_DB="${rest#*/}"
    PG_DB="${PG_DB%%\?*}"
    rest="${rest%%/*}"
    PG_HOST="${rest%:*}"
    PG_PORT="${rest##*:}"
    need psql "the scenario's SQL runs through psql"
}

# cdc_psql ARGS...: psql as the replicating user, stopping at the first error.
cdc_psql() {
    PGOPTIONS='-c client_min_messages=warning' PGPASSWORD="$POSTGRES_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" \
        -U "$POSTGRES_USER" -d "$PG_DB" "$@"
}

# cdc_super SQL: one statement as the superuser; prints unaligned tuples.
cdc_super() {
    # shellcheck disable=SC2086 # POSTGRES_PSQL is a command line
    PGOPTIONS='-c client_min_messages=warning' $POSTGRES_PSQL -At -c "$1"
}

# cdc_drop_side SLOT PUBLICATION: the slot (terminating a walsender still holding it) and the
# publication of one side, if they exist.
cdc_drop_side() {
    cdc_super "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '$1' AND active_pid IS NOT NULL" >/dev/null || true
    local _
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        cdc_super "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$1' AND NOT active" >/dev/null 2>&1 || true
        [[ -z "$(cdc_super "SELECT 1 FROM pg_replication_slots WHERE slot_name = '$1'")" ]] && break
        sleep 0.5
    done
    cdc_super "DROP PUBLICATION IF EXISTS $2" >/dev/null || true
}

# cdc_load_schema: hstore, then the schema made again with tests/cdc/schema.sql and snapshot.sql.
cdc_load_schema() {
    cdc_super "CREATE EXTENSION IF NOT EXISTS hstore" >/dev/null
    cdc_psql -c "DROP SCHEMA IF EXISTS $CDC_SCHEMA CASCADE" -c "CREATE SCHEMA $CDC_SCHEMA"
    cdc_run_sql schema.sql
    cdc_run_sql snapshot.sql
}

# cdc_run_sql FILE: one of tests/cdc/*.sql (or a path) in the scenario's schema.
cdc_run_sql() {
    local file="$1"
    [[ -f "$file" ]] || file="$CDC_SQL_DIR/$1"
    cdc_psql -c "SET search_path TO $CDC_SCHEMA, public" -f "$file" >/dev/null
}

# cdc_config PREFIX [EXTRA_JSON]: the connector config (a JSON object) both sides run:
# topic.prefix PREFIX, slot PREFIX, publication PREFIX_pub, the scenario's schema only,
# JsonConverter with schemas for keys and values; EXTRA_JSON's keys are added (or win).
cdc_config() {
    jq -cn --arg prefix "$1" --arg host "$PG_HOST" --arg port "$PG_PORT" --arg db "$PG_DB" \
        --arg user "$POSTGRES_USER" --arg password "$POSTGRES_PASSWORD" --arg schema "$CDC_SCHEMA" \
        --arg class "$DEBEZIUM_CLASS" --argjson extra "${2:-{\}}" '{
        "connector.class": $class, "tasks.max": "1",
        "database.hostname": $host, "database.port": $port, "database.dbname": $db,
        "database.user": $user, "database.password": $password,
        "topic.prefix": $prefix, "slot.name": $prefix, "publication.name": ($prefix + "_pub"),
        "plugin.name": "pgoutput", "publication.autocreate.mode": "filtered",
        "schema.include.list": $schema, "snapshot.mode": "initial", "skipped.operations": "none",
        "provide.transaction.metadata": "true",
        "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true"
    } + $extra'
}

# cdc_put_connector URL NAME CONFIG_JSON: creates or updates the connector.
cdc_put_connector() {
    local code
    code="$(curl -s -o "$WORK/put-$2.body" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
        --data-binary "$3" --max-time 60 "$1/connectors/$2/config")" || code=000
    [[ "$code" == 200 || "$code" == 201 ]] || die "PUT $1/connectors/$2/config answered $code: $(head -c 2000 "$WORK/put-$2.body")"
}

# cdc_await_streaming URL NAME SLOT TIMEOUT: waits until the walsender holding SLOT is
# `streaming` or `catchup` (the snapshot is over); dies early when the connector or its task
# FAILED (printing the trace) or the time is up.
cdc_await_streaming() {
    local url="$1" name="$2" slot="$3" deadline=$((SECONDS + $4)) status
    while :; do
        if [[ -n "$(cdc_super "SELECT 1 FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = '$slot' AND r.state IN ('streaming', 'catchup')")" ]]; then
            return 0
        fi
        status="$(curl -s --max-time 10 "$url/connectors/$name/status" || true)"
        if jq -e '[.connector.state, .tasks[]?.state] | index("FAILED")' <<<"$status" >/dev/null 2>&1; then
            jq -r '[.connector.trace, .tasks[]?.trace] | map(select(. != null)) | .[0]' <<<"$status" | head -n 30 >&2
            die "connector $name at $url FAILED before streaming"
        fi
        ((SECONDS < deadline)) || die "connector $name at $url does not stream from slot $slot after $4s (status: $(head -c 500 <<<"$status"))"
        sleep 1
    done
}

# cdc_await_state URL NAME STATE TIMEOUT: waits until the connector shows STATE (and, unless
# STOPPED, every task too).
cdc_await_state() {
    local deadline=$((SECONDS + $4)) status
    while :; do
        status="$(curl -s --max-time 10 "$1/connectors/$2/status" || true)"
        if jq -e --arg s "$3" '.connector.state == $s and (if $s == "STOPPED" then (.tasks | length) == 0 else (.tasks | length) > 0 and all(.tasks[]; .state == $s) end)' <<<"$status" >/dev/null 2>&1; then
            return 0
        fi
        ((SECONDS < deadline)) || die "connector $2 at $1 is not $3 after $4s (status: $(head -c 800 <<<"$status"))"
        sleep 0.5
    done
}

# cdc_dump REGEX OUT_DIR QUIET TIMEOUT [MIN_RECORDS [brief]]: waits until the topics matching
# REGEX hold MIN_RECORDS and are quiet for QUIET seconds, then writes OUT_DIR/<topic>.jsonl
# (scripts/lib/TopicDump.java; `brief`: offsets, timestamps, op and source.ts_ms only).
cdc_dump() {
    if [[ ! -f "$WORK/topicdump/TopicDump.class" ]]; then
        mkdir -p "$WORK/topicdump"
        javac --release 17 -nowarn -cp "$CONNECT_LIBS/*" -d "$WORK/topicdump" "$ROOT/scripts/lib/TopicDump.java"
        printf '%s\n' 'status = error' 'appender.err.type = Console' 'appender.err.name = ERR' 'appender.err.target = SYSTEM_ERR' \
            'appender.err.layout.type = PatternLayout' 'appender.err.layout.pattern = %p %m%n' \
            'rootLogger.level = error' 'rootLogger.appenderRef.err.ref = ERR' >"$WORK/topicdump/log4j2.properties"
    fi
    "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -cp "$WORK/topicdump:$CONNECT_LIBS/*" \
        -Dlog4j2.configurationFile="file:$WORK/topicdump/log4j2.properties" \
        TopicDump "$BOOTSTRAP" "$1" "$2" "$3" "$4" "${5:-1}" "${6:-full}"
}

# cdc_delete_topics REGEX: removes earlier runs' topics of a prefix from the broker.
cdc_delete_topics() {
    KAFKA_PORT="${KAFKA_PORT:-9092}" timeout 60 "$ROOT/scripts/kafka.sh" run org.apache.kafka.tools.TopicCommand \
        --bootstrap-server "$BOOTSTRAP" --delete --if-exists --topic "$1" >/dev/null 2>&1 || true
}
