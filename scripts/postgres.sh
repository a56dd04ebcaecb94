#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benches: Debian's `postgresql` package, a
# cluster made with initdb in a temp dir, listening on a free 127.0.0.1 port, one
# password-authenticated user (scram-sha-256; md5 for the user `$POSTGRES_USER_MD5`). The
# server runs with `wal_level=logical` and the scram user may replicate, so change data
# capture (logical replication slots, `pgoutput`, publications) works against it.
#
#   scripts/postgres.sh start    install the package if missing, initdb, start, wait until
#                                it accepts logins; prints the variables below (eval-able)
#   scripts/postgres.sh stop     stop it (fast shutdown) and delete its data dir
#   scripts/postgres.sh status   exit 0 if running; prints the same variables
#
# Printed (and read back from $POSTGRES_STATE_DIR/env by status):
#   POSTGRES_URL       jdbc:postgresql://127.0.0.1:PORT/DB, as the JDBC connectors write it
#   POSTGRES_USER, POSTGRES_PASSWORD     the scram-sha-256 user
#   POSTGRES_MD5_USER, POSTGRES_MD5_PASSWORD   a user whose password is stored as md5
#   POSTGRES_PSQL      a psql command line logged in as the superuser (for tests' setup)
#
# Environment: POSTGRES_PORT (default: a free port), POSTGRES_STATE_DIR (default
# /tmp/wasm-connect-postgres), POSTGRES_DB (default connect). As root, the server runs as
# the package's `postgres` user (initdb refuses root).
set -euo pipefail

STATE="${POSTGRES_STATE_DIR:-/tmp/wasm-connect-postgres}"
DB="${POSTGRES_DB:-connect}"
USER_NAME=connect
PASSWORD=connect-secret
MD5_USER=connect_md5
MD5_PASSWORD=connect-md5-secret

bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
    if [[ -z "$dir" || ! -x "$dir/initdb" ]]; then
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        dir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    fi
    echo "$dir"
}

# as_owner CMD...: runs CMD as the cluster's owner (the `postgres` user when we are root).
as_owner() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

running() {
    [[ -f "$STATE/env" ]] || return 1
    # shellcheck disable=SC1091
    source "$STATE/env"
    as_owner "$(cat "$STATE/bindir")/pg_ctl" -D "$STATE/data" status >/dev/null 2>&1
}

print_env() {
    sed 's/^/export /' "$STATE/env"
}

start() {
    if running; then
        print_env
        return 0
    fi
    local bin port
    bin="$(bindir)"
    port="${POSTGRES_PORT:-$(free_port)}"
    rm -rf "$STATE"
    mkdir -p "$STATE/data"
    echo "$bin" >"$STATE/bindir"
    [[ "$(id -u)" == 0 ]] && chown -R postgres:postgres "$STATE"
    local pwfile="$STATE/superuser-password"
    echo "$PASSWORD" >"$pwfile"
    [[ "$(id -u)" == 0 ]] && chown postgres "$pwfile"
    as_owner "$bin/initdb" -D "$STATE/data" -U postgres --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$STATE/initdb.log"
    cat >>"$STATE/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$STATE'
password_encryption = 'scram-sha-256'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
# Logical replication for change data capture (pgoutput slots and publications).
wal_level = logical
max_replication_slots = 20
max_wal_senders = 20
EOF
    # md5 for the md5 user (listed first so it wins), scram-sha-256 for everyone else.
    cat >"$STATE/data/pg_hba.conf" <<EOF
local all all trust
host all $MD5_USER 127.0.0.1/32 md5
host all all 127.0.0.1/32 scram-sha-256
EOF
    as_owner "$bin/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -t 60 start >/dev/null
    local psql=("$bin/psql" -h "$STATE" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
    as_owner "${psql[@]}" -d postgres <<EOF
CREATE ROLE $USER_NAME LOGIN REPLICATION PASSWORD '$PASSWORD';
SET password_encryption = 'md5';
CREATE ROLE $MD5_USER LOGIN PASSWORD '$MD5_PASSWORD';
CREATE DATABASE $DB OWNER $USER_NAME;
GRANT ALL ON DATABASE $DB TO $MD5_USER;
EOF
    as_owner "${psql[@]}" -d "$DB" -c "GRANT ALL ON SCHEMA public TO $MD5_USER"
    # hstore (the change-data-capture scenario has a column of it) needs the superuser.
    as_owner "${psql[@]}" -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS hstore"
    local psql_cmd="${psql[*]} -d $DB"
    [[ "$(id -u)" == 0 ]] && psql_cmd="runuser -u postgres -- $psql_cmd"
    cat >"$STATE/env" <<EOF
POSTGRES_URL='jdbc:postgresql://127.0.0.1:$port/$DB'
POSTGRES_USER='$USER_NAME'
POSTGRES_PASSWORD='$PASSWORD'
POSTGRES_MD5_USER='$MD5_USER'
POSTGRES_MD5_PASSWORD='$MD5_PASSWORD'
POSTGRES_PSQL='$psql_cmd'
EOF
    print_env
}

stop() {
    if [[ -f "$STATE/bindir" && -d "$STATE/data" ]]; then
        as_owner "$(cat "$STATE/bindir")/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$STATE"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status)
    if running; then
        print_env
    else
        echo "postgres: not running" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
