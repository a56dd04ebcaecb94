//! [`DatagenTask`]: emits records `0, 1, 2, ...` of its share, resuming after the
//! committed `{"seq": n}`.
//!
//! This module owns the task's position and its pacing state; bytes come from `pattern`,
//! the rate arithmetic from `pace`. It never sleeps: when the budget is spent it returns
//! an empty batch and the worker polls again a little later.

use std::time::Instant;

use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::{Config, Error, Result, SourceRecord, SourceTask, info, offsets};

use crate::config::Settings;
use crate::pace::Pace;
use crate::pattern::Pattern;

/// The task; `None` until `start`.
#[derive(Default)]
pub struct DatagenTask {
    state: Option<State>,
}

struct State {
    settings: Settings,
    partition: Value,
    pattern: Pattern,
    /// The sequence number of the next record.
    next: u64,
    /// The budget and the instant of the first poll, when rate-limited.
    pace: Option<(Pace, Option<Instant>)>,
}

impl SourceTask for DatagenTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let settings = Settings::parse(&config)?;
        let partition = settings.source_partition();
        let committed = offsets(std::slice::from_ref(&partition)).pop().flatten();
        let next = match committed {
            None => 0,
            Some(offset) => match offset.get("seq").and_then(Value::as_u64) {
                Some(seq) => seq + 1,
                None => {
                    return Err(Error::fatal(format!(
                        "committed offset {offset} has no non-negative integer `seq`"
                    )));
                }
            },
        };
        info!(
            "Datagen task {} starts at record {next} of {}",
            settings.task_id,
            settings.records.map_or_else(|| "unlimited".to_owned(), |n| n.to_string())
        );
        self.state = Some(State {
            pattern: Pattern::new(settings.key_size, settings.value_size),
            pace: settings.rate.map(|r| (Pace::new(r), None)),
            partition,
            settings,
            next,
        });
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let s = self.state.as_mut().ok_or_else(|| Error::fatal("poll before start"))?;
        let mut n = s.settings.batch_size.min(max_records as usize) as u64;
        if let Some(total) = s.settings.records {
            n = n.min(total.saturating_sub(s.next));
        }
        if let Some((pace, started)) = &mut s.pace {
            let started = *started.get_or_insert_with(Instant::now);
            n = n.min(pace.allowed(started.elapsed()));
            pace.emitted(n);
        }
        let records = (s.next..s.next + n)
            .map(|seq| {
                let record = SourceRecord::new(
                    &s.settings.topic,
                    s.partition.clone(),
                    json!({ "seq": seq }),
                )
                .string_value(s.pattern.value(seq));
                match s.pattern.key(seq) {
                    Some(key) => record.string_key(key),
                    None => record,
                }
            })
            .collect();
        s.next += n;
        Ok(records)
    }

    fn stop(&mut self) {
        self.state = None;
    }
}
