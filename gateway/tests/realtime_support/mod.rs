//! A raw Phoenix client over tokio-tungstenite for the Realtime tests: frames
//! are written and read exactly as realtime-js does, in either serializer.
#![allow(dead_code)]

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Ws;

use crate::common::{Options, TestApp, cluster, spawn_app_with};

pub type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A message as read, whatever the serializer.
#[derive(Debug, Clone, PartialEq)]
pub struct In {
    pub join_ref: Value,
    pub reference: Value,
    pub topic: String,
    pub event: String,
    pub payload: Value,
    /// Came as a binary (kind 4) frame.
    pub binary: bool,
}

pub struct Client {
    pub stream: Stream,
    pub v2: bool,
    next_ref: u32,
}

pub fn url(app: &TestApp, key: &str, vsn: &str) -> String {
    format!("{}/realtime/v1/websocket?apikey={key}&vsn={vsn}", app.address.replace("http://", "ws://"))
}

impl Client {
    pub async fn connect(app: &TestApp, vsn: &str) -> Self {
        Self::connect_with(app, &app.anon_key, vsn).await
    }

    pub async fn connect_with(app: &TestApp, key: &str, vsn: &str) -> Self {
        let (stream, _) = tokio_tungstenite::connect_async(url(app, key, vsn)).await.expect("websocket");
        Self { stream, v2: vsn == "2.0.0", next_ref: 1 }
    }

    pub fn next_ref(&mut self) -> String {
        self.next_ref += 1;
        self.next_ref.to_string()
    }

    /// Sends a message; returns its ref.
    pub async fn push(&mut self, join_ref: Option<&str>, topic: &str, event: &str, payload: Value) -> String {
        let reference = self.next_ref();
        let text = if self.v2 {
            json!([join_ref, reference, topic, event, payload]).to_string()
        } else {
            json!({"topic": topic, "event": event, "payload": payload, "ref": reference, "join_ref": join_ref})
                .to_string()
        };
        self.stream.send(Ws::Text(text.into())).await.expect("send");
        reference
    }

    /// realtime-js 2.0.0's `channel.send` of a broadcast: binary kind 3.
    pub async fn push_binary(
        &mut self,
        join_ref: &str,
        topic: &str,
        event: &str,
        payload: &[u8],
        json: bool,
    ) -> String {
        let reference = self.next_ref();
        let mut frame = vec![
            3,
            join_ref.len() as u8,
            reference.len() as u8,
            topic.len() as u8,
            event.len() as u8,
            0,
            u8::from(json),
        ];
        for part in [join_ref.as_bytes(), reference.as_bytes(), topic.as_bytes(), event.as_bytes(), payload] {
            frame.extend_from_slice(part);
        }
        self.stream.send(Ws::Binary(frame.into())).await.expect("send");
        reference
    }

    /// Joins `topic` with `payload`; returns the join ref and the reply.
    pub async fn join(&mut self, topic: &str, payload: Value) -> (String, In) {
        let join_ref = self.next_ref();
        let reference = self.next_ref();
        let text = if self.v2 {
            json!([join_ref, reference, topic, "phx_join", payload]).to_string()
        } else {
            json!({"topic": topic, "event": "phx_join", "payload": payload, "ref": reference, "join_ref": join_ref})
                .to_string()
        };
        self.stream.send(Ws::Text(text.into())).await.expect("send");
        let reply = self.until(|m| m.event == "phx_reply" && m.reference == json!(reference)).await;
        (join_ref, reply)
    }

    /// The next message, or `None` after `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Option<In> {
        loop {
            let frame = tokio::time::timeout(wait, self.stream.next()).await.ok()??.ok()?;
            match frame {
                Ws::Text(text) => {
                    let value: Value = serde_json::from_str(text.as_str()).expect("json");
                    return Some(if self.v2 {
                        In {
                            join_ref: value[0].clone(),
                            reference: value[1].clone(),
                            topic: value[2].as_str().expect("topic").to_owned(),
                            event: value[3].as_str().expect("event").to_owned(),
                            payload: value[4].clone(),
                            binary: false,
                        }
                    } else {
                        assert!(value.get("join_ref").is_none(), "1.0.0 has no join_ref: {value}");
                        In {
                            join_ref: Value::Null,
                            reference: value["ref"].clone(),
                            topic: value["topic"].as_str().expect("topic").to_owned(),
                            event: value["event"].as_str().expect("event").to_owned(),
                            payload: value["payload"].clone(),
                            binary: false,
                        }
                    });
                }
                Ws::Binary(bytes) => return Some(decode_kind_four(&bytes)),
                Ws::Close(_) => return None,
                _ => {}
            }
        }
    }

    pub async fn next(&mut self) -> In {
        self.next_within(Duration::from_secs(5)).await.expect("a message within 5 s")
    }

    /// Reads until a message matches (others are skipped).
    pub async fn until(&mut self, wanted: impl Fn(&In) -> bool) -> In {
        loop {
            let message = self.next().await;
            if wanted(&message) {
                return message;
            }
        }
    }

    /// Nothing arrives for a while.
    pub async fn quiet(&mut self) {
        if let Some(message) = self.next_within(Duration::from_millis(400)).await {
            panic!("expected nothing, got {message:?}");
        }
    }

    pub async fn heartbeat(&mut self) -> In {
        let reference = self.push(None, "phoenix", "heartbeat", json!({})).await;
        self.until(|m| m.reference == json!(reference)).await
    }
}

/// Kind 4 as realtime-js decodes it: `{type: broadcast, event, payload}`.
fn decode_kind_four(bytes: &[u8]) -> In {
    assert_eq!(bytes[0], 4, "only kind 4 goes to clients");
    let (topic_len, event_len, meta_len, encoding) =
        (bytes[1] as usize, bytes[2] as usize, bytes[3] as usize, bytes[4]);
    let mut at = 5;
    let topic = String::from_utf8(bytes[at..at + topic_len].to_vec()).expect("topic");
    at += topic_len;
    let event = String::from_utf8(bytes[at..at + event_len].to_vec()).expect("event");
    at += event_len + meta_len;
    let payload = if encoding == 1 {
        serde_json::from_slice(&bytes[at..]).expect("json payload")
    } else {
        json!({"binary": bytes[at..].to_vec()})
    };
    In {
        join_ref: Value::Null,
        reference: Value::Null,
        topic,
        event: "broadcast".to_owned(),
        payload: json!({"type": "broadcast", "event": event, "payload": payload}),
        binary: true,
    }
}

/// A second gateway over the first one's database.
pub async fn beside(first: &TestApp) -> TestApp {
    beside_with(first, crate::common::test_config()).await
}

/// A second gateway over the first one's database, with `config`.
pub async fn beside_with(first: &TestApp, config: gateway::config::Config) -> TestApp {
    let mut api = cluster().cluster.pg_config("authenticator");
    api.dbname(&first.database);
    let mut second = spawn_app_with(Options { config, api: Some(api), ..Default::default() }).await;
    second.database = first.database.clone();
    second
}
