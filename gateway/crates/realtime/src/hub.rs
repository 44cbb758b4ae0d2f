//! Who is subscribed to what on this gateway, and the fan-out to them:
//! broadcasts and presence reach every channel joined to a topic through its
//! socket's bounded outbox. Other gateways on the same database are reached
//! through [`super::bus`]: what a channel here sends goes to the local members
//! at once and to the bus once; what comes from the bus goes to the local
//! members only, so every subscriber gets it exactly once.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::ws::Message as WsMessage;
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc};

use super::wire::{self, Frame, Message, Payload, Vsn};

/// A topic as Realtime keys it: public and private channels of the same name
/// are different topics (Realtime's `tenant_topic(tenant, sub_topic, public?)`).
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct TopicKey {
    pub topic: String,
    pub private: bool,
}

/// What waits in a socket's outbox.
pub enum Outgoing {
    /// A message for this socket alone (a reply, a presence diff with its
    /// `join_ref`, a change filtered for its caller); boxed, so that a queue
    /// slot is two words and a broadcast moves no more than that.
    Own(Box<Message>),
    /// A broadcast, the same for every member of its topic: encoded once per
    /// serializer and shared, not once per subscriber.
    Shared(Arc<Shared>),
}

/// One message for many sockets, with its frame for each serializer made
/// by the first socket that writes it.
pub struct Shared {
    message: Message,
    frames: [OnceLock<Option<WsMessage>>; 2],
}

impl Shared {
    pub fn new(message: Message) -> Arc<Self> {
        Arc::new(Self { message, frames: Default::default() })
    }

    /// The frame for a socket of `vsn`: a clone of shared bytes.
    pub fn frame(&self, vsn: Vsn) -> Option<WsMessage> {
        self.frames[vsn as usize].get_or_init(|| frame(vsn, &self.message)).clone()
    }
}

/// `message` as a WebSocket frame for a socket of `vsn` (`None`: nothing
/// that serializer can carry).
pub fn frame(vsn: Vsn, message: &Message) -> Option<WsMessage> {
    wire::encode(vsn, message).map(|frame| match frame {
        Frame::Text(text) => WsMessage::Text(text.into()),
        Frame::Binary(bytes) => WsMessage::Binary(bytes),
    })
}

impl Outgoing {
    pub fn message(&self) -> &Message {
        match self {
            Self::Own(message) => message,
            Self::Shared(shared) => &shared.message,
        }
    }

    pub fn into_frame(self, vsn: Vsn) -> Option<WsMessage> {
        match self {
            Self::Own(message) => frame(vsn, message.as_ref()),
            Self::Shared(shared) => shared.frame(vsn),
        }
    }
}

/// Where a socket's outgoing messages wait. Bounded: when it is full the
/// socket is told to close (a slow consumer), nothing is buffered beyond it.
#[derive(Clone)]
pub struct Outbox {
    sender: mpsc::Sender<Outgoing>,
    overflow: Arc<Overflow>,
}

#[derive(Default)]
pub struct Overflow {
    pub happened: AtomicBool,
    pub notify: Notify,
}

impl Outbox {
    pub fn new(capacity: usize) -> (Self, mpsc::Receiver<Outgoing>, Arc<Overflow>) {
        let (sender, receiver) = mpsc::channel(capacity.max(1));
        let overflow = Arc::new(Overflow::default());
        (Self { sender, overflow: overflow.clone() }, receiver, overflow)
    }

    /// Queues `message`, for this socket alone.
    pub fn send(&self, message: Message) {
        self.queue(Outgoing::Own(Box::new(message)));
    }

    /// Queues `outgoing`; a full queue marks the socket as overflowed.
    fn queue(&self, outgoing: Outgoing) {
        match self.sender.try_send(outgoing) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.overflow.happened.store(true, Ordering::Relaxed);
                self.overflow.notify.notify_one();
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
}

/// One channel of one socket: the socket's id and the join's `join_ref`.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct MemberId {
    pub socket: u64,
    pub join_ref: String,
}

struct Member {
    outbox: Outbox,
    join_ref: String,
    /// Whether it is told presences: always on a public channel; on a
    /// private one, if a SELECT policy lets it read `presence` rows
    /// (Realtime withholds presence from members without `presence.read`).
    presence_read: bool,
    /// The ids of the messages replayed to it at its join (`meta.id`), which
    /// it is not sent again live (Realtime's `replayed_message_ids`).
    replayed: HashSet<String>,
}

