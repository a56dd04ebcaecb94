#!/usr/bin/env bash
# The test command: checks the links of the Markdown docs, builds the guest components
# (Rust, the Python examples with the pinned componentize-py, the JavaScript examples with
# the pinned componentize-js), then runs every quality gate and every test of both
# workspaces and of the Python and JavaScript SDKs, fuzzes the REST API against
# openapi.json (scripts/schemathesis.sh, about two minutes), and drives the web dashboard in
# Chromium (scripts/ui-tests.sh, under a minute). Each step prints the time taken so far.
# `.ci/run` calls exactly this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# Backtraces are captured on every wasmtime error when set; traces stay readable without.
unset RUST_BACKTRACE

# Each step says what it is and how long the run has taken so far.
START=$SECONDS
step() { printf '\n==> %s (at %dm%02ds)\n' "$*" $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)); }
finished() { printf '\n==> done in %dm%02ds\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)); }

step "links in the docs"
python3 scripts/check-doc-links.py $(git ls-files '*.md')

step "guest components"
scripts/build-guests.sh
step "python guest components"
scripts/build-python-guests.sh
step "JavaScript guest components"
scripts/build-js-guests.sh

# Whatever a step starts is stopped on exit, in reverse order.
cleanup=()
trap 'for ((i = ${#cleanup[@]} - 1; i >= 0; i--)); do eval "${cleanup[i]}"; done' EXIT

step "postgres"
# The PostgreSQL connectors' tests (native and e2e) need a server. Use POSTGRES_URL (with
# POSTGRES_USER and POSTGRES_PASSWORD) when set; otherwise start scripts/postgres.sh's
# (Debian's package, a free loopback port, data in a temp dir) and stop it afterwards.
if [[ -z "${POSTGRES_URL:-}" ]]; then
  if ! scripts/postgres.sh status >/dev/null 2>&1; then
    cleanup+=('scripts/postgres.sh stop >/dev/null')
  fi
  eval "$(scripts/postgres.sh start)"
fi

step "schema registries"
# The Schema Registry converters' tests need Apicurio Registry (Java 21+, from Maven
# Central on the first run): one open, one behind HTTP basic authentication. Use
# SCHEMA_REGISTRY_URL (and SCHEMA_REGISTRY_AUTH_URL with SCHEMA_REGISTRY_AUTH_USER_INFO) when
# set; otherwise start them (each on a free loopback port) and stop them afterwards.
if [[ -z "${SCHEMA_REGISTRY_URL:-}" ]]; then
  if ! scripts/schema-registry.sh status >/dev/null 2>&1; then
    cleanup+=('scripts/schema-registry.sh stop >/dev/null')
  fi
  eval "$(scripts/schema-registry.sh start)"
fi
if [[ -z "${SCHEMA_REGISTRY_AUTH_URL:-}" ]]; then
  auth_state=/tmp/wasm-connect-schema-registry-auth
  export SCHEMA_REGISTRY_AUTH_USER_INFO="connect:$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  # A registry of an earlier run has another password: start afresh.
  SCHEMA_REGISTRY_STATE_DIR=$auth_state scripts/schema-registry.sh stop >/dev/null
  cleanup+=("SCHEMA_REGISTRY_STATE_DIR=$auth_state scripts/schema-registry.sh stop >/dev/null")
  auth_url="$(SCHEMA_REGISTRY_STATE_DIR=$auth_state SCHEMA_REGISTRY_BASIC_AUTH="$SCHEMA_REGISTRY_AUTH_USER_INFO" \
    scripts/schema-registry.sh start | sed -n "s/^export SCHEMA_REGISTRY_URL='\(.*\)'$/\1/p")"
  export SCHEMA_REGISTRY_AUTH_URL="$auth_url"
fi
export SCHEMA_REGISTRY_URL

step "format"
cargo fmt --all -- --check
cargo fmt --manifest-path plugins/Cargo.toml --all -- --check

step "clippy (host)"
cargo clippy --release --all-targets -- -D warnings
step "clippy (guests)"
CARGO_TARGET_DIR="$CARGO_TARGET_DIR/guests" \
  cargo clippy --release --target wasm32-wasip2 --manifest-path plugins/Cargo.toml --all-targets -- -D warnings

step "tests (guest workspace, native)"
CARGO_TARGET_DIR="$CARGO_TARGET_DIR/guests" \
  cargo test --release --manifest-path plugins/Cargo.toml --workspace

step "tests (python SDK)"
"$(scripts/build-python-guests.sh --print-python)" -m pytest -q -p no:cacheprovider plugins/sdk-python

step "tests (JavaScript SDK, node)"
node --test plugins/sdk-js/test

step "kafka broker"
# The Kafka backend tests need a broker and fail without one. Use KAFKA_BOOTSTRAP (and the
# KAFKA_*_BOOTSTRAP and KAFKA_TLS_DIR of its secure listeners) when it is set; otherwise start
# scripts/kafka.sh's broker (and stop it afterwards if we started it).
if [[ -z "${KAFKA_BOOTSTRAP:-}" ]]; then
  if ! scripts/kafka.sh status >/dev/null; then
    cleanup+=('scripts/kafka.sh stop >/dev/null')
  fi
  scripts/kafka.sh start
  export KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT:-9092}"
  # Its secure listeners and TLS files, with scripts/kafka.sh's defaults (login connect /
  # connect-secret); the tests of TLS and SASL fail without them.
  kafka_port="${KAFKA_PORT:-9092}"
  export KAFKA_SASL_SSL_BOOTSTRAP="127.0.0.1:${KAFKA_SASL_SSL_PORT:-$((kafka_port + 2))}"
  export KAFKA_SSL_BOOTSTRAP="127.0.0.1:${KAFKA_SSL_PORT:-$((kafka_port + 3))}"
  export KAFKA_SASL_PLAINTEXT_BOOTSTRAP="127.0.0.1:${KAFKA_SASL_PLAINTEXT_PORT:-$((kafka_port + 4))}"
  export KAFKA_TLS_DIR="${KAFKA_STATE_DIR:-/tmp/wasm-connect-kafka-$kafka_port}/tls"
fi

step "tests (host)"
cargo test --release --workspace

step "REST API against openapi.json (schemathesis)"
scripts/schemathesis.sh

step "dashboard in Chromium (Playwright)"
scripts/ui-tests.sh
finished
