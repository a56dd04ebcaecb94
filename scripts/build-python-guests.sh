#!/usr/bin/env bash
# Builds the Python example plugins (examples/python/<name>/app.py, written with the SDK
# in plugins/sdk-python) into build/examples/python/<name>.wasm with componentize-py.
#
# The toolchain (plugins/sdk-python/requirements-build.txt: componentize-py and pytest,
# pinned) is installed from PyPI into a venv at ${WASM_CONNECT_TOOLS:-build/tools}/python
# when missing or when the requirements changed; a component is rebuilt only when it is
# older than its app, the SDK or the WIT. Prints the venv's python with --print-python
# (for the SDK's unit tests) instead of building.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${WASM_CONNECT_TOOLS:-$ROOT/build/tools}/python"
REQUIREMENTS="$ROOT/plugins/sdk-python/requirements-build.txt"
SDK="$ROOT/plugins/sdk-python"
OUT="$ROOT/build/examples/python"
# example name -> the world it targets (wit/connector.wit, wit/transform.wit).
EXAMPLES=(sequence-source:source-connector jsonl-sink:sink-connector redact-transform:transform)

# The venv, installed or refreshed when requirements-build.txt differs from the copy
# kept in it after the last successful install.
if ! cmp -s "$REQUIREMENTS" "$TOOLS/requirements-build.txt" 2>/dev/null \
    || [ ! -x "$TOOLS/bin/componentize-py" ]; then
    echo "Installing the Python guest toolchain into $TOOLS" >&2
    rm -rf "$TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$TOOLS/requirements-build.txt"
fi

if [ "${1:-}" = "--print-python" ]; then
    echo "$TOOLS/bin/python"
    exit 0
fi

mkdir -p "$OUT"
for entry in "${EXAMPLES[@]}"; do
    name="${entry%%:*}"
    world="${entry#*:}"
    app="$ROOT/examples/python/$name"
    dst="$OUT/$name.wasm"
    if [ -f "$dst" ] && [ -z "$(find "$app" "$SDK/wasm_connect" "$ROOT/wit" -newer "$dst" -type f \
        ! -path '*/__pycache__/*' -print -quit)" ]; then
        printf '%-40s %9d bytes (up to date)\n' "build/examples/python/$name.wasm" "$(wc -c <"$dst")"
        continue
    fi
    start=$(date +%s%N)
    # -p: the app's directory first, then the SDK; nothing else (no site-packages) is
    # bundled. VIRTUAL_ENV unset so that componentize-py adds no venv to the path.
    (cd "$app" && env -u VIRTUAL_ENV "$TOOLS/bin/componentize-py" -d "$ROOT/wit" -w "$world" \
        componentize app -p "$app" -p "$SDK" -o "$dst.tmp" >/dev/null)
    mv "$dst.tmp" "$dst"
    ms=$((($(date +%s%N) - start) / 1000000))
    printf '%-40s %9d bytes (built in %d.%01d s)\n' "build/examples/python/$name.wasm" "$(wc -c <"$dst")" \
        $((ms / 1000)) $((ms % 1000 / 100))
done
