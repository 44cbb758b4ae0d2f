//! Who a channel acts for, and what RLS lets it do on a private channel.
//!
//! - Tokens are checked as Realtime checks them (supabase/realtime
//!   `lib/realtime_web/channels/auth/channels_authorization.ex` and
//!   `realtime_channel.ex` `confirm_token`): verified with the gateway's keys,
//!   `exp` required and in the future, errors worded as Realtime words them.
//! - Realtime Authorization (<https://supabase.com/docs/guides/realtime/authorization>):
//!   joining a private channel needs a SELECT policy on `realtime.messages`
//!   that lets the caller read a row of the channel's topic (for the
//!   `broadcast` or `presence` extension); sending needs INSERT. As Realtime
//!   does, rows are inserted for the topic and read back as the caller, with
//!   `realtime.topic` and the claims set, in a transaction that is rolled
//!   back (`lib/realtime/tenants/authorization.ex`).

use serde_json::Value;

use gateway_core::caller::Caller;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;
use gateway_core::jwt::{Claims, JwtError, JwtKeys};

/// A refused token, with Realtime's error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    pub code: &'static str,
    pub message: String,
}

impl TokenError {
    /// `Code: message`, as a refused join's `reason`.
    pub fn reason(&self) -> String {
        format!("{}: {}", self.code, self.message)
    }
}

/// Verifies an access token and returns its claims and `exp`.
pub fn verify(keys: &JwtKeys, token: &str) -> Result<(Claims, u64), TokenError> {
    let now = gateway_core::jwt::now();
    let expired = |exp: u64| TokenError {
        code: "InvalidJWTToken",
        message: format!("Token has expired {} seconds ago", now.saturating_sub(exp)),
    };
    match keys.verify(token) {
        Ok(claims) => {
            let exp = claims.claims.get("exp").and_then(Value::as_u64);
            let (Some(exp), true) = (exp, claims.claims.contains_key("role")) else {
                return Err(TokenError {
                    code: "InvalidJWTToken",
                    message: "Fields `role` and `exp` are required in JWT".to_owned(),
                });
            };
            // Realtime allows no clock skew on `exp`.
            if exp <= now {
                return Err(expired(exp));
            }
            Ok((claims, exp))
        }
        Err(JwtError::Expired) => Err(expired(unverified_exp(token).unwrap_or(now))),
        Err(JwtError::Empty | JwtError::Parts(_)) => Err(TokenError {
            code: "MalformedJWT",
            message: "The token provided is not a valid JWT".to_owned(),
        }),
        Err(_) => Err(TokenError {
            code: "JwtSignatureError",
            message: "Failed to validate JWT signature".to_owned(),
        }),
    }
}

/// `exp` of a token the keys refused as expired (so, signed by them).
fn unverified_exp(token: &str) -> Option<u64> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice::<Value>(&bytes).ok()?.get("exp")?.as_u64()
}

/// The caller a channel's checks run as.
pub fn caller(claims: &Claims) -> Caller {
    Caller {
        claims: std::sync::Arc::new(claims.clone()),
        method: "GET".to_owned(),
        path: "/realtime/v1/websocket".to_owned(),
        headers: "{}".to_owned(),
    }
}

/// What a caller may read on a private channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadAccess {
    pub broadcast: bool,
    pub presence: bool,
}

/// Realtime's read check: a row per extension for `topic`, selected as the caller.
pub async fn can_read(db: &Db, claims: &Claims, topic: &str) -> Result<ReadAccess, ApiError> {
    let mut session = db.session(&caller(claims), Access::ReadWrite).await?.on_realtime_topic(topic);
    let extensions = vec!["broadcast".to_owned(), "presence".to_owned()];
    let rows = session.query("select realtime.authorization_probe($1)", &[&extensions]).await?;
    let ids: Vec<uuid::Uuid> = rows.first().and_then(|row| row.get(0)).unwrap_or_default();
    let rows = session
        .query_and_end("select extension from realtime.messages where id = any($1)", &[&ids], false)
        .await?;
    let mut access = ReadAccess::default();
    for row in rows {
        match row.get::<_, String>(0).as_str() {
            "broadcast" => access.broadcast = true,
            "presence" => access.presence = true,
            _ => {}
        }
    }
    Ok(access)
}

/// Realtime's write check: inserting a row of `extension` for `topic` as the caller.
pub async fn can_write(db: &Db, claims: &Claims, topic: &str, extension: &str) -> Result<bool, ApiError> {
    let session = db.session(&caller(claims), Access::ReadWrite).await?.on_realtime_topic(topic);
    let inserted = session
        .query_and_end(
            "insert into realtime.messages (topic, extension, private) values (realtime.topic(), $1, true)",
            &[&extension],
            false,
        )
        .await;
    match inserted {
        Ok(_) => Ok(true),
        Err(ApiError::Database(db)) if db.code == "42501" => Ok(false),
        Err(e) => Err(e),
    }
}

/// Most messages a join may have replayed (Realtime's `@hard_limit`).
pub const REPLAY_MOST: i64 = 25;

/// One message of `realtime.messages` to replay: its id, event and payload
/// (or its bytes, from `realtime.send_binary`).
pub struct Replayed {
    pub id: String,
    pub event: String,
    pub payload: Value,
    pub binary: Option<Vec<u8>>,
}

/// Realtime's `Messages.replay`: the last `limit` (1 to [`REPLAY_MOST`])
/// broadcasts of a private `topic` inserted since `since_ms` (Unix time in
/// milliseconds, against `inserted_at` read as UTC), oldest first. Read past
/// row-level security, as Realtime reads them with its own connection: the
/// caller has passed the topic's read check before this is asked.
pub async fn replay(db: &Db, topic: &str, since_ms: i64, limit: i64) -> Result<Vec<Replayed>, ApiError> {
    const REPLAY: &str = "select id::text, coalesce(event, ''), coalesce(payload, '{}'::jsonb), binary_payload from ( \
          select id, event, payload, binary_payload, inserted_at from realtime.messages \
          where topic = $1 and private and extension = 'broadcast' \
            and inserted_at >= (to_timestamp($2::float8 / 1000) at time zone 'UTC') \
          order by inserted_at desc, id desc limit $3) as m \
        order by inserted_at, id";
    let limit = limit.clamp(1, REPLAY_MOST);
    let since = since_ms as f64;
    let session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query_and_end(REPLAY, &[&topic, &since, &limit], false).await?;
    Ok(rows
        .iter()
        .map(|row| Replayed { id: row.get(0), event: row.get(1), payload: row.get(2), binary: row.get(3) })
        .collect())
}
