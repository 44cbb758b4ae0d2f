//! A TCP proxy between the gateway's pool and PostgreSQL that reads the wire
//! protocol as it passes and counts, for the tests that pin how many
//! statements and round trips a request costs:
//!
//! - statements: the client's `Execute` and simple `Query` messages;
//! - answers: the server's `ReadyForQuery` messages, one per `Sync` or
//!   `Query`, each of which the server flushes to the socket by itself;
//! - round trips: the times the client sent a request (`Sync` or `Query`)
//!   with no answer outstanding, that is after waiting for everything it had
//!   sent before. Requests sent behind unanswered ones (pipelined) are not
//!   round trips. A client that is merely slow to send its pipeline can be
//!   counted more, never less, so the least count over a few tries is the
//!   true one.
//!
//! The proxy connects to the cluster's socket and expects no TLS (the gateway's
//! configuration for it says `sslmode=disable`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UnixStream};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub statements: u64,
    pub answers: u64,
    pub round_trips: u64,
}

#[derive(Default)]
struct State {
    counts: Counts,
    /// Requests sent and not yet answered by `ReadyForQuery`, over all
    /// connections; the tests run one request at a time on a pool of one.
    outstanding: u64,
}

#[derive(Clone)]
pub struct WireCounter {
    pub port: u16,
    state: Arc<Mutex<State>>,
}

impl WireCounter {
    /// Listens on 127.0.0.1 and forwards every connection to `socket` (a
    /// PostgreSQL Unix socket file).
    pub async fn start(socket: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("address").port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let server = UnixStream::connect(&socket).await.expect("connect to PostgreSQL");
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(forward(client_read, server_write, shared.clone(), Direction::ToServer));
                tokio::spawn(forward(server_read, client_write, shared.clone(), Direction::ToClient));
            }
        });
        Self { port, state }
    }

    /// The counts once every request sent so far is answered (a client may
    /// stop reading at an error, before the server's `ReadyForQuery`), or
    /// after a second.
    pub async fn counts(&self) -> Counts {
        for _ in 0..1000 {
            {
                let state = self.state.lock().expect("counts");
                if state.outstanding == 0 {
                    return state.counts;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        self.state.lock().expect("counts").counts
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToServer,
    ToClient,
}

/// Copies one direction, counting its messages before passing them on (so a
/// client never reacts to an answer the count has not seen yet).
async fn forward(
    mut from: impl AsyncReadExt + Unpin,
    mut to: impl AsyncWriteExt + Unpin,
    state: Arc<Mutex<State>>,
    direction: Direction,
) {
    // The client's first message (startup) has no type byte.
    let mut reader = Messages { pending: Vec::new(), untyped_first: direction == Direction::ToServer };
    if direction == Direction::ToServer {
        // Startup is answered by ReadyForQuery like any request.
        state.lock().expect("state").outstanding += 1;
    }
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        {
            let mut state = state.lock().expect("state");
            for kind in reader.push(&buffer[..n]) {
                match (direction, kind) {
                    (Direction::ToServer, b'E') => state.counts.statements += 1,
                    (Direction::ToServer, b'Q') => {
                        state.counts.statements += 1;
                        request(&mut state);
                    }
                    (Direction::ToServer, b'S') => request(&mut state),
                    (Direction::ToClient, b'Z') => {
                        state.counts.answers += 1;
                        state.outstanding = state.outstanding.saturating_sub(1);
                    }
                    _ => {}
                }
            }
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

fn request(state: &mut State) {
    if state.outstanding == 0 {
        state.counts.round_trips += 1;
    }
    state.outstanding += 1;
}

/// Splits a byte stream into protocol messages: a type byte, then a length
/// that counts itself and the body.
struct Messages {
    pending: Vec<u8>,
    untyped_first: bool,
}

impl Messages {
    /// The types of the messages completed by `bytes`.
    fn push(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(bytes);
        let mut kinds = Vec::new();
        loop {
            let header = if self.untyped_first { 0 } else { 1 };
            let Some(length) = self.pending.get(header..header + 4) else { break };
            let total = header + u32::from_be_bytes(length.try_into().expect("4 bytes")) as usize;
            if self.pending.len() < total {
                break;
            }
            if self.untyped_first {
                self.untyped_first = false;
            } else {
                kinds.push(self.pending[0]);
            }
            self.pending.drain(..total);
        }
        kinds
    }
}
