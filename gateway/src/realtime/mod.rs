//! `/realtime/v1`: Supabase Realtime for unmodified `@supabase/realtime-js`
//! (issue 21): Phoenix channels over a WebSocket carrying database changes
//! under row-level security, broadcast and presence.
//!
//! - [`changes`]: `postgres_changes`, read from PostgreSQL's logical decoding,
//!   checked against RLS as each subscriber, delivered to the channels that
//!   bound them.

pub mod changes;

/// What every Realtime connection of this gateway shares.
#[derive(Default)]
pub struct Realtime {
    pub changes: changes::Changes,
}
