"""The records a plugin sees: `SourceRecord` (what `poll` returns), `SinkRecord` (what
`put` receives), their key/value `Kind`, and the small value types around them.

This module owns the conversion between Python values and the bytes-plus-kind form that a
record batch carries (`wit/types.wit`, `type record-batch`). It does not lay out bytes:
`batch.py` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from . import jsontext

__all__ = [
    "Kind",
    "SourceRecord",
    "SinkRecord",
    "TopicPartition",
    "RecordAck",
    "RecordFailure",
    "to_data",
    "from_data",
]


class Kind(IntEnum):
    """What the bytes of a key or value hold; the tag written before each in a batch."""

    #: Raw bytes (Kafka Connect's BYTES).
    BYTES = 0
    #: UTF-8 text (Kafka Connect's STRING).
    STRING = 1
    #: Schemaless data as JSON text.
    JSON = 2
    #: Data with a Kafka Connect schema: the JSON envelope `{"schema": ..., "payload": ...}`.
    CONNECT_JSON = 3


def _dumps(value: Any) -> bytes:
    return jsontext.dumps(value).encode("utf-8")


def to_data(value: Any, kind: Optional[Kind] = None) -> Tuple[Kind, Optional[bytes]]:
    """The kind and bytes of a key or value.

    With no `kind`, it is inferred: `bytes` are BYTES, `str` is STRING, anything else
    (dict, list, number, bool) is JSON. `bytes` are always passed through unchanged, so
    JSON text that is already encoded can be given as bytes with `Kind.JSON`. With
    `Kind.JSON` or `Kind.CONNECT_JSON` any other value is serialised as JSON (a `str`
    becomes a JSON string). `None` is null whatever the kind.
    """
    if value is None:
        return (kind if kind is not None else Kind.BYTES), None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return (kind if kind is not None else Kind.BYTES), bytes(value)
    if kind is None:
        kind = Kind.STRING if isinstance(value, str) else Kind.JSON
    if kind in (Kind.BYTES, Kind.STRING):
        if not isinstance(value, str):
            raise TypeError(f"a {kind.name} key or value must be bytes or str, not {type(value).__name__}")
        return kind, value.encode("utf-8")
    return kind, _dumps(value)


def from_data(kind: Kind, data: Optional[bytes]) -> Any:
    """The Python value of a key or value: bytes for BYTES, str for STRING, the parsed
    JSON for JSON and CONNECT_JSON (for the latter, the whole envelope)."""
    if data is None:
        return None
    if kind == Kind.BYTES:
        return data
    if kind == Kind.STRING:
        return data.decode("utf-8")
    return jsontext.loads(data)


def _header_bytes(value: Any) -> Optional[bytes]:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return _dumps(value)


Headers = Union[Dict[str, Any], Iterable[Tuple[str, Any]]]


@dataclass(slots=True)
class SourceRecord:
    """One record a source task produces.

    `source_partition` and `source_offset` are JSON objects: the worker commits the offset
    once the record is written, and `host.offsets` returns it after a restart. Key and
    value kinds are inferred from the Python values unless `key_kind`/`value_kind` say
    otherwise (see `to_data`). Header values may be bytes, str, None or JSON data.
    `partition` None lets the worker pick by key; `timestamp` is ms since the epoch.
    Its fields are slots (no `__dict__`): in the guest a slotted record builds about 3x
    faster than a dict-backed one.
    """

    topic: str
    value: Any = None
    key: Any = None
    source_partition: Dict[str, Any] = field(default_factory=dict)
    source_offset: Dict[str, Any] = field(default_factory=dict)
    headers: Headers = ()
    timestamp: Optional[int] = None
    partition: Optional[int] = None
    key_kind: Optional[Kind] = None
    value_kind: Optional[Kind] = None

    def header_items(self) -> List[Tuple[str, Optional[bytes]]]:
        """The headers as (name, bytes) pairs, in order."""
        items = self.headers.items() if isinstance(self.headers, dict) else self.headers
        return [(str(k), _header_bytes(v)) for k, v in items]


@dataclass(slots=True)
class SinkRecord:
    """One record a sink task receives: the bytes the worker's converter produced, their
    kinds, and where the record sits in Kafka. `index` is its position in the batch, which
    a failure returned from `put` may name instead of the record itself."""

    topic: str
    partition: int
    offset: int
    timestamp: Optional[int]
    key_kind: Kind
    key: Optional[bytes]
    value_kind: Kind
    value: Optional[bytes]
    headers: List[Tuple[str, Optional[bytes]]]
    index: int = 0

    def key_data(self) -> Any:
        """The key as Python data (see `from_data`)."""
        return from_data(self.key_kind, self.key)

    def value_data(self) -> Any:
        """The value as Python data (see `from_data`)."""
        value = self.value
        if value is not None and self.value_kind is Kind.JSON:
            return jsontext.loads(value)  # the usual case, one call fewer
        return from_data(self.value_kind, value)

    def topic_partition(self) -> "TopicPartition":
        """The topic-partition the record was read from."""
        return TopicPartition(self.topic, self.partition)

    def set_value(self, value: Any, kind: Optional[Kind] = None) -> "SinkRecord":
        """Sets the value and its kind together (see `to_data`: with no `kind`, bytes are
        BYTES, str is STRING, other data JSON; for CONNECT_JSON give the whole envelope).
        Returns the record, for transforms."""
        self.value_kind, self.value = to_data(value, kind)
        return self

    def set_key(self, key: Any, kind: Optional[Kind] = None) -> "SinkRecord":
        """Sets the key and its kind together, as `set_value` does. Returns the record."""
        self.key_kind, self.key = to_data(key, kind)
        return self

    @classmethod
    def build(
        cls,
        topic: str,
        value: Any = None,
        *,
        key: Any = None,
        value_kind: Optional[Kind] = None,
        key_kind: Optional[Kind] = None,
        partition: int = 0,
        offset: int = 0,
        timestamp: Optional[int] = None,
        headers: "Headers" = (),
        index: int = 0,
    ) -> "SinkRecord":
        """A record from Python values (kinds inferred as `to_data` does), for tests."""
        kk, kb = to_data(key, key_kind)
        vk, vb = to_data(value, value_kind)
        items = headers.items() if isinstance(headers, dict) else headers
        return cls(topic, partition, offset, timestamp, kk, kb, vk, vb, [(str(k), _header_bytes(v)) for k, v in items], index)


class TopicPartition(NamedTuple):
    """A Kafka topic-partition; hashable, so it keys the offsets of `pre_commit`."""

    topic: str
    partition: int


@dataclass
class RecordAck:
    """The acknowledgement of one polled record once it is durably written. `record` is
    the `SourceRecord` itself (kept only for tasks that override `commit_record`)."""

    sequence: int
    partition: int
    offset: int
    record: Optional[SourceRecord] = None


@dataclass
class RecordFailure:
    """A sink record `put` could not handle: its index in the batch and why."""

    index: int
    reason: str
