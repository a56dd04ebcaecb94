"""What a plugin may ask of the worker: `log`, `request_task_reconfiguration`,
`raise_error` and (source plugins only) `offsets`.

This module owns the Python face of the WIT interfaces `host` and `offset-reader`
(`wit/host.wit`): levels by name, fields as keyword arguments, JSON objects as dicts
where the WIT passes JSON text. It calls the generated bindings and nothing else.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from . import bindings

__all__ = [
    "log", "trace", "debug", "info", "warn", "error", "request_task_reconfiguration", "raise_error",
    "offsets", "offset", "TransactionContext", "transaction_context",
]

_LEVELS = {"trace": "TRACE", "debug": "DEBUG", "info": "INFO", "warn": "WARN", "warning": "WARN", "error": "ERROR"}


def log(level: str, message: str, **fields: Any) -> None:
    """Writes one line to the worker's log, tagged with the connector (and task). `level`
    is `trace`, `debug`, `info`, `warn` or `error`; `fields` become key/value pairs."""
    name = _LEVELS.get(str(level).lower())
    if name is None:
        raise ValueError(f"unknown log level {level!r}; use one of {', '.join(sorted(_LEVELS))}")
    h = bindings.host()
    h.log(h.LogLevel[name], str(message), [(str(k), str(v)) for k, v in fields.items()])


def trace(message: str, **fields: Any) -> None:
    """`log("trace", ...)`."""
    log("trace", message, **fields)


def debug(message: str, **fields: Any) -> None:
    """`log("debug", ...)`."""
    log("debug", message, **fields)


def info(message: str, **fields: Any) -> None:
    """`log("info", ...)`."""
    log("info", message, **fields)


def warn(message: str, **fields: Any) -> None:
    """`log("warn", ...)`."""
    log("warn", message, **fields)


def error(message: str, **fields: Any) -> None:
    """`log("error", ...)`."""
    log("error", message, **fields)


def request_task_reconfiguration() -> None:
    """Asks the worker to call `task_configs` again (from a connector; ignored from tasks)."""
    bindings.host().request_task_reconfiguration()


def raise_error(err: BaseException) -> None:
    """Reports that the connector failed in the background; the worker marks it FAILED.
    `err` maps to a WIT error like a raised exception would."""
    bindings.host().raise_error(bindings.wit_error(err))


def offsets(partitions: List[Dict[str, Any]]) -> List[Optional[Dict[str, Any]]]:
    """The last committed source offset of each source partition (None where there is
    none), in the order asked. Partitions and offsets are the dicts records carry."""
    texts = [json.dumps(p, separators=(",", ":")) for p in partitions]
    return [None if o is None else json.loads(o) for o in bindings.offset_reader().offsets(texts)]


def offset(partition: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The last committed source offset of one source partition, or None."""
    return offsets([partition])[0]


class TransactionContext:
    """A source task's control of its transactions (Kafka Connect's `TransactionContext`).
    Requests apply to the batch the current `poll` returns; a record is named by its index
    in that batch. Asking to commit and abort the same batch or record fails the task."""

    def commit_transaction(self) -> None:
        """Commits the transaction after the current batch."""
        bindings.transaction_context().commit_transaction()

    def commit_transaction_after(self, index: int) -> None:
        """Commits the transaction right after record `index` of the current batch."""
        bindings.transaction_context().commit_transaction_after(index)

    def abort_transaction(self) -> None:
        """Aborts the transaction after the current batch: its records are discarded."""
        bindings.transaction_context().abort_transaction()

    def abort_transaction_after(self, index: int) -> None:
        """Aborts the transaction right after record `index` of the current batch."""
        bindings.transaction_context().abort_transaction_after(index)


def transaction_context() -> Optional[TransactionContext]:
    """The task's transaction context when the worker honours it (exactly-once source and
    `transaction.boundary=connector`), else None; None outside a component, and in a sink."""
    try:
        active = bindings.transaction_context().is_active()
    except RuntimeError:
        return None
    return TransactionContext() if active else None
