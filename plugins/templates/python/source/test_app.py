"""Unit tests of {{class}}, with plain pytest: MockHost stands in for the worker."""

from wasm_connect.testing import MockHost

from app import PARTITION, {{class}}Connector, {{class}}Task


def test_writes_count_records_and_resumes_after_the_committed_one():
    with MockHost() as worker:
        task = {{class}}Task()
        task.start({"topic": "t", "count": "3"})
        first = task.poll(2)
        assert [r.value for r in first] == ["hello 0", "hello 1"]
        worker.commit(PARTITION, first[-1].source_offset)
        task = {{class}}Task()
        task.start({"topic": "t", "count": "3"})
        assert [r.value for r in task.poll(100)] == ["hello 2"]
        assert task.poll(100) == []


def test_a_negative_count_is_rejected():
    problems = {{class}}Connector.config_def.validate({"topic": "t", "count": "-1"})
    assert [p.key for p in problems] == ["count"]
