//! Errors of the backing stores.

/// Why a store operation failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    /// The backend cannot be reached or did not confirm in time (a broker that went away).
    /// The write may or may not have happened; it was not confirmed durable.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A topic exists but does not meet the requirements (partitions, cleanup policy).
    #[error("{0}")]
    Topic(String),
    /// The backend's own configuration is unusable (a client property the Kafka client
    /// refuses, for instance).
    #[error("invalid store configuration: {0}")]
    Config(String),
    /// The Kafka cluster refused the client's credentials or certificate (a wrong password,
    /// an untrusted certificate): retrying cannot help.
    #[error("Authentication failed against the Kafka cluster: {0}")]
    Authentication(String),
    /// The embedded database failed.
    #[error("embedded store error: {0}")]
    Embedded(String),
    /// The embedded database cannot be read, and retrying cannot help: its file is damaged
    /// (SQLite's `SQLITE_CORRUPT`, `SQLITE_NOTADB`, a stored value that cannot be decoded)
    /// or the disk failed (`SQLITE_IOERR`). Whoever reads fails with it rather than loop.
    #[error("embedded store unreadable: {0}")]
    Unreadable(String),
    /// A config-topic record larger than [`MAX_CONFIG_RECORD_BYTES`]: nothing was written.
    ///
    /// [`MAX_CONFIG_RECORD_BYTES`]: super::MAX_CONFIG_RECORD_BYTES
    #[error(
        "the config topic record {key} would take {size} bytes, more than the {max} a config \
         record may take; nothing was written"
    )]
    RecordTooLarge {
        /// The record's key (`connector-<name>`, `task-<name>-<n>`, …).
        key: String,
        /// Its key and value, in bytes.
        size: usize,
        /// The bound.
        max: usize,
    },
    /// A privileged write of the leader to the config topic failed (Kafka Connect's
    /// `PrivilegedWriteException`): its transactional producer was fenced by a newer
    /// leader, or the cluster did not commit the transaction. Nothing of it was committed.
    #[error("Failed to perform fencable send to config topic: {0}")]
    PrivilegedWrite(String),
    /// The store is shutting down.
    #[error("the store is closed")]
    Closed,
}
