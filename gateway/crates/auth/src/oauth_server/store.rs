//! The statements of the OAuth 2.1 server, fixed SQL with bound parameters on
//! `sql/054_auth_oauth_server.sql`'s tables; like the rest of `/auth/v1`'s
//! bookkeeping they run through [`Db::as_service_role`]. Lists of URIs and
//! grant types are kept comma-separated, as GoTrue keeps them.

use std::net::IpAddr;

use serde_json::Value;
use tokio_postgres::Row;
use uuid::Uuid;

use super::clients::{Client, NewClient, UpdateParams};
use crate::store::{self, SignIn, Started};
use crate::tokens;
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

const CLIENT_COLUMNS: &str = "id, client_secret_hash, registration_type::text, redirect_uris, grant_types, \
    client_name, client_uri, logo_uri, client_type::text, token_endpoint_auth_method, created_at, updated_at";

fn client_of(row: &Row) -> Client {
    let list = |text: String| text.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect();
    Client {
        id: row.get(0),
        secret_hash: row.get(1),
        registration_type: row.get(2),
        redirect_uris: list(row.get(3)),
        grant_types: list(row.get(4)),
        name: row.get(5),
        uri: row.get(6),
        logo_uri: row.get(7),
        client_type: row.get(8),
        token_endpoint_auth_method: row.get(9),
        created_at: row.get(10),
        updated_at: row.get(11),
    }
}

async fn one_client(
    db: &Db,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Option<Client>, ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(sql, params).await?;
    session.commit().await?;
    Ok(rows.first().map(client_of))
}

pub async fn create_client(
    db: &Db,
    new: &NewClient,
    secret_hash: Option<&str>,
    registration_type: &str,
) -> Result<Client, ApiError> {
    let sql = format!(
        "insert into auth.oauth_clients (id, client_secret_hash, registration_type, redirect_uris, grant_types, \
           client_name, client_uri, logo_uri, client_type, token_endpoint_auth_method) \
         values ($1, $2, $3::text::auth.oauth_registration_type, $4, $5, $6, $7, $8, \
           $9::text::auth.oauth_client_type, $10) \
         returning {CLIENT_COLUMNS}"
    );
    let client_type = new.client_type.to_owned();
    let created = one_client(
        db,
        &sql,
        &[
            &Uuid::new_v4(),
            &secret_hash,
            &registration_type,
            &new.redirect_uris.join(","),
            &new.grant_types.join(","),
            &new.name,
            &new.uri,
            &new.logo_uri,
            &client_type,
            &new.token_endpoint_auth_method,
        ],
    )
    .await?;
    created.ok_or_else(|| ApiError::internal("no client row"))
}

/// A client that is not deleted.
pub async fn find_client(db: &Db, id: Uuid) -> Result<Option<Client>, ApiError> {
    let sql = format!("select {CLIENT_COLUMNS} from auth.oauth_clients where id = $1 and deleted_at is null");
    one_client(db, &sql, &[&id]).await
}

pub async fn list_clients(db: &Db) -> Result<Vec<Client>, ApiError> {
    let sql = format!(
        "select {CLIENT_COLUMNS} from auth.oauth_clients where deleted_at is null order by created_at desc"
    );
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(&sql, &[]).await?;
    session.commit().await?;
    Ok(rows.iter().map(client_of).collect())
}

pub async fn update_client(db: &Db, id: Uuid, params: &UpdateParams) -> Result<Option<Client>, ApiError> {
    let sql = format!(
        "update auth.oauth_clients set \
           redirect_uris = coalesce($2, redirect_uris), grant_types = coalesce($3, grant_types), \
           client_name = coalesce($4, client_name), client_uri = coalesce($5, client_uri), \
           logo_uri = coalesce($6, logo_uri), \
           token_endpoint_auth_method = coalesce($7, token_endpoint_auth_method), updated_at = now() \
         where id = $1 and deleted_at is null returning {CLIENT_COLUMNS}"
    );
    let uris = params.redirect_uris.as_ref().map(|u| u.join(","));
    let grants = params.grant_types.as_ref().map(|g| g.join(","));
    one_client(
        db,
        &sql,
        &[
            &id,
            &uris,
            &grants,
            &params.client_name,
            &params.client_uri,
            &params.logo_uri,
            &params.token_endpoint_auth_method,
        ],
    )
    .await
}

pub async fn set_client_secret(db: &Db, id: Uuid, hash: &str) -> Result<Option<Client>, ApiError> {
    let sql = format!(
        "update auth.oauth_clients set client_secret_hash = $2, updated_at = now() \
         where id = $1 and deleted_at is null returning {CLIENT_COLUMNS}"
    );
    one_client(db, &sql, &[&id, &hash]).await
}

/// Marks the client deleted and ends the sessions issued to it (GoTrue keeps
/// the sessions but refuses to refresh them for a client it cannot find).
pub async fn delete_client(db: &Db, id: Uuid) -> Result<(), ApiError> {
    const DELETE: &str = "with c as (update auth.oauth_clients set deleted_at = now(), updated_at = now() \
          where id = $1 and deleted_at is null) \
        delete from auth.sessions where oauth_client_id = $1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(DELETE, &[&id]).await?;
    session.commit().await
}

