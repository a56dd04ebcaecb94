#!/bin/sh
# Builds plugins/{{snake}}.wasm from app.py and the SDK copy in wasm_connect/, with
# componentize-py (pip install -r requirements.txt). Everything app.py imports at build
# time is bundled into the component, with its own CPython: the worker needs nothing else.
set -eu
cd "$(dirname "$0")"
mkdir -p plugins
# VIRTUAL_ENV unset: componentize-py then bundles nothing from a venv's site-packages.
env -u VIRTUAL_ENV componentize-py -d wit -w transform componentize app -p . -o plugins/{{snake}}.wasm
echo "Wrote plugins/{{snake}}.wasm"
