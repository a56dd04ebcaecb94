#!/usr/bin/env bash
# Builds the guest workspace (plugins/Cargo.toml: the SDK, the first-party connectors, the
# Rust examples under examples/rust/ and the test fixtures under tests/components/) for
# wasm32-wasip2, then copies the components: connectors to build/plugins/, examples to
# build/examples/rust/, test fixtures to build/fixtures/, and copies of two fixtures that
# report other versions (the plugin-version tests) to build/versions/.
#
# Guests build in "${CARGO_TARGET_DIR:-target}/guests", a directory of their own, so a
# guest build never waits on the host build's lock.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET=wasm32-wasip2
CONNECTORS=(file-source file-sink datagen postgres-sink postgres-source postgres-cdc http-sink)
EXAMPLES=(hello-source echo-sink redact-transform)
FIXTURES=(chaos-source chaos-sink chaos-transform)

if ! rustc --print target-libdir --target "$TARGET" >/dev/null 2>&1 \
    || [ ! -d "$(rustc --print target-libdir --target "$TARGET")" ]; then
    rustup target add "$TARGET"
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/guests"
cargo build --release --target "$TARGET" --manifest-path "$ROOT/plugins/Cargo.toml"

out="$CARGO_TARGET_DIR/$TARGET/release"

# copy DIR NAME...: build/DIR/NAME.wasm from the cdylib of crate NAME.
copy() {
    local dir="$1"
    shift
    mkdir -p "$ROOT/build/$dir"
    for name in "$@"; do
        local dst="$ROOT/build/$dir/$name.wasm"
        cp "$out/${name//-/_}.wasm" "$dst"
        printf '%-40s %9d bytes\n' "build/$dir/$name.wasm" "$(wc -c <"$dst")"
    done
}

copy plugins "${CONNECTORS[@]}"
copy examples/rust "${EXAMPLES[@]}"
copy fixtures "${FIXTURES[@]}"

# The same chaos source and transform reporting versions 1.0.0, 2.0.0 and 3.0.0: several
# versions of one plugin for the plugin-version tests (KIP-891). Kept out of
# build/fixtures/, which the tests' default plugin path holds.
mkdir -p "$ROOT/build/versions"
for version in 1.0.0 2.0.0 3.0.0; do
    echo "building the versioned fixtures, version $version"
    CHAOS_PLUGIN_VERSION="$version" cargo build --release --target "$TARGET" \
        --manifest-path "$ROOT/plugins/Cargo.toml" -p chaos-source -p chaos-transform
    for name in chaos-source chaos-transform; do
        dst="$ROOT/build/versions/$name-$version.wasm"
        cp "$out/${name//-/_}.wasm" "$dst"
        printf '%-40s %9d bytes\n' "build/versions/$name-$version.wasm" "$(wc -c <"$dst")"
    done
done
