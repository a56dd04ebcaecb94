"""{{class}}: a single message transform that moves every record to the topic
`<topic.prefix><topic>` and, with `drop.tombstones=true`, drops records with a null value.

Start here: change `apply` to change records your way. It may change a record's topic,
partition, timestamp, headers, key (`set_key`) and value (`set_value`), return None to drop
it, or return `Fail(reason)`, which the worker routes by the connector's `errors.*`
settings.
"""

from wasm_connect import ConfigDef, ConfigType, Importance, Transform, export_transform

CONFIG = (
    ConfigDef()
    .define("topic.prefix", ConfigType.STRING, default="{{name}}.", importance=Importance.HIGH, doc="The prefix every record's topic gets.")
    .define("drop.tombstones", ConfigType.BOOLEAN, default=False, doc="Drop records whose value is null.")
)


class {{class}}(Transform):
    name = "{{class}}"
    version = "0.1.0"
    config_def = CONFIG

    def configure(self, config):
        self.prefix = config["topic.prefix"]
        self.drop_tombstones = config["drop.tombstones"]

    def apply(self, record):
        if self.drop_tombstones and record.value is None:
            return None
        record.topic = self.prefix + record.topic
        return record


export_transform({{class}})
