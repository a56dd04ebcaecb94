"""The record-batch encoding (`wit/types.wit`, `type record-batch`): version 2 written,
versions 1 and 2 read, with `struct`.

This module owns the byte layout on the Python side and must stay in lock-step with the
WIT documentation and the Rust crate `plugins/batch`; the shared test vectors under
`plugins/batch/testdata/` pin both. It works on `WireRecord`s (kinds and bytes only):
turning Python values into bytes is `records.py`'s job.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Tuple

from .records import Kind

__all__ = ["VERSION", "MIN_VERSION", "WireRecord", "BatchError", "encode", "decode", "checked_decode"]

#: The version `encode` writes.
VERSION = 2
#: The oldest version `decode` reads (version 1 has no kind bytes).
MIN_VERSION = 1

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_FIXED = struct.Struct("<iqq")  # partition, offset, timestamp
_KIND_TAGS = frozenset(int(k) for k in Kind)


@dataclass
class WireRecord:
    """One record as a batch holds it. None stands for an absent partition, offset or
    timestamp (written as -1) and for a null key, value, header value or source field."""

    topic: str
    partition: Optional[int] = None
    offset: Optional[int] = None
    timestamp: Optional[int] = None
    key_kind: Kind = Kind.BYTES
    key: Optional[bytes] = None
    value_kind: Kind = Kind.BYTES
    value: Optional[bytes] = None
    headers: List[Tuple[str, Optional[bytes]]] = field(default_factory=list)
    source_partition: Optional[bytes] = None
    source_offset: Optional[bytes] = None


class BatchError(ValueError):
    """A batch that cannot be decoded; the message names the record and field."""


def _opt(out: bytearray, b: Optional[bytes]) -> None:
    if b is None:
        out += b"\xff\xff\xff\xff"
    else:
        out += _I32.pack(len(b))
        out += b


def _none(v: Optional[int]) -> int:
    return -1 if v is None else v


def encode(records: Iterable[WireRecord]) -> bytes:
    """Encodes `records` as a version 2 batch."""
    out = bytearray(5)
    count = 0
    for r in records:
        topic = r.topic.encode("utf-8")
        out += _U32.pack(len(topic))
        out += topic
        out += _FIXED.pack(_none(r.partition), _none(r.offset), _none(r.timestamp))
        out.append(int(r.key_kind))
        _opt(out, r.key)
        out.append(int(r.value_kind))
        _opt(out, r.value)
        out += _U32.pack(len(r.headers))
        for k, v in r.headers:
            kb = k.encode("utf-8")
            out += _U32.pack(len(kb))
            out += kb
            _opt(out, v)
        _opt(out, r.source_partition)
        _opt(out, r.source_offset)
        count += 1
    out[0] = VERSION
    _U32.pack_into(out, 1, count)
    return bytes(out)


class _Reader:
    __slots__ = ("buf", "pos", "record")

    def __init__(self, buf: bytes):
        self.buf = memoryview(buf)
        self.pos = 0
        self.record = 0

    def fail(self, what: str, field_name: str) -> BatchError:
        return BatchError(f"`{field_name}` of record {self.record} {what}")

    def take(self, n: int, field_name: str) -> bytes:
        end = self.pos + n
        if end > len(self.buf):
            raise BatchError(f"record batch ends inside `{field_name}` of record {self.record}")
        b = bytes(self.buf[self.pos : end])
        self.pos = end
        return b

    def unpack(self, s: struct.Struct, field_name: str) -> tuple:
        if self.pos + s.size > len(self.buf):
            raise BatchError(f"record batch ends inside `{field_name}` of record {self.record}")
        v = s.unpack_from(self.buf, self.pos)
        self.pos += s.size
        return v

    def kind(self, field_name: str) -> Kind:
        tag = self.take(1, field_name)[0]
        if tag not in _KIND_TAGS:
            raise self.fail(f"is the unknown kind tag {tag}", field_name)
        return Kind(tag)

    def string(self, field_name: str) -> str:
        (n,) = self.unpack(_U32, field_name)
        try:
            return self.take(n, field_name).decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("is not UTF-8", field_name) from None

    def opt_bytes(self, field_name: str) -> Optional[bytes]:
        (n,) = self.unpack(_I32, field_name)
        if n == -1:
            return None
        if n < 0:
            raise self.fail("has an invalid length", field_name)
        return self.take(n, field_name)


def decode(batch: bytes) -> List[WireRecord]:
    """Decodes a batch of version 1 or 2; raises `BatchError` if it is malformed."""
    from .scan import scan  # scan builds records, so it imports this module

    return scan(batch, False)


def checked_decode(batch: bytes) -> List[WireRecord]:
    """Decodes a batch field by field, checking each: the reference reader, slower than
    `decode`, which calls it to name what is wrong with a malformed batch."""
    if not batch:
        raise BatchError("empty record batch")
    version = batch[0]
    if not MIN_VERSION <= version <= VERSION:
        raise BatchError(f"record batch version {version} is not supported (want {MIN_VERSION} to {VERSION})")
    kinds = version >= 2
    r = _Reader(batch)
    r.pos = 1
    (count,) = r.unpack(_U32, "count")
    out: List[WireRecord] = []
    for i in range(count):
        r.record = i
        topic = r.string("topic")
        partition, offset, timestamp = r.unpack(_FIXED, "partition, offset and timestamp")
        key_kind = r.kind("key kind") if kinds else Kind.BYTES
        key = r.opt_bytes("key")
        value_kind = r.kind("value kind") if kinds else Kind.BYTES
        value = r.opt_bytes("value")
        (n,) = r.unpack(_U32, "header count")
        headers = []
        for _ in range(n):
            hk = r.string("header key")
            headers.append((hk, r.opt_bytes("header value")))
        source_partition = r.opt_bytes("source partition")
        source_offset = r.opt_bytes("source offset")
        out.append(
            WireRecord(
                topic=topic,
                partition=partition if partition >= 0 else None,
                offset=offset if offset >= 0 else None,
                timestamp=timestamp if timestamp >= 0 else None,
                key_kind=key_kind,
                key=key,
                value_kind=value_kind,
                value=value,
                headers=headers,
                source_partition=source_partition,
                source_offset=source_offset,
            )
        )
    if r.pos != len(r.buf):
        raise BatchError(f"{len(r.buf) - r.pos} bytes after the last record of the batch")
    return out
