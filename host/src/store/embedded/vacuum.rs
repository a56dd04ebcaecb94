//! Giving the file's pages back: a new database file is made with
//! `auto_vacuum=INCREMENTAL` (SQLite takes this only before the first table exists), so
//! the pages deletion frees can be returned to the file system in small
//! `incremental_vacuum` steps. A file made before (`auto_vacuum=NONE`) is converted at open
//! with one `VACUUM` when it is at most [`CONVERT_AT_OPEN_BYTES`]; a larger one keeps its
//! mode (SQLite reuses its freed pages, so it stops growing, but it does not shrink) and
//! the log says how to convert it while the worker is stopped.
//!
//! It knows pages, not topics or records.

use std::path::Path;

use rusqlite::Connection;

/// The largest file converted to incremental vacuum at open: a `VACUUM` rewrites the whole
/// file (and needs as much free space again), which must not hold a start-up for long.
pub(super) const CONVERT_AT_OPEN_BYTES: u64 = 64 * 1024 * 1024;

/// Most pages one `incremental_vacuum` step gives back (4 MiB of 4 KiB pages), so one step
/// holds the writer briefly.
pub(super) const STEP_PAGES: i64 = 1024;

/// SQLite's `auto_vacuum` value for INCREMENTAL.
const INCREMENTAL: i64 = 2;

/// Makes a new file incremental, or converts a small older one; `path` names it in logs.
/// Call before any other statement touches the file's tables (and before switching to WAL:
/// a new file takes the mode only then).
pub(super) fn prepare(conn: &Connection, path: &Path) -> rusqlite::Result<()> {
    let mode: i64 = conn.pragma_query_value(None, "auto_vacuum", |row| row.get(0))?;
    if mode == INCREMENTAL {
        return Ok(());
    }
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?;
    if tables == 0 {
        return conn.pragma_update(None, "auto_vacuum", "INCREMENTAL");
    }
    let size = std::fs::metadata(path).map_or(u64::MAX, |m| m.len());
    if size <= CONVERT_AT_OPEN_BYTES {
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
        conn.execute_batch("VACUUM")?;
        tracing::info!(
            file = %path.display(), bytes = size,
            "Converted the embedded store to incremental vacuum, so deleted records give their \
             pages back"
        );
    } else {
        tracing::warn!(
            file = %path.display(), bytes = size,
            "The embedded store predates incremental vacuum and is too large to convert at \
             start: retention frees pages that new records reuse, but the file does not shrink. \
             To shrink it, stop the worker and run: sqlite3 FILE 'PRAGMA \
             auto_vacuum=INCREMENTAL; VACUUM;'"
        );
    }
    Ok(())
}

/// Whether the file gives pages back (`auto_vacuum=INCREMENTAL`).
pub(super) fn is_incremental(conn: &Connection) -> rusqlite::Result<bool> {
    let mode: i64 = conn.pragma_query_value(None, "auto_vacuum", |row| row.get(0))?;
    Ok(mode == INCREMENTAL)
}

/// Gives back up to [`STEP_PAGES`] free pages; returns how many free pages are left.
pub(super) fn step(conn: &Connection) -> rusqlite::Result<i64> {
    conn.execute_batch(&format!("PRAGMA incremental_vacuum({STEP_PAGES})"))?;
    free_pages(conn)
}

/// The file's free pages.
pub(super) fn free_pages(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "freelist_count", |row| row.get(0))
}
