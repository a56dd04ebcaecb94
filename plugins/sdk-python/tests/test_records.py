"""Python values to key/value bytes and kinds, and back."""

import pytest

from wasm_connect.records import Kind, SourceRecord, from_data, to_data


@pytest.mark.parametrize(
    "value, kind, want",
    [
        (None, None, (Kind.BYTES, None)),
        (None, Kind.JSON, (Kind.JSON, None)),
        (b"\x00\x01", None, (Kind.BYTES, b"\x00\x01")),
        ("héllo", None, (Kind.STRING, "héllo".encode())),
        ({"a": [1, 2.5, None]}, None, (Kind.JSON, b'{"a":[1,2.5,null]}')),
        (7, None, (Kind.JSON, b"7")),
        ("text", Kind.JSON, (Kind.JSON, b'"text"')),
        (b'{"pre":1}', Kind.JSON, (Kind.JSON, b'{"pre":1}')),
        ({"schema": {"type": "int32"}, "payload": 1}, Kind.CONNECT_JSON, (Kind.CONNECT_JSON, b'{"schema":{"type":"int32"},"payload":1}')),
    ],
)
def test_values_become_kinds_and_bytes(value, kind, want):
    assert to_data(value, kind) == want


def test_a_dict_cannot_be_a_string_value():
    with pytest.raises(TypeError, match="STRING key or value must be bytes or str"):
        to_data({"a": 1}, Kind.STRING)


def test_data_reads_back_by_kind():
    assert from_data(Kind.BYTES, b"x") == b"x"
    assert from_data(Kind.STRING, "é".encode()) == "é"
    assert from_data(Kind.JSON, b'{"n":1}') == {"n": 1}
    assert from_data(Kind.CONNECT_JSON, b'{"schema":null,"payload":2}') == {"schema": None, "payload": 2}
    assert from_data(Kind.JSON, None) is None


def test_headers_from_a_dict_or_pairs():
    r = SourceRecord("t", headers={"a": "x", "b": None, "c": b"\x01", "d": {"k": 1}})
    assert r.header_items() == [("a", b"x"), ("b", None), ("c", b"\x01"), ("d", b'{"k":1}')]
    assert SourceRecord("t", headers=[("a", "1"), ("a", "2")]).header_items() == [("a", b"1"), ("a", b"2")]
