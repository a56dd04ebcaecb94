"""Transforms: the batch glue (origins, failures, drops, errors) through the export with
stand-in bindings, and the `TransformHarness` a plugin author tests with."""

import sys
import types as pytypes
from dataclasses import dataclass
from typing import List

import pytest

import wasm_connect.export as export
from test_export import err_of, fake_bindings
from wasm_connect import ConfigDef, ConfigType, Fail, FatalError, Kind, SinkRecord, Transform, export_transform
from wasm_connect.batch import WireRecord, decode, encode
from wasm_connect.testing import TransformHarness


@pytest.fixture
def wit(monkeypatch):
    mods = fake_bindings()
    exports = pytypes.ModuleType("wit_world.exports")
    transformation = pytypes.ModuleType("wit_world.exports.transformation")

    @dataclass
    class Transformed:
        records: bytes
        origins: List[int]
        failures: list

    transformation.Transformed = Transformed
    exports.transformation = transformation
    mods["wit_world"].exports = exports
    mods.update({"wit_world.exports": exports, "wit_world.exports.transformation": transformation})
    for name, module in mods.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(export, "_instance", export._Instance())
    return mods


class ByValue(Transform):
    """Retopics "keep" to `out` (and uppercases it), drops "drop", fails "fail", raises on
    "err"."""

    name = "ByValue"
    version = "0.0.1"
    config_def = ConfigDef().define("suffix", ConfigType.STRING, default="")
    closed = 0

    def apply(self, record):
        v = record.value_data()
        if v == "keep":
            record.topic = "out"
            return record.set_value("KEEP" + self.config["suffix"])
        if v == "drop":
            return None
        if v == "fail":
            return Fail("told to fail")
        if v == "err":
            raise FatalError("batch-wide")
        return record

    def close(self):
        ByValue.closed += 1


def batch_of(*values):
    return encode(WireRecord("in", 0, i, None, Kind.BYTES, None, Kind.STRING, v.encode()) for i, v in enumerate(values))


def test_apply_returns_survivors_with_origins_and_failures(wit):
    cls = export_transform(ByValue)
    assert cls.__name__ == "Transformation"
    t = cls()
    assert (t.name(), t.version()) == ("ByValue", "0.0.1")
    assert [k.name for k in t.config_definition()] == ["suffix"]
    t.configure([("suffix", "!")])
    out = t.apply(batch_of("drop", "keep", "fail", "other", "drop"))
    assert out.origins == [1, 3]
    records = decode(out.records)
    assert [(r.topic, r.value, r.offset) for r in records] == [("out", b"KEEP!", 1), ("in", b"other", 3)]
    assert [(f.index, f.reason) for f in out.failures] == [(2, "told to fail")]
    ByValue.closed = 0
    t.close()
    assert ByValue.closed == 1


def test_an_exception_or_a_malformed_batch_is_an_err(wit):
    t = export_transform(ByValue)()
    t.configure([])
    with pytest.raises(wit["componentize_py_types"].Err) as e:
        t.apply(batch_of("keep", "err"))
    assert err_of(e) == ("Error_Fatal", "batch-wide")
    with pytest.raises(wit["componentize_py_types"].Err) as e:
        t.apply(b"\x09")
    assert err_of(e)[0] == "Error_Fatal" and "malformed" in err_of(e)[1]


def test_validate_and_configure_check_the_definition(wit):
    class Needs(Transform):
        config_def = ConfigDef().define("fields", ConfigType.LIST)

    t = export_transform(Needs)()
    assert t.name() == "Needs"
    assert [p.key for p in t.validate([])] == ["fields"]
    assert t.validate([("fields", "a,b")]) == []
    with pytest.raises(wit["componentize_py_types"].Err) as e:
        t.configure([])
    assert err_of(e)[0] == "Error_Config"
    with pytest.raises(TypeError, match="not a subclass of wasm_connect.Transform"):
        export_transform(object)


def test_harness_runs_batches_as_the_worker_does():
    t = TransformHarness(ByValue)
    assert (t.name(), t.version()) == ("ByValue", "0.0.1")
    t.configure({})
    records = [SinkRecord.build("in", v, offset=i) for i, v in enumerate(["keep", "drop", "fail", "x"])]
    out = t.apply(records)
    assert out.origins == [0, 3]
    assert [r.value_data() for r in out.records] == ["KEEP", "x"]
    assert out.outcomes()[1:3] == [None, Fail("told to fail")]
    tombstone = SinkRecord.build("in", None)
    assert t.apply_one(tombstone) == tombstone
    with pytest.raises(FatalError, match="batch-wide"):
        t.apply([SinkRecord.build("in", "err")])


def test_a_returned_value_that_is_not_bytes_is_encoded_by_its_kind():
    class Json(Transform):
        def apply(self, record):
            record.value = {"a": 1}
            record.value_kind = Kind.JSON
            return record

    out = TransformHarness(Json).apply([SinkRecord.build("t", "x")])
    assert out.records[0].value == b'{"a":1}' and out.records[0].value_kind == Kind.JSON
