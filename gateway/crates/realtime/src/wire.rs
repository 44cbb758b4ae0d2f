//! Phoenix's wire format as realtime-js speaks it: serializer `1.0.0` (JSON
//! objects `{topic, event, payload, ref}`) and `2.0.0` (JSON arrays
//! `[join_ref, ref, topic, event, payload]` plus binary user broadcasts: kind 3
//! from the client, kind 4 to it), read from realtime-js
//! `src/lib/serializer.ts` and Realtime's `lib/realtime_web/socket/v2_serializer.ex`.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};

/// The serializer a socket asked for with `?vsn=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    /// `1.0.0` or `2.0.0`; Phoenix takes a missing `vsn` as `1.0.0`.
    pub fn parse(text: Option<&str>) -> Option<Self> {
        match text {
            None | Some("1.0.0") => Some(Self::V1),
            Some("2.0.0") => Some(Self::V2),
            Some(_) => None,
        }
    }
}

/// A user broadcast's payload as a 2.0.0 client sent it in binary: its event,
/// and the bytes of either JSON or an opaque binary value.
#[derive(Clone, Debug, PartialEq)]
pub struct UserBroadcast {
    pub event: String,
    pub json: bool,
    pub payload: Bytes,
    /// JSON metadata, or empty.
    pub meta: String,
}

impl UserBroadcast {
    /// The broadcast as the JSON payload a 1.0.0 client (or a 2.0.0 one
    /// without binary) reads: `{type, event, payload}`. `None` for a binary
    /// value, which JSON cannot carry (Realtime skips those for 1.0.0 too).
    pub fn to_json(&self) -> Option<Value> {
        if !self.json {
            return None;
        }
        let payload: Value = serde_json::from_slice(&self.payload).ok()?;
        let mut object = json!({"type": "broadcast", "event": self.event, "payload": payload});
        if !self.meta.is_empty()
            && let Ok(meta) = serde_json::from_str::<Value>(&self.meta)
        {
            object["meta"] = meta;
        }
        Some(object)
    }
}

/// A message's payload: JSON, or a user broadcast that came in binary.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    Json(Value),
    Binary(UserBroadcast),
    /// JSON already written out, shared by every message that carries it:
    /// a `postgres_changes` payload goes to each subscribed channel as the
    /// same text, spliced into each frame rather than serialized again.
    Text(Arc<str>),
}

/// One Phoenix message, either way.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub join_ref: Option<String>,
    pub reference: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Payload,
}

impl Message {
    pub fn push(join_ref: Option<&str>, topic: &str, event: &str, payload: Value) -> Self {
        Self {
            join_ref: join_ref.map(str::to_owned),
            reference: None,
            topic: topic.to_owned(),
            event: event.to_owned(),
            payload: Payload::Json(payload),
        }
    }

    /// `phx_reply` to `to` with `status` and `response`.
    pub fn reply(to: &Message, status: &str, response: Value) -> Self {
        Self {
            join_ref: to.join_ref.clone(),
            reference: to.reference.clone(),
            topic: to.topic.clone(),
            event: "phx_reply".to_owned(),
            payload: Payload::Json(json!({"status": status, "response": response})),
        }
    }

    /// The JSON payload (a binary broadcast as `{type, event, payload}`).
    pub fn json(&self) -> Option<Value> {
        match &self.payload {
            Payload::Json(value) => Some(value.clone()),
            Payload::Binary(user) => user.to_json(),
            Payload::Text(text) => serde_json::from_str(text).ok(),
        }
    }
}

/// A frame to write: text or binary.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    Text(String),
    Binary(Bytes),
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Reads a text frame; `None` for anything not a Phoenix message.
pub fn decode_text(vsn: Vsn, frame: &str) -> Option<Message> {
    let value: Value = serde_json::from_str(frame).ok()?;
    match vsn {
        Vsn::V1 => {
            let object = value.as_object()?;
            Some(Message {
                join_ref: object.get("join_ref").and_then(text),
                reference: object.get("ref").and_then(text),
                topic: object.get("topic")?.as_str()?.to_owned(),
                event: object.get("event")?.as_str()?.to_owned(),
                payload: Payload::Json(object.get("payload").cloned().unwrap_or(Value::Null)),
            })
        }
        Vsn::V2 => {
            let [join_ref, reference, topic, event, payload] =
                <[Value; 5]>::try_from(value.as_array()?.clone()).ok()?;
            Some(Message {
                join_ref: text(&join_ref),
                reference: text(&reference),
                topic: topic.as_str()?.to_owned(),
                event: event.as_str()?.to_owned(),
                payload: Payload::Json(payload),
            })
        }
    }
}