/// One presence meta: the client's payload plus `phx_ref`, and whose it is.
#[derive(Clone, Debug)]
struct Meta {
    key: String,
    phx_ref: String,
    /// The gateway that tracked it (its bus id).
    origin: String,
    /// The channel that tracked it, on this gateway.
    owner: Option<MemberId>,
    value: Value,
}

#[derive(Default)]
struct Topic {
    members: HashMap<MemberId, Member>,
    /// By `phx_ref`.
    presences: HashMap<String, Meta>,
}

/// A presence change to tell the other gateways.
#[derive(Clone, Debug)]
pub struct PresenceChange {
    pub topic: TopicKey,
    /// `(key, meta)` pairs; each meta carries its `phx_ref`.
    pub joins: Vec<(String, Value)>,
    pub leaves: Vec<(String, Value)>,
}

pub struct Hub {
    /// This gateway's id on the bus.
    pub origin: String,
    topics: Mutex<HashMap<TopicKey, Topic>>,
    next_ref: AtomicU64,
}

impl Default for Hub {
    fn default() -> Self {
        Self {
            origin: uuid::Uuid::new_v4().to_string(),
            topics: Mutex::default(),
            next_ref: AtomicU64::new(1),
        }
    }
}

impl Hub {
    fn topics(&self) -> std::sync::MutexGuard<'_, HashMap<TopicKey, Topic>> {
        self.topics.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds the channel; with `presence` (and `presence_read`), its
    /// `presence_state` is queued under the same lock, so that no diff can
    /// come before it.
    /// `replayed` are the ids of the messages replayed to it already.
    pub fn join(
        &self,
        key: &TopicKey,
        id: MemberId,
        outbox: Outbox,
        presence: bool,
        presence_read: bool,
        replayed: HashSet<String>,
    ) {
        let join_ref = id.join_ref.clone();
        let mut topics = self.topics();
        let topic = topics.entry(key.clone()).or_default();
        if presence && presence_read {
            outbox.send(state_message(topic, &key.topic, &join_ref));
        }
        topic.members.insert(id, Member { outbox, join_ref, presence_read, replayed });
    }

    /// A new token changed what the channel may read.
    pub fn set_presence_read(&self, key: &TopicKey, id: &MemberId, presence_read: bool) {
        if let Some(member) = self.topics().get_mut(key).and_then(|t| t.members.get_mut(id)) {
            member.presence_read = presence_read;
        }
    }

    /// A channel turned presence on after its join: its `presence_state`.
    pub fn enable_presence(&self, key: &TopicKey, id: &MemberId) {
        let topics = self.topics();
        if let Some(topic) = topics.get(key)
            && let Some(member) = topic.members.get(id)
            && member.presence_read
        {
            member.outbox.send(state_message(topic, &key.topic, &member.join_ref));
        }
    }

    /// Removes the channel and its presences; the leaves to tell others.
    pub fn leave(&self, key: &TopicKey, id: &MemberId) -> Option<PresenceChange> {
        let mut topics = self.topics();
        let topic = topics.get_mut(key)?;
        topic.members.remove(id);
        let gone: Vec<String> = topic
            .presences
            .iter()
            .filter(|(_, meta)| meta.owner.as_ref() == Some(id))
            .map(|(phx_ref, _)| phx_ref.clone())
            .collect();
        let leaves: Vec<Meta> = gone.iter().filter_map(|r| topic.presences.remove(r)).collect();
        if !leaves.is_empty() {
            send_diff(topic, &key.topic, &[], &leaves);
        }
        if topic.members.is_empty() && topic.presences.is_empty() {
            topics.remove(key);
        }
        (!leaves.is_empty()).then(|| PresenceChange {
            topic: key.clone(),
            joins: vec![],
            leaves: leaves.into_iter().map(|m| (m.key, m.value)).collect(),
        })
    }

