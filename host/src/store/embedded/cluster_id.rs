//! The embedded database's cluster id: one random id, made when a file first needs it and
//! kept in the `worker_meta` table, so `GET /` reports the same `kafka_cluster_id` for
//! the same file across restarts, as a Kafka cluster's id stays the same. It owns only
//! that row; it must not hold anything about topics or records.

use base64::Engine;
use rusqlite::{Connection, OptionalExtension};

use super::database::Database;
use crate::store::StoreError;

/// The `worker_meta` key of the id.
const KEY: &str = "cluster.id";

/// The file's cluster id, made and stored on first use. Blocking.
pub(super) fn get_or_create(db: &Database, conn: &mut Connection) -> Result<String, StoreError> {
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|e| db.error("cannot begin a transaction", e))?;
    let found: Option<String> = tx
        .query_row("SELECT value FROM worker_meta WHERE key = ?1", [KEY], |r| r.get(0))
        .optional()
        .map_err(|e| db.error("cannot read the cluster id", e))?;
    if let Some(id) = found {
        return Ok(id);
    }
    let id = fresh_id().map_err(|e| db.error("cannot make a cluster id", e))?;
    tx.execute("INSERT INTO worker_meta (key, value) VALUES (?1, ?2)", [KEY, id.as_str()])
        .map_err(|e| db.error("cannot store the cluster id", e))?;
    tx.commit().map_err(|e| db.error("cannot store the cluster id", e))?;
    Ok(id)
}

/// 16 random bytes in URL-safe base64 without padding: the shape of a Kafka cluster id
/// (22 characters).
fn fresh_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use crate::store::{EmbeddedBackend, LogBackend};

    #[tokio::test]
    async fn the_id_is_made_once_and_kept_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let first = EmbeddedBackend::open(&path).unwrap().cluster_id().await.unwrap().unwrap();
        assert_eq!(first.len(), 22, "{first}");
        let backend = EmbeddedBackend::open(&path).unwrap();
        assert_eq!(backend.cluster_id().await.unwrap().as_deref(), Some(first.as_str()));
        assert_eq!(backend.cluster_id().await.unwrap().as_deref(), Some(first.as_str()));
        let other = dir.path().join("other.db");
        let second = EmbeddedBackend::open(&other).unwrap().cluster_id().await.unwrap().unwrap();
        assert_ne!(first, second, "another file is another cluster");
    }
}
