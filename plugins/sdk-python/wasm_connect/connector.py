"""The base classes a plugin author subclasses: `Connector`, `SourceTask` and `SinkTask`,
mirroring Kafka Connect's classes of the same names and the WIT interfaces `connector`,
`source-task` and `sink-task` (`wit/connector.wit`).

This module owns the author-facing contract and its defaults. It holds no state across
instances and never touches the bindings: `export.py` creates one object of each class
per sandbox instance and calls it. Raise the errors of `errors.py` to fail a call;
any other exception becomes a fatal error with its traceback.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from .config import ConfigDef, ConfigProblem
from .records import RecordAck, RecordFailure, SinkRecord, SourceRecord, TopicPartition

__all__ = ["Connector", "SourceTask", "SinkTask", "Failure"]

#: What `SinkTask.put` may return for one failed record: a `RecordFailure`, or a pair of
#: (the record or its index, the reason).
Failure = Union[RecordFailure, Tuple[Union[int, SinkRecord], str]]


class Connector:
    """The connector half of a plugin: describes itself, checks configs, and splits the
    work into task configs.

    Class attributes: `name` (what users write in `connector.class`; the class name if
    unset), `version`, and `config_def` (a `ConfigDef`). The SDK checks every config
    against `config_def` before calling `validate` or `start`, which receive the config
    with defined keys parsed to Python values and defaults filled in.
    """

    name: str = ""
    version: str = "0.1.0"
    config_def: ConfigDef = ConfigDef()

    def __init__(self) -> None:
        #: The parsed config `start` received.
        self.config: Dict[str, Any] = {}

    @classmethod
    def plugin_name(cls) -> str:
        """`name`, or the class name when `name` is empty."""
        return cls.name or cls.__name__

    def config_definition(self) -> ConfigDef:
        """The configuration definition; `config_def` unless overridden."""
        return type(self).config_def

    def validate(self, config: Dict[str, Any]) -> Iterable[Union[ConfigProblem, Tuple[str, str]]]:
        """The connector's own rules, run only when `config_def` found no problem.
        Returns problems as `ConfigProblem`s or (key, message) pairs; raising
        `ConfigError(message, key)` reports one problem."""
        return []

    def exactly_once_support(self, config: Dict[str, str]) -> Optional[str]:
        """Source connectors: `"supported"` when the connector delivers exactly once with
        the raw `config` (Kafka Connect's `SourceConnector.exactlyOnceSupport`),
        `"unsupported"`, or None (the default) for "cannot say". May be called before
        `start`; answer from the config alone."""
        return None

    def can_define_transaction_boundaries(self, config: Dict[str, str]) -> bool:
        """Source connectors: whether the tasks define their own transaction boundaries
        with the raw `config` (asked only for `transaction.boundary=connector`). The
        default is False."""
        return False

    def start(self, config: Dict[str, Any]) -> None:
        """Starts the connector. The default keeps `config` in `self.config`."""
        self.config = config

    def task_configs(self, max_tasks: int) -> List[Dict[str, Any]]:
        """At most `max_tasks` task configs. Values may be any Python config value; they
        are written as a user would type them. The default is one task with the
        connector's own config."""
        return [dict(self.config)]

    def stop(self) -> None:
        """Stops the connector; the instance is discarded afterwards."""


class SourceTask:
    """A source task: pulls records from an outside system.

    `poll` should not sleep: an empty list makes the worker wait before polling again.
    Offsets committed for the records' source partitions are read back with
    `wasm_connect.host.offsets`, typically in `start`.
    """

    def start(self, config: Dict[str, str]) -> None:
        """Starts the task with one of the configs its connector returned (strings)."""

    def poll(self, max_records: int) -> List[SourceRecord]:
        """At most `max_records` new records; an empty list means "nothing now"."""
        raise NotImplementedError(f"{type(self).__name__} must implement poll")

    def commit_record(self, ack: RecordAck) -> None:
        """Called once per record, in order, once it is durably written. `ack.record` is
        the record itself when this method is overridden (the SDK keeps polled records
        until they are acknowledged only then)."""

    def commit(self) -> None:
        """Called after the worker committed the source offsets of acknowledged records."""

    def stop(self) -> None:
        """Stops the task; the instance is discarded afterwards."""


class SinkTask:
    """A sink task: writes records from Kafka to an outside system."""

    def start(self, config: Dict[str, str]) -> None:
        """Starts the task with one of the configs its connector returned (strings)."""

    def open(self, partitions: List[TopicPartition]) -> None:
        """Partitions newly assigned to this task."""

    def close(self, partitions: List[TopicPartition]) -> None:
        """Partitions taken away from this task: flush what is held for them."""

    def put(self, records: List[SinkRecord]) -> Optional[Iterable[Failure]]:
        """Handles a batch. Returns the records it could not handle (None or an empty
        list when all were handled); the worker routes them by the `errors.*` settings.
        Raise `RetriableError` to have the same batch delivered again."""
        raise NotImplementedError(f"{type(self).__name__} must implement put")

    def pre_commit(self, offsets: Dict[TopicPartition, int]) -> Dict[TopicPartition, int]:
        """Flushes and returns the offsets that are safe to commit (the next offset to
        read per partition). The default commits everything delivered."""
        return offsets

    def stop(self) -> None:
        """Stops the task; the instance is discarded afterwards."""
