//! Realtime's tenant limits held for the whole project, that is for every
//! gateway on one database (supabase/realtime `Realtime.RateCounter` and
//! `Realtime.UsersCounter`, which count per tenant across Realtime's
//! cluster).
//!
//! Each gateway counts what it admits in a sliding window of one second
//! (joins, broadcast messages, presence events) and the sockets that have
//! joined a channel (Realtime's connected users), and tells the other
//! gateways its counts every [`SYNC_EVERY`] over the bus ([`super::bus`]).
//! A limit is checked against this gateway's own counts plus the last counts
//! each other gateway told. So the sum across gateways stays bounded, with an
//! overshoot of at most what the other gateways admit within one sync
//! interval (and the bus's delivery time): counts they have not told yet.
//! A gateway that stops telling (it stopped, or lost the database) counts
//! for nothing after [`FORGET_AFTER`].

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often a gateway tells the others its counts.
pub const SYNC_EVERY: Duration = Duration::from_millis(250);
/// A rate is what was admitted within this window.
const WINDOW: Duration = Duration::from_secs(1);
/// Another gateway's counts are forgotten this long after it last told them.
pub const FORGET_AFTER: Duration = Duration::from_secs(2);

/// What is limited per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// `phx_join`s (Realtime's `max_joins_per_second`).
    Joins,
    /// Broadcast messages sent (Realtime's `max_events_per_second`).
    Events,
    /// Presence `track`/`untrack` (Realtime's `max_presence_events_per_second`).
    Presence,
}

/// One gateway's counts as it tells them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub joins: u64,
    pub events: u64,
    pub presence: u64,
    /// Sockets that joined a channel and are open.
    pub users: u64,
}

impl Counts {
    fn get(&self, rate: Rate) -> u64 {
        match rate {
            Rate::Joins => self.joins,
            Rate::Events => self.events,
            Rate::Presence => self.presence,
        }
    }

    fn is_zero(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Default)]
struct Local {
    joins: VecDeque<Instant>,
    events: VecDeque<Instant>,
    presence: VecDeque<Instant>,
    users: u64,
    /// Whether the last counts told were all zero (nothing to repeat).
    told_zero: bool,
}

impl Local {
    fn window(&mut self, rate: Rate) -> &mut VecDeque<Instant> {
        match rate {
            Rate::Joins => &mut self.joins,
            Rate::Events => &mut self.events,
            Rate::Presence => &mut self.presence,
        }
    }

    fn counts(&mut self, now: Instant) -> Counts {
        for rate in [Rate::Joins, Rate::Events, Rate::Presence] {
            let window = self.window(rate);
            while window.front().is_some_and(|at| now.duration_since(*at) >= WINDOW) {
                window.pop_front();
            }
        }
        Counts {
            joins: self.joins.len() as u64,
            events: self.events.len() as u64,
            presence: self.presence.len() as u64,
            users: self.users,
        }
    }
}

/// This gateway's counts and the others' last told ones.
pub struct Limits {
    local: Mutex<Local>,
    /// By gateway (its bus origin): its counts and when they came.
    remote: Mutex<HashMap<String, (Counts, Instant)>>,
    /// The largest broadcast payload, for those that come from the database
    /// through the bus; none until configured.
    max_payload: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Default for Limits {
    fn default() -> Self {
        Self { local: Mutex::default(), remote: Mutex::default(), max_payload: AtomicU64::new(u64::MAX) }
    }
}

impl Limits {
    pub fn set_max_payload(&self, bytes: u64) {
        self.max_payload.store(bytes, Ordering::Relaxed);
    }

    /// The largest broadcast or presence payload, in bytes.
    pub fn max_payload(&self) -> u64 {
        self.max_payload.load(Ordering::Relaxed)
    }

    /// The other gateways' counts, the forgotten ones dropped.
    fn others(&self, now: Instant) -> Counts {
        let mut remote = lock(&self.remote);
        remote.retain(|_, (_, at)| now.duration_since(*at) < FORGET_AFTER);
        remote.values().fold(Counts::default(), |sum, (c, _)| Counts {
            joins: sum.joins + c.joins,
            events: sum.events + c.events,
            presence: sum.presence + c.presence,
            users: sum.users + c.users,
        })
    }

    /// Admits one more of `rate` if the project is below `max` per second,
    /// and counts it; `false` when it is at `max` already.
    pub fn admit(&self, rate: Rate, max: u32) -> bool {
        let now = Instant::now();
        let others = self.others(now).get(rate);
        let mut local = lock(&self.local);
        let mine = local.counts(now).get(rate);
        if mine + others >= u64::from(max) {
            return false;
        }
        local.window(rate).push_back(now);
        true
    }

