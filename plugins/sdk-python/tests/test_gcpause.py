"""`without_gc`: the collector is paused during the call and restored after, whatever
the call does."""

import gc

import pytest

from wasm_connect.gcpause import without_gc
from wasm_connect.records import SinkRecord, SourceRecord


def test_the_collector_is_paused_during_the_call_and_resumed_after():
    assert gc.isenabled()
    assert without_gc(gc.isenabled) is False
    assert gc.isenabled()


def test_the_collector_is_resumed_when_the_call_raises():
    def boom():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        without_gc(boom)
    assert gc.isenabled()


def test_a_collector_disabled_by_the_plugin_stays_disabled():
    gc.disable()
    try:
        assert without_gc(lambda: 1) == 1
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_records_keep_their_fields_equality_and_reject_unknown_attributes():
    a = SinkRecord.build("t", {"a": 1}, key="k", offset=3)
    assert a == SinkRecord.build("t", {"a": 1}, key="k", offset=3)
    assert a != SinkRecord.build("t", {"a": 2}, key="k", offset=3)
    assert SourceRecord("t", "v") == SourceRecord("t", "v")
    assert SourceRecord("t", "v").source_partition == {}
    with pytest.raises(AttributeError):
        a.not_a_field = 1
