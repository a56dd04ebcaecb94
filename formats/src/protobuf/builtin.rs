//! The imports Confluent's tools treat as built in, so that a schema using them compiles
//! without the registry: `confluent/meta.proto`, `confluent/type/decimal.proto`,
//! `google/type/date.proto`, `google/type/timeofday.proto` (our own text of the same
//! messages, packages and field numbers as their public definitions) and
//! `google/protobuf/*.proto` (protox's copies), and [`compile`], which turns a schema's
//! text into descriptors with them. This module must not map anything to Connect.

use prost_reflect::FileDescriptor;
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

/// The name the schema being compiled gets among its imports.
const SCHEMA_FILE: &str = "registered-schema.proto";

/// `confluent/meta.proto`: Confluent's field, message and file annotations.
const META: &str = r#"syntax = "proto3";
package confluent;
import "google/protobuf/descriptor.proto";
message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
  repeated Rule rules = 4;
}
message Rule {
  string name = 1;
  string doc = 2;
  string expr = 3;
  string sql = 4;
}
extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
"#;

/// `confluent/type/decimal.proto`: an unscaled two's-complement value with its scale.
const DECIMAL: &str = r#"syntax = "proto3";
package confluent.type;
message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
"#;

/// `google/type/date.proto`: a calendar date.
const DATE: &str = r#"syntax = "proto3";
package google.type;
message Date {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
}
"#;

/// `google/type/timeofday.proto`: a time of day.
const TIME_OF_DAY: &str = r#"syntax = "proto3";
package google.type;
message TimeOfDay {
  int32 hours = 1;
  int32 minutes = 2;
  int32 seconds = 3;
  int32 nanos = 4;
}
"#;

/// `google/protobuf/wrappers.proto`'s messages, in its order, as the schema of a root
/// primitive (`ProtobufData` registers that file and selects one of its messages).
pub const WRAPPERS: &str = r#"syntax = "proto3";
package google.protobuf;

message DoubleValue {
  double value = 1;
}
message FloatValue {
  float value = 1;
}
message Int64Value {
  int64 value = 1;
}
message UInt64Value {
  uint64 value = 1;
}
message Int32Value {
  int32 value = 1;
}
message UInt32Value {
  uint32 value = 1;
}
message BoolValue {
  bool value = 1;
}
message StringValue {
  string value = 1;
}
message BytesValue {
  bytes value = 1;
}
"#;

/// The import path of `confluent/meta.proto`.
pub const META_FILE: &str = "confluent/meta.proto";
/// The import path of the Decimal message.
pub const DECIMAL_FILE: &str = "confluent/type/decimal.proto";
/// The import path of the Date message.
pub const DATE_FILE: &str = "google/type/date.proto";
/// The import path of the TimeOfDay message.
pub const TIME_FILE: &str = "google/type/timeofday.proto";
/// The import path of the Timestamp message.
pub const TIMESTAMP_FILE: &str = "google/protobuf/timestamp.proto";
/// The import path of the wrapper messages.
pub const WRAPPERS_FILE: &str = "google/protobuf/wrappers.proto";

/// Serves the schema's own text and the built-in files.
struct Sources {
    schema: String,
}

impl FileResolver for Sources {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        let text = match name {
            SCHEMA_FILE => &self.schema,
            META_FILE => META,
            DECIMAL_FILE => DECIMAL,
            DATE_FILE => DATE,
            TIME_FILE => TIME_OF_DAY,
            _ => return Err(protox::Error::file_not_found(name)),
        };
        File::from_source(name, text)
    }
}

/// Compiles `text`, a `.proto` file whose imports are all built in, to its descriptor.
pub fn compile(text: &str) -> Result<FileDescriptor, String> {
    let mut resolver = ChainFileResolver::new();
    resolver.add(Sources { schema: text.to_owned() });
    resolver.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true);
    compiler.open_file(SCHEMA_FILE).map_err(|e| format!("Invalid protobuf schema: {e}"))?;
    compiler
        .descriptor_pool()
        .get_file_by_name(SCHEMA_FILE)
        .ok_or_else(|| "Invalid protobuf schema: the file did not compile".to_owned())
}