const USER_BROADCAST_PUSH: u8 = 3;
const USER_BROADCAST: u8 = 4;

/// Reads a binary frame: only kind 3, a user broadcast push, which becomes a
/// `broadcast` message whose payload is the user broadcast.
pub fn decode_binary(frame: &[u8]) -> Option<Message> {
    let (&kind, rest) = frame.split_first()?;
    if kind != USER_BROADCAST_PUSH || rest.len() < 6 {
        return None;
    }
    let lengths: Vec<usize> = rest[..5].iter().map(|&b| usize::from(b)).collect();
    let encoding = rest[5];
    let mut at = 6;
    let mut take = |n: usize| -> Option<String> {
        let slice = rest.get(at..at + n)?;
        at += n;
        String::from_utf8(slice.to_vec()).ok()
    };
    let join_ref = take(lengths[0])?;
    let reference = take(lengths[1])?;
    let topic = take(lengths[2])?;
    let event = take(lengths[3])?;
    let meta = take(lengths[4])?;
    let payload = Bytes::copy_from_slice(rest.get(at..)?);
    let optional = |s: String| (!s.is_empty()).then_some(s);
    Some(Message {
        join_ref: optional(join_ref),
        reference: optional(reference),
        topic,
        event: "broadcast".to_owned(),
        payload: Payload::Binary(UserBroadcast { event, json: encoding == 1, payload, meta }),
    })
}

