//! A logical replication connection: PostgreSQL's streaming replication
//! protocol (<https://www.postgresql.org/docs/current/protocol-replication.html>),
//! spoken with tokio-postgres's own message codec (`postgres-protocol`, the
//! crate that frames and authenticates every pooled connection).
//!
//! Why not a replication crate: the maintained ones (`pgwire-replication`,
//! the replication forks of tokio-postgres) fix `proto_version '1'` or
//! trail tokio-postgres's releases, and protocol version 2 is what lets the
//! server send a transaction larger than `logical_decoding_work_mem` while it
//! runs ("streaming" of in-progress transactions, PostgreSQL 14 and later)
//! instead of spilling it to disk and sending it whole at commit. What the
//! connection needs of the protocol is small: the start-up and login of any
//! connection, one `START_REPLICATION` command, then CopyData both ways.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, SCRAM_SHA_256, ScramSha256};
use postgres_protocol::message::frontend;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};
use tokio_postgres::config::Host;

use gateway_core::sql::quote_ident;

/// How long the connection and its login may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Seconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC).
const POSTGRES_EPOCH: u64 = 946_684_800;

/// Why the connection failed.
#[derive(Debug)]
pub enum Error {
    /// The server answered with an error.
    Server { code: String, message: String },
    /// The server asks for a login this client cannot give.
    Login(String),
    /// The connection could not be made, or broke.
    Io(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Server { code, message } => write!(f, "{message} (SQLSTATE {code})"),
            Error::Login(reason) | Error::Io(reason) => f.write_str(reason),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

/// What the server streams.
#[derive(Debug)]
pub enum Event {
    /// One `pgoutput` message (XLogData's payload).
    Data(Bytes),
    /// The server's position, between messages; `reply` asks for a standby
    /// status update now.
    KeepAlive { wal_end: u64, reply: bool },
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A connection in replication mode (`replication=database`).
pub struct Replication {
    io: Box<dyn Io>,
    read: BytesMut,
    /// `server_version_num`'s major: 14 and later stream large transactions.
    major: u32,
}

impl Replication {
    /// Connects and logs in as `login` says (its first host; TCP or a Unix
    /// socket directory, as libpq reads them).
    pub async fn connect(login: &tokio_postgres::Config, application_name: &str) -> Result<Self, Error> {
        tokio::time::timeout(CONNECT_TIMEOUT, Self::connect_now(login, application_name))
            .await
            .map_err(|_| Error::Io("the replication connection timed out".into()))?
    }

    async fn connect_now(login: &tokio_postgres::Config, application_name: &str) -> Result<Self, Error> {
        let port = login.get_ports().first().copied().unwrap_or(5432);
        let io: Box<dyn Io> = match login.get_hosts().first() {
            Some(Host::Tcp(host)) => {
                let stream = TcpStream::connect((host.as_str(), port)).await?;
                stream.set_nodelay(true)?;
                Box::new(stream)
            }
            Some(Host::Unix(dir)) => {
                Box::new(UnixStream::connect(PathBuf::from(dir).join(format!(".s.PGSQL.{port}"))).await?)
            }
            None => return Err(Error::Login("the login names no host".into())),
        };
        let user = login.get_user().ok_or_else(|| Error::Login("the login names no user".into()))?;
        let mut connection = Replication { io, read: BytesMut::with_capacity(128 * 1024), major: 0 };
        let mut parameters = vec![
            ("user", user),
            ("database", login.get_dbname().unwrap_or(user)),
            ("replication", "database"),
            ("application_name", application_name),
        ];
        if let Some(options) = login.get_options() {
            parameters.push(("options", options));
        }
        let mut out = BytesMut::new();
        frontend::startup_message(parameters, &mut out)?;
        connection.send(&out).await?;
        connection.log_in(user, login.get_password().unwrap_or_default()).await?;
        Ok(connection)
    }

    /// The login exchange, up to the first ReadyForQuery.
    async fn log_in(&mut self, user: &str, password: &[u8]) -> Result<(), Error> {
        let mut scram: Option<ScramSha256> = None;
        loop {
            let (tag, mut body) = self.message().await?;
            let mut out = BytesMut::new();
            match tag {
                b'R' => match body.try_get_i32().map_err(|_| short())? {
                    0 => continue,
                    3 => frontend::password_message(password, &mut out)?,
                    5 => {
                        let mut salt = [0; 4];
                        body.try_copy_to_slice(&mut salt).map_err(|_| short())?;
                        frontend::password_message(
                            md5_hash(user.as_bytes(), password, salt).as_bytes(),
                            &mut out,
                        )?;
                    }
                    10 => {
                        let offered = body.split(|&b| b == 0).any(|m| m == SCRAM_SHA_256.as_bytes());
                        if !offered {
                            return Err(Error::Login(
                                "the server offers no SASL mechanism but SCRAM-SHA-256-PLUS".into(),
                            ));
                        }
                        let exchange = ScramSha256::new(password, ChannelBinding::unsupported());
                        frontend::sasl_initial_response(SCRAM_SHA_256, exchange.message(), &mut out)?;
                        scram = Some(exchange);
                    }
                    11 => {
                        let exchange =
                            scram.as_mut().ok_or_else(|| Error::Login("SASL out of order".into()))?;
                        exchange.update(&body)?;
                        frontend::sasl_response(exchange.message(), &mut out)?;
                    }
                    12 => {
                        let mut exchange =
                            scram.take().ok_or_else(|| Error::Login("SASL out of order".into()))?;
                        exchange.finish(&body)?;
                        continue;
                    }
                    other => {
                        return Err(Error::Login(format!("the server asks for a login of kind {other}")));
                    }
                },
                b'S' => {
                    let mut fields = body.split(|&b| b == 0);
                    if fields.next() == Some(b"server_version") {
                        let version = fields.next().unwrap_or_default();
                        let digits = version.iter().take_while(|b| b.is_ascii_digit()).count();
                        self.major = std::str::from_utf8(&version[..digits])
                            .ok()
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0);
                    }
                    continue;
                }
                b'Z' => return Ok(()),
                b'E' => return Err(server_error(&body)),
                _ => continue,
            }
            self.send(&out).await?;
        }
    }

    /// Whether the server sends large transactions while they run.
    pub fn streams_in_progress(&self) -> bool {
        self.major >= 14
    }

    /// `START_REPLICATION` of `slot` from where it was last confirmed, with
    /// `pgoutput` over `publication`: protocol version 2 with `streaming`
    /// where the server has it, 1 before PostgreSQL 14.
    pub async fn start(&mut self, slot: &str, publication: &str) -> Result<(), Error> {
        let options = if self.streams_in_progress() {
            "proto_version '2', streaming 'on'"
        } else {
            "proto_version '1'"
        };
        // The option's value is a list of identifiers inside a literal.
        let publications = quote_ident(publication).replace('\'', "''");
        let command = format!(
            "START_REPLICATION SLOT {} LOGICAL 0/0 ({options}, publication_names '{publications}')",
            quote_ident(slot)
        );
        let mut out = BytesMut::new();
        frontend::query(&command, &mut out)?;
        self.send(&out).await?;
        loop {
            match self.message().await? {
                // CopyBothResponse: the stream starts.
                (b'W', _) => return Ok(()),
                (b'E', body) => return Err(server_error(&body)),
                _ => {}
            }
        }
    }

    /// The next event. Cancel-safe: what was read stays for the next call.
    pub async fn recv(&mut self) -> Result<Event, Error> {
        loop {
            let (tag, mut body) = self.message().await?;
            match tag {
                b'd' => match body.try_get_u8().map_err(|_| short())? {
                    b'w' => {
                        // Start, end (the server's position) and send time.
                        if body.len() < 24 {
                            return Err(short());
                        }
                        body.advance(24);
                        return Ok(Event::Data(body));
                    }
                    b'k' => {
                        let wal_end = body.try_get_u64().map_err(|_| short())?;
                        let _sent = body.try_get_i64().map_err(|_| short())?;
                        let reply = body.try_get_u8().map_err(|_| short())? == 1;
                        return Ok(Event::KeepAlive { wal_end, reply });
                    }
                    other => return Err(Error::Io(format!("unexpected replication message {other}"))),
                },
                b'E' => return Err(server_error(&body)),
                b'c' => return Err(Error::Io("the server ended the replication stream".into())),
                // Notices and parameter changes.
                _ => {}
            }
        }
    }

    /// A standby status update: everything up to `lsn` is written, flushed
    /// and applied, so the slot may move there.
    pub async fn confirm(&mut self, lsn: u64) -> Result<(), Error> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let micros = now.saturating_sub(Duration::from_secs(POSTGRES_EPOCH)).as_micros();
        let mut out = BytesMut::with_capacity(39);
        out.put_u8(b'd');
        out.put_i32(38);
        out.put_u8(b'r');
        out.put_u64(lsn);
        out.put_u64(lsn);
        out.put_u64(lsn);
        out.put_i64(i64::try_from(micros).unwrap_or(i64::MAX));
        out.put_u8(0);
        self.send(&out).await
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.io.write_all(bytes).await?;
        Ok(())
    }

    /// The next whole message: its tag and body. Cancel-safe: a message is
    /// taken from the buffer only when whole, and `read_buf` loses nothing.
    async fn message(&mut self) -> Result<(u8, Bytes), Error> {
        loop {
            if self.read.len() >= 5 {
                let length = i32::from_be_bytes([self.read[1], self.read[2], self.read[3], self.read[4]]);
                let length = usize::try_from(length).ok().filter(|&n| n >= 4).ok_or_else(short)?;
                if self.read.len() > length {
                    let mut message = self.read.split_to(length + 1).freeze();
                    let tag = message[0];
                    message.advance(5);
                    return Ok((tag, message));
                }
                self.read.reserve(length + 1 - self.read.len());
            }
            if self.io.read_buf(&mut self.read).await? == 0 {
                return Err(Error::Io("the server closed the replication connection".into()));
            }
        }
    }
}

fn short() -> Error {
    Error::Io("a replication message ended too soon".into())
}

/// An ErrorResponse's SQLSTATE and message.
fn server_error(body: &[u8]) -> Error {
    let (mut code, mut message) = (String::new(), String::new());
    let mut rest = body;
    while let Some((&kind, tail)) = rest.split_first() {
        if kind == 0 {
            break;
        }
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let value = String::from_utf8_lossy(&tail[..end]).into_owned();
        match kind {
            b'C' => code = value,
            b'M' => message = value,
            _ => {}
        }
        rest = tail.get(end + 1..).unwrap_or_default();
    }
    Error::Server { code, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_response_gives_its_sqlstate_and_message() {
        let body = b"SERROR\0VERROR\0C42501\0Mmust be superuser or replication role\0\0";
        match server_error(body) {
            Error::Server { code, message } => {
                assert_eq!(code, "42501");
                assert_eq!(message, "must be superuser or replication role");
            }
            other => panic!("{other:?}"),
        }
    }
}
