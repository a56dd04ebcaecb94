"""Typed errors a plugin raises, and how every exception maps to the WIT `error` variant.

This module owns the mapping from Python exceptions to the three cases of the contract's
`error` variant (`retriable`, `config`, `fatal`, see `wit/types.wit`). It is pure Python
and knows nothing of the generated bindings: `export.py` turns the `(kind, message)` pair
returned by `classify` into a WIT value.
"""

from __future__ import annotations

import traceback
from typing import Optional, Tuple

__all__ = [
    "ConnectError",
    "RetriableError",
    "ConfigError",
    "FatalError",
    "classify",
    "RETRIABLE",
    "CONFIG",
    "FATAL",
]

#: The WIT `error` case names, as `classify` returns them.
RETRIABLE = "retriable"
CONFIG = "config"
FATAL = "fatal"


class ConnectError(Exception):
    """Base of the errors a plugin raises on purpose; its message reaches the worker as is."""

    #: The WIT `error` case this exception becomes.
    kind = FATAL


class RetriableError(ConnectError):
    """A transient condition: the worker keeps the instance and calls again after a back-off
    (`poll`/`put` with the same input)."""

    kind = RETRIABLE


class ConfigError(ConnectError):
    """The configuration cannot work. `key`, when given, names the offending config key:
    in `validate` it becomes the problem's key, elsewhere it prefixes the message."""

    kind = CONFIG

    def __init__(self, message: str, key: Optional[str] = None):
        super().__init__(message)
        self.key = key
        self.message = message

    def __str__(self) -> str:
        return f"{self.key}: {self.message}" if self.key else self.message


class FatalError(ConnectError):
    """Anything the plugin cannot recover from: the worker marks the instance FAILED."""

    kind = FATAL


def classify(exc: BaseException) -> Tuple[str, str]:
    """The WIT `error` case and message for `exc`.

    A `ConnectError` keeps its own case and message. Any other exception is `fatal`, with
    its type, message and Python traceback, so that a bug shows where it happened in the
    task's FAILED trace.
    """
    if isinstance(exc, ConnectError):
        return exc.kind, str(exc)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()
    summary = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return FATAL, f"{summary}\n{text}" if exc.__traceback__ is not None else summary
