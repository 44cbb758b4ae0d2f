//! `postgres_changes`: the contract between a channel and the change feed.
//!
//! A channel that joins with `config.postgres_changes` bindings calls
//! [`Changes::subscribe`] with them (ids assigned by the channel, in the
//! client's order) and the caller's claims; every change a binding matches and
//! RLS lets that caller see arrives from [`Subscription::recv`] as the payload
//! of one `postgres_changes` message (`{"ids": [...], "data": {...}}`).

use serde_json::Value;

use crate::jwt::Claims;

/// One `postgres_changes` binding of a join, as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The id the join reply gives it; change messages name it in `ids`.
    pub id: u32,
    /// `INSERT`, `UPDATE`, `DELETE` or `*`.
    pub event: String,
    pub schema: String,
    /// `None` (or `*`): every table of the schema in the publication.
    pub table: Option<String>,
    /// `column=op.value`, e.g. `id=eq.3`.
    pub filter: Option<String>,
}

/// The change feed of this gateway.
#[derive(Default)]
pub struct Changes {}

impl Changes {
    /// Starts delivering the changes `bindings` match to a caller with
    /// `claims`; the error is the reason the client is told.
    pub async fn subscribe(&self, bindings: Vec<Binding>, claims: Claims) -> Result<Subscription, String> {
        let _ = (bindings, claims);
        Err("postgres_changes are not available yet".to_owned())
    }
}

/// One channel's share of the feed; dropping it unsubscribes.
pub struct Subscription {
    receiver: tokio::sync::mpsc::Receiver<Value>,
}

impl Subscription {
    /// The next change's payload; `None` once the feed dropped this
    /// subscription (gateway stopping, or the channel fell too far behind).
    pub async fn recv(&mut self) -> Option<Value> {
        self.receiver.recv().await
    }

    /// From now on, changes are checked as a caller with `claims` (a new
    /// `access_token` on the channel).
    pub fn set_claims(&self, claims: Claims) {
        let _ = claims;
    }
}