/// An authorization request as `/oauth/authorize` records it.
pub struct NewAuthorization<'a> {
    pub client_id: Uuid,
    pub redirect_uri: &'a str,
    pub scope: &'a str,
    pub state: Option<&'a str>,
    pub resource: Option<&'a str>,
    pub code_challenge: &'a str,
    pub nonce: Option<&'a str>,
    pub ttl_secs: u64,
}

/// Records the request; returns its `authorization_id`.
pub async fn create_authorization(db: &Db, new: &NewAuthorization<'_>) -> Result<String, ApiError> {
    const INSERT: &str = "insert into auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, \
          scope, state, resource, code_challenge, code_challenge_method, nonce, created_at, expires_at) \
        values ($1, $2, $3, $4, $5, $6, $7, $8, 's256', $9, now(), now() + make_interval(secs => $10))";
    let authorization_id = super::alphanumeric(32)?;
    let ttl = new.ttl_secs.max(1) as f64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session
        .query(
            INSERT,
            &[
                &Uuid::new_v4(),
                &authorization_id,
                &new.client_id,
                &new.redirect_uri,
                &new.scope,
                &new.state,
                &new.resource,
                &new.code_challenge,
                &new.nonce,
                &ttl,
            ],
        )
        .await?;
    session.commit().await?;
    Ok(authorization_id)
}

/// A pending or decided authorization, as the consent steps see it.
pub struct Authorization {
    pub id: Uuid,
    pub client_id: Uuid,
    pub user_id: Option<Uuid>,
    pub redirect_uri: String,
    pub scope: String,
    pub state: Option<String>,
    pub status: String,
    pub expired: bool,
}

/// Locks the authorization for the rest of `session`'s transaction.
pub async fn lock_authorization(
    session: &mut Session,
    authorization_id: &str,
) -> Result<Option<Authorization>, ApiError> {
    const LOCK: &str = "select id, client_id, user_id, redirect_uri, scope, state, status::text, \
          expires_at <= now() \
        from auth.oauth_authorizations where authorization_id = $1 for update";
    let rows = session.query(LOCK, &[&authorization_id]).await?;
    Ok(rows.first().map(|row| Authorization {
        id: row.get(0),
        client_id: row.get(1),
        user_id: row.get(2),
        redirect_uri: row.get(3),
        scope: row.get(4),
        state: row.get(5),
        status: row.get(6),
        expired: row.get(7),
    }))
}

pub async fn mark_expired(session: &mut Session, id: Uuid) -> Result<(), ApiError> {
    session.query("update auth.oauth_authorizations set status = 'expired' where id = $1", &[&id]).await?;
    Ok(())
}

pub async fn set_authorization_user(session: &mut Session, id: Uuid, user_id: Uuid) -> Result<(), ApiError> {
    session
        .query("update auth.oauth_authorizations set user_id = $2 where id = $1", &[&id, &user_id])
        .await?;
    Ok(())
}

/// Approves the authorization; returns the code, whose digest is stored.
pub async fn approve(session: &mut Session, id: Uuid) -> Result<String, ApiError> {
    const APPROVE: &str = "update auth.oauth_authorizations \
        set status = 'approved', approved_at = now(), authorization_code = $2 where id = $1";
    let code = tokens::generate()?;
    session.query(APPROVE, &[&id, &tokens::digest(&code)]).await?;
    Ok(code)
}

pub async fn deny(session: &mut Session, id: Uuid) -> Result<(), ApiError> {
    session.query("update auth.oauth_authorizations set status = 'denied' where id = $1", &[&id]).await?;
    Ok(())
}

/// The scopes the user has consented to for the client, if the consent stands.
pub async fn active_consent(
    session: &mut Session,
    user_id: Uuid,
    client_id: Uuid,
) -> Result<Option<String>, ApiError> {
    const CONSENT: &str = "select scopes from auth.oauth_consents \
        where user_id = $1 and client_id = $2 and revoked_at is null";
    let rows = session.query(CONSENT, &[&user_id, &client_id]).await?;
    Ok(rows.first().map(|row| row.get(0)))
}

/// Records the consent, widening a standing one to the union of its scopes
/// and the new ones, or granting a revoked one anew (GoTrue's
/// `UpsertOAuthServerConsent`).
pub async fn upsert_consent(
    session: &mut Session,
    user_id: Uuid,
    client_id: Uuid,
    scope: &str,
) -> Result<(), ApiError> {
    const UPSERT: &str = "insert into auth.oauth_consents (id, user_id, client_id, scopes, granted_at) \
        values ($1, $2, $3, $4, now()) \
        on conflict (user_id, client_id) do update set \
          scopes = case when auth.oauth_consents.revoked_at is null \
            then (select string_agg(s, ' ' order by min_pos) from ( \
                    select s, min(pos) as min_pos from unnest(string_to_array( \
                      auth.oauth_consents.scopes || ' ' || excluded.scopes, ' ')) with ordinality as t(s, pos) \
                    where s <> '' group by s) u) \
            else excluded.scopes end, \
          granted_at = now(), revoked_at = null";
    session.query(UPSERT, &[&Uuid::new_v4(), &user_id, &client_id, &scope]).await?;
    Ok(())
}

