#!/usr/bin/env bash
# Browser tests of the dashboard (/ui): starts two standalone workers (release binary,
# embedded SQLite store, plugins from build/plugins and the chaos fixtures from
# build/fixtures, and a plugin directory of its own each, where the tests copy a versioned
# chaos source from build/versions and a broken file), one open on HTTP and one on HTTPS (a self-signed certificate made with
# openssl) behind basic authentication, then drives Debian's Chromium with Playwright
# (tests/ui/dashboard.test.mjs, `playwright-core` from npm, no browser download) through
# the pages, and stops the workers. With SCHEMA_REGISTRY_URL set (scripts/schema-registry.sh
# prints it), a connector with a Schema Registry converter is checked too; without it that
# case is skipped with a note.
#
# Installs what a fresh machine lacks: Debian's chromium and openssl (apt-get, when
# missing) and tests/ui's npm packages (playwright-core, axe-core; `npm ci`, when missing
# or when the lock file changed). Builds the worker like scripts/schemathesis.sh does, and
# the guests when build/ has none (WASM_CONNECT_BIN names a worker binary to use instead
# of building one). A screenshot of every page, and the workers' logs, are left in
# build/ui-artifacts/; UPDATE_SCREENSHOT=1 also copies the connectors page to
# docs/ui-connectors.png (the README's picture).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/build/ui-artifacts"
UI="$ROOT/tests/ui"

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-liberation)
command -v openssl >/dev/null || missing+=(openssl)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]} (Debian)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! cmp -s "$UI/package-lock.json" "$UI/node_modules/.package-lock.json" 2>/dev/null \
    && ! cmp -s "$UI/package-lock.json" "$UI/node_modules/.installed-lock.json" 2>/dev/null; then
    (cd "$UI" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$UI/package-lock.json" "$UI/node_modules/.installed-lock.json"
fi

if ! compgen -G "build/fixtures/*.wasm" >/dev/null || ! compgen -G "build/plugins/*.wasm" >/dev/null \
    || [ ! -f build/versions/chaos-source-2.0.0.wasm ]; then
    scripts/build-guests.sh
fi
BIN="${WASM_CONNECT_BIN:-}"
if [ -z "$BIN" ]; then
    echo "Building the worker (release)" >&2
    cargo test --release --workspace --no-run
    BIN="$CARGO_TARGET_DIR/release/wasm-connect"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/wasm-connect-ui.XXXXXX")"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    mkdir -p "$OUT"
    cp "$WORK"/*.log "$OUT/" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

free_port() {
    node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# start NAME SCHEME [extra properties...]: a worker in $WORK/NAME listening on
# SCHEME://127.0.0.1; sets URL to its base URL.
start() {
    local name="$1" scheme="$2"
    shift 2
    local port
    port="$(free_port)"
    mkdir -p "$WORK/$name/plugins"
    {
        echo "plugin.path=$WORK/$name/plugins,$ROOT/build/fixtures,$ROOT/build/plugins"
        echo "listeners=$scheme://127.0.0.1:$port"
        echo "offset.storage.file.filename=$WORK/$name/standalone.db"
        echo "offset.flush.interval.ms=1000"
        echo "wasm.pool.instances=64"
        echo "task.shutdown.graceful.timeout.ms=2000"
        printf '%s\n' "$@"
    } >"$WORK/$name/worker.properties"
    "$BIN" standalone "$WORK/$name/worker.properties" >"$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    URL="$scheme://127.0.0.1:$port"
}

printf 'admin: admin-secret\n' >"$WORK/credentials.properties"
# The second worker's HTTPS certificate: self-signed for 127.0.0.1; the test trusts it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
cat "$WORK/key.pem" "$WORK/cert.pem" >"$WORK/keystore.pem"
start open http
OPEN_URL="$URL"
start auth https "rest.basic.auth.credentials.file=$WORK/credentials.properties" \
    listeners.https.ssl.keystore.type=PEM "listeners.https.ssl.keystore.location=$WORK/keystore.pem"
AUTH_URL="$URL"

status=0
if [ -z "${SCHEMA_REGISTRY_URL:-}" ]; then
    echo "Note: SCHEMA_REGISTRY_URL is not set: the registry converter case is skipped" >&2
fi
(cd "$UI" && UI_SCHEMA_REGISTRY_URL="${SCHEMA_REGISTRY_URL:-}" NODE_EXTRA_CA_CERTS="$WORK/cert.pem" UI_OPEN_URL="$OPEN_URL" UI_AUTH_URL="$AUTH_URL" UI_AUTH_USER=admin \
    UI_PLUGIN_DIR="$WORK/open/plugins" UI_VERSIONED_PLUGIN="$ROOT/build/versions/chaos-source-2.0.0.wasm" \
    UI_AUTH_PASSWORD=admin-secret UI_ARTIFACTS="$OUT" \
    node --test --test-concurrency=1 dashboard.test.mjs) || status=$?
if [ "$status" -ne 0 ]; then
    echo "The end of the open worker's log:" >&2
    tail -n 30 "$WORK/open.log" >&2 || true
fi
if [ "$status" -eq 0 ] && [ "${UPDATE_SCREENSHOT:-0}" = 1 ]; then
    mkdir -p docs
    cp "$OUT/connectors.png" docs/ui-connectors.png
fi
exit "$status"
