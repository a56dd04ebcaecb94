//! The publication the slot streams through, made ready as `publication.autocreate.mode`
//! says, as Debezium does at start: `all_tables` creates it `FOR ALL TABLES` when missing;
//! `filtered` creates it for the included tables, or sets its tables to them when it
//! exists with others; `disabled` only checks that it exists.
//!
//! It owns these statements and their error messages; it does not choose the tables (the
//! catalog does) and does not touch the slot.

use postgres_wire::{Client, PgError, quote_ident, quote_literal};

use crate::catalog::TableMeta;
use crate::settings::PublicationMode as Autocreate;

/// Makes publication `name` ready. Fails with a message naming what to do when the mode
/// cannot be honoured.
pub fn prepare(
    client: &mut Client,
    name: &str,
    mode: Autocreate,
    tables: &[TableMeta],
) -> Result<(), String> {
    let pg = |e: PgError| format!("PostgreSQL: {e}");
    let sql = format!(
        "SELECT puballtables::text FROM pg_publication WHERE pubname = {}",
        quote_literal(name)
    );
    let existing = client.simple_query(&sql).map_err(pg)?.rows;
    let all_tables = existing.first().and_then(|r| r[0].as_deref()).map(|v| v == "true");
    let list = || {
        tables
            .iter()
            .map(|t| format!("{}.{}", quote_ident(&t.schema), quote_ident(&t.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (mode, all_tables) {
        (Autocreate::Disabled, None) => Err(format!(
            "Publication '{name}' does not exist and publication.autocreate.mode is disabled: \
             create it (CREATE PUBLICATION {name} FOR TABLE ...) or change the mode"
        )),
        (_, Some(_)) if mode != Autocreate::Filtered => Ok(()),
        (Autocreate::AllTables, None) => {
            let sql = format!("CREATE PUBLICATION {} FOR ALL TABLES", quote_ident(name));
            client.simple_query(&sql).map(|_| ()).map_err(pg)
        }
        (Autocreate::Filtered, _) if tables.is_empty() => Err(format!(
            "No table filters found for filtered publication {name}: no table matches the \
             include lists"
        )),
        (Autocreate::Filtered, Some(true)) => Err(format!(
            "Publication '{name}' is FOR ALL TABLES, which publication.autocreate.mode=filtered \
             cannot narrow: drop it or use mode all_tables"
        )),
        (Autocreate::Filtered, Some(false)) => {
            let sql = format!("ALTER PUBLICATION {} SET TABLE {}", quote_ident(name), list());
            client.simple_query(&sql).map(|_| ()).map_err(pg)
        }
        (Autocreate::Filtered, None) => {
            let sql = format!("CREATE PUBLICATION {} FOR TABLE {}", quote_ident(name), list());
            client.simple_query(&sql).map(|_| ()).map_err(pg)
        }
        (Autocreate::Disabled | Autocreate::AllTables, Some(_)) => Ok(()),
    }
}
