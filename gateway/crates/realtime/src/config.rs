//! Realtime's section of the gateway's configuration. The limits
//! are Supabase Realtime's tenant limits (`max_channels_per_client`,
//! `max_joins_per_second`, `max_events_per_second`), applied per connection
//! here since this gateway serves one project.

use gateway_core::config::Span;
use gateway_core::config::parse_size;

#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Realtime")]
pub struct RealtimeConfig {
    /// Most channels one WebSocket may have joined at once; a join beyond it is
    /// refused with Realtime's "ChannelRateLimitReached: Too many channels".
    /// Realtime's default is 100.
    #[arg(
        long = "realtime-max-channels-per-client",
        id = "realtime_max_channels_per_client",
        env = "REALTIME_MAX_CHANNELS_PER_CLIENT",
        default_value_t = 100
    )]
    pub max_channels_per_client: usize,

    /// Most `phx_join`s one WebSocket may send per second; beyond it the join
    /// is refused ("ClientJoinRateLimitReached: Too many joins per second") and
    /// the socket closed, as Realtime does. Realtime's default is 100 per
    /// second for a whole project.
    #[arg(
        long = "realtime-max-joins-per-second",
        id = "realtime_max_joins_per_second",
        env = "REALTIME_MAX_JOINS_PER_SECOND",
        default_value_t = 100
    )]
    pub max_joins_per_second: u32,

    /// Broadcast and presence messages one WebSocket may send per second;
    /// beyond it the channel that sent the next one is closed with Realtime's
    /// "Too many messages per second" (its `max_events_per_second`, 100 per
    /// project by default there).
    #[arg(
        long = "realtime-max-events-per-second",
        id = "realtime_max_events_per_second",
        env = "REALTIME_MAX_EVENTS_PER_SECOND",
        default_value_t = 100
    )]
    pub max_events_per_second: u32,

    /// Largest WebSocket message (text or binary) a client may send, in bytes
    /// or with a unit; a larger one closes the socket (1009, "message too big").
    #[arg(long = "realtime-max-frame-size", id = "realtime_max_frame_size", env = "REALTIME_MAX_FRAME_SIZE", default_value = "1MiB", value_parser = parse_size)]
    pub max_frame_size: u64,

    /// Messages waiting to be written to one WebSocket. A client that reads so
    /// slowly that this many pile up is disconnected rather than buffered for
    /// without end.
    #[arg(
        long = "realtime-max-queued-messages",
        id = "realtime_max_queued_messages",
        env = "REALTIME_MAX_QUEUED_MESSAGES",
        default_value_t = 1024
    )]
    pub max_queued_messages: usize,

    /// How long a WebSocket may send nothing (realtime-js sends a heartbeat
    /// every 25 s) before it is closed: Phoenix's websocket `timeout`, 60 s
    /// in Realtime.
    #[arg(
        long = "realtime-idle-timeout",
        id = "realtime_idle_timeout",
        env = "REALTIME_IDLE_TIMEOUT",
        default_value = "60s"
    )]
    pub idle_timeout: Span,

    /// How the gateway that reads the database's changes (one at a time per
    /// database) gets them from the replication slot: `stream`, over the
    /// replication protocol as Realtime does, each transaction as it commits,
    /// logging in as the schema owner (`--database-admin-url`, which needs the
    /// REPLICATION attribute and a `replication` line in `pg_hba.conf`); or
    /// `poll`, peeking at the slot through SQL every 25 ms. `stream` falls
    /// back to `poll` when the server refuses the replication connection.
    #[arg(
        long = "realtime-change-feed",
        id = "realtime_change_feed",
        env = "REALTIME_CHANGE_FEED",
        value_enum,
        default_value = "stream"
    )]
    pub change_feed: ChangeFeed,
}

/// How the change reader reads the replication slot (`--realtime-change-feed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ChangeFeed {
    Stream,
    Poll,
}