/// Writes `message` for a client of `vsn`; `None` when it cannot be written
/// for it (a binary value to a 1.0.0 client).
pub fn encode(vsn: Vsn, message: &Message) -> Option<Frame> {
    if let (Vsn::V2, Payload::Binary(user)) = (vsn, &message.payload) {
        return encode_user_broadcast(&message.topic, user).map(Frame::Binary);
    }
    if let Payload::Text(payload) = &message.payload {
        let (topic, event) = (quoted(Some(&message.topic)), quoted(Some(&message.event)));
        let reference = quoted(message.reference.as_deref());
        return Some(Frame::Text(match vsn {
            Vsn::V1 => {
                format!(r#"{{"event":{event},"payload":{payload},"ref":{reference},"topic":{topic}}}"#)
            }
            Vsn::V2 => {
                format!("[{},{reference},{topic},{event},{payload}]", quoted(message.join_ref.as_deref()))
            }
        }));
    }
    let payload = message.json()?;
    let value = match vsn {
        // 1.0.0 has no `join_ref` (Phoenix's V1.JSONSerializer).
        Vsn::V1 => json!({
            "topic": message.topic, "event": message.event, "payload": payload, "ref": message.reference,
        }),
        Vsn::V2 => json!([message.join_ref, message.reference, message.topic, message.event, payload]),
    };
    Some(Frame::Text(value.to_string()))
}

/// A string, or `null`, as JSON text to splice into a frame.
fn quoted(text: Option<&str>) -> String {
    text.map_or_else(|| "null".to_owned(), |text| Value::from(text).to_string())
}

/// Kind 4: `[4][topic len][event len][meta len][encoding]` then the strings
/// and the payload. `None` when a string is longer than its one-byte length.
fn encode_user_broadcast(topic: &str, user: &UserBroadcast) -> Option<Bytes> {
    let lengths = [topic.len(), user.event.len(), user.meta.len()].map(|n| u8::try_from(n).ok());
    let [Some(topic_len), Some(event_len), Some(meta_len)] = lengths else { return None };
    let mut out =
        Vec::with_capacity(5 + topic.len() + user.event.len() + user.meta.len() + user.payload.len());
    out.extend_from_slice(&[USER_BROADCAST, topic_len, event_len, meta_len, u8::from(user.json)]);
    out.extend_from_slice(topic.as_bytes());
    out.extend_from_slice(user.event.as_bytes());
    out.extend_from_slice(user.meta.as_bytes());
    out.extend_from_slice(&user.payload);
    Some(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_point_oh_array_reads_as_a_message_and_writes_back_the_same() {
        let frame = r#"["1","2","realtime:room","phx_join",{"config":{}}]"#;
        let message = decode_text(Vsn::V2, frame).expect("message");
        assert_eq!(message.join_ref.as_deref(), Some("1"));
        assert_eq!(message.reference.as_deref(), Some("2"));
        assert_eq!(message.topic, "realtime:room");
        assert_eq!(encode(Vsn::V2, &message), Some(Frame::Text(frame.to_owned())));
    }

    #[test]
    fn a_payload_written_once_is_spliced_into_frames_equal_to_serializing_it() {
        let payload = json!({"ids": [1], "data": {"record": {"name": "ñandú \"quoted\""}, "type": "INSERT"}});
        for (join_ref, reference) in [(None, None), (Some("1"), Some("2"))] {
            let message = |payload| Message {
                join_ref: join_ref.map(str::to_owned),
                reference: reference.map(str::to_owned),
                topic: "realtime:room \"1\"".to_owned(),
                event: "postgres_changes".to_owned(),
                payload,
            };
            let json = message(Payload::Json(payload.clone()));
            let text = message(Payload::Text(payload.to_string().into()));
            for vsn in [Vsn::V1, Vsn::V2] {
                let parsed = |message: &Message| match encode(vsn, message) {
                    Some(Frame::Text(text)) => serde_json::from_str::<Value>(&text).expect("JSON"),
                    other => panic!("a text frame, not {other:?}"),
                };
                assert_eq!(parsed(&text), parsed(&json), "{vsn:?} {join_ref:?}");
            }
        }
    }

    #[test]
    fn a_one_point_oh_object_reads_as_a_message_and_writes_without_join_ref() {
        let frame = r#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7","join_ref":null}"#;
        let message = decode_text(Vsn::V1, frame).expect("message");
        let reply = Message::reply(&message, "ok", json!({}));
        let Some(Frame::Text(text)) = encode(Vsn::V1, &reply) else { panic!("text") };
        let value: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            value,
            json!({"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"7"})
        );
    }

    #[test]
    fn a_kind_three_push_becomes_a_kind_four_broadcast_and_json_for_one_point_oh() {
        let mut frame = vec![3, 1, 1, 4, 2, 0, 1];
        frame.extend_from_slice(b"12roomhi{\"a\":1}");
        let message = decode_binary(&frame).expect("message");
        assert_eq!(message.topic, "room");
        assert_eq!(message.reference.as_deref(), Some("2"));
        let Some(Frame::Binary(out)) = encode(Vsn::V2, &message) else { panic!("binary") };
        assert_eq!(&out[..], b"\x04\x04\x02\x00\x01roomhi{\"a\":1}");
        let Some(Frame::Text(text)) = encode(Vsn::V1, &message) else { panic!("text") };
        let value: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(value["payload"], json!({"type":"broadcast","event":"hi","payload":{"a":1}}));
    }

    #[test]
    fn a_binary_value_is_not_written_to_a_one_point_oh_client() {
        let mut frame = vec![3, 0, 0, 1, 1, 0, 0];
        frame.extend_from_slice(b"te\x00\xff");
        let message = decode_binary(&frame).expect("message");
        assert_eq!(encode(Vsn::V1, &message), None);
        assert!(matches!(encode(Vsn::V2, &message), Some(Frame::Binary(_))));
    }

    #[test]
    fn truncated_and_unknown_binary_frames_are_refused() {
        for frame in [&b""[..], &[4, 0, 0, 0, 0, 0, 0], &[3, 5, 0, 0, 0, 0, 0, b'a']] {
            assert_eq!(decode_binary(frame), None, "{frame:?}");
        }
    }
}
