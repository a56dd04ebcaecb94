"""The one door to the bindings componentize-py generates (`wit_world`): importing them,
and converting SDK values to WIT values where more than one module needs it.

The bindings exist only inside a component build, so nothing here is imported when the
SDK itself is imported; the pure-Python parts of the SDK (and their unit tests) run
without them. This module must stay free of plugin logic.
"""

from __future__ import annotations

from typing import Any

from .errors import CONFIG, RETRIABLE, classify

__all__ = ["types", "host", "offset_reader", "wit_error", "err"]


def _missing(module: str) -> RuntimeError:
    return RuntimeError(
        f"wit_world.imports.{module} is not available: this call works only inside a component "
        "built by componentize-py for a wasm-connect world"
    )


def types() -> Any:
    """The generated `wasm-connect:connector/types` module."""
    try:
        from wit_world.imports import types as module
    except ImportError:
        raise _missing("types") from None
    return module


def host() -> Any:
    """The generated `wasm-connect:connector/host` module."""
    try:
        from wit_world.imports import host as module
    except ImportError:
        raise _missing("host") from None
    return module


def offset_reader() -> Any:
    """The generated `offset-reader` module; only source worlds import it."""
    try:
        from wit_world.imports import offset_reader as module
    except ImportError:
        raise RuntimeError(
            "offsets() is available to source plugins only (the sink-connector world has no offset-reader)"
        ) from None
    return module


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
    from componentize_py_types import Err

    return Err(wit_error(exc))
