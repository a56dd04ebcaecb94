//! The database file of the embedded backend: opening connections with the settings every
//! connection needs (incremental vacuum for the file, see `vacuum.rs`; WAL,
//! `synchronous=FULL`, a busy timeout), bringing the schema up to
//! date at open, running blocking work off the async threads, and errors that name the file.
//! The file and its `-wal`/`-shm` companions are readable by the worker's user only (mode
//! 0600): they hold connector configs, which may hold secrets.
//!
//! It knows the file, not topics: the tables are `schema.rs`'s, and the SQL of topics and
//! records lives in `writer.rs`, `reader.rs`, `data_writer.rs`, `data_reader.rs`,
//! `group_offsets.rs` and `compaction.rs`.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::schema::{SCHEMA_VERSION, migrate};
use super::vacuum;
use crate::store::StoreError;

/// How long a connection waits for another connection (or process) holding the write lock
/// before failing with "database is locked". Writes are short transactions, so waiting
/// this long means something is wrong.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// One database file and its writer connection.
#[derive(Debug)]
pub(super) struct Database {
    path: PathBuf,
    /// The one connection that writes. SQLite admits one writer at a time anyway; the mutex
    /// makes this process's writers queue here instead of on the file lock.
    writer: Mutex<Connection>,
}

impl Database {
    /// Opens (creating when missing) the database at `path` and its schema. Blocking.
    pub(super) fn open(path: &Path) -> Result<Self, StoreError> {
        let path = path.to_path_buf();
        owner_only(&path).map_err(|e| error(&path, "cannot make the database private", e))?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&path, flags)
            .map_err(|e| error(&path, "cannot open the database", e))?;
        let db = Self { path, writer: Mutex::new(conn) };
        db.with_writer(|conn| {
            vacuum::prepare(conn, &db.path)
                .map_err(|e| db.error("cannot set up incremental vacuum", e))?;
            let mode: String = conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
                .map_err(|e| db.error("cannot switch to WAL mode", e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(db.error("cannot switch to WAL mode", format!("journal mode {mode}")));
            }
            configure(conn).map_err(|e| db.error("cannot configure the connection", e))?;
            let found = migrate(conn).map_err(|e| db.error("cannot prepare the schema", e))?;
            if found != 0 && found != SCHEMA_VERSION {
                tracing::info!(
                    file = %db.path.display(), from = found, to = SCHEMA_VERSION,
                    "Migrated the embedded database schema"
                );
            }
            Ok(())
        })?;
        Ok(db)
    }

    /// The database file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// A new connection for a reader. Blocking.
    pub(super) fn connect(&self) -> Result<Connection, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags)
            .map_err(|e| self.error("cannot open a reader connection", e))?;
        configure(&conn).map_err(|e| self.error("cannot configure a reader connection", e))?;
        Ok(conn)
    }

    /// Runs `f` on the writer connection. Blocking.
    pub(super) fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut conn)
    }

    /// Runs blocking `f` on tokio's blocking pool, so no async thread waits for the disk.
    pub(super) async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = self.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| self.error("a database task failed", e))?
    }

    /// An error about this database: `<file>: <doing>: <cause>`.
    pub(super) fn error(&self, doing: &str, cause: impl Display) -> StoreError {
        error(&self.path, doing, cause)
    }

    /// The error of a failed statement, told apart by what retrying can do:
    /// [`StoreError::Unreadable`] when the file is damaged or the disk failed, else
    /// [`StoreError::Embedded`] (a lock held past the busy timeout, which a later read may
    /// not meet).
    pub(super) fn sql_error(&self, doing: &str, cause: &rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode::{CannotOpen, DatabaseCorrupt, NotADatabase, SystemIoFailure};
        match cause.sqlite_error_code() {
            Some(DatabaseCorrupt | NotADatabase | SystemIoFailure | CannotOpen) => {
                StoreError::Unreadable(format!("{}: {doing}: {cause}", self.path.display()))
            }
            _ => self.error(doing, cause),
        }
    }
}

/// Creates the database file mode 0600 when missing, and takes group and other access
/// away from it and from its `-wal`/`-shm` files when they exist. SQLite creates the
/// `-wal` and `-shm` files with the database file's mode, so they are private too.
fn owner_only(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    for file in [path.to_path_buf(), companion(path, "-wal"), companion(path, "-shm")] {
        let Ok(meta) = std::fs::metadata(&file) else { continue };
        if meta.permissions().mode() & 0o077 != 0 {
            tracing::info!(file = %file.display(), "Making the embedded database file private (mode 0600)");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name (`worker.db` → `worker.db-wal`).
fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Settings of every connection (`synchronous` and the busy timeout are per connection).
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // FULL: a commit is on disk before `send` returns, even after a power loss.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")
}

fn error(path: &Path, doing: &str, cause: impl Display) -> StoreError {
    StoreError::Embedded(format!("{}: {doing}: {cause}", path.display()))
}