/// An approved authorization found by its code, for `/oauth/token`.
pub struct Issued {
    pub id: Uuid,
    pub client_id: Uuid,
    pub user_id: Option<Uuid>,
    pub redirect_uri: String,
    pub scope: String,
    pub resource: Option<String>,
    pub code_challenge: Option<String>,
    pub expired: bool,
}

/// Locks the approved authorization whose code is `code`.
pub async fn lock_code(session: &mut Session, code: &str) -> Result<Option<Issued>, ApiError> {
    const LOCK: &str = "select id, client_id, user_id, redirect_uri, scope, resource, code_challenge, \
          expires_at <= now() \
        from auth.oauth_authorizations where authorization_code = $1 and status = 'approved' for update";
    let rows = session.query(LOCK, &[&tokens::digest(code)]).await?;
    Ok(rows.first().map(|row| Issued {
        id: row.get(0),
        client_id: row.get(1),
        user_id: row.get(2),
        redirect_uri: row.get(3),
        scope: row.get(4),
        resource: row.get(5),
        code_challenge: row.get(6),
        expired: row.get(7),
    }))
}

/// Trades the authorization for a session issued to its client: the
/// authorization row goes (a code is good once, GoTrue's `tx.Destroy`), the
/// session records the client and the scopes. `None` when the user is gone
/// or banned.
pub async fn start_client_session(
    session: &mut Session,
    issued: &Issued,
    user_id: Uuid,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Option<Started>, ApiError> {
    const USABLE: &str = "select coalesce(banned_until > now(), false) from auth.users \
        where id = $1 and deleted_at is null";
    const CLIENT: &str = "update auth.sessions set oauth_client_id = $2, scopes = $3 where id = $1";
    const USED: &str = "delete from auth.oauth_authorizations where id = $1";
    let rows = session.query(USABLE, &[&user_id]).await?;
    let usable = rows.first().is_some_and(|row| !row.get::<_, bool>(0));
    if !usable {
        return Ok(None);
    }
    let sign_in = SignIn { provider: "email", method: OAUTH_PROVIDER_AUTHORIZATION_CODE };
    let started = store::start_session_in(session, user_id, sign_in, token_digest, user_agent, ip).await?;
    session.query(CLIENT, &[&started.session_id, &issued.client_id, &issued.scope]).await?;
    session.query(USED, &[&issued.id]).await?;
    Ok(Some(started))
}

/// The `amr` method of a session a client got by a code (GoTrue's
/// `models.OAuthProviderAuthorizationCode`).
pub const OAUTH_PROVIDER_AUTHORIZATION_CODE: &str = "oauth_provider/authorization_code";

/// The user and the scopes of the session behind an access token, for
/// `/oauth/userinfo`; the scopes are `None` for a session no client holds.
pub async fn user_and_scopes(
    db: &Db,
    user_id: Uuid,
    session_id: Option<Uuid>,
) -> Result<Option<(Value, Option<String>)>, ApiError> {
    const USER: &str = "select auth.gateway_user_json(u), \
          (select s.scopes from auth.sessions s where s.id = $2 and s.user_id = u.id) \
        from auth.users u where u.id = $1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(USER, &[&user_id, &session_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (row.get(0), row.get(1))))
}

/// A standing consent: the client, the scopes granted, when.
pub type GrantRow = (Client, String, chrono::DateTime<chrono::Utc>);

/// The user's standing consents with their clients, newest first.
pub async fn grants(db: &Db, user_id: Uuid) -> Result<Vec<GrantRow>, ApiError> {
    let columns = CLIENT_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "select {columns}, g.scopes, g.granted_at from auth.oauth_consents g \
         join auth.oauth_clients c on c.id = g.client_id and c.deleted_at is null \
         where g.user_id = $1 and g.revoked_at is null order by g.granted_at desc"
    );
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(&sql, &[&user_id]).await?;
    session.commit().await?;
    Ok(rows.iter().map(|row| (client_of(row), row.get(12), row.get(13))).collect())
}

/// Revokes the user's consent for the client and ends the sessions issued to
/// it, with their refresh tokens; `false` when no consent stood.
pub async fn revoke_grant(db: &Db, user_id: Uuid, client_id: Uuid) -> Result<bool, ApiError> {
    const REVOKE: &str = "with g as (update auth.oauth_consents set revoked_at = now() \
          where user_id = $1 and client_id = $2 and revoked_at is null returning id), \
        s as (delete from auth.sessions where user_id = $1 and oauth_client_id = $2 and exists (select from g)) \
        select count(*) from g";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(REVOKE, &[&user_id, &client_id]).await?;
    session.commit().await?;
    Ok(rows.first().is_some_and(|row| row.get::<_, i64>(0) > 0))
}
