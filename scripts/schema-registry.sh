#!/usr/bin/env bash
# A throwaway schema registry for tests and benches: Apicurio Registry 3.3.3 from Maven
# Central (`io.apicurio:apicurio-registry-app:3.3.3`, the `all` tar.gz), which serves
# Confluent's Schema Registry API at /apis/ccompat/v7. It keeps its schemas in memory
# (a restart starts empty), listens on 127.0.0.1 only (its management interface too,
# which by default binds 0.0.0.0:9000), on a free port.
#
#   scripts/schema-registry.sh start    fetch once (cached), start, wait until it answers;
#                                       prints the variables below (eval-able)
#   scripts/schema-registry.sh stop     stop it and delete its state dir
#   scripts/schema-registry.sh status   exit 0 if running; prints the same variables
#
# Printed (and read back from $SCHEMA_REGISTRY_STATE_DIR/env by status):
#   SCHEMA_REGISTRY_URL   http://127.0.0.1:PORT/apis/ccompat/v7, what
#                         `schema.registry.url` takes
#
# Environment: SCHEMA_REGISTRY_BASIC_AUTH=<user>:<password> puts every request behind HTTP
# basic authentication with that one user (Quarkus' embedded users; the credentials go to a
# 0600 file in the state dir, never on the command line), SCHEMA_REGISTRY_PORT (default: a
# free port), SCHEMA_REGISTRY_STATE_DIR
# (default /tmp/wasm-connect-schema-registry), SCHEMA_REGISTRY_CACHE (where the unpacked
# app is kept; default ~/.cache/wasm-connect/apicurio-registry-3.3.3), JAVA21_HOME or
# TEMURIN25_HOME (a JDK of 21 or later: the registry does not run on Java 17; default: the
# newest /usr/lib/jvm/temurin-* of 21 or later). Needs mvn on PATH for the first fetch.
#
# Apicurio's default compatibility is NONE, where Confluent's is BACKWARD: tests that
# depend on it set it per subject (PUT /config/<subject>).
set -euo pipefail

VERSION=3.3.3
STATE="${SCHEMA_REGISTRY_STATE_DIR:-/tmp/wasm-connect-schema-registry}"
CACHE="${SCHEMA_REGISTRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-connect/apicurio-registry-$VERSION}"

die() {
    echo "schema-registry: $*" >&2
    exit 1
}

java_bin() {
    local home="${JAVA21_HOME:-${TEMURIN25_HOME:-}}"
    if [[ -z "$home" ]]; then
        local dir version
        for dir in $(ls -d /usr/lib/jvm/temurin-* /usr/lib/jvm/*-openjdk-* 2>/dev/null | sort -V -r); do
            version="$(basename "$dir" | grep -oE '[0-9]+' | head -1)"
            if [[ -n "$version" && "$version" -ge 21 && -x "$dir/bin/java" ]]; then
                home="$dir"
                break
            fi
        done
    fi
    [[ -n "$home" && -x "$home/bin/java" ]] ||
        die "needs a JDK of 21 or later (Apicurio Registry $VERSION does not run on Java 17): set JAVA21_HOME"
    echo "$home/bin/java"
}

fetch() {
    [[ -f "$CACHE/quarkus-run.jar" ]] && return 0
    command -v mvn >/dev/null || die "mvn is needed once to fetch Apicurio Registry $VERSION from Maven Central"
    local work
    work="$(mktemp -d)"
    echo "schema-registry: fetching io.apicurio:apicurio-registry-app:$VERSION (about 90 MB, once) ..." >&2
    if ! mvn -B -q -Dstyle.color=never dependency:copy \
        "-Dartifact=io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all" \
        "-DoutputDirectory=$work" >"$work/mvn.log" 2>&1; then
        grep -F '[ERROR]' "$work/mvn.log" | head -n 3 >&2 || tail -n 20 "$work/mvn.log" >&2
        rm -rf "$work"
        die "mvn could not fetch io.apicurio:apicurio-registry-app:$VERSION (see above)"
    fi
    echo "schema-registry: unpacking ..." >&2
    mkdir -p "$work/app"
    tar xzf "$work/apicurio-registry-app-$VERSION-all.tar.gz" -C "$work/app"
    [[ -f "$work/app/quarkus-run.jar" ]] || { rm -rf "$work"; die "the tarball holds no quarkus-run.jar"; }
    mkdir -p "$(dirname "$CACHE")"
    rm -rf "$CACHE"
    mv "$work/app" "$CACHE"
    rm -rf "$work"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

running() {
    [[ -f "$STATE/env" && -f "$STATE/pid" ]] || return 1
    kill -0 "$(cat "$STATE/pid")" 2>/dev/null
}

print_env() {
    sed 's/^/export /' "$STATE/env"
}

start() {
    if running; then
        print_env
        return 0
    fi
    local java port management url
    java="$(java_bin)"
    fetch
    port="${SCHEMA_REGISTRY_PORT:-$(free_port)}"
    management="$(free_port)"
    rm -rf "$STATE"
    mkdir -p "$STATE"
    local auth=()
    if [[ -n "${SCHEMA_REGISTRY_BASIC_AUTH:-}" ]]; then
        local user="${SCHEMA_REGISTRY_BASIC_AUTH%%:*}" password="${SCHEMA_REGISTRY_BASIC_AUTH#*:}"
        [[ "$user" != "$SCHEMA_REGISTRY_BASIC_AUTH" && -n "$user" ]] ||
            die "SCHEMA_REGISTRY_BASIC_AUTH must be <user>:<password>"
        (
            umask 077
            cat >"$STATE/auth.properties" <<PROPS
quarkus.security.users.embedded.enabled=true
quarkus.security.users.embedded.plain-text=true
quarkus.security.users.embedded.users.$user=$password
quarkus.http.auth.basic=true
quarkus.http.auth.permission.authenticated.paths=/*
quarkus.http.auth.permission.authenticated.policy=authenticated
PROPS
        )
        auth=("-Dquarkus.config.locations=file:$STATE/auth.properties")
    fi
    (
        cd "$CACHE"
        exec "$java" -Xmx256m -XX:+UseSerialGC \
            -Dquarkus.http.host=127.0.0.1 "-Dquarkus.http.port=$port" \
            -Dquarkus.management.host=127.0.0.1 "-Dquarkus.management.port=$management" \
            "${auth[@]}" -jar quarkus-run.jar
    ) >"$STATE/registry.log" 2>&1 &
    echo $! >"$STATE/pid"
    url="http://127.0.0.1:$port/apis/ccompat/v7"
    echo "schema-registry: starting Apicurio Registry $VERSION on 127.0.0.1:$port ..." >&2
    local waited=0
    # Any HTTP answer (a 401 behind basic auth) means it serves.
    until [[ "$(curl -sS -o /dev/null -w '%{http_code}' "$url/subjects" 2>/dev/null)" =~ ^(200|401)$ ]]; do
        if ! kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
            tail -n 20 "$STATE/registry.log" >&2
            die "the registry exited during start-up (log: $STATE/registry.log)"
        fi
        if ((waited >= 120)); then
            tail -n 20 "$STATE/registry.log" >&2
            stop
            die "the registry did not answer within 120 s"
        fi
        sleep 1
        waited=$((waited + 1))
    done
    echo "SCHEMA_REGISTRY_URL='$url'" >"$STATE/env"
    print_env
}

stop() {
    if [[ -f "$STATE/pid" ]]; then
        local pid
        pid="$(cat "$STATE/pid")"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 30); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -9 "$pid" 2>/dev/null || true
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
        echo "schema-registry: not running" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
