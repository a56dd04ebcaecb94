//! What the replication commands answer, as values: [`SystemInfo`] (`IDENTIFY_SYSTEM`),
//! [`CreatedSlot`] (`CREATE_REPLICATION_SLOT`), [`SlotInfo`] (a row of
//! `pg_replication_slots`), and the text of the commands that name a slot, with the check
//! PostgreSQL applies to slot names.
//!
//! It builds text and reads rows; it sends nothing.

use crate::{Lsn, PgError, QueryResult, quote_ident, quote_literal};

/// The server's answer to `IDENTIFY_SYSTEM`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemInfo {
    /// The cluster's unique system identifier (a 64-bit number, as text).
    pub system_id: String,
    /// The current timeline.
    pub timeline: u32,
    /// The current end of the WAL (flushed, on a primary).
    pub xlog_pos: Lsn,
    /// The database this replication connection is for.
    pub dbname: Option<String>,
}

/// A slot just created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedSlot {
    /// The first position the slot streams from: changes committed after it.
    pub consistent_point: Lsn,
    /// The exported snapshot (`SET TRANSACTION SNAPSHOT '…'`), which shows the database
    /// exactly as of `consistent_point`; valid until the next command on the replication
    /// connection that created it.
    pub snapshot_name: Option<String>,
}

/// A row of `pg_replication_slots`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotInfo {
    /// The output plugin (`pgoutput`); `None` for a physical slot.
    pub plugin: Option<String>,
    /// The database of a logical slot.
    pub database: Option<String>,
    /// Whether a connection is streaming from it now.
    pub active: bool,
    /// The oldest WAL the slot still needs.
    pub restart_lsn: Option<Lsn>,
    /// Up to where the client confirmed it has the changes (what a restart resumes after).
    pub confirmed_flush_lsn: Option<Lsn>,
    /// `reserved`, `extended`, `unreserved` or `lost` (lost: it can never stream again).
    pub wal_status: Option<String>,
}

/// Checks `name` as PostgreSQL does: 1 to 63 characters, lower-case letters, digits and
/// underscores.
pub fn check_slot_name(name: &str) -> Result<(), String> {
    let ok = (1..=63).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid replication slot name {name:?}: use 1 to 63 lower-case letters, digits \
             and underscores"
        ))
    }
}

pub(crate) fn checked(name: &str) -> Result<&str, PgError> {
    check_slot_name(name).map_err(PgError::Protocol)?;
    Ok(name)
}

/// `CREATE_REPLICATION_SLOT` for a logical slot, in the syntax of PostgreSQL `major`
/// (options in parentheses from 15 on, `EXPORT_SNAPSHOT` keywords before).
pub(crate) fn create_command(name: &str, plugin: &str, export: bool, major: u32) -> String {
    let (name, plugin) = (quote_ident(name), quote_ident(plugin));
    let snapshot = match (major >= 15, export) {
        (true, true) => "(SNAPSHOT 'export')",
        (true, false) => "(SNAPSHOT 'nothing')",
        (false, true) => "EXPORT_SNAPSHOT",
        (false, false) => "NOEXPORT_SNAPSHOT",
    };
    format!("CREATE_REPLICATION_SLOT {name} LOGICAL {plugin} {snapshot}")
}

/// `START_REPLICATION` of logical slot `name` from `start`, with the plugin's options.
pub(crate) fn start_command(name: &str, start: Lsn, options: &[(&str, &str)]) -> String {
    let mut sql = format!("START_REPLICATION SLOT {} LOGICAL {start}", quote_ident(name));
    if !options.is_empty() {
        let list: Vec<String> = options
            .iter()
            .map(|(k, v)| format!("{} {}", quote_ident(k), quote_literal(v)))
            .collect();
        sql.push_str(&format!(" ({})", list.join(", ")));
    }
    sql
}

/// The query reading slot `name` from `pg_replication_slots`.
pub(crate) fn slot_query(name: &str) -> String {
    format!(
        "SELECT plugin, database, active, restart_lsn, confirmed_flush_lsn, wal_status \
         FROM pg_catalog.pg_replication_slots WHERE slot_name = {}",
        quote_literal(name)
    )
}

fn lsn(text: Option<&str>) -> Result<Option<Lsn>, PgError> {
    text.map(|t| t.parse().map_err(PgError::Protocol)).transpose()
}

fn cell(result: &QueryResult, column: usize) -> Option<&str> {
    result.rows.first()?.get(column)?.as_deref()
}

fn one_row(result: &QueryResult, what: &str, columns: usize) -> Result<(), PgError> {
    match result.rows.first() {
        Some(row) if row.len() >= columns => Ok(()),
        _ => Err(PgError::Protocol(format!("{what} answered no row of {columns} columns"))),
    }
}

