"""The record-batch encoding against the vectors the Rust crate `plugins/batch` checks too
(`plugins/batch/testdata/`), plus round trips and malformed input."""

import pathlib
import struct

import pytest

from wasm_connect.batch import BatchError, WireRecord, decode, encode
from wasm_connect.records import Kind

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "batch" / "testdata"


def vector_records():
    """The same records as `vector_records` in plugins/batch/src/tests.rs."""
    return [
        WireRecord(
            topic="t",
            partition=3,
            offset=42,
            timestamp=1_700_000_000_000,
            key_kind=Kind.STRING,
            key=b"k",
            value_kind=Kind.CONNECT_JSON,
            value=b'{"schema":null,"payload":1}',
            headers=[("h1", b"v"), ("h2", None)],
        ),
        WireRecord(
            topic="src",
            key_kind=Kind.JSON,
            value_kind=Kind.JSON,
            value=b'{"n":1}',
            source_partition=b'{"p":0}',
            source_offset=b'{"seq":1}',
        ),
    ]


def vector(name):
    return bytes.fromhex((TESTDATA / name).read_text().strip())


def test_encoding_matches_the_shared_version_2_vector():
    assert encode(vector_records()) == vector("batch-v2.hex")


def test_decoding_reads_the_shared_vectors_of_both_versions():
    assert decode(vector("batch-v2.hex")) == vector_records()
    v1 = vector_records()
    for r in v1:
        r.key_kind = r.value_kind = Kind.BYTES
    assert decode(vector("batch-v1.hex")) == v1


def test_round_trip_of_unicode_empty_and_large_fields():
    records = [
        WireRecord(topic="tópico", key=b"", value=bytes(range(256)) * 300, headers=[("ключ", b"")]),
        WireRecord(topic="", partition=0, offset=0, timestamp=0),
    ]
    assert decode(encode(records)) == records
    assert encode([]) == b"\x02\x00\x00\x00\x00"
    assert decode(encode([])) == []


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty record batch"),
        (b"\x03\x00\x00\x00\x00", "version 3 is not supported"),
        (b"\x02\x01\x00\x00\x00", "ends inside `topic` of record 0"),
        (b"\x02\x00\x00\x00\x00\x00", "1 bytes after the last record"),
    ],
)
def test_malformed_batches_are_named(data, message):
    with pytest.raises(BatchError, match=message):
        decode(data)


def test_every_truncation_of_the_vector_is_an_error_not_a_crash():
    data = vector("batch-v2.hex")
    for n in range(len(data)):
        with pytest.raises(BatchError):
            decode(data[:n])


def test_unknown_kind_and_bad_length_and_bad_utf8_are_errors():
    data = bytearray(vector("batch-v2.hex"))
    key_kind_at = 1 + 4 + 5 + 4 + 8 + 8
    bad_kind = bytearray(data)
    bad_kind[key_kind_at] = 9
    with pytest.raises(BatchError, match="`key kind` of record 0 is the unknown kind tag 9"):
        decode(bytes(bad_kind))
    bad_len = bytearray(data)
    bad_len[key_kind_at + 1 : key_kind_at + 5] = struct.pack("<i", -2)
    with pytest.raises(BatchError, match="`key` of record 0 has an invalid length"):
        decode(bytes(bad_len))
    bad_utf8 = bytearray(data)
    bad_utf8[9] = 0xFF  # the topic "t"
    with pytest.raises(BatchError, match="`topic` of record 0 is not UTF-8"):
        decode(bytes(bad_utf8))
