"""SequenceSource: a source plugin written with the wasm-connect Python SDK.

It emits numbered JSON records `{"seq": n, "text": "record n"}` (key: `n` as a string)
to `topic`, `batch.size` at a time, until `count` records exist. Its one source
partition is `{"topic": <topic>}` and each record's source offset is `{"seq": n}`, so
after a restart the task resumes after the last committed record (read with
`host.offset`). `fail.on.record` makes the task raise a Python exception instead of
emitting that record, to show how an exception becomes a FAILED task.

This module owns the example's behaviour only; everything about the contract is the
SDK's. Build: see README.md.
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

CONFIG = (
    ConfigDef()
    .define("topic", ConfigType.STRING, importance=Importance.HIGH, doc="Topic to write the records to.", validator=NonEmpty())
    .define("count", ConfigType.LONG, default=1000, importance=Importance.MEDIUM, doc="How many records to emit in total.", validator=Range(min=0))
    .define("batch.size", ConfigType.INT, default=100, importance=Importance.LOW, doc="At most this many records per poll.", validator=Range(min=1, max=10000))
    .define(
        "fail.on.record",
        ConfigType.LONG,
        default=-1,
        importance=Importance.LOW,
        doc="Raise an exception instead of emitting the record with this number (-1: never). For demonstrations and tests.",
        validator=Range(min=-1),
    )
)


class SequenceSource(Connector):
    """One task, with the connector's own config."""

    name = "PySequenceSource"
    version = "0.1.0"
    config_def = CONFIG

    def start(self, config):
        super().start(config)
        host.log("info", "Sequence source started", topic=config["topic"], count=config["count"])


class SequenceTask(SourceTask):
    def start(self, config):
        self.topic = config["topic"]
        self.count = int(config["count"])
        self.batch_size = int(config["batch.size"])
        self.fail_on = int(config["fail.on.record"])
        self.partition = {"topic": self.topic}
        committed = host.offset(self.partition)
        self.next = 0 if committed is None else int(committed["seq"]) + 1
        host.log("info", "Sequence task resumes", next=self.next)

    def poll(self, max_records):
        n = min(max_records, self.batch_size, self.count - self.next)
        records = []
        for seq in range(self.next, self.next + max(n, 0)):
            if seq == self.fail_on:
                raise ValueError(f"record {seq} is configured to fail (fail.on.record)")
            records.append(
                SourceRecord(
                    topic=self.topic,
                    key=str(seq),
                    value={"seq": seq, "text": f"record {seq}"},
                    source_partition=self.partition,
                    source_offset={"seq": seq},
                )
            )
        self.next += len(records)
        return records


export_source(SequenceSource, SequenceTask)