    /// Whether the project is at `max` of `rate` now (counting nothing).
    pub fn at(&self, rate: Rate, max: u32) -> bool {
        let now = Instant::now();
        let others = self.others(now).get(rate);
        let mine = lock(&self.local).counts(now).get(rate);
        mine + others >= u64::from(max)
    }

    /// Sockets of the project that joined a channel and are open.
    pub fn users(&self) -> u64 {
        let others = self.others(Instant::now()).users;
        lock(&self.local).users + others
    }

    /// A socket joined its first channel.
    pub fn user_joined(&self) {
        lock(&self.local).users += 1;
    }

    /// A socket that had joined a channel closed.
    pub fn user_left(&self) {
        let mut local = lock(&self.local);
        local.users = local.users.saturating_sub(1);
    }

    /// What to tell the other gateways now: `None` when all is zero and
    /// zeros were told already.
    pub fn report(&self) -> Option<Counts> {
        let mut local = lock(&self.local);
        let counts = local.counts(Instant::now());
        if counts.is_zero() && local.told_zero {
            return None;
        }
        local.told_zero = counts.is_zero();
        Some(counts)
    }

    /// Another gateway's counts.
    pub fn apply_remote(&self, origin: &str, counts: Counts) {
        lock(&self.remote).insert(origin.to_owned(), (counts, Instant::now()));
    }

    /// A gateway went silent (its bus notices): it counts for nothing.
    pub fn forget(&self, origin: &str) {
        lock(&self.remote).remove(origin);
    }
}

/// A count of events in a window that opens at the first event after the
/// last one ended: Realtime's per-channel presence limit
/// (`limit_client_presence_event`, 5 events per 30 s by default there).
#[derive(Debug, Default)]
pub struct Window {
    /// When the open window ends, and the events counted in it.
    open: Option<(Instant, u32)>,
}

impl Window {
    /// Counts an event at `now`; false, counting nothing, when the open
    /// window already holds `max`.
    pub fn admit(&mut self, max: u32, length: Duration, now: Instant) -> bool {
        match &mut self.open {
            Some((ends, counted)) if now <= *ends => {
                if *counted >= max {
                    return false;
                }
                *counted += 1;
            }
            _ => self.open = Some((now + length, 1)),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_admits_max_events_until_it_ends_and_the_next_event_opens_another() {
        let mut window = Window::default();
        let start = Instant::now();
        let length = Duration::from_secs(30);
        let at = |ms: u64| start + Duration::from_millis(ms);
        let cases: &[(u64, bool, &str)] = &[
            (0, true, "the first event opens the window"),
            (1, true, "second"),
            (2, false, "over two: refused"),
            (30_000, false, "the window's last instant still counts"),
            (30_001, true, "after the end a new window opens"),
            (30_002, true, "second of the new window"),
            (30_003, false, "and the new window is full"),
        ];
        for (ms, admitted, case) in cases {
            assert_eq!(window.admit(2, length, at(*ms)), *admitted, "{case}");
        }
    }

    #[test]
    fn a_rate_counts_this_gateway_and_what_the_others_told() {
        let limits = Limits::default();
        limits.apply_remote("other", Counts { joins: 3, ..Counts::default() });
        let admitted: Vec<bool> = (0..3).map(|_| limits.admit(Rate::Joins, 5)).collect();
        assert_eq!(admitted, [true, true, false]);
        assert!(limits.admit(Rate::Events, 1), "each rate is its own");
        limits.forget("other");
        assert!(limits.admit(Rate::Joins, 5));
    }

    #[test]
    fn counts_are_told_while_not_zero_and_zero_once() {
        let limits = Limits::default();
        let cases: &[(&str, Option<Counts>)] =
            &[("nothing yet: zeros once", Some(Counts::default())), ("still nothing", None)];
        for (case, expected) in cases {
            assert_eq!(limits.report(), *expected, "{case}");
        }
        limits.user_joined();
        assert_eq!(limits.report(), Some(Counts { users: 1, ..Counts::default() }));
        assert_eq!(
            limits.report(),
            Some(Counts { users: 1, ..Counts::default() }),
            "repeated while not zero"
        );
        limits.user_left();
        assert_eq!(limits.report(), Some(Counts::default()));
        assert_eq!(limits.report(), None);
    }
}
