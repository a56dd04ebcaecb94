#!/usr/bin/env bash
# The test command: builds the guest components, then runs every quality gate and every
# test of both workspaces. `.ci/run` calls exactly this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# Backtraces are captured on every wasmtime error when set; traces stay readable without.
unset RUST_BACKTRACE

step() { printf '\n==> %s\n' "$*"; }

step "guest components"
scripts/build-guests.sh

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

step "kafka broker"
# Integration tests run against a real single-node broker; they fail (never skip) without it.
export KAFKA_PORT="${KAFKA_PORT:-9092}"
export KAFKA_BOOTSTRAP="${KAFKA_BOOTSTRAP:-127.0.0.1:$KAFKA_PORT}"
started_kafka=0
if ! scripts/kafka.sh status >/dev/null 2>&1; then
  scripts/kafka.sh start
  started_kafka=1
fi
cleanup() { if [ "$started_kafka" = 1 ]; then scripts/kafka.sh stop || true; fi; }
trap cleanup EXIT

step "tests (host)"
cargo test --release --workspace
