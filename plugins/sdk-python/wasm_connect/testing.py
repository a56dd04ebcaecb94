"""A stand-in for the worker, so a plugin's classes can be unit-tested with plain pytest,
outside a component: `MockHost` for the host calls, `TransformHarness` to run a
transform's batches as the worker does.

`MockHost` replaces the generated host bindings while it is active: `host.log` lines are
recorded, `host.offset(s)` answers from offsets the test committed, and reconfiguration
requests and raised errors are counted. This module is for tests only: a component never
imports it (componentize-py bundles only what the app imports), and it must not be used by
plugin code.

```python
from wasm_connect.testing import MockHost

def test_resumes():
    with MockHost() as worker:
        worker.commit({"source": "x"}, {"next": 5})
        task = MyTask()
        task.start({"topic": "t", "count": "7"})
        assert [r.value for r in task.poll(100)] == ["hello 5", "hello 6"]
```
"""

from __future__ import annotations

import json
import types as pytypes
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

from . import batch, bindings, transform_glue
from .config import ConfigDef, ConfigProblem
from .records import SinkRecord
from .transform import Fail, Outcome, Transform

__all__ = ["MockHost", "TransformHarness", "TransformOutput"]


def _key(partition: Dict[str, Any]) -> str:
    return json.dumps(partition, sort_keys=True, separators=(",", ":"))


class MockHost:
    """The worker's side of the `host` and `offset-reader` interfaces, in memory."""

    def __init__(self) -> None:
        self.logs: List[Tuple[str, str, Dict[str, str]]] = []
        self.reconfiguration_requests = 0
        self.raised: List[Any] = []
        self._offsets: Dict[str, Dict[str, Any]] = {}
        self._saved: Dict[str, Any] = {}

    def commit(self, partition: Dict[str, Any], offset: Dict[str, Any]) -> None:
        """Records `offset` as the committed source offset of `partition`."""
        self._offsets[_key(partition)] = offset

    def committed(self, partition: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The committed source offset of `partition`, if any."""
        return self._offsets.get(_key(partition))

    def messages(self, level: Optional[str] = None) -> List[str]:
        """The logged messages, optionally only those of one level (`info`, `warn`, …)."""
        return [m for (lvl, m, _) in self.logs if level is None or lvl == level.upper()]

    def _modules(self) -> Dict[str, Any]:
        host = pytypes.ModuleType("wit_world.imports.host")
        host.LogLevel = Enum("LogLevel", "TRACE DEBUG INFO WARN ERROR")
        host.log = lambda level, message, fields: self.logs.append((level.name, message, dict(fields)))

        def request() -> None:
            self.reconfiguration_requests += 1

        host.request_task_reconfiguration = request
        host.raise_error = self.raised.append
        reader = pytypes.ModuleType("wit_world.imports.offset_reader")
        reader.offsets = lambda texts: [
            None if (o := self._offsets.get(_key(json.loads(t)))) is None else json.dumps(o) for t in texts
        ]
        types = pytypes.ModuleType("wit_world.imports.types")
        for case in ("Retriable", "Config", "Fatal"):
            setattr(types, f"Error_{case}", dataclass(type(f"Error_{case}", (), {"__annotations__": {"value": str}})))
        return {"host": host, "offset_reader": reader, "types": types}

    def __enter__(self) -> "MockHost":
        for name, module in self._modules().items():
            self._saved[name] = bindings._loaded.get(name)
            bindings._loaded[name] = module
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, module in self._saved.items():
            if module is None:
                bindings._loaded.pop(name, None)
            else:
                bindings._loaded[name] = module
        self._saved.clear()


@dataclass
class TransformOutput:
    """What one `TransformHarness.apply` returned: the records that go on (decoded), the
    input index each came from, and the failures as (index, reason)."""

    records: List[SinkRecord]
    origins: List[int]
    failures: List[Tuple[int, str]]
    inputs: int = 0

    def outcomes(self) -> List[Outcome]:
        """What became of each input record, in order: the record kept, None (dropped)
        or `Fail`."""
        out: List[Outcome] = [None] * self.inputs
        for record, i in zip(self.records, self.origins):
            out[i] = record
        for i, reason in self.failures:
            out[i] = Fail(reason)
        return out


class TransformHarness:
    """Drives a `Transform` subclass as the worker does, through the same batch code a
    component runs (`transform_glue`): one instance, created on first use; `configure`
    parses and fills defaults; `apply` encodes the records as a `record-batch`, and
    decodes and checks the answer.

    ```python
    t = TransformHarness(Redact)
    t.configure({"redact.fields": "ssn"})
    out = t.apply([SinkRecord.build("t", {"ssn": "1"})])
    assert out.records[0].value_data() == {"ssn": "****"}
    ```
    """

    def __init__(self, transform_cls: Type[Transform]) -> None:
        self.transform_cls = transform_cls
        self._instance: Optional[Transform] = None

    @property
    def instance(self) -> Transform:
        """The transform object (created on first use)."""
        if self._instance is None:
            self._instance = self.transform_cls()
        return self._instance

    def name(self) -> str:
        return self.transform_cls.plugin_name()

    def version(self) -> str:
        return str(self.transform_cls.version)

    def config_definition(self) -> ConfigDef:
        return self.instance.config_definition()

    def validate(self, config: Dict[str, str]) -> List[ConfigProblem]:
        """The problems the `validate` export reports."""
        return transform_glue.validate(self.instance, config)

    def configure(self, config: Dict[str, str]) -> None:
        """Configures the instance with `config` (strings, as the worker sends them)."""
        transform_glue.configure(self.instance, config)

    def apply(self, records: Sequence[SinkRecord]) -> TransformOutput:
        """Runs one batch; exceptions propagate as the export would turn them into an
        `err`."""
        data = batch.encode(transform_glue.wire_sink_record(r) for r in records)
        out, origins, failures = transform_glue.apply_batch(self.instance, data)
        kept = transform_glue.sink_records(out)
        assert len(kept) == len(origins), "one origin per record that goes on"
        assert all(a < b for a, b in zip(origins, origins[1:])), "origins strictly increase"
        assert not set(origins) & {i for i, _ in failures}, "a record both kept and failed"
        return TransformOutput(kept, origins, failures, len(records))

    def apply_one(self, record: SinkRecord) -> Outcome:
        """Runs a batch of one record and says what became of it."""
        return self.apply([record]).outcomes()[0]

    def close(self) -> None:
        """Closes and drops the instance (a later call creates a fresh one)."""
        if self._instance is not None:
            self._instance.close()
        self._instance = None
