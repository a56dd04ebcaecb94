"""wasm-connect's Python SDK: write a Kafka Connect style connector (or a single message
transform) as Python classes and build it into a WebAssembly component with
componentize-py.

```python
from wasm_connect import Connector, SourceTask, SourceRecord, ConfigDef, export_source

class MySource(Connector): ...
class MyTask(SourceTask): ...

export_source(MySource, MyTask)
```

This package re-exports the public names of its modules: `connector` (base classes),
`records` (records and kinds), `config` and `validators` (configuration definitions),
`errors` (typed errors), `host` (calls into the worker), `batch` (the record-batch
encoding), `transform` (the `Transform` base class and `Fail`; `transform_glue` runs
batches through it) and `export` (`export_source`/`export_sink`/`export_transform`). Only `host` and `export` need the
componentize-py bindings, and only when called.
"""

from . import host
from .config import NO_DEFAULT, ConfigDef, ConfigKey, ConfigProblem, ConfigType, Grant, Importance
from .connector import Connector, SinkTask, SourceTask
from .errors import ConfigError, ConnectError, FatalError, RetriableError
from .export import export_sink, export_source, export_transform
from .host import log
from .jsontext import dumps as json_text
from .records import Kind, RecordAck, RecordFailure, SinkRecord, SourceRecord, TopicPartition
from .transform import Fail, Transform
from .validators import NonEmpty, OneOf, Range

__version__ = "0.1.0"

__all__ = [
    "host",
    "log",
    "json_text",
    "NO_DEFAULT",
    "ConfigDef",
    "ConfigKey",
    "ConfigProblem",
    "ConfigType",
    "Grant",
    "Importance",
    "Connector",
    "SourceTask",
    "SinkTask",
    "ConnectError",
    "ConfigError",
    "FatalError",
    "RetriableError",
    "export_source",
    "export_sink",
    "export_transform",
    "Transform",
    "Fail",
    "Kind",
    "RecordAck",
    "RecordFailure",
    "SinkRecord",
    "SourceRecord",
    "TopicPartition",
    "NonEmpty",
    "OneOf",
    "Range",
]
