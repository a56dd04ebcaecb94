//! [`Querier`]: one table (or the query) of a task, with its source partition, its
//! offset and the rows read but not yet returned. It writes the mode's SELECT (the JDBC
//! source's WHERE clauses) and turns each row into a record whose source offset is the
//! position after that row, so a restart resumes after the last committed row.
//!
//! Offsets are the JDBC source's: `{"incrementing": n}`, `{"timestamp": ms,
//! "timestamp_nanos": ns}` or both; partitions `{"protocol": "1", "table": "db.schema.table"}`
//! or `{"query": "query"}`. It owns no connection.

use std::collections::VecDeque;
use std::time::Instant;

use postgres_wire::{Column, format_timestamp_micros, quote_ident};
use wasm_connect_sdk::SourceRecord;
use wasm_connect_sdk::serde_json::{Value, json};

use crate::config::{Mode, Settings};

/// How far a table has been read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offset {
    /// The last timestamp, in microseconds since the epoch.
    pub ts: Option<i64>,
    /// The last incrementing value.
    pub inc: Option<i64>,
}

impl Offset {
    pub fn to_json(self) -> Value {
        let mut o = json!({});
        if let Some(inc) = self.inc {
            o["incrementing"] = json!(inc);
        }
        if let Some(us) = self.ts {
            o["timestamp"] = json!(us.div_euclid(1000));
            o["timestamp_nanos"] = json!(us.rem_euclid(1_000_000) * 1000);
        }
        o
    }

    pub fn from_json(v: &Value) -> Self {
        let ts = v["timestamp"].as_i64().map(|ms| {
            let nanos = v["timestamp_nanos"].as_i64().unwrap_or(ms.rem_euclid(1000) * 1_000_000);
            ms.div_euclid(1000) * 1_000_000 + nanos / 1000
        });
        Self { ts, inc: v["incrementing"].as_i64() }
    }
}

/// One table or the query.
pub struct Querier {
    /// The table (or `None` for the query).
    pub table: Option<String>,
    pub topic: String,
    pub partition: Value,
    pub offset: Offset,
    /// Not before this instant (and when it was set, to see a clock that does not move).
    pub next_at: Option<(Instant, Instant)>,
    pub buffer: VecDeque<SourceRecord>,
}

impl Querier {
    pub fn new(s: &Settings, table: Option<&str>, database: &str) -> Self {
        let (partition, topic) = match table {
            Some(t) => {
                let fqn = if t.contains('.') {
                    format!("{database}.{t}")
                } else {
                    format!("{database}.public.{t}")
                };
                (
                    json!({"protocol": "1", "table": fqn}),
                    format!("{}{}", s.topic_prefix, t.rsplit('.').next().unwrap_or(t)),
                )
            }
            None => (json!({"query": "query"}), s.topic_prefix.clone()),
        };
        Self {
            table: table.map(str::to_owned),
            topic,
            partition,
            offset: Offset::default(),
            next_at: None,
            buffer: VecDeque::new(),
        }
    }

    /// Whether it is time to query again.
    pub fn due(&self, now: Instant) -> bool {
        self.next_at.is_none_or(|(at, set)| now >= at || now == set)
    }

    /// The name of the struct schema: the table, or the topic for a query.
    pub fn schema_name(&self) -> &str {
        self.table.as_deref().unwrap_or(&self.topic)
    }

    /// The SELECT and its parameters for the next rows.
    pub fn statement(&self, s: &Settings) -> (String, Vec<Option<String>>) {
        let base = match (&self.table, &s.query) {
            (Some(t), _) => format!("SELECT * FROM {}", quote_ident(t)),
            (None, Some(q)) => format!("SELECT * FROM ({q}) AS \"__query\""),
            (None, None) => unreachable!("a querier has a table or the query"),
        };
        let inc = s.incrementing_column.as_deref().map(quote_ident).unwrap_or_default();
        let ts = s.timestamp_column.as_deref().map(quote_ident).unwrap_or_default();
        let delay = format!("{} milliseconds", s.timestamp_delay_ms);
        let last_ts = format_timestamp_micros(self.offset.ts.unwrap_or(0));
        let last_inc = self.offset.inc.unwrap_or(-1).to_string();
        let n = s.batch_max_rows;
        match s.mode {
            Mode::Bulk => (base, Vec::new()),
            Mode::Incrementing => (
                format!("{base} WHERE {inc} > $1 ORDER BY {inc} ASC LIMIT {n}"),
                vec![Some(last_inc)],
            ),
            Mode::Timestamp => (
                format!(
                    "{base} WHERE {ts} > $1 AND {ts} < CURRENT_TIMESTAMP - $2::interval ORDER BY {ts} ASC"
                ),
                vec![Some(last_ts), Some(delay)],
            ),
            Mode::TimestampIncrementing => (
                format!(
                    "{base} WHERE {ts} < CURRENT_TIMESTAMP - $3::interval AND \
                     (({ts} = $1 AND {inc} > $2) OR {ts} > $1) ORDER BY {ts}, {inc} ASC LIMIT {n}"
                ),
                vec![Some(last_ts), Some(last_inc), Some(delay)],
            ),
        }
    }

    /// The offset after `row`.
    pub fn advance(
        &mut self,
        s: &Settings,
        columns: &[Column],
        row: &[Option<String>],
    ) -> Result<(), String> {
        let find = |name: &Option<String>| -> Result<Option<&str>, String> {
            let Some(name) = name else { return Ok(None) };
            let i = columns
                .iter()
                .position(|c| &c.name == name)
                .ok_or(format!("the result has no column {name}"))?;
            row[i].as_deref().map(Some).ok_or(format!("column {name} is null"))
        };
        if matches!(s.mode, Mode::Incrementing | Mode::TimestampIncrementing) {
            let v = find(&s.incrementing_column)?.unwrap_or("");
            self.offset.inc =
                Some(v.parse().map_err(|_| format!("incrementing value {v:?} is not an integer"))?);
        }
        if matches!(s.mode, Mode::Timestamp | Mode::TimestampIncrementing) {
            let v = find(&s.timestamp_column)?.unwrap_or("");
            self.offset.ts = Some(postgres_wire::parse_timestamp_micros(v)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip_in_the_jdbc_format() {
        let o = Offset { ts: Some(1_500_123), inc: Some(9) };
        let j = o.to_json();
        assert_eq!(
            j,
            json!({"incrementing": 9, "timestamp": 1500, "timestamp_nanos": 500_123_000})
        );
        assert_eq!(Offset::from_json(&j), o);
        assert_eq!(Offset::from_json(&json!({})), Offset::default());
    }
}
