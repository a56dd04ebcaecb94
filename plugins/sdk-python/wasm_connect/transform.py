"""The base class of a transform plugin, `Transform` (Kafka Connect's single message
transform, the WIT interface `transformation` of `wit/transform.wit`), and `Fail`, what
`apply` returns for a record it cannot handle.

This module owns the author-facing contract and its defaults. It never touches the
bindings: `transform_glue.py` runs batches through a `Transform`, and `export.py` turns
that into the WIT export.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, Optional, Tuple, Union

from .config import ConfigDef, ConfigProblem
from .records import SinkRecord

__all__ = ["Transform", "Fail", "Outcome"]


@dataclass(frozen=True)
class Fail:
    """What `Transform.apply` returns for a record it cannot handle: the worker routes it
    as a failure of the TRANSFORMATION stage (`errors.tolerance=all` skips it, to the
    dead-letter queue if one is set; `none` fails the task)."""

    reason: str


#: What `apply` may return: the record that goes on (changed or not), None (dropped) or
#: a `Fail`.
Outcome = Union[SinkRecord, None, Fail]


class Transform:
    """A single message transform, named in a connector config's
    `transforms.<alias>.type` by `name` (the class name if unset).

    Class attributes: `name`, `version` and `config_def` (a `ConfigDef` of the alias's own
    keys, `transforms.<alias>.` stripped). The worker creates one instance per task that
    uses it, calls `configure` once (the config parsed against `config_def`, defaults
    filled in; an exception fails the task), then `apply` once per record in order, then
    `close` at most once. Short-lived instances answer `name`, `version`,
    `config_definition` and `validate`, which must work without `configure`.

    `apply` gets each record as a sink task's `put` would (a `SinkRecord`; `offset` is -1
    for a source connector's records) and may change its topic, partition, timestamp,
    key (`set_key`), value (`set_value`) and headers. An exception from `apply` fails the
    whole batch (a `ConnectError` by its kind, anything else as fatal): return `Fail` for
    a record that is merely bad.
    """

    name: str = ""
    version: str = "0.1.0"
    config_def: ConfigDef = ConfigDef()

    def __init__(self) -> None:
        #: The parsed config `configure` received.
        self.config: Dict[str, Any] = {}

    @classmethod
    def plugin_name(cls) -> str:
        """`name`, or the class name when `name` is empty."""
        return cls.name or cls.__name__

    def config_definition(self) -> ConfigDef:
        """The configuration definition; `config_def` unless overridden."""
        return type(self).config_def

    def validate(self, config: Dict[str, Any]) -> Iterable[Union[ConfigProblem, Tuple[str, str]]]:
        """The transform's own rules, run only when `config_def` found no problem."""
        return []

    def configure(self, config: Dict[str, Any]) -> None:
        """Configures the instance. The default keeps `config` in `self.config`."""
        self.config = config

    def apply(self, record: SinkRecord) -> Optional[Union[SinkRecord, Fail]]:
        """Transforms one record: returns it (changed or not), None to drop it, or
        `Fail(reason)`. The default passes it unchanged."""
        return record

    def close(self) -> None:
        """Releases what the instance holds; it is discarded afterwards."""
