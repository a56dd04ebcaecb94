"""JsonlSink: a sink plugin written with the wasm-connect Python SDK.

It appends each record's value as one line of compact JSON to the file named by `file`
(a key declared with the write-file grant, so the worker opens that file's directory to
the sandbox). It flushes in `pre_commit`, so committed offsets never run ahead of the
file. A record whose value is null or not JSON is returned as a failure, which the
worker routes by the connector's `errors.*` settings.

This module owns the example's behaviour only; everything about the contract is the
SDK's. Build: see README.md.
"""

import json

from wasm_connect import ConfigDef, ConfigType, Connector, Grant, Importance, Kind, NonEmpty, SinkTask, export_sink, host, json_text

CONFIG = ConfigDef().define(
    "file",
    ConfigType.STRING,
    importance=Importance.HIGH,
    doc="Path of the file to append JSON lines to.",
    grant=Grant.WRITE_FILE,
    validator=NonEmpty(),
)


class JsonlSink(Connector):
    """One task, with the connector's own config (which carries the granting `file` key)."""

    name = "PyJsonlSink"
    version = "0.1.0"
    config_def = CONFIG


def json_line(record):
    """The record's value as one line of compact JSON; raises ValueError if it is none."""
    if record.value is None:
        raise ValueError("the value is null")
    if record.value_kind in (Kind.JSON, Kind.CONNECT_JSON):
        data = record.value_data()
    else:
        data = json.loads(record.value)
    return json_text(data)


class JsonlTask(SinkTask):
    def start(self, config):
        self.path = config["file"]
        self.out = open(self.path, "a", encoding="utf-8")
        host.log("info", "JSON lines sink appends to a file", file=self.path)

    def put(self, records):
        failures = []
        lines = []
        for r in records:
            try:
                lines.append(json_line(r))
            except ValueError as e:
                failures.append((r, f"cannot write the value as JSON: {e}"))
        if lines:
            self.out.write("\n".join(lines) + "\n")
        return failures

    def pre_commit(self, offsets):
        self.out.flush()
        return offsets

    def stop(self):
        if getattr(self, "out", None) is not None:
            self.out.close()


export_sink(JsonlSink, JsonlTask)
