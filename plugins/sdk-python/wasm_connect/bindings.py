"""The one door to the bindings componentize-py generates (`wit_world`): importing them,
and converting SDK values to WIT values where more than one module needs it.

The bindings exist only inside a component build: outside one (the SDK's unit tests) the
imports below fail quietly, every other part of the SDK works, and each use of a binding
looks it up again. This module must stay free of plugin logic.
"""

from __future__ import annotations

from typing import Any

from .errors import CONFIG, RETRIABLE, classify

__all__ = ["types", "host", "offset_reader", "transaction_context", "exactly_once", "transformation", "wit_error", "err"]

# componentize-py bundles only the modules imported while it pre-initialises the app, so
# the bindings are imported here, when the app imports the SDK; a later import inside a
# component fails. Outside a component (unit tests) they are looked up again on use.
_loaded = {}
for _name in ("types", "host", "offset_reader", "transaction_context"):
    try:
        _loaded[_name] = __import__(f"wit_world.imports.{_name}", fromlist=["_"])
    except ImportError:
        pass
# The `source-connector` world's `exactly-once` export types (`Support`).
try:
    _loaded["exactly_once"] = __import__("wit_world.exports.exactly_once", fromlist=["_"])
except ImportError:
    pass
# The `transform` world's export types (`transformed`); absent in the connector worlds.
try:
    _loaded["transformation"] = __import__("wit_world.exports.transformation", fromlist=["_"])
except ImportError:
    pass
try:
    import componentize_py_types as _cpt
except ImportError:
    _cpt = None


def _module(name: str) -> Any:
    module = _loaded.get(name)
    if module is not None:
        return module
    side = "exports" if name in ("transformation", "exactly_once") else "imports"
    try:
        return __import__(f"wit_world.{side}.{name}", fromlist=["_"])
    except ImportError:
        if name == "offset_reader":
            raise RuntimeError(
                "offsets() is available to source plugins only (the sink-connector world has no offset-reader)"
            ) from None
        raise RuntimeError(
            f"wit_world.{side}.{name} is not available: this call works only inside a component "
            "built by componentize-py for a wasm-connect world"
        ) from None


def types() -> Any:
    """The generated `wasm-connect:connector/types` module."""
    return _module("types")


def host() -> Any:
    """The generated `wasm-connect:connector/host` module."""
    return _module("host")


def offset_reader() -> Any:
    """The generated `offset-reader` module; only source worlds import it."""
    return _module("offset_reader")


def transaction_context() -> Any:
    """The generated `transaction-context` import module; only source worlds import it."""
    return _module("transaction_context")


def exactly_once() -> Any:
    """The generated `exactly-once` export module (its `Support` enum); only the
    `source-connector` world has it."""
    return _module("exactly_once")


def transformation() -> Any:
    """The generated `transformation` export module (its `Transformed` record); only the
    `transform` world has it."""
    return _module("transformation")


def wit_error(exc: BaseException) -> Any:
    """The WIT `error` value for `exc` (see `errors.classify`)."""
    t = types()
    kind, message = classify(exc)
    if kind == RETRIABLE:
        return t.Error_Retriable(message)
    if kind == CONFIG:
        return t.Error_Config(message)
    return t.Error_Fatal(message)


def err(exc: BaseException) -> BaseException:
    """`exc` as the `componentize_py_types.Err` that makes a WIT call return `err`."""
    cpt = _cpt
    if cpt is None:
        import componentize_py_types as cpt
    return cpt.Err(wit_error(exc))
