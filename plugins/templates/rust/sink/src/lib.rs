//! `{{class}}`: a sink connector that appends each record's value to the file named by
//! `file`, one line per record, and flushes it before the worker commits offsets.
//!
//! Start here: change `put` to write to your system. The `file` key grants write access to
//! its directory; without a grant the plugin can reach no file, host or clock.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Connector, Error, Grant, Importance, RecordFailure,
    RecordText, Result, SinkRecord, SinkTask, TopicPartitionOffset, export_sink, info,
};

/// The file records are appended to.
const FILE: &str = "file";

/// The connector: declares the config and gives every task the same one.
#[derive(Default)]
pub struct {{class}}Connector {
    config: Config,
}

impl Connector for {{class}}Connector {
    fn name(&self) -> &str {
        "{{class}}"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new().define(
            ConfigKey::string(FILE)
                .required()
                .importance(Importance::High)
                .grant(Grant::WriteFile)
                .doc("The file to append record values to."),
        )
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        // One file, so one writer.
        Ok(vec![self.config.clone()])
    }

    fn stop(&mut self) {}
}

/// The task: a buffered writer, opened at start.
#[derive(Default)]
pub struct {{class}}Task {
    out: Option<BufWriter<File>>,
}

impl {{class}}Task {
    fn out(&mut self) -> Result<&mut BufWriter<File>> {
        self.out.as_mut().ok_or_else(|| Error::fatal("the task was not started"))
    }
}

impl SinkTask for {{class}}Task {
    fn start(&mut self, config: Config) -> Result<()> {
        let path = config.require(FILE)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::config(format!("cannot open {path}: {e}")))?;
        info!("Appending to {path}");
        self.out = Some(BufWriter::new(file));
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let out = self.out()?;
        for record in records {
            let value = record.value_text().unwrap_or("null".into());
            writeln!(out, "{value}")?;
        }
        Ok(Vec::new())
    }

    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        // Everything put so far reaches the file before its offsets are committed.
        self.out()?.flush()?;
        Ok(offsets)
    }

    fn stop(&mut self) {
        if let Some(mut out) = self.out.take() {
            let _ = out.flush();
        }
    }
}

export_sink!({{class}}Connector, {{class}}Task);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::serde_json::json;
    use wasm_connect_sdk::testing::SinkHarness;

    use super::*;

    #[test]
    fn appends_each_value_and_flushes_before_the_commit() {
        let dir = std::env::temp_dir().join(format!("{{name}}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        let _ = std::fs::remove_file(&path);
        let mut sink = SinkHarness::<{{class}}Task>::new();
        sink.start(Config::new().with(FILE, path.to_str().unwrap())).unwrap();
        let mut records = sink.string_records("t", 0, ["one"]);
        records.extend(sink.json_records("t", 0, [json!({"two": 2})]));
        assert!(sink.put(&records).unwrap().is_empty());
        assert_eq!(sink.commit().unwrap()[0].offset, 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n{\"two\":2}\n");
    }
}