pub(crate) fn system_info(result: &QueryResult) -> Result<SystemInfo, PgError> {
    one_row(result, "IDENTIFY_SYSTEM", 4)?;
    let timeline = cell(result, 1).and_then(|t| t.parse().ok());
    Ok(SystemInfo {
        system_id: cell(result, 0).unwrap_or_default().to_owned(),
        timeline: timeline
            .ok_or_else(|| PgError::Protocol("IDENTIFY_SYSTEM: no timeline".into()))?,
        xlog_pos: lsn(cell(result, 2))?.unwrap_or_default(),
        dbname: cell(result, 3).map(str::to_owned),
    })
}

pub(crate) fn created_slot(result: &QueryResult) -> Result<CreatedSlot, PgError> {
    one_row(result, "CREATE_REPLICATION_SLOT", 3)?;
    Ok(CreatedSlot {
        consistent_point: lsn(cell(result, 1))?.unwrap_or_default(),
        snapshot_name: cell(result, 2).map(str::to_owned),
    })
}

pub(crate) fn slot_info(result: &QueryResult) -> Result<Option<SlotInfo>, PgError> {
    if result.rows.is_empty() {
        return Ok(None);
    }
    one_row(result, "pg_replication_slots", 6)?;
    Ok(Some(SlotInfo {
        plugin: cell(result, 0).map(str::to_owned),
        database: cell(result, 1).map(str::to_owned),
        active: cell(result, 2) == Some("t"),
        restart_lsn: lsn(cell(result, 3))?,
        confirmed_flush_lsn: lsn(cell(result, 4))?,
        wal_status: cell(result, 5).map(str::to_owned),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_names_follow_postgresql_rules() {
        assert!(check_slot_name("debezium_1").is_ok());
        assert!(check_slot_name(&"a".repeat(63)).is_ok());
        for bad in ["", "Upper", "with-dash", "sp ace", "quo\"te", &"a".repeat(64)] {
            assert!(check_slot_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn commands_quote_names_and_option_values() {
        assert_eq!(
            create_command("s1", "pgoutput", true, 15),
            "CREATE_REPLICATION_SLOT \"s1\" LOGICAL \"pgoutput\" (SNAPSHOT 'export')"
        );
        assert_eq!(
            create_command("s1", "pgoutput", false, 16),
            "CREATE_REPLICATION_SLOT \"s1\" LOGICAL \"pgoutput\" (SNAPSHOT 'nothing')"
        );
        assert!(create_command("s1", "pgoutput", true, 14).ends_with(" EXPORT_SNAPSHOT"));
        assert!(create_command("s1", "pgoutput", false, 10).ends_with(" NOEXPORT_SNAPSHOT"));
        assert_eq!(
            start_command("s1", Lsn(0x1_0000_00AB), &[("proto_version", "1"), ("x", "it's")]),
            "START_REPLICATION SLOT \"s1\" LOGICAL 1/AB (\"proto_version\" '1', \"x\" 'it''s')"
        );
        assert_eq!(start_command("s1", Lsn(0), &[]), "START_REPLICATION SLOT \"s1\" LOGICAL 0/0");
        assert!(slot_query("a'b").ends_with("slot_name = 'a''b'"));
    }

    #[test]
    fn rows_become_values() {
        let row = |cells: &[Option<&str>]| QueryResult {
            rows: vec![cells.iter().map(|c| c.map(str::to_owned)).collect()],
            ..QueryResult::default()
        };
        let info = system_info(&row(&[Some("7312"), Some("1"), Some("0/16B3748"), Some("db")]));
        assert_eq!(
            info.unwrap(),
            SystemInfo {
                system_id: "7312".into(),
                timeline: 1,
                xlog_pos: Lsn(0x016B_3748),
                dbname: Some("db".into())
            }
        );
        let created = created_slot(&row(&[Some("s"), Some("0/10"), None, Some("pgoutput")]));
        assert_eq!(
            created.unwrap(),
            CreatedSlot { consistent_point: Lsn(16), snapshot_name: None }
        );
        let slot = slot_info(&row(&[
            Some("pgoutput"),
            Some("db"),
            Some("f"),
            Some("0/8"),
            None,
            Some("reserved"),
        ]));
        let slot = slot.unwrap().unwrap();
        assert_eq!(
            (slot.active, slot.restart_lsn, slot.confirmed_flush_lsn),
            (false, Some(Lsn(8)), None)
        );
        assert_eq!(slot_info(&QueryResult::default()).unwrap(), None);
        assert!(system_info(&QueryResult::default()).is_err());
        assert!(created_slot(&row(&[Some("s"), Some("bad"), None])).is_err());
    }
}
