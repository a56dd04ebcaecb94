"""The fast paths of the batch (`scan`, `source_batch`, `jsontext`) against the checked
reference code they replace in the guest: same records, same bytes, same errors."""

import pathlib

import pytest

from wasm_connect.batch import BatchError, WireRecord, checked_decode, decode, encode
from wasm_connect.export import wire
from wasm_connect.jsontext import dumps
from wasm_connect.records import Kind, SourceRecord
from wasm_connect.scan import sink_records_of
from wasm_connect.source_batch import encode_sources

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "batch" / "testdata"


def vector(name):
    return bytes.fromhex((TESTDATA / name).read_text().strip())


def source_records():
    shared = {"file": "a"}
    records = [
        SourceRecord("t", "v", key="k", source_partition=shared, source_offset={"line": 1}),
        SourceRecord("t", {"n": 1, "s": "é"}, key=[1, 2], source_partition=shared, source_offset={"line": 2}),
        SourceRecord("u", b"\x00\xff", key=None, source_partition=shared, source_offset={"line": 3}, partition=2, timestamp=7),
        SourceRecord("t", None, key=b"", source_partition={"file": "b"}, source_offset={}),
        SourceRecord("t", "x", value_kind=Kind.JSON, key=5, key_kind=Kind.CONNECT_JSON, source_partition=shared, source_offset={"l": 4}),
        SourceRecord("t", "h", headers={"a": "1", "b": None, "c": b"\x01", "d": {"j": 1}}, source_partition=shared, source_offset={"l": 5}),
        SourceRecord("tópico", "h", headers=[("a", "1"), ("a", "2")], source_partition=shared, source_offset={"l": 6}),
    ]
    return shared, records


def test_source_batches_are_byte_for_byte_the_reference_encoding():
    _, records = source_records()
    assert encode_sources(records) == encode(wire(r) for r in records)
    assert encode_sources([]) == encode([])


def test_a_partition_object_changed_between_records_gets_its_new_text():
    shared, records = source_records()
    before = encode_sources(records[:2])
    shared["file"] = "z"
    shared["more"] = [1]
    after = encode_sources(records[:2])
    assert before != after
    assert after == encode(wire(r) for r in records[:2])


def test_source_fields_that_are_not_json_fail_as_json_does():
    with pytest.raises(TypeError):
        encode_sources([SourceRecord("t", "v", source_partition={"p": object()}, source_offset={})])


def test_scan_reads_the_shared_vectors_as_the_checked_reader_does():
    for name in ("batch-v1.hex", "batch-v2.hex"):
        assert decode(vector(name)) == checked_decode(vector(name))
        sinks = sink_records_of(vector(name))
        for i, (s, w) in enumerate(zip(sinks, checked_decode(vector(name)))):
            assert (s.index, s.topic, s.key_kind, s.key, s.value_kind, s.value, s.headers) == (
                i, w.topic, w.key_kind, w.key, w.value_kind, w.value, w.headers
            )
            assert s.partition == (-1 if w.partition is None else w.partition)
            assert s.offset == (-1 if w.offset is None else w.offset)
            assert s.timestamp == w.timestamp


def test_every_truncation_and_extension_is_the_checked_readers_error():
    data = vector("batch-v2.hex")
    for bad in [data[:n] for n in range(len(data))] + [data + b"\x00"]:
        with pytest.raises(BatchError) as fast:
            sink_records_of(bad)
        with pytest.raises(BatchError) as checked:
            checked_decode(bad)
        assert str(fast.value) == str(checked.value)


def plain_sink_batch():
    """Records as a sink usually gets them (null keys, one topic, no headers), with the
    other shapes mixed in: keys, a topic change, headers, non-null source fields."""
    records = [WireRecord("t", 0, i, 5, value_kind=Kind.JSON, value=b'"%d"' % i) for i in range(6)]
    records[2].key, records[2].key_kind = b"k", Kind.STRING
    records[3].topic = "tópico"
    records[4].headers = [("h", b"1"), ("n", None)]
    records[5].value, records[5].source_offset, records[5].timestamp = None, b"{}", None
    records.append(WireRecord("t", None, None, None, key=b""))
    return records, encode(records)


def test_the_sink_scan_reads_plain_records_and_the_others_as_the_checked_reader_does():
    wires, data = plain_sink_batch()
    sinks = sink_records_of(data)
    assert len(sinks) == len(wires) == len(checked_decode(data))
    for i, (s, w) in enumerate(zip(sinks, checked_decode(data))):
        assert (s.index, s.topic, s.key_kind, s.key, s.value_kind, s.value, s.headers) == (
            i, w.topic, w.key_kind, w.key, w.value_kind, w.value, w.headers
        )
        assert (s.partition, s.offset, s.timestamp) == (
            -1 if w.partition is None else w.partition, -1 if w.offset is None else w.offset, w.timestamp
        )


def test_every_truncation_of_a_plain_batch_is_the_checked_readers_error():
    _, data = plain_sink_batch()
    for bad in [data[:n] for n in range(len(data))] + [data + b"\x00", data[:-1] + b"\x05"]:
        with pytest.raises(BatchError) as fast:
            sink_records_of(bad)
        with pytest.raises(BatchError) as checked:
            checked_decode(bad)
        assert str(fast.value) == str(checked.value)


def test_compact_json_matches_json_dumps():
    import json

    for v in [{"a": [1, 2.5, "é\n\u2028", None, True, False]}, [], "s", 1e100, {"k": {"n": -0.0}}]:
        assert dumps(v) == json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def test_loads_gives_json_loads_results_and_errors():
    import json

    from wasm_connect.jsontext import loads

    good = [b"1", b'"s"', b'{"a":[1,2]}', b" 1", b"1 ", b"\n{}\n", '"é"'.encode(), "[1]".encode("utf-16"), b"\xef\xbb\xbf[]"[3:], "x".join("ab")]
    for data in good:
        try:
            want = json.loads(data)
        except ValueError as e:
            with pytest.raises(type(e)):
                loads(data)
            continue
        assert loads(data) == want
    for bad in [b"", b"1,2", b"[1", b"00", b"\xff", b"nul", b'"\\x"']:
        with pytest.raises(ValueError) as want:
            json.loads(bad)
        with pytest.raises(type(want.value)):
            loads(bad)
