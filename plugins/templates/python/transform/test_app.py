"""Unit tests of {{class}}, with plain pytest: TransformHarness runs batches as the worker
does."""

from wasm_connect import SinkRecord
from wasm_connect.testing import TransformHarness

from app import {{class}}


def test_prefixes_topics_and_drops_tombstones_when_asked():
    t = TransformHarness({{class}})
    t.configure({"drop.tombstones": "true"})
    out = t.apply([SinkRecord.build("orders", "one"), SinkRecord.build("orders", None, offset=1)])
    assert out.origins == [0], "the tombstone is dropped"
    assert out.records[0].topic == "{{name}}.orders"
    assert out.records[0].value_data() == "one"


def test_a_bad_boolean_is_a_config_problem():
    problems = TransformHarness({{class}}).validate({"drop.tombstones": "maybe"})
    assert [p.key for p in problems] == ["drop.tombstones"]
