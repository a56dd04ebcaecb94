"""A stand-in for the worker, so a plugin's classes can be unit-tested with plain pytest,
outside a component.

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
from typing import Any, Dict, List, Optional, Tuple

from . import bindings

__all__ = ["MockHost"]


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
