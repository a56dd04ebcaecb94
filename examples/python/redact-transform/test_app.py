"""PyRedact through the SDK's TransformHarness: the same cases as the Rust example."""

import json

from app import Redact
from wasm_connect import Fail, Kind, SinkRecord
from wasm_connect.testing import TransformHarness


def harness(config):
    t = TransformHarness(Redact)
    t.configure(config)
    return t


def test_redacts_routes_and_drops_json_values():
    t = harness({"redact.fields": "ssn, card", "route.field": "region", "drop.field": "test"})
    assert (t.name(), t.version()) == ("PyRedact", "0.1.0")
    values = [
        {"id": 1, "ssn": "123", "region": "eu"},
        {"id": 2, "test": True},
        {"id": 3, "test": "yes", "region": 7, "card": 4111},
        {"id": 4},
    ]
    records = [SinkRecord.build("orders", v, value_kind=Kind.JSON, offset=i) for i, v in enumerate(values)]
    out = t.apply(records)
    assert out.origins == [0, 2, 3]
    assert [r.topic for r in out.records] == ["orders.eu", "orders.7", "orders"]
    assert [r.value_data() for r in out.records] == [
        {"id": 1, "ssn": "****", "region": "eu"},
        {"id": 3, "test": "yes", "region": 7, "card": "****"},
        {"id": 4},
    ]
    assert out.records[2].value == records[3].value and out.failures == []


def test_redacts_a_connect_json_struct_and_its_schema():
    t = harness({"redact.fields": "pin", "redact.replacement": "x"})
    envelope = {
        "schema": {"type": "struct", "optional": False, "fields": [
            {"type": "int32", "optional": True, "field": "pin"},
            {"type": "string", "optional": False, "field": "name"},
        ]},
        "payload": {"pin": 1234, "name": "a"},
    }
    out = t.apply_one(SinkRecord.build("t", envelope, value_kind=Kind.CONNECT_JSON))
    assert out.value_kind == Kind.CONNECT_JSON
    value = json.loads(out.value)
    assert value["payload"] == {"pin": "x", "name": "a"}
    assert value["schema"]["fields"][0] == {"type": "string", "optional": True, "field": "pin"}


def test_fails_values_that_are_not_objects_and_keeps_tombstones():
    t = harness({"redact.fields": "a"})
    records = [
        SinkRecord.build("t", "plain"),
        SinkRecord.build("t", [1], value_kind=Kind.JSON),
        SinkRecord.build("t", b"null", value_kind=Kind.JSON),
        SinkRecord.build("t", None),
    ]
    out = t.apply(records)
    assert out.origins == [2, 3]
    assert out.failures == [
        (0, "a value of kind string is not a JSON object"),
        (1, "a value of kind json is not a JSON object but an array"),
    ]
    assert out.outcomes()[0] == Fail("a value of kind string is not a JSON object")
    assert out.records[1].value is None


def test_redact_fields_is_required():
    t = TransformHarness(Redact)
    assert [p.key for p in t.validate({})] == ["redact.fields"]
    assert t.validate({"redact.fields": "a"}) == []
