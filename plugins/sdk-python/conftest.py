"""pytest setup for the SDK's unit tests: this directory on sys.path (pytest inserts a
conftest's directory), so `import wasm_connect` works without installing the package."""
