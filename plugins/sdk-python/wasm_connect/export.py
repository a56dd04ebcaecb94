"""Exporting a plugin: `export_source`, `export_sink` and `export_transform` build the
classes componentize-py looks for in the app module (`Connector`, and `SourceTask` or
`SinkTask`; or `Transformation`, named after the exported WIT interfaces) and put them
there.

componentize-py creates a new object of an export class for every call, so these classes
hold nothing: the author's connector and task objects live in this module, one of each
per sandbox instance (the worker never shares an instance). Every call converts WIT
values to SDK values and back, and turns every exception it can into a WIT `error`
(`errors.classify`); only calls whose WIT signature has no error (`stop`, `name`, ...)
log the exception instead.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Tuple, Type

from . import batch, bindings, transform_glue
from .config import ConfigDef, ConfigProblem, format_value
from .connector import Connector, SinkTask, SourceTask
from .errors import ConfigError, FatalError, classify
from .gcpause import without_gc
from .records import RecordAck, RecordFailure, SinkRecord, SourceRecord, TopicPartition, to_data
from .transform import Transform
from .source_batch import encode_sources
from .transform_glue import sink_records

__all__ = ["export_source", "export_sink", "export_transform"]


class _Instance:
    """The plugin objects of this sandbox instance."""

    def __init__(self) -> None:
        self.connector_cls: Optional[Type[Connector]] = None
        self.task_cls: Optional[type] = None
        self.connector: Optional[Connector] = None
        self.task: Any = None
        # Polled records awaiting their ack, kept only when the task overrides commit_record.
        self.keep_records = False
        self.pending: Deque[SourceRecord] = deque()
        self.transform_cls: Optional[Type[Transform]] = None
        self.transform: Optional[Transform] = None


_instance = _Instance()


def _connector() -> Connector:
    if _instance.connector is None:
        assert _instance.connector_cls is not None, "export_source/export_sink was not called"
        _instance.connector = _instance.connector_cls()
    return _instance.connector


def _task() -> Any:
    if _instance.task is None:
        raise FatalError("the task was called before start")
    return _instance.task


def _guard(call: Callable[[], Any]) -> Any:
    """Runs `call`, raising any exception as a WIT `err`."""
    try:
        return call()
    except BaseException as e:  # noqa: BLE001 - every exception must become a WIT error
        raise bindings.err(e) from None


def _batch_call(call: Callable[[], Any]) -> Any:
    """`_guard` for the calls that carry a batch, with the collector paused (`gcpause`)."""
    return _guard(lambda: without_gc(call))


def _log_failure(what: str, e: BaseException) -> None:
    try:
        from . import host

        host.log("error", f"{what} raised an exception", error=classify(e)[1])
    except BaseException:  # noqa: BLE001 - logging must never trap
        pass


def _config(pairs: List[Tuple[str, str]]) -> Dict[str, str]:
    return {k: v for k, v in pairs}


def _config_key(key: Any) -> Any:
    t = bindings.types()
    return t.ConfigKey(
        name=key.name,
        type=t.ConfigType[key.type.name],
        default_value=key.default_text(),
        importance=t.Importance[key.importance.name],
        documentation=key.documentation,
        required=key.required,
        sensitive=key.sensitive,
        grant=None if key.grant is None else t.Grant[key.grant.name],
    )


def _problem(item: Any) -> ConfigProblem:
    if isinstance(item, ConfigProblem):
        return item
    key, message = item
    return ConfigProblem(str(key), str(message))


def _definition() -> ConfigDef:
    return _connector().config_definition()


class _ConnectorExport:
    """The `connector` interface."""

    def name(self) -> str:
        assert _instance.connector_cls is not None
        return _instance.connector_cls.plugin_name()

    def version(self) -> str:
        assert _instance.connector_cls is not None
        return str(_instance.connector_cls.version)

    def config_definition(self) -> List[Any]:
        return [_config_key(k) for k in _definition().keys]

    def validate(self, config: List[Tuple[str, str]]) -> List[Any]:
        raw = _config(config)
        try:
            definition = _definition()
            problems = definition.validate(raw)
            if not problems:
                problems = [_problem(p) for p in _connector().validate(definition.parse(raw)) or []]
        except ConfigError as e:
            problems = [ConfigProblem(e.key or "", e.message)]
        except BaseException as e:  # noqa: BLE001 - a broken validate is reported, not trapped
            problems = [ConfigProblem("", f"validate raised an exception: {classify(e)[1]}")]
        t = bindings.types()
        return [t.ConfigProblem(key=p.key, message=p.message) for p in problems]

    def start(self, config: List[Tuple[str, str]]) -> None:
        def call() -> None:
            parsed = _definition().parse(_config(config))
            _connector().start(parsed)

        _guard(call)

    def task_configs(self, max_tasks: int) -> List[List[Tuple[str, str]]]:
        def call() -> List[List[Tuple[str, str]]]:
            out = []
            for cfg in _connector().task_configs(max_tasks):
                out.append([(str(k), format_value(v)) for k, v in cfg.items() if v is not None])
            return out

        return _guard(call)

    def stop(self) -> None:
        try:
            _connector().stop()
        except BaseException as e:  # noqa: BLE001 - stop has no error to return
            _log_failure("Connector.stop", e)


class _ExactlyOnceExport:
    """The `exactly-once` interface of the `source-connector` world (contract 0.1.2): the
    connector's answers, given the raw config. An exception answers "cannot say" and
    False, and is logged."""

    def exactly_once_support(self, config: List[Tuple[str, str]]) -> Any:
        try:
            answer = _connector().exactly_once_support(_config(config))
        except BaseException as e:  # noqa: BLE001 - no error to return
            _log_failure("Connector.exactly_once_support", e)
            return None
        support = bindings.exactly_once().Support
        return {"supported": support.SUPPORTED, "unsupported": support.UNSUPPORTED}.get(
            str(answer).lower() if answer is not None else ""
        )

    def can_define_transaction_boundaries(self, config: List[Tuple[str, str]]) -> bool:
        try:
            return _connector().can_define_transaction_boundaries(_config(config)) is True
        except BaseException as e:  # noqa: BLE001 - no error to return
            _log_failure("Connector.can_define_transaction_boundaries", e)
            return False


def _start_task(config: List[Tuple[str, str]]) -> None:
    assert _instance.task_cls is not None
    task = _instance.task_cls()
    _instance.task = task
    task.start(_config(config))


def _stop_task() -> None:
    try:
        if _instance.task is not None:
            _instance.task.stop()
    except BaseException as e:  # noqa: BLE001 - stop has no error to return
        _log_failure("Task.stop", e)


def _dumps(value: Mapping[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def wire(record: SourceRecord) -> batch.WireRecord:
    """The batch form of a source record."""
    key_kind, key = to_data(record.key, record.key_kind)
    value_kind, value = to_data(record.value, record.value_kind)
    return batch.WireRecord(
        topic=record.topic,
        partition=record.partition,
        offset=None,
        timestamp=record.timestamp,
        key_kind=key_kind,
        key=key,
        value_kind=value_kind,
        value=value,
        headers=record.header_items(),
        source_partition=_dumps(record.source_partition),
        source_offset=_dumps(record.source_offset),
    )


class _SourceTaskExport:
    """The `source-task` interface."""

    def start(self, config: List[Tuple[str, str]]) -> None:
        _instance.keep_records = getattr(_instance.task_cls, "commit_record", None) is not SourceTask.commit_record
        _guard(lambda: _start_task(config))

    def poll(self, max_records: int) -> bytes:
        def call() -> bytes:
            records = _task().poll(max_records) or []
            if len(records) > max_records:
                raise FatalError(f"poll returned {len(records)} records, more than the {max_records} asked for")
            encoded = encode_sources(records)
            if _instance.keep_records:
                _instance.pending.extend(records)
            return encoded

        return _batch_call(call)

    def commit_records(self, acks: List[Any]) -> None:
        def call() -> None:
            task = _task()
            for a in acks:
                record = None
                if _instance.keep_records and _instance.pending:
                    record = _instance.pending.popleft()
                task.commit_record(RecordAck(a.sequence, a.partition, a.offset, record))

        _guard(call)

    def commit(self) -> None:
        _guard(lambda: _task().commit())

    def stop(self) -> None:
        _stop_task()


def _failure(item: Any, records: List[SinkRecord]) -> Any:
    if isinstance(item, RecordFailure):
        index, reason = item.index, item.reason
    else:
        target, reason = item
        index = target.index if isinstance(target, SinkRecord) else int(target)
    if not 0 <= index < len(records):
        raise FatalError(f"put returned a failure for index {index}, outside the batch of {len(records)}")
    return bindings.types().RecordFailure(index=index, reason=str(reason))


def _partitions(items: List[Any]) -> List[TopicPartition]:
    return [TopicPartition(p.topic, p.partition) for p in items]


class _SinkTaskExport:
    """The `sink-task` interface."""

    def start(self, config: List[Tuple[str, str]]) -> None:
        _guard(lambda: _start_task(config))

    def open(self, partitions: List[Any]) -> None:
        _guard(lambda: _task().open(_partitions(partitions)))

    def close(self, partitions: List[Any]) -> None:
        _guard(lambda: _task().close(_partitions(partitions)))

    def put(self, data: bytes) -> List[Any]:
        def call() -> List[Any]:
            records = sink_records(data)
            failures = _task().put(records) or []
            return [_failure(f, records) for f in failures]

        return _batch_call(call)

    def pre_commit(self, offsets: List[Any]) -> List[Any]:
        def call() -> List[Any]:
            given = {TopicPartition(o.topic, o.partition): o.offset for o in offsets}
            safe = _task().pre_commit(dict(given))
            t = bindings.types()
            return [t.TopicPartitionOffset(topic=tp[0], partition=tp[1], offset=int(o)) for tp, o in (safe or {}).items()]

        return _guard(call)

    def stop(self) -> None:
        _stop_task()


def _install(module_globals: Dict[str, Any], names: Dict[str, type]) -> Tuple[type, ...]:
    for name, cls in names.items():
        module_globals[name] = cls
    return tuple(names.values())


def _check(connector_cls: type, task_cls: type, task_base: type) -> None:
    if not (isinstance(connector_cls, type) and issubclass(connector_cls, Connector)):
        raise TypeError(f"{connector_cls!r} is not a subclass of wasm_connect.Connector")
    if not (isinstance(task_cls, type) and issubclass(task_cls, task_base)):
        raise TypeError(f"{task_cls!r} is not a subclass of wasm_connect.{task_base.__name__}")


def export_source(connector_cls: Type[Connector], task_cls: Type[SourceTask]) -> Tuple[type, type]:
    """Exports a source plugin. Call it once, at the top level of the app module:
    it defines that module's `Connector` and `SourceTask`, the names componentize-py
    looks for, and returns them too."""
    _check(connector_cls, task_cls, SourceTask)
    _instance.connector_cls, _instance.task_cls = connector_cls, task_cls
    caller = sys._getframe(1).f_globals
    connector = type("Connector", (_ConnectorExport,), {"__module__": caller.get("__name__")})
    task = type("SourceTask", (_SourceTaskExport,), {"__module__": caller.get("__name__")})
    eos = type("ExactlyOnce", (_ExactlyOnceExport,), {"__module__": caller.get("__name__")})
    installed = _install(caller, {"Connector": connector, "SourceTask": task, "ExactlyOnce": eos})
    return installed[:2]  # type: ignore[return-value]


def export_sink(connector_cls: Type[Connector], task_cls: Type[SinkTask]) -> Tuple[type, type]:
    """Exports a sink plugin. Call it once, at the top level of the app module: it
    defines that module's `Connector` and `SinkTask`, the names componentize-py looks
    for, and returns them too."""
    _check(connector_cls, task_cls, SinkTask)
    _instance.connector_cls, _instance.task_cls = connector_cls, task_cls
    caller = sys._getframe(1).f_globals
    connector = type("Connector", (_ConnectorExport,), {"__module__": caller.get("__name__")})
    task = type("SinkTask", (_SinkTaskExport,), {"__module__": caller.get("__name__")})
    return _install(caller, {"Connector": connector, "SinkTask": task})  # type: ignore[return-value]


def _transform() -> Transform:
    if _instance.transform is None:
        assert _instance.transform_cls is not None, "export_transform was not called"
        _instance.transform = _instance.transform_cls()
    return _instance.transform


class _TransformationExport:
    """The `transformation` interface (`wit/transform.wit`)."""

    def name(self) -> str:
        assert _instance.transform_cls is not None
        return _instance.transform_cls.plugin_name()

    def version(self) -> str:
        assert _instance.transform_cls is not None
        return str(_instance.transform_cls.version)

    def config_definition(self) -> List[Any]:
        return [_config_key(k) for k in _transform().config_definition().keys]

    def validate(self, config: List[Tuple[str, str]]) -> List[Any]:
        problems = transform_glue.validate(_transform(), _config(config))
        t = bindings.types()
        return [t.ConfigProblem(key=p.key, message=p.message) for p in problems]

    def configure(self, config: List[Tuple[str, str]]) -> None:
        _guard(lambda: transform_glue.configure(_transform(), _config(config)))

    def apply(self, data: bytes) -> Any:
        def call() -> Any:
            records, origins, failures = transform_glue.apply_batch(_transform(), data)
            t = bindings.types()
            return bindings.transformation().Transformed(
                records=records,
                origins=origins,
                failures=[t.RecordFailure(index=i, reason=r) for i, r in failures],
            )

        return _batch_call(call)

    def close(self) -> None:
        try:
            if _instance.transform is not None:
                _instance.transform.close()
        except BaseException as e:  # noqa: BLE001 - close has no error to return
            _log_failure("Transform.close", e)
        _instance.transform = None


def export_transform(transform_cls: Type[Transform]) -> type:
    """Exports a transform plugin. Call it once, at the top level of the app module: it
    defines that module's `Transformation`, the name componentize-py looks for, and
    returns it too."""
    if not (isinstance(transform_cls, type) and issubclass(transform_cls, Transform)):
        raise TypeError(f"{transform_cls!r} is not a subclass of wasm_connect.Transform")
    _instance.transform_cls = transform_cls
    caller = sys._getframe(1).f_globals
    export = type("Transformation", (_TransformationExport,), {"__module__": caller.get("__name__")})
    return _install(caller, {"Transformation": export})[0]
