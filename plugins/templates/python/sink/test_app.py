"""Unit tests of {{class}}, with plain pytest: MockHost stands in for the worker."""

from wasm_connect import Kind, SinkRecord
from wasm_connect.testing import MockHost

from app import {{class}}Task


def record(offset, kind, value):
    return SinkRecord("t", 0, offset, None, Kind.BYTES, None, kind, value, [])


def test_appends_each_value_and_flushes_before_the_commit(tmp_path):
    out = tmp_path / "out.txt"
    with MockHost():
        task = {{class}}Task()
        task.start({"file": str(out)})
        assert task.put([record(0, Kind.STRING, b"one"), record(1, Kind.JSON, b'{"two": 2}')]) == []
        assert task.pre_commit([("t", 0, 2)]) == [("t", 0, 2)]
        assert out.read_text() == 'one\n{"two":2}\n'
        task.stop()