    /// Sends `message` to the topic's members here, but to `except`.
    pub fn broadcast(&self, key: &TopicKey, message: &Message, except: Option<&MemberId>) {
        let topics = self.topics();
        let Some(topic) = topics.get(key) else { return };
        let replayed_id = match &message.payload {
            Payload::Json(value) => value.pointer("/meta/id").and_then(Value::as_str).map(str::to_owned),
            Payload::Binary(user) if !user.meta.is_empty() => serde_json::from_str::<Value>(&user.meta)
                .ok()
                .and_then(|meta| meta.get("id").and_then(Value::as_str).map(str::to_owned)),
            Payload::Binary(_) => None,
            Payload::Text(text) => serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|value| value.pointer("/meta/id").and_then(Value::as_str).map(str::to_owned)),
        };
        let shared = Shared::new(message.clone());
        for (id, member) in &topic.members {
            if Some(id) == except || replayed_id.as_ref().is_some_and(|known| member.replayed.contains(known))
            {
                continue;
            }
            member.outbox.queue(Outgoing::Shared(shared.clone()));
        }
    }

    /// `track`: the channel's presence under `presence_key` becomes `payload`
    /// (a second track replaces the first, as Phoenix's `update`).
    pub fn track(&self, key: &TopicKey, id: &MemberId, presence_key: &str, payload: Value) -> PresenceChange {
        let phx_ref = format!("{}-{}", &self.origin[..8], self.next_ref.fetch_add(1, Ordering::Relaxed));
        let mut topics = self.topics();
        let topic = topics.entry(key.clone()).or_default();
        let previous: Vec<String> = topic
            .presences
            .iter()
            .filter(|(_, meta)| meta.owner.as_ref() == Some(id))
            .map(|(phx_ref, _)| phx_ref.clone())
            .collect();
        let leaves: Vec<Meta> = previous.iter().filter_map(|r| topic.presences.remove(r)).collect();
        let mut value = match payload {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        value.insert("phx_ref".to_owned(), Value::String(phx_ref.clone()));
        if let Some(prev) = leaves.first() {
            value.insert("phx_ref_prev".to_owned(), Value::String(prev.phx_ref.clone()));
        }
        let meta = Meta {
            key: presence_key.to_owned(),
            phx_ref: phx_ref.clone(),
            origin: self.origin.clone(),
            owner: Some(id.clone()),
            value: Value::Object(value),
        };
        topic.presences.insert(phx_ref, meta.clone());
        send_diff(topic, &key.topic, std::slice::from_ref(&meta), &leaves);
        PresenceChange {
            topic: key.clone(),
            joins: vec![(meta.key, meta.value)],
            leaves: leaves.into_iter().map(|m| (m.key, m.value)).collect(),
        }
    }

    /// `untrack`: the channel's presences go.
    pub fn untrack(&self, key: &TopicKey, id: &MemberId) -> Option<PresenceChange> {
        let mut topics = self.topics();
        let topic = topics.get_mut(key)?;
        let gone: Vec<String> = topic
            .presences
            .iter()
            .filter(|(_, meta)| meta.owner.as_ref() == Some(id))
            .map(|(phx_ref, _)| phx_ref.clone())
            .collect();
        let leaves: Vec<Meta> = gone.iter().filter_map(|r| topic.presences.remove(r)).collect();
        if leaves.is_empty() {
            return None;
        }
        send_diff(topic, &key.topic, &[], &leaves);
        Some(PresenceChange {
            topic: key.clone(),
            joins: vec![],
            leaves: leaves.into_iter().map(|m| (m.key, m.value)).collect(),
        })
    }

    /// A presence change from another gateway: applied, and told to the
    /// members here. Joins already known (a re-sent sync) are skipped.
    pub fn apply_remote(&self, origin: &str, change: &PresenceChange) {
        let mut topics = self.topics();
        let topic = topics.entry(change.topic.clone()).or_default();
        let phx_ref = |value: &Value| value.get("phx_ref").and_then(Value::as_str).map(str::to_owned);
        let leaves: Vec<Meta> =
            change.leaves.iter().filter_map(|(_, v)| topic.presences.remove(&phx_ref(v)?)).collect();
        let mut joins = Vec::new();
        for (key, value) in &change.joins {
            let Some(r) = phx_ref(value) else { continue };
            if topic.presences.contains_key(&r) {
                continue;
            }
            let meta = Meta {
                key: key.clone(),
                phx_ref: r.clone(),
                origin: origin.to_owned(),
                owner: None,
                value: value.clone(),
            };
            topic.presences.insert(r, meta.clone());
            joins.push(meta);
        }
        if !joins.is_empty() || !leaves.is_empty() {
            send_diff(topic, &change.topic.topic, &joins, &leaves);
        }
    }

    /// Everything tracked here, for a gateway that asks (it just started or
    /// reconnected to the bus).
    pub fn local_presences(&self) -> Vec<PresenceChange> {
        let topics = self.topics();
        topics
            .iter()
            .filter_map(|(key, topic)| {
                let joins: Vec<(String, Value)> = topic
                    .presences
                    .values()
                    .filter(|m| m.origin == self.origin)
                    .map(|m| (m.key.clone(), m.value.clone()))
                    .collect();
                (!joins.is_empty()).then(|| PresenceChange { topic: key.clone(), joins, leaves: vec![] })
            })
            .collect()
    }

    /// A gateway went silent: its presences leave.
    pub fn forget_origin(&self, origin: &str) {
        let mut topics = self.topics();
        for (key, topic) in topics.iter_mut() {
            let gone: Vec<String> =
                topic.presences.iter().filter(|(_, m)| m.origin == origin).map(|(r, _)| r.clone()).collect();
            let leaves: Vec<Meta> = gone.iter().filter_map(|r| topic.presences.remove(r)).collect();
            if !leaves.is_empty() {
                send_diff(topic, &key.topic, &[], &leaves);
            }
        }
    }

    /// How many channels are joined here (for tests and the log).
    pub fn channels(&self) -> usize {
        self.topics().values().map(|t| t.members.len()).sum()
    }

    /// Each topic joined here: the topic, whether it is private, how many
    /// channels joined it and how many presences it tracks (the operator
    /// console's view).
    pub fn topics_summary(&self) -> Vec<(String, bool, usize, usize)> {
        let mut summary: Vec<_> = self
            .topics()
            .iter()
            .map(|(key, topic)| (key.topic.clone(), key.private, topic.members.len(), topic.presences.len()))
            .collect();
        summary.sort();
        summary
    }
}

