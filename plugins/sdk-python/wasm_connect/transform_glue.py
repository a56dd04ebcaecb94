"""The batch side of a transform, free of bindings: decode a `record-batch`, call
`Transform.apply` once per record, encode the records that go on with their origins
(input indexes, strictly increasing by construction) and collect the failures. Also the
config checks `validate` and `configure` run.

`export.py` wraps these in the WIT export; `testing.TransformHarness` calls them
directly, so a unit test runs the same code a component runs. Exceptions propagate: the
caller turns them into a WIT error.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

from . import batch
from .config import ConfigProblem
from .errors import ConfigError, FatalError, classify
from .records import SinkRecord, to_data
from .scan import sink_records_of
from .transform import Fail, Transform

__all__ = ["sink_records", "wire_sink_record", "validate", "configure", "apply_batch"]


def sink_records(data: bytes) -> List[SinkRecord]:
    """The sink records of a batch, numbered by position."""
    try:
        return sink_records_of(data)
    except batch.BatchError as e:
        raise FatalError(f"malformed record batch: {e}") from None


def wire_sink_record(record: SinkRecord) -> batch.WireRecord:
    """The batch form of a sink record (a key or value that is not bytes is encoded by
    its kind, see `records.to_data`)."""
    if not isinstance(record, SinkRecord):
        raise FatalError(f"apply returned {type(record).__name__}, not a SinkRecord, None or Fail")
    key_kind, key = to_data(record.key, record.key_kind)
    value_kind, value = to_data(record.value, record.value_kind)
    return batch.WireRecord(
        topic=record.topic,
        partition=None if record.partition < 0 else record.partition,
        offset=None if record.offset < 0 else record.offset,
        timestamp=record.timestamp,
        key_kind=key_kind,
        key=key,
        value_kind=value_kind,
        value=value,
        headers=[(str(k), v) for k, v in record.headers],
    )


def _problem(item: Any) -> ConfigProblem:
    if isinstance(item, ConfigProblem):
        return item
    key, message = item
    return ConfigProblem(str(key), str(message))


def validate(transform: Transform, raw: Mapping[str, str]) -> List[ConfigProblem]:
    """The definition's problems; when there are none, the transform's own."""
    try:
        definition = transform.config_definition()
        problems = definition.validate(raw)
        if not problems:
            problems = [_problem(p) for p in transform.validate(definition.parse(raw)) or []]
    except ConfigError as e:
        problems = [ConfigProblem(e.key or "", e.message)]
    except BaseException as e:  # noqa: BLE001 - a broken validate is reported, not trapped
        problems = [ConfigProblem("", f"validate raised an exception: {classify(e)[1]}")]
    return problems


def configure(transform: Transform, raw: Dict[str, str]) -> None:
    """Parses `raw` against the definition (defaults filled in) and configures."""
    transform.configure(transform.config_definition().parse(raw))


def apply_batch(transform: Transform, data: bytes) -> Tuple[bytes, List[int], List[Tuple[int, str]]]:
    """The surviving records as a batch, the input index of each, and the failures as
    (index, reason)."""
    kept: List[batch.WireRecord] = []
    origins: List[int] = []
    failures: List[Tuple[int, str]] = []
    for i, record in enumerate(sink_records(data)):
        out = transform.apply(record)
        if out is None:
            continue
        if isinstance(out, Fail):
            failures.append((i, str(out.reason)))
            continue
        kept.append(wire_sink_record(out))
        origins.append(i)
    return batch.encode(kept), origins, failures
