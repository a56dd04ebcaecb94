"""The export shims against stand-in bindings: WIT values in and out, ConfigDef checks
before the connector's own, and every exception mapped to a WIT error."""

import sys
import types as pytypes
from dataclasses import dataclass
from enum import Enum
from typing import Optional

import pytest

import wasm_connect.export as export
from wasm_connect import (
    ConfigDef,
    ConfigType,
    Connector,
    Grant,
    RetriableError,
    SinkTask,
    SourceRecord,
    SourceTask,
    export_sink,
    export_source,
)
from wasm_connect.batch import WireRecord, decode, encode
from wasm_connect.records import Kind


def fake_bindings():
    """Modules shaped like componentize-py's output for the types and host interfaces."""
    t = pytypes.ModuleType("wit_world.imports.types")
    for case in ("Retriable", "Config", "Fatal"):
        setattr(t, f"Error_{case}", dataclass(type(f"Error_{case}", (), {"__annotations__": {"value": str}})))
    t.ConfigType = Enum("ConfigType", "BOOLEAN INT LONG DOUBLE STRING LIST PASSWORD")
    t.Importance = Enum("Importance", "HIGH MEDIUM LOW")
    t.Grant = Enum("Grant", "READ_FILE WRITE_FILE CONNECT CLOCK")

    def record(type_name, **fields):
        return dataclass(type(type_name, (), {"__annotations__": fields}))

    t.ConfigKey = record("ConfigKey", name=str, type=object, default_value=Optional[str], importance=object, documentation=str, required=bool, sensitive=bool, grant=object)
    t.ConfigProblem = record("ConfigProblem", key=str, message=str)
    t.TopicPartition = record("TopicPartition", topic=str, partition=int)
    t.TopicPartitionOffset = record("TopicPartitionOffset", topic=str, partition=int, offset=int)
    t.RecordAck = record("RecordAck", sequence=int, partition=int, offset=int)
    t.RecordFailure = record("RecordFailure", index=int, reason=str)
    h = pytypes.ModuleType("wit_world.imports.host")
    h.LogLevel = Enum("LogLevel", "TRACE DEBUG INFO WARN ERROR")
    h.lines = []
    h.log = lambda level, message, fields: h.lines.append((level.name, message, fields))
    cpt = pytypes.ModuleType("componentize_py_types")

    @dataclass(frozen=True)
    class Err(Exception):
        value: object

    cpt.Err = Err
    imports = pytypes.ModuleType("wit_world.imports")
    imports.types, imports.host = t, h
    world = pytypes.ModuleType("wit_world")
    world.imports = imports
    return {"wit_world": world, "wit_world.imports": imports, "wit_world.imports.types": t, "wit_world.imports.host": h, "componentize_py_types": cpt}


@pytest.fixture
def wit(monkeypatch):
    mods = fake_bindings()
    for name, module in mods.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(export, "_instance", export._Instance())
    return mods


class Numbers(Connector):
    name = "Numbers"
    version = "1.2.3"
    config_def = (
        ConfigDef()
        .define("topic", ConfigType.STRING, doc="Topic.")
        .define("count", ConfigType.INT, default=3)
        .define("file", ConfigType.STRING, grant=Grant.READ_FILE, required=False)
    )
    validated = []

    def validate(self, config):
        Numbers.validated.append(config)
        return [("topic", "no underscores")] if "_" in config["topic"] else []


class NumbersTask(SourceTask):
    acked = []

    def start(self, config):
        self.topic, self.count, self.next = config["topic"], int(config["count"]), 0

    def poll(self, max_records):
        if self.topic == "boom":
            return {}["missing"]
        if self.topic == "busy":
            raise RetriableError("try later")
        n = min(max_records, self.count - self.next)
        out = [SourceRecord(self.topic, value={"n": self.next + i}, source_partition={"p": 0}, source_offset={"n": self.next + i}) for i in range(n)]
        self.next += n
        return out

    def commit_record(self, ack):
        NumbersTask.acked.append((ack.sequence, ack.record.value))


def err_of(excinfo):
    return type(excinfo.value.value).__name__, excinfo.value.value.value


