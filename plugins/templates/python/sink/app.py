"""{{class}}: a sink connector that appends each record's value to the file named by `file`,
one line per record, and flushes it before the worker commits offsets.

Start here: change `put` to write to your system. The `file` key grants write access to its
directory; without a grant the plugin can reach no file, host or clock.
"""

import json

from wasm_connect import ConfigDef, ConfigType, Connector, Grant, Importance, NonEmpty, SinkTask, export_sink, host


class {{class}}Connector(Connector):
    """Declares the config and runs one task with it (the granting `file` key included)."""

    name = "{{class}}"
    version = "0.1.0"
    config_def = ConfigDef().define(
        "file",
        ConfigType.STRING,
        importance=Importance.HIGH,
        doc="The file to append record values to.",
        grant=Grant.WRITE_FILE,
        validator=NonEmpty(),
    )


def line(record):
    """The record's value as one line of text: strings as they are, other data as JSON."""
    value = record.value_data()
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


class {{class}}Task(SinkTask):
    """A file opened at start, appended to by `put`, flushed by `pre_commit`."""

    def start(self, config):
        self.out = open(config["file"], "a", encoding="utf-8")
        host.log("info", "Appending", file=config["file"])

    def put(self, records):
        self.out.write("".join(line(r) + "\n" for r in records))
        return []

    def pre_commit(self, offsets):
        self.out.flush()
        return offsets

    def stop(self):
        if getattr(self, "out", None) is not None:
            self.out.close()


export_sink({{class}}Connector, {{class}}Task)
