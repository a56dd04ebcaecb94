//! `EchoSink`: logs every record it receives and appends its value, as text, to the file
//! named by the `file` key. That key carries the write-file grant, so the worker opens
//! the file's directory to the sandbox, and nothing else.

use std::fs::{File, OpenOptions};
use std::io::Write;

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Connector, Error, Grant, Importance, NonEmptyString,
    RecordFailure, RecordText, Result, ResultExt, SinkRecord, SinkTask, export_sink, info,
};

/// The connector: declares the keys and gives every task the same config.
#[derive(Default)]
pub struct EchoSink {
    config: Config,
}

impl Connector for EchoSink {
    fn name(&self) -> &str {
        "EchoSink"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new().define(
            ConfigKey::string("file")
                .required()
                .ensure(NonEmptyString)
                .grant(Grant::WriteFile)
                .importance(Importance::High)
                .doc("Absolute path of the file to append values to."),
        )
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        Ok(vec![self.config.clone(); max_tasks as usize])
    }

    fn stop(&mut self) {}
}

/// The task: an open file, written record by record.
#[derive(Default)]
pub struct EchoTask {
    file: Option<File>,
}

impl SinkTask for EchoTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let path = config.require("file")?;
        let file = OpenOptions::new().create(true).append(true).open(path);
        self.file = Some(file.fatal_with(format_args!("cannot open {path}"))?);
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let file = self.file.as_mut().ok_or_else(|| Error::fatal("put before start"))?;
        for r in records {
            let value = r.value_text().unwrap_or("null".into());
            info!(
                "Record {}-{}@{}: {value}",
                r.topic,
                r.partition.unwrap_or(0),
                r.offset.unwrap_or(-1)
            );
            // A full disk may clear up: let the worker deliver the batch again.
            writeln!(file, "{value}").retriable_with("cannot append to the file")?;
        }
        Ok(Vec::new())
    }

    fn stop(&mut self) {}
}

export_sink!(EchoSink, EchoTask);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::Level;
    use wasm_connect_sdk::serde_json::json;
    use wasm_connect_sdk::testing::{SinkHarness, log_messages};

    use super::*;

    #[test]
    fn logs_and_appends_each_value() {
        let dir = std::env::temp_dir().join(format!("echo-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        let _ = std::fs::remove_file(&path);
        let mut sink = SinkHarness::<EchoTask>::new();
        sink.start(Config::new().with("file", path.to_str().unwrap())).unwrap();
        let mut records = sink.string_records("t", 0, ["one"]);
        records.extend(sink.json_records("t", 0, [json!({"two": 2})]));
        assert!(sink.put(&records).unwrap().is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n{\"two\":2}\n");
        assert_eq!(log_messages(Level::Info), ["Record t-0@0: one", r#"Record t-0@1: {"two":2}"#]);
        assert_eq!(sink.commit().unwrap()[0].offset, 2);
    }
}