def test_export_source_defines_the_names_componentize_py_looks_for(wit):
    scope = {"__name__": "app", "Numbers": Numbers, "NumbersTask": NumbersTask}
    exec("from wasm_connect import export_source\nexport_source(Numbers, NumbersTask)", scope)
    assert scope["Connector"].__name__ == "Connector" and scope["SourceTask"].__name__ == "SourceTask"
    with pytest.raises(TypeError, match="not a subclass of wasm_connect.SinkTask"):
        export_sink(Numbers, NumbersTask)


def test_connector_describes_itself_and_validates_definition_first(wit):
    c, _ = export_source(Numbers, NumbersTask)
    assert (c().name(), c().version()) == ("Numbers", "1.2.3")
    keys = c().config_definition()
    assert [(k.name, k.type.name, k.default_value, k.required, k.grant) for k in keys] == [
        ("topic", "STRING", None, True, None),
        ("count", "INT", "3", False, None),
        ("file", "STRING", None, False, wit["wit_world.imports.types"].Grant.READ_FILE),
    ]
    Numbers.validated.clear()
    problems = c().validate([("count", "x")])
    assert [p.key for p in problems] == ["topic", "count"] and Numbers.validated == []
    assert [(p.key, p.message) for p in c().validate([("topic", "a_b")])] == [("topic", "no underscores")]
    assert Numbers.validated == [{"topic": "a_b", "count": 3, "file": None}]
    with pytest.raises(wit["componentize_py_types"].Err) as e:
        c().start([("count", "2")])
    kind, message = err_of(e)
    assert kind == "Error_Config" and "topic" in message
    c().start([("topic", "t"), ("count", "2")])
    assert c().task_configs(4) == [[("topic", "t"), ("count", "2")]]


def test_poll_encodes_records_and_acks_carry_them(wit):
    _, task = export_source(Numbers, NumbersTask)
    task().start([("topic", "t"), ("count", "3")])
    records = decode(task().poll(2))
    assert [(r.topic, r.value_kind, r.value, r.source_offset) for r in records] == [
        ("t", Kind.JSON, b'{"n":0}', b'{"n":0}'),
        ("t", Kind.JSON, b'{"n":1}', b'{"n":1}'),
    ]
    assert len(decode(task().poll(5))) == 1 and decode(task().poll(5)) == []
    ack = wit["wit_world.imports.types"].RecordAck
    NumbersTask.acked.clear()
    task().commit_records([ack(0, 0, 10), ack(1, 0, 11), ack(2, 0, 12)])
    assert NumbersTask.acked == [(0, {"n": 0}), (1, {"n": 1}), (2, {"n": 2})]


def test_exceptions_become_wit_errors_not_traps(wit):
    _, task = export_source(Numbers, NumbersTask)
    err = wit["componentize_py_types"].Err
    task().start([("topic", "boom"), ("count", "1")])
    with pytest.raises(err) as e:
        task().poll(1)
    kind, message = err_of(e)
    assert kind == "Error_Fatal" and message.startswith("KeyError: 'missing'") and "in poll" in message
    task().start([("topic", "busy"), ("count", "1")])
    with pytest.raises(err) as e:
        task().poll(1)
    assert err_of(e) == ("Error_Retriable", "try later")


class Lines(Connector):
    config_def = ConfigDef()


class LinesTask(SinkTask):
    def put(self, records):
        return [(r, "odd") for r in records if r.value_data()["n"] % 2] + [(0, "first")]

    def pre_commit(self, offsets):
        return {tp: o - 1 for tp, o in offsets.items()}


def test_sink_put_maps_failures_and_pre_commit_offsets(wit):
    _, task = export_sink(Lines, LinesTask)
    t = wit["wit_world.imports.types"]
    task().start([])
    batch = encode([WireRecord("t", 0, i, None, Kind.BYTES, None, Kind.JSON, b'{"n":%d}' % i) for i in range(4)])
    assert [(f.index, f.reason) for f in task().put(batch)] == [(1, "odd"), (3, "odd"), (0, "first")]
    with pytest.raises(wit["componentize_py_types"].Err) as e:
        task().put(b"\x07")
    assert err_of(e) == ("Error_Fatal", "malformed record batch: record batch version 7 is not supported (want 1 to 2)")
    out = task().pre_commit([t.TopicPartitionOffset("t", 0, 10)])
    assert [(o.topic, o.partition, o.offset) for o in out] == [("t", 0, 9)]
    assert Lines().plugin_name() == "Lines"
