//! [`CLASSES`]: the names of the converter classes this worker has, for selection
//! (`class`) and for the message that lists them (`error`). Names only.

/// The converter classes the worker knows, full Kafka Connect names, sorted.
pub const CLASSES: &[&str] = &[
    "io.confluent.connect.avro.AvroConverter",
    "io.confluent.connect.json.JsonSchemaConverter",
    "io.confluent.connect.protobuf.ProtobufConverter",
    "org.apache.kafka.connect.converters.ByteArrayConverter",
    "org.apache.kafka.connect.json.JsonConverter",
    "org.apache.kafka.connect.storage.StringConverter",
];
