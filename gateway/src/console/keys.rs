//! The console's keys (Studio's "API Keys" and "JWT Keys" pages): the
//! publishable and secret API keys, listed, made and revoked, and the JWT
//! signing keys, listed, made as a standby, rotated to and revoked.
//!
//! Each action is the function `gateway keys` and `gateway signing-keys` run
//! (`gateway_core::keys`), over that module's own connection, so that a key
//! made or revoked here is made or revoked exactly as on the command line,
//! and every gateway on the database sees it within
//! `--keys-refresh-interval`. A new API key is in the answer that made it and
//! never again: the database keeps its hash only, as Supabase's dashboard
//! shows a secret key once
//! (<https://supabase.com/docs/guides/api/api-keys>).

use axum::{
    Json,
    extract::{Path, State},
    http::StatusCode,
};
use clap::ValueEnum;
use gateway_core::keys::{self, BoxError, KeyKind, SigningAlgorithm};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{ConsoleError, access::Operator};
use crate::AppState;

/// The keys module's connection, as the command line opens it.
async fn connect(state: &AppState) -> Result<tokio_postgres::Client, ConsoleError> {
    keys::connect(state.db.pg_config()).await.map_err(refused)
}

/// A failure of the keys module: the database's own failure is the log's,
/// anything else (no such key, a standby already made) the operator's to
/// read.
fn refused(error: BoxError) -> ConsoleError {
    if let Some(pg) = error.downcast_ref::<tokio_postgres::Error>() {
        if pg.as_db_error().is_none() {
            tracing::warn!(error = %pg, "the console could not reach the keys");
            return ConsoleError::Unavailable;
        }
        return ConsoleError::internal(pg);
    }
    if error.downcast_ref::<std::io::Error>().is_some() {
        return ConsoleError::Unavailable;
    }
    ConsoleError::BadRequest(error.to_string())
}

/// `GET /_/api/keys`: `{apiKeys, signingKeys}`. An API key shows its first
/// characters only; a signing key its kid, algorithm and place in the
/// rotation (standby, current, previous, revoked).
pub async fn list(State(state): State<AppState>, _: Operator) -> Result<Json<Value>, ConsoleError> {
    let client = connect(&state).await?;
    let api_keys = keys::list_api_keys(&client).await.map_err(refused)?;
    let signing_keys = keys::list_signing_keys(&client).await.map_err(refused)?;
    let api_keys: Vec<Value> = api_keys
        .into_iter()
        .map(|key| {
            json!({
                "name": key.name, "kind": key.kind, "start": key.start,
                "createdAt": key.created_at, "revokedAt": key.revoked_at,
            })
        })
        .collect();
    let signing_keys: Vec<Value> = signing_keys
        .into_iter()
        .map(|key| {
            json!({
                "kid": key.kid, "algorithm": key.algorithm, "status": key.status,
                "createdAt": key.created_at,
            })
        })
        .collect();
    Ok(Json(json!({ "apiKeys": api_keys, "signingKeys": signing_keys })))
}

#[derive(Deserialize)]
pub struct NamedKey {
    name: String,
    kind: String,
}

impl NamedKey {
    fn parse(&self) -> Result<(&str, KeyKind), ConsoleError> {
        let name = self.name.trim();
        if name.is_empty() {
            return Err(ConsoleError::BadRequest("A key needs a name".to_owned()));
        }
        let kind = KeyKind::from_str(&self.kind, true)
            .map_err(|_| ConsoleError::BadRequest("The kind is publishable or secret".to_owned()))?;
        Ok((name, kind))
    }
}

/// `POST /_/api/keys` with `{name, kind}`: `{name, kind, key}`, the key's
/// whole text, shown this once.
pub async fn create(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<NamedKey>,
) -> Result<(StatusCode, Json<Value>), ConsoleError> {
    let (name, kind) = body.parse()?;
    let client = connect(&state).await?;
    let key = keys::create_api_key(&client, name, kind).await.map_err(refused)?;
    tracing::info!(email = operator.email, name, kind = kind.as_str(), "operator made an API key");
    Ok((StatusCode::CREATED, Json(json!({ "name": name, "kind": kind.as_str(), "key": key }))))
}

/// `POST /_/api/keys/revoke` with `{name, kind}`: the key in use of that
/// kind and name is refused everywhere within a refresh.
pub async fn revoke(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<NamedKey>,
) -> Result<StatusCode, ConsoleError> {
    let (name, kind) = body.parse()?;
    let client = connect(&state).await?;
    keys::revoke_api_key(&client, kind, name).await.map_err(refused)?;
    tracing::info!(email = operator.email, name, kind = kind.as_str(), "operator revoked an API key");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Standby {
    /// ES256 (the default), RS256, or HS256 for the JWT secret.
    algorithm: Option<String>,
}

/// `POST /_/api/signing-keys` with `{algorithm?}`: a standby key, published
/// in the JWKS but signing nothing until a rotation. Answers `{kid}`.
pub async fn create_standby(
    State(state): State<AppState>,
    operator: Operator,
    Json(body): Json<Standby>,
) -> Result<(StatusCode, Json<Value>), ConsoleError> {
    let algorithm = match body.algorithm.as_deref() {
        None => SigningAlgorithm::Es256,
        Some(text) => SigningAlgorithm::from_str(text, true)
            .map_err(|_| ConsoleError::BadRequest("The algorithm is ES256, RS256 or HS256".to_owned()))?,
    };
    let mut client = connect(&state).await?;
    let kid = keys::create_standby(&mut client, state.credentials.jwt.secret(), algorithm)
        .await
        .map_err(refused)?;
    tracing::info!(email = operator.email, kid = %kid, "operator made a standby signing key");
    Ok((StatusCode::CREATED, Json(json!({ "kid": kid }))))
}

/// `POST /_/api/signing-keys/rotate`: the standby key becomes current and
/// the current one previous; answers `{current, previous}`.
pub async fn rotate(State(state): State<AppState>, operator: Operator) -> Result<Json<Value>, ConsoleError> {
    let mut client = connect(&state).await?;
    let (previous, current) = keys::rotate(&mut client).await.map_err(refused)?;
    tracing::info!(email = operator.email, current = %current, "operator rotated the signing keys");
    Ok(Json(json!({ "current": current, "previous": previous })))
}

/// `DELETE /_/api/signing-keys/{kid}`: a previous or standby key revoked;
/// its tokens are refused everywhere within a refresh.
pub async fn revoke_signing_key(
    State(state): State<AppState>,
    operator: Operator,
    Path(kid): Path<String>,
) -> Result<StatusCode, ConsoleError> {
    let kid = Uuid::parse_str(&kid).map_err(|_| ConsoleError::NotFound)?;
    let client = connect(&state).await?;
    keys::revoke_signing_key(&client, kid).await.map_err(refused)?;
    tracing::info!(email = operator.email, kid = %kid, "operator revoked a signing key");
    Ok(StatusCode::NO_CONTENT)
}
