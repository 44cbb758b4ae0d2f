//! Realtime's section of the gateway's configuration. The limits are
//! Supabase Realtime's tenant limits (`max_concurrent_users`,
//! `max_joins_per_second`, `max_events_per_second`,
//! `max_presence_events_per_second`, `max_channels_per_client`,
//! `max_client_presence_events_per_window`,
//! `max_payload_size_in_kb`, and `postgres_cdc_rls`'s `max_record_bytes`):
//! the rates and the users hold for the whole project, summed over every
//! gateway on its database ([`crate::limits`]); channels are per socket and
//! the presence window per channel, as in Realtime.

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

    /// Most `phx_join`s per second for the whole project (every gateway on
    /// the database); beyond it the join is refused
    /// ("ClientJoinRateLimitReached: Too many joins per second") and the socket
    /// closed, and a new WebSocket is refused (429, "Too many joins per
    /// second"), as Realtime does. Realtime's default is 100.
    #[arg(
        long = "realtime-max-joins-per-second",
        id = "realtime_max_joins_per_second",
        env = "REALTIME_MAX_JOINS_PER_SECOND",
        default_value_t = 100
    )]
    pub max_joins_per_second: u32,

    /// Broadcast messages clients may send per second, for the whole project;
    /// beyond it the channel that sends the next one is closed with Realtime's
    /// "Too many messages per second" (its `max_events_per_second`, 100 by
    /// default there).
    #[arg(
        long = "realtime-max-events-per-second",
        id = "realtime_max_events_per_second",
        env = "REALTIME_MAX_EVENTS_PER_SECOND",
        default_value_t = 100
    )]
    pub max_events_per_second: u32,

    /// Presence `track` and `untrack` events per second, for the whole
    /// project; beyond it the channel that sends the next one is closed with
    /// Realtime's "Too many presence messages per second" (its
    /// `max_presence_events_per_second`).
    #[arg(
        long = "realtime-max-presence-events-per-second",
        id = "realtime_max_presence_events_per_second",
        env = "REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND",
        default_value_t = 1000
    )]
    pub max_presence_events_per_second: u32,

    /// Presence events (`track`, `untrack`) one channel may send within
    /// `--realtime-client-presence-window`; the next one closes the channel
    /// with Realtime's "Client presence rate limit exceeded" (its
    /// `CLIENT_PRESENCE_MAX_CALLS`, 5 by default there).
    #[arg(
        long = "realtime-max-client-presence-events-per-window",
        id = "realtime_max_client_presence_events_per_window",
        env = "REALTIME_MAX_CLIENT_PRESENCE_EVENTS_PER_WINDOW",
        default_value_t = 5
    )]
    pub max_client_presence_events_per_window: u32,

    /// The window of the per-channel presence limit above; it starts at a
    /// channel's first presence event after the last window ended (Realtime's
    /// `CLIENT_PRESENCE_WINDOW_MS`, 30 s by default there).
    #[arg(
        long = "realtime-client-presence-window",
        id = "realtime_client_presence_window",
        env = "REALTIME_CLIENT_PRESENCE_WINDOW",
        default_value = "30s"
    )]
    pub client_presence_window: Span,

    /// Sockets that have joined a channel, open at once in the whole project
    /// (Realtime's `max_concurrent_users`); beyond it a join is refused
    /// ("ConnectionRateLimitReached: Too many connected users") and a new
    /// WebSocket too (429, "Too many connected users").
    #[arg(
        long = "realtime-max-concurrent-users",
        id = "realtime_max_concurrent_users",
        env = "REALTIME_MAX_CONCURRENT_USERS",
        default_value_t = 200
    )]
    pub max_concurrent_users: u64,

    /// Largest broadcast or presence payload, in bytes or with a unit
    /// (Realtime's `max_payload_size_in_kb`): a larger broadcast is dropped
    /// (answered `payload_size_exceeded` when the channel asked for acks), a
    /// larger `track` closes the channel ("Track message size exceeded"), a
    /// larger REST broadcast is refused (422) and a larger broadcast from the
    /// database is dropped.
    #[arg(long = "realtime-max-payload-size", id = "realtime_max_payload_size", env = "REALTIME_MAX_PAYLOAD_SIZE", default_value = "256KB", value_parser = parse_size)]
    pub max_payload_size: u64,

    /// Largest `postgres_changes` row, in bytes or with a unit (Realtime's
    /// `max_record_bytes`): a larger change is sent with only the values of
    /// 64 bytes or less and the error "Error 413: Payload Too Large".
    #[arg(long = "realtime-max-record-size", id = "realtime_max_record_size", env = "REALTIME_MAX_RECORD_SIZE", default_value = "1MiB", value_parser = parse_size)]
    pub max_record_size: u64,

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
