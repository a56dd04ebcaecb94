//! The bodies of `GET /connectors`, plain and expanded (`?expand=status`, `?expand=info`),
//! rendered from the herder's [`Snapshot`] once per snapshot generation (and status-store
//! version, when statuses are shown) and shared, as [`Bytes`], by every request that asks
//! meanwhile.
//!
//! One render of each kind of body runs at a time, and a request that waited for one takes
//! the body of any render that began after the request arrived: a storm of concurrent
//! requests costs a render or two and one body in memory, not a render and a body per
//! request (issue 16). While the snapshot may not answer (a rebalance is under way, the
//! herder is shutting down) there is no body here and the handler asks the herder
//! connector by connector, as it always did. This module decides nothing the herder
//! decides and holds nothing but rendered bodies.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Bytes;
use serde::Serialize;
use tokio::sync::Mutex;

use super::dto::{Info, StateInfo};
use crate::herder::{HerderHandle, Read, Snapshot};

/// What a list shows of each connector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expand {
    /// `expand=status`.
    pub status: bool,
    /// `expand=info`.
    pub info: bool,
}

impl Expand {
    fn slot(self) -> usize {
        usize::from(self.status) | (usize::from(self.info) << 1)
    }

    /// What the snapshot must be able to answer (the herder's connector info needs a
    /// settled assignment, names and statuses do not).
    fn read(self) -> Read {
        if self.info { Read::Settled } else { Read::Any }
    }
}

/// What a body was rendered from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    generation: u64,
    /// The status store's version, when the body shows statuses.
    statuses: Option<u64>,
}

struct Rendered {
    key: Key,
    /// The render's number: renders are numbered in the order they begin.
    number: u64,
    body: Bytes,
}

/// The rendered bodies, one per kind of list. Shared by every request of one router.
#[derive(Default)]
pub struct Listings {
    slots: [Mutex<Option<Rendered>>; 4],
    /// The number of the last render begun.
    renders: AtomicU64,
}

impl Listings {
    /// The body of the list `expand` asks for, or `None` when the snapshot may not answer.
    pub async fn body(&self, herder: &HerderHandle, expand: Expand) -> Option<Bytes> {
        let arrived = self.renders.load(Ordering::Acquire);
        let mut slot = self.slots[expand.slot()].lock().await;
        let snapshot = herder.snapshot();
        if !snapshot.answers(expand.read()) {
            return None;
        }
        let key = Key {
            generation: snapshot.generation(),
            statuses: expand.status.then(|| herder.status_version()),
        };
        if let Some(r) = slot.as_ref()
            && (r.key == key || r.number > arrived)
        {
            return Some(r.body.clone());
        }
        let number = self.renders.fetch_add(1, Ordering::AcqRel) + 1;
        let (key, body) = render(herder, &snapshot, expand);
        *slot = Some(Rendered { key, number, body: body.clone() });
        Some(body)
    }
}

/// One connector of an expanded list (keys sort as a JSON object's do here).
#[derive(Serialize)]
struct Expanded {
    #[serde(skip_serializing_if = "Option::is_none")]
    info: Option<Info>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<StateInfo>,
}

/// The body and what it was rendered from. With statuses, a connector without a status is
/// left out, as it always was.
fn render(herder: &HerderHandle, snapshot: &Snapshot, expand: Expand) -> (Key, Bytes) {
    let generation = snapshot.generation();
    let info = |name: &str| {
        let entry = snapshot.get(name).filter(|_| expand.info)?;
        Some(Info::from(entry.info.clone()))
    };
    let (statuses, body) = if expand.status {
        let (version, statuses) = herder.connector_statuses(snapshot);
        let out: BTreeMap<String, Expanded> = statuses
            .into_iter()
            .map(|st| {
                let name = st.name.clone();
                (name.clone(), Expanded { info: info(&name), status: Some(StateInfo::from(st)) })
            })
            .collect();
        (Some(version), serde_json::to_vec(&out))
    } else if expand.info {
        let out: BTreeMap<&str, Expanded> =
            snapshot.names().map(|n| (n, Expanded { info: info(n), status: None })).collect();
        (None, serde_json::to_vec(&out))
    } else {
        (None, serde_json::to_vec(&snapshot.names().collect::<Vec<_>>()))
    };
    let body = body.expect("a connector list serializes");
    (Key { generation, statuses }, Bytes::from(body))
}
