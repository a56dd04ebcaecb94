"""The batch `poll` returns: `encode_sources` writes `SourceRecord`s straight into one
version 2 record batch (`wit/types.wit`), with no intermediate record per entry.

In the guest, each Python-level call and object per record costs more than the bytes it
writes, so this loop gathers each record's pieces with one list `extend` and joins them
once: the topic's length and text once per distinct topic, the fixed fields with one
`struct` call, string keys and dict values without a call to `to_data`, and the source
partition's JSON text reused while records carry the same, unchanged partition object
(the usual case: one partition per task). It produces the same bytes as `batch.encode` of
the records' `export.wire` form; anything beyond those fast cases (bytes, explicit kinds,
headers) goes through `records.to_data`.
"""

from __future__ import annotations

import copy
import struct
from typing import Any, Dict, Sequence

from .batch import VERSION
from . import jsontext
from .jsontext import dumps
from .records import Kind, to_data

__all__ = ["encode_sources"]

_U32 = struct.Struct("<I").pack
_I32 = struct.Struct("<i").pack
# partition, offset (-1 on source records), timestamp, key kind tag, key length.
_HEAD = struct.Struct("<iqqBi").pack
_KIND_LEN = struct.Struct("<Bi").pack
_NULL = b"\xff\xff\xff\xff"
_NO_HEADERS = b"\x00\x00\x00\x00"
_STRING, _JSON = int(Kind.STRING), int(Kind.JSON)
_VERSION_BYTE = bytes([VERSION])
# `dumps` without its Python frame (see `jsontext.c_encoder`): join this call's chunks.
_encode_chunks = jsontext.c_encoder or (lambda value, _: (dumps(value),))


def _data(value: Any, kind: Any) -> tuple:
    """The kind tag and bytes (or None) of a key or value, as `to_data` gives them."""
    if value is None:
        return (0 if kind is None else int(kind)), None
    if kind is None:
        t = type(value)
        if t is str:
            return _STRING, value.encode("utf-8")
        if t is dict or t is list:
            return _JSON, dumps(value).encode("utf-8")
    k, b = to_data(value, kind)
    return int(k), b


def _opt(out: bytearray, b: Any) -> None:
    if b is None:
        out += _NULL
    else:
        out += _I32(len(b))
        out += b


def encode_sources(records: Sequence[Any]) -> bytes:
    """`records` (`SourceRecord`s) as one batch. Raises TypeError or ValueError for a key,
    value, header or source field that cannot be encoded, as `to_data` and `json` do."""
    # Every record's pieces, joined once at the end: one `extend` of a tuple per record
    # costs less than a bytearray `+=` per piece.
    parts: list = [b""]
    extend = parts.extend
    topics: Dict[str, bytes] = {}
    last_topic: Any = None
    prefix = b""
    # The partition object last encoded, a deep copy of it when encoded, and the bytes
    # from the (empty) header count to its text.
    last: Any = None
    last_copy: Any = None
    last_tail = b""
    head, kind_len, i32, chunks, join = _HEAD, _KIND_LEN, _I32, _encode_chunks, "".join
    for r in records:
        topic = r.topic
        if topic is not last_topic:
            prefix = topics.get(topic)  # type: ignore[assignment]
            if prefix is None:
                raw = topic.encode("utf-8")
                prefix = topics[topic] = _U32(len(raw)) + raw
            last_topic = topic
        # The usual key (str or None) and value (dict) inline; the rest by `_data`.
        key = r.key
        kind = r.key_kind
        if kind is None and type(key) is str:
            key_tag, key = _STRING, key.encode("utf-8")
        elif key is None and kind is None:
            key_tag = 0
        else:
            key_tag, key = _data(key, kind)
        value = r.value
        kind = r.value_kind
        if kind is None and type(value) is dict:
            value_tag, value = _JSON, join(chunks(value, 0)).encode("utf-8")
        else:
            value_tag, value = _data(value, kind)
        partition = r.partition
        timestamp = r.timestamp
        fixed = head(
            -1 if partition is None else partition,
            -1,
            -1 if timestamp is None else timestamp,
            key_tag,
            -1 if key is None else len(key),
        )
        sp = r.source_partition
        # The same object, still equal to what it was: a task that mutates its partition
        # object between records gets the new text. (Equal values whose JSON differs, such
        # as 1 and 1.0 put into the same object in place, are the one case this misses.)
        if sp is not last or sp != last_copy:
            text = dumps(sp).encode("utf-8")
            last_tail = _NO_HEADERS + i32(len(text)) + text
            last, last_copy = sp, copy.deepcopy(sp)
        offset = join(chunks(r.source_offset, 0)).encode("utf-8")
        if r.headers:
            out = bytearray()
            items = r.header_items()
            out += _U32(len(items))
            for name, v in items:
                raw = name.encode("utf-8")
                out += _U32(len(raw))
                out += raw
                _opt(out, v)
            tail = bytes(out) + last_tail[4:]
        else:
            tail = last_tail
        if value is None:
            extend((prefix, fixed, key or b"", kind_len(value_tag, -1), tail, i32(len(offset)), offset))
        else:
            extend((prefix, fixed, key or b"", kind_len(value_tag, len(value)), value, tail, i32(len(offset)), offset))
    parts[0] = _VERSION_BYTE + _U32(len(records))
    return b"".join(parts)
