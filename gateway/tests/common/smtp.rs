//! A real SMTP server on loopback for the mail suites: it speaks the SMTP
//! dialogue (RFC 5321: greeting, EHLO, MAIL, RCPT, DATA, QUIT) with the
//! gateway's client and keeps each message received, to be read back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One message: its recipients and its text (headers and body, unfolded
/// quoted-printable soft breaks left as sent).
#[derive(Debug, Clone)]
pub struct Received {
    pub to: Vec<String>,
    pub data: String,
}

#[derive(Clone)]
pub struct Sink {
    pub port: u16,
    inbox: Arc<Mutex<Vec<Received>>>,
}

impl Sink {
    pub async fn start() -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind smtp");
        let port = listener.local_addr().expect("addr").port();
        let inbox = Arc::new(Mutex::new(Vec::new()));
        let kept = inbox.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut lines = BufReader::new(read).lines();
                    let _ = write.write_all(b"220 sink ESMTP\r\n").await;
                    let mut to = Vec::new();
                    while let Ok(Some(line)) = lines.next_line().await {
                        let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
                        let reply: &[u8] = match verb.as_str() {
                            "EHLO" | "HELO" => b"250-sink\r\n250 8BITMIME\r\n",
                            "MAIL" => {
                                to.clear();
                                b"250 ok\r\n"
                            }
                            "RCPT" => {
                                let address = line.split(['<', '>']).nth(1).unwrap_or("").to_lowercase();
                                to.push(address);
                                b"250 ok\r\n"
                            }
                            "DATA" => {
                                let _ = write.write_all(b"354 go ahead\r\n").await;
                                let mut data = String::new();
                                while let Ok(Some(line)) = lines.next_line().await {
                                    if line == "." {
                                        break;
                                    }
                                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                                    data.push('\n');
                                }
                                kept.lock().expect("inbox").push(Received { to: to.clone(), data });
                                b"250 queued\r\n"
                            }
                            "QUIT" => {
                                let _ = write.write_all(b"221 bye\r\n").await;
                                return;
                            }
                            _ => b"250 ok\r\n",
                        };
                        if write.write_all(reply).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Sink { port, inbox }
    }

    pub fn count_to(&self, address: &str) -> usize {
        self.inbox.lock().expect("inbox").iter().filter(|m| m.to.iter().any(|t| t == address)).count()
    }

    /// The `n`th message (from 0) to `address`, waiting up to 10 s for it.
    pub async fn nth_to(&self, address: &str, n: usize) -> Received {
        for _ in 0..200 {
            let found = self
                .inbox
                .lock()
                .expect("inbox")
                .iter()
                .filter(|m| m.to.iter().any(|t| t == address))
                .nth(n)
                .cloned();
            if let Some(message) = found {
                return message;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no mail {n} to {address}");
    }
}

impl Received {
    /// The body decoded from quoted-printable (lettre's choice for HTML).
    pub fn body(&self) -> String {
        let body = self.data.split_once("\n\n").map_or(self.data.as_str(), |(_, b)| b);
        let joined = body.replace("=\n", "");
        let mut out = Vec::new();
        let bytes = joined.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let escaped = joined.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok());
            if let (b'=', Some(byte)) = (bytes[i], escaped) {
                out.push(byte);
                i += 3;
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).replace("&amp;", "&")
    }

    /// The link to `/verify` the mail carries.
    pub fn link(&self) -> String {
        let body = self.body();
        let start = body.find("href=\"").expect("a link") + 6;
        body[start..].split('"').next().expect("link end").to_owned()
    }

    /// The code the mail carries (the first run of 6 digits after "código"/"code").
    pub fn code(&self) -> String {
        let body = self.body();
        let after = body.rfind(": ").expect("a code") + 2;
        body[after..].chars().take_while(char::is_ascii_digit).collect()
    }

    pub fn subject(&self) -> String {
        self.data.lines().find_map(|l| l.strip_prefix("Subject: ")).unwrap_or("").to_owned()
    }
}
