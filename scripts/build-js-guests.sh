#!/usr/bin/env bash
# Builds the JavaScript example plugins (examples/js/*) into build/examples/js/NAME.wasm
# with the JS SDK's build tool (plugins/sdk-js/tools/build.mjs: esbuild, then
# componentize-js against the repo's wit/).
#
# The toolchain is pinned by plugins/sdk-js/package-lock.json and installed with `npm ci`
# when node_modules is missing or older than the lockfile (preview2-shim is pinned there
# because componentize-js imports it without declaring it). A component newer than every
# input (its example, the SDK, the build tool, wit/, the lockfile) is not rebuilt, so a
# second run takes a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SDK="$ROOT/plugins/sdk-js"
OUT="$ROOT/build/examples/js"
EXAMPLES=(sequence-source jsonl-sink redact-transform)

command -v node >/dev/null || { echo "error: node (20 or newer) is needed to build the JS plugins" >&2; exit 1; }

stamp="$SDK/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$SDK/package-lock.json" -nt "$stamp" ]; then
    (cd "$SDK" && npm ci --no-audit --no-fund)
fi

mkdir -p "$OUT"
for name in "${EXAMPLES[@]}"; do
    dst="$OUT/$name.wasm"
    if [ -f "$dst" ] && [ -z "$(find "$ROOT/examples/js/$name" "$SDK/src" "$SDK/tools" "$ROOT/wit" "$SDK/package-lock.json" -newer "$dst" -print -quit)" ]; then
        printf '%-40s %9d bytes (up to date)\n' "build/examples/js/$name.wasm" "$(wc -c <"$dst")"
        continue
    fi
    node "$SDK/tools/build.mjs" "$ROOT/examples/js/$name" "$dst" >/dev/null
    printf '%-40s %9d bytes\n' "build/examples/js/$name.wasm" "$(wc -c <"$dst")"
done
