"""{{class}}: a source connector that writes `count` greetings to `topic`, numbered from 0,
and resumes after the last committed one when it restarts.

Start here: change `poll` to read your system. Each record carries a source partition
(which stream it came from) and a source offset (how far into it); the worker commits the
offsets once the records are in Kafka, and `start` reads them back.
"""

from wasm_connect import (
    ConfigDef,
    ConfigType,
    Connector,
    Importance,
    NonEmpty,
    Range,
    SourceRecord,
    SourceTask,
    export_source,
    host,
)

# The one source partition this task reads.
PARTITION = {"source": "{{name}}"}


class {{class}}Connector(Connector):
    """Declares the config and runs one task with it."""

    name = "{{class}}"
    version = "0.1.0"
    config_def = (
        ConfigDef()
        .define("topic", ConfigType.STRING, importance=Importance.HIGH, doc="The topic to write to.", validator=NonEmpty())
        .define("count", ConfigType.LONG, default=1000, doc="How many records to write in all.", validator=Range(min=0))
    )


class {{class}}Task(SourceTask):
    """Counts from the committed offset up to `count`."""

    def start(self, config):
        self.topic = config["topic"]
        self.count = int(config["count"])
        committed = host.offset(PARTITION)
        self.next = 0 if committed is None else int(committed["next"])
        host.log("info", "Starting", next=self.next, count=self.count)

    def poll(self, max_records):
        end = min(self.count, self.next + max_records)
        records = [
            SourceRecord(self.topic, key=str(n), value=f"hello {n}", source_partition=PARTITION, source_offset={"next": n + 1})
            for n in range(self.next, end)
        ]
        self.next = end
        return records


export_source({{class}}Connector, {{class}}Task)
