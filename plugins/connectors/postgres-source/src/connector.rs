//! [`JdbcSourceConnector`]: the connector half. It lists the tables of the current
//! schema (narrowed by `table.whitelist` / `table.blacklist`) and splits them between
//! at most `tasks.max` tasks, round robin, as Confluent's `JdbcSourceConnector` does; a
//! `query` is one task.

use postgres_wire::url_problem;
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigProblem, Connector, Error, ExactlyOnceSupport, Result, warn,
};

use crate::config::{self, Settings};

/// The source connector.
#[derive(Default)]
pub struct JdbcSourceConnector {
    config: Config,
}

fn tables(s: &Settings) -> Result<Vec<String>> {
    if !s.whitelist.is_empty() {
        return Ok(s.whitelist.clone());
    }
    let mut session = s.connection.session().map_err(Error::config)?;
    let sql = "SELECT table_name::text FROM information_schema.tables \
               WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1";
    let rows = session.client().and_then(|(client, _)| client.query(sql, &[]));
    session.close();
    let rows = rows.map_err(|e| Error::retriable(format!("PostgreSQL: {e}")))?.rows;
    Ok(rows
        .into_iter()
        .filter_map(|mut r| r.pop().flatten())
        .filter(|t| !s.blacklist.contains(t))
        .collect())
}

impl Connector for JdbcSourceConnector {
    fn name(&self) -> &str {
        "io.confluent.connect.jdbc.JdbcSourceConnector"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let mut problems: Vec<ConfigProblem> = url_problem(config).into_iter().collect();
        if config.get(config::CONNECTION_URL).is_some()
            && config.get(config::MODE).is_some()
            && let Err(e) = Settings::parse(config)
        {
            problems.push(ConfigProblem::new(config::MODE, e.message().to_owned()));
        }
        problems
    }

    /// Exactly-once in the incrementing and timestamp modes, whose offsets (the last
    /// incrementing value and timestamp read) say where to resume; `bulk` reads every row
    /// again on every poll, so it cannot promise it.
    fn exactly_once_support(&self, config: &Config) -> Option<ExactlyOnceSupport> {
        let resumable = matches!(
            config.get(config::MODE).map(str::trim),
            Some("incrementing" | "timestamp" | "timestamp+incrementing")
        );
        Some(if resumable {
            ExactlyOnceSupport::Supported
        } else {
            ExactlyOnceSupport::Unsupported
        })
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        let s = Settings::parse(&self.config)?;
        // The poll interval needs the clock, which only a value in the task config grants.
        let mut base = self.config.clone();
        if base.get(config::POLL_INTERVAL_MS).is_none_or(|v| v.trim().is_empty()) {
            base.set(config::POLL_INTERVAL_MS, "5000");
        }
        if s.query.is_some() {
            return Ok(vec![base]);
        }
        let tables = tables(&s)?;
        if tables.is_empty() {
            warn!("No tables to read");
            return Ok(Vec::new());
        }
        let n = tables.len().min(max_tasks.max(1) as usize);
        let mut groups = vec![Vec::new(); n];
        for (i, t) in tables.into_iter().enumerate() {
            groups[i % n].push(t);
        }
        Ok(groups
            .into_iter()
            .map(|g| {
                let mut c = base.clone();
                c.set(config::TABLES, g.join(","));
                c
            })
            .collect())
    }

    fn stop(&mut self) {}
}