fn state_message(topic: &Topic, name: &str, join_ref: &str) -> Message {
    let mut state = Map::new();
    group(&mut state, topic.presences.values());
    Message {
        join_ref: Some(join_ref.to_owned()),
        reference: None,
        topic: name.to_owned(),
        event: "presence_state".to_owned(),
        payload: Payload::Json(Value::Object(state)),
    }
}

/// `{key: {"metas": [...]}}`.
fn group<'a>(into: &mut Map<String, Value>, metas: impl IntoIterator<Item = &'a Meta>) {
    for meta in metas {
        let entry = into.entry(meta.key.clone()).or_insert_with(|| json!({"metas": []}));
        if let Some(list) = entry.get_mut("metas").and_then(Value::as_array_mut) {
            list.push(meta.value.clone());
        }
    }
}

/// `presence_diff` `{joins, leaves}` to every member of the topic.
fn send_diff(topic: &Topic, name: &str, joins: &[Meta], leaves: &[Meta]) {
    let (mut j, mut l) = (Map::new(), Map::new());
    group(&mut j, joins);
    group(&mut l, leaves);
    let payload = json!({"joins": j, "leaves": l});
    for member in topic.members.values().filter(|m| m.presence_read) {
        member.outbox.send(Message {
            join_ref: Some(member.join_ref.clone()),
            reference: None,
            topic: name.to_owned(),
            event: "presence_diff".to_owned(),
            payload: Payload::Json(payload.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(hub: &Hub, key: &TopicKey, socket: u64) -> (MemberId, mpsc::Receiver<Outgoing>) {
        let (outbox, receiver, _) = Outbox::new(16);
        let id = MemberId { socket, join_ref: "1".to_owned() };
        hub.join(key, id.clone(), outbox, false, true, HashSet::new());
        (id, receiver)
    }

    #[test]
    fn presences_of_a_gateway_gone_silent_leave_and_the_members_are_told() {
        let hub = Hub::default();
        let key = TopicKey { topic: "realtime:lobby".to_owned(), private: false };
        let (_, mut receiver) = member(&hub, &key, 1);
        let change = PresenceChange {
            topic: key.clone(),
            joins: vec![("ana".to_owned(), json!({"phx_ref": "r1", "at": 1}))],
            leaves: vec![],
        };
        hub.apply_remote("other", &change);
        // A sync that repeats a known join changes nothing.
        hub.apply_remote("other", &change);
        let joined = receiver.try_recv().expect("join diff");
        assert_eq!(joined.message().json().expect("json")["joins"]["ana"]["metas"][0]["at"], 1);
        assert!(receiver.try_recv().is_err(), "the repeated join was told again");
        hub.forget_origin("other");
        let left = receiver.try_recv().expect("leave diff");
        assert_eq!(left.message().json().expect("json")["leaves"]["ana"]["metas"][0]["phx_ref"], "r1");
        assert!(hub.local_presences().is_empty());
    }

    #[test]
    fn a_full_outbox_marks_its_socket_as_overflowed_instead_of_growing() {
        let (outbox, _receiver, overflow) = Outbox::new(2);
        for _ in 0..3 {
            outbox.send(Message::push(None, "t", "e", json!({})));
        }
        assert!(overflow.happened.load(Ordering::Relaxed));
    }

    #[test]
    fn a_broadcast_skips_the_sender_unless_asked() {
        let hub = Hub::default();
        let key = TopicKey { topic: "realtime:room".to_owned(), private: false };
        let (sender, mut own) = member(&hub, &key, 1);
        let (_, mut other) = member(&hub, &key, 2);
        let private = TopicKey { private: true, ..key.clone() };
        let (_, mut elsewhere) = member(&hub, &private, 3);
        hub.broadcast(&key, &Message::push(None, "realtime:room", "broadcast", json!({})), Some(&sender));
        assert!(own.try_recv().is_err());
        assert!(other.try_recv().is_ok());
        assert!(elsewhere.try_recv().is_err(), "a private topic of the same name is another topic");
    }

    #[test]
    fn a_broadcast_is_encoded_once_per_serializer_for_all_its_members() {
        let hub = Hub::default();
        let key = TopicKey { topic: "realtime:room".to_owned(), private: false };
        let (_, mut first) = member(&hub, &key, 1);
        let (_, mut second) = member(&hub, &key, 2);
        hub.broadcast(&key, &Message::push(None, "realtime:room", "broadcast", json!({"n": 1})), None);
        let (Ok(Outgoing::Shared(a)), Ok(Outgoing::Shared(b))) = (first.try_recv(), second.try_recv()) else {
            panic!("a broadcast is queued shared");
        };
        assert!(Arc::ptr_eq(&a, &b), "both members hold the same message");
        let (Some(WsMessage::Text(one)), Some(WsMessage::Text(two))) = (a.frame(Vsn::V1), b.frame(Vsn::V1))
        else {
            panic!("text frames");
        };
        assert_eq!(
            one.as_str().as_ptr(),
            two.as_str().as_ptr(),
            "the second socket reuses the first one's bytes"
        );
        assert_ne!(a.frame(Vsn::V2), a.frame(Vsn::V1), "each serializer has its own frame");
    }

    #[test]
    fn a_message_replayed_at_the_join_is_not_sent_again_live() {
        let hub = Hub::default();
        let key = TopicKey { topic: "realtime:room".to_owned(), private: true };
        let (outbox, mut replayed_to, _) = Outbox::new(16);
        let replayed = HashSet::from(["m1".to_owned()]);
        hub.join(&key, MemberId { socket: 1, join_ref: "1".to_owned() }, outbox, false, true, replayed);
        let (_, mut other) = member(&hub, &key, 2);
        let message = |id: &str| {
            Message::push(None, "realtime:room", "broadcast", json!({"event": "e", "meta": {"id": id}}))
        };
        hub.broadcast(&key, &message("m1"), None);
        hub.broadcast(&key, &message("m2"), None);
        let got = replayed_to.try_recv().expect("the new message");
        assert_eq!(got.message().json().expect("json")["meta"]["id"], "m2");
        assert!(replayed_to.try_recv().is_err(), "m1 came twice");
        assert!(
            other.try_recv().is_ok() && other.try_recv().is_ok(),
            "a member that replayed nothing gets both"
        );
    }
}
