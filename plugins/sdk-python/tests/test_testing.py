"""The MockHost stand-in: logs recorded, offsets served from what the test committed,
reconfiguration requests counted, and the real bindings restored afterwards."""

import pytest

from wasm_connect import RetriableError, host
from wasm_connect import bindings
from wasm_connect.testing import MockHost


def test_serves_committed_offsets_and_records_host_calls():
    with MockHost() as worker:
        worker.commit({"p": 1}, {"n": 4})
        assert host.offsets([{"p": 1}, {"p": 2}]) == [{"n": 4}, None]
        host.log("info", "Hello", a=1)
        host.request_task_reconfiguration()
        host.raise_error(RetriableError("later"))
        assert worker.messages("info") == ["Hello"]
        assert worker.logs[0][2] == {"a": "1"}
        assert worker.reconfiguration_requests == 1
        assert worker.raised[0].value == "later"
    assert "offset_reader" not in bindings._loaded


def test_outside_the_mock_host_calls_fail_clearly():
    with pytest.raises(RuntimeError, match="only inside a component"):
        host.log("info", "no worker")
