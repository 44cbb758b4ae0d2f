//! Every statement `/auth/v1` runs, as fixed SQL with bound parameters, on the
//! auth tables (`sql/010_auth.sql`). All of it is the gateway's own
//! bookkeeping, so it runs through [`Db::as_service_role`]. Users come back as
//! the JSON `auth.gateway_user_json` renders, which is what GoTrue sends.
//!
//! No connection is ever held while a password is hashed: callers read, let go,
//! hash, then write.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::tokens;
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// How a user signs in with a password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    Email(String),
    /// Digits only, as GoTrue stores phones.
    Phone(String),
}

impl Login {
    pub fn provider(&self) -> &'static str {
        match self {
            Login::Email(_) => "email",
            Login::Phone(_) => "phone",
        }
    }
}

/// What a password sign-in needs to know about a user.
pub struct Credentials {
    pub id: Uuid,
    pub hash: Option<String>,
    pub email_confirmed: bool,
    pub phone_confirmed: bool,
    pub banned: bool,
}

pub async fn credentials(db: &Db, login: &Login) -> Result<Option<Credentials>, ApiError> {
    const BY_EMAIL: &str = "select id, encrypted_password, email_confirmed_at is not null, \
        phone_confirmed_at is not null, coalesce(banned_until > now(), false) \
        from auth.users where lower(email) = lower($1) and deleted_at is null and not is_sso_user \
        order by created_at limit 1";
    const BY_PHONE: &str = "select id, encrypted_password, email_confirmed_at is not null, \
        phone_confirmed_at is not null, coalesce(banned_until > now(), false) \
        from auth.users where phone = $1 and deleted_at is null and not is_sso_user limit 1";
    let (sql, value) = match login {
        Login::Email(email) => (BY_EMAIL, email),
        Login::Phone(phone) => (BY_PHONE, phone),
    };
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(sql, &[value]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| Credentials {
        id: row.get(0),
        hash: row.get(1),
        email_confirmed: row.get(2),
        phone_confirmed: row.get(3),
        banned: row.get(4),
    }))
}

/// A session just started or refreshed.
pub struct Started {
    pub session_id: Uuid,
    /// The session's assurance level (`aal1`, or `aal2` after a second factor).
    pub aal: String,
    /// How the session was authenticated, newest first (`auth.mfa_amr_claims`).
    pub amr: Vec<Amr>,
    pub user: Value,
}

/// One authentication method of a session and when it was used (Unix time):
/// an entry of the access token's `amr` claim (RFC 8176; GoTrue's
/// `models.AMREntry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amr {
    pub method: String,
    pub timestamp: i64,
}

/// The authentication methods GoTrue names in `amr`
/// (supabase/auth `internal/models/factor.go`, `AuthenticationMethod`).
pub mod method {
    pub const PASSWORD: &str = "password";
    pub const OTP: &str = "otp";
    pub const MAGIC_LINK: &str = "magiclink";
    pub const OAUTH: &str = "oauth";
    pub const EMAIL_SIGNUP: &str = "email/signup";
    pub const EMAIL_CHANGE: &str = "email_change";
    pub const INVITE: &str = "invite";
    pub const RECOVERY: &str = "recovery";
    pub const ANONYMOUS: &str = "anonymous";
    pub const TOTP: &str = "totp";
    pub const ID_TOKEN: &str = "id_token";
    pub const PASSKEY: &str = "passkey";
    pub const MFA_WEBAUTHN: &str = "mfa/webauthn";
    pub const WEB3: &str = "web3";
}

/// How a session is being started: the identity's provider whose
/// `last_sign_in_at` moves, and the `amr` method recorded (see [`method`]).
#[derive(Debug, Clone, Copy)]
pub struct SignIn<'a> {
    pub provider: &'a str,
    pub method: &'a str,
}

/// Starts a session for `user_id` with the refresh token whose digest is given,
/// and records the sign-in.
pub async fn start_session(
    db: &Db,
    user_id: Uuid,
    sign_in: SignIn<'_>,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Started, ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let started = start_session_in(&mut session, user_id, sign_in, token_digest, user_agent, ip).await?;
    session.commit().await?;
    Ok(started)
}

/// [`start_session`] inside a transaction the caller holds.
pub async fn start_session_in(
    session: &mut Session,
    user_id: Uuid,
    sign_in: SignIn<'_>,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Started, ApiError> {
    const START: &str = "\
        with s as ( \
          insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip, refresh_token_hmac_key) \
          values ($1, $2, now(), now(), 'aal1', $3, $4, $7) returning id, created_at), \
        t as ( \
          insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
          select '00000000-0000-0000-0000-000000000000', $5, $2::text, false, now(), now(), s.id from s), \
        u as (update auth.users set last_sign_in_at = now() where id = $2), \
        i as (update auth.identities set last_sign_in_at = now(), updated_at = now() \
              where user_id = $2 and provider = $6), \
        a as (insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method) \
              select s.id, s.created_at, s.created_at, $8 from s) \
        select extract(epoch from created_at)::bigint from s";
    let session_id = Uuid::new_v4();
    let key = tokens::session_key()?;
    let rows = session
        .query(
            START,
            &[
                &session_id,
                &user_id,
                &user_agent,
                &ip,
                &token_digest,
                &sign_in.provider,
                &key,
                &sign_in.method,
            ],
        )
        .await?;
    let signed_in_at: i64 =
        rows.first().map(|r| r.get(0)).ok_or_else(|| ApiError::internal("no session row"))?;
    let user = user_json_in(session, user_id).await?.ok_or_else(|| ApiError::internal("user vanished"))?;
    let amr = vec![Amr { method: sign_in.method.to_owned(), timestamp: signed_in_at }];
    Ok(Started { session_id, aal: "aal1".to_owned(), amr, user })
}

/// A session's assurance level and `amr` list, as its next access token
/// states them.
pub async fn session_assurance(
    session: &mut Session,
    session_id: Uuid,
) -> Result<(String, Vec<Amr>), ApiError> {
    const AAL: &str = "select coalesce(s.aal::text, 'aal1'), \
          array(select c.authentication_method from auth.mfa_amr_claims c \
                where c.session_id = s.id order by c.updated_at desc, c.authentication_method), \
          array(select extract(epoch from c.updated_at)::bigint from auth.mfa_amr_claims c \
                where c.session_id = s.id order by c.updated_at desc, c.authentication_method) \
        from auth.sessions s where s.id = $1";
    let rows = session.query(AAL, &[&session_id]).await?;
    let row = rows.first().ok_or_else(|| ApiError::internal("session vanished"))?;
    let (aal, methods, times): (String, Vec<String>, Vec<i64>) = (row.get(0), row.get(1), row.get(2));
    let amr = methods.into_iter().zip(times).map(|(method, timestamp)| Amr { method, timestamp }).collect();
    Ok((aal, amr))
}

async fn user_json_in(session: &mut Session, user_id: Uuid) -> Result<Option<Value>, ApiError> {
    let rows = session
        .query("select auth.gateway_user_json(u) from auth.users u where u.id = $1", &[&user_id])
        .await?;
    Ok(rows.first().map(|row| row.get(0)))
}

/// The outcome of presenting a refresh token.
pub enum Refreshed {
    /// The token's child (`refresh_token`) is now the session's token (just
    /// rotated, or rotated moments ago by a concurrent or repeated request).
    Issued {
        started: Started,
        refresh_token: String,
    },
    NotFound,
    Banned,
    /// An old token came back after the reuse window: the session was deleted.
    Reused,
    /// A session issued to an OAuth client refreshed without that client, or
    /// another session refreshed by a client (GoTrue's `RefreshTokenGrant`):
    /// the reason, as GoTrue words it.
    WrongClient(&'static str),
}

/// The refresh-token grant, serialised per session by locking its row
/// (reliability.md §2.3, G25, G29):
///
/// 1. lock the session the token belongs to (`for update`): concurrent
///    refreshes of one session queue here; its key derives the child
///    (`tokens::child_of`), and a session without one has no valid token;
/// 2. re-read the token under the lock;
/// 3. an active token is revoked and its child inserted;
/// 4. a revoked token whose child is the active one, presented within the
///    reuse window, gets that child again (no new row);
/// 5. any other revoked token is reuse: the session and with it every token is
///    deleted, and the deletion is committed with the error.
///
/// `client` is the OAuth client that authenticated (`/oauth/token`), which
/// must be the one the session was issued to; `None` at `/token`, which only
/// refreshes sessions issued to no client.
pub async fn refresh(
    db: &Db,
    presented: &str,
    reuse_interval_secs: u64,
    client: Option<Uuid>,
) -> Result<Refreshed, ApiError> {
    const LOCK: &str = "select s.id, s.user_id, s.refresh_token_hmac_key, s.oauth_client_id \
        from auth.sessions s \
        where s.id = (select session_id from auth.refresh_tokens where token = $1) \
        for update of s";
    const TOKEN: &str = "select rt.revoked, extract(epoch from clock_timestamp() - rt.updated_at)::float8, \
          (select a.token from auth.refresh_tokens a \
           where a.session_id = rt.session_id and not a.revoked order by a.id desc limit 1) \
        from auth.refresh_tokens rt where rt.token = $1";
    const BANNED: &str = "select coalesce(banned_until > now(), false) from auth.users where id = $1";
    const ROTATE: &str = "\
        with old as (update auth.refresh_tokens set revoked = true, updated_at = now() where token = $1), \
        s as (update auth.sessions set refreshed_at = now() at time zone 'utc', updated_at = now() where id = $3) \
        insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id) \
        values ('00000000-0000-0000-0000-000000000000', $2, $4::uuid::text, false, now(), now(), $1, $3)";
    const KILL: &str = "delete from auth.sessions where id = $1";

    let digest = tokens::digest(presented);
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(LOCK, &[&digest]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Ok(Refreshed::NotFound);
    };
    let (session_id, user_id): (Uuid, Uuid) = (row.get(0), row.get(1));
    let key: Option<String> = row.get(2);
    let issued_to: Option<Uuid> = row.get(3);
    let wrong_client = match (issued_to, client) {
        (Some(_), None) => Some("Client authentication required for OAuth session"),
        (Some(issued), Some(client)) if issued != client => {
            Some("Client does not match the session's OAuth client")
        }
        (None, Some(_)) => Some("Client authentication not allowed for non-OAuth session"),
        _ => None,
    };
    if let Some(reason) = wrong_client {
        session.rollback().await?;
        return Ok(Refreshed::WrongClient(reason));
    }
    let Some(child) = key.and_then(|key| tokens::child_of(&key, presented)) else {
        session.rollback().await?;
        return Ok(Refreshed::NotFound);
    };
    let rows = session.query(TOKEN, &[&digest]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Ok(Refreshed::NotFound);
    };
    let (revoked, age_secs, active): (Option<bool>, f64, Option<String>) =
        (row.get(0), row.get(1), row.get(2));
    let banned = session.query(BANNED, &[&user_id]).await?.first().is_some_and(|r| r.get::<_, bool>(0));
    if banned {
        session.rollback().await?;
        return Ok(Refreshed::Banned);
    }
    let child_digest = tokens::digest(&child);
    if revoked == Some(true) {
        let child_is_active = active.is_some_and(|a| tokens::same_digest(&a, &child_digest));
        if !(child_is_active && age_secs <= reuse_interval_secs as f64) {
            session.query(KILL, &[&session_id]).await?;
            session.commit().await?;
            return Ok(Refreshed::Reused);
        }
    } else {
        session.query(ROTATE, &[&digest, &child_digest, &session_id, &user_id]).await?;
    }
    let user =
        user_json_in(&mut session, user_id).await?.ok_or_else(|| ApiError::internal("user vanished"))?;
    let (aal, amr) = session_assurance(&mut session, session_id).await?;
    session.commit().await?;
    Ok(Refreshed::Issued { started: Started { session_id, aal, amr, user }, refresh_token: child })
}

/// The user behind an access token, and whether its session still exists
/// (true when the token names no session).
pub async fn signed_in_user(
    db: &Db,
    user_id: Uuid,
    session_id: Option<Uuid>,
) -> Result<Option<(Value, bool)>, ApiError> {
    const USER: &str = "select auth.gateway_user_json(u), \
          ($2::uuid is null or exists (select 1 from auth.sessions s where s.id = $2 and s.user_id = u.id)) \
        from auth.users u where u.id = $1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(USER, &[&user_id, &session_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (row.get(0), row.get(1))))
}

/// Which sessions `/logout` ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Local,
    Others,
}

pub async fn end_sessions(
    db: &Db,
    user_id: Uuid,
    current: Option<Uuid>,
    scope: Scope,
) -> Result<(), ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    match scope {
        Scope::Global => session.query("delete from auth.sessions where user_id = $1", &[&user_id]).await?,
        Scope::Local => {
            session
                .query("delete from auth.sessions where user_id = $1 and id = $2", &[&user_id, &current])
                .await?
        }
        Scope::Others => {
            let sql = "delete from auth.sessions where user_id = $1 and id is distinct from $2";
            session.query(sql, &[&user_id, &current]).await?
        }
    };
    session.commit().await
}

/// A user to create.
pub struct NewUser {
    pub id: Uuid,
    pub login: Login,
    pub password_hash: Option<String>,
    pub confirmed: bool,
    /// Set `confirmation_sent_at` (a sign-up waiting for confirmation).
    pub confirmation_sent: bool,
    pub user_metadata: Value,
    pub app_metadata: Value,
    pub banned_until: Option<DateTime<Utc>>,
}

/// Why a write was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    Email,
    Phone,
}

/// Whether a user already has this e-mail or phone.
pub async fn exists(db: &Db, login: &Login) -> Result<bool, ApiError> {
    Ok(credentials(db, login).await?.is_some())
}

/// Creates a user with its identity; optionally starts a session in the same
/// transaction (`/signup` with autoconfirm).
pub async fn create_user(
    db: &Db,
    user: &NewUser,
    session_for: Option<(&str, Option<&str>, Option<IpAddr>)>,
) -> Result<Result<(Value, Option<Started>), Conflict>, ApiError> {
    const INSERT: &str = "\
        with u as ( \
          insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password, \
            email_confirmed_at, phone_confirmed_at, confirmation_sent_at, raw_app_meta_data, raw_user_meta_data, \
            created_at, updated_at, banned_until, is_sso_user, is_anonymous, \
            confirmation_token, recovery_token, email_change_token_new, email_change) \
          values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2::text, $3::text, $4::text, \
            case when $5 and $2::text is not null then now() end, \
            case when $5 and $3::text is not null then now() end, \
            case when $6 then now() end, $7, $8, now(), now(), $9, false, false, '', '', '', '') \
          returning id) \
        insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
        select id::text, id, $10, $11, now(), now() from u";
    let (email, phone) = match &user.login {
        Login::Email(email) => (Some(email.to_lowercase()), None),
        Login::Phone(phone) => (None, Some(phone.clone())),
    };
    let identity_data = identity_data(user);
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let inserted = session
        .query(
            INSERT,
            &[
                &user.id,
                &email,
                &phone,
                &user.password_hash,
                &user.confirmed,
                &user.confirmation_sent,
                &user.app_metadata,
                &user.user_metadata,
                &user.banned_until,
                &identity_data,
                &user.login.provider(),
            ],
        )
        .await;
    if let Err(e) = inserted {
        return conflict(e, &user.login).map(Err);
    }
    let started = match session_for {
        Some((token_digest, user_agent, ip)) => Some(
            start_session_in(
                &mut session,
                user.id,
                SignIn { provider: user.login.provider(), method: method::PASSWORD },
                token_digest,
                user_agent,
                ip,
            )
            .await?,
        ),
        None => None,
    };
    let json =
        user_json_in(&mut session, user.id).await?.ok_or_else(|| ApiError::internal("user vanished"))?;
    session.commit().await?;
    Ok(Ok((json, started)))
}

/// GoTrue's identity data for an e-mail or phone identity, also merged into the
/// user's metadata as GoTrue does.
pub fn identity_data(user: &NewUser) -> Value {
    let id = user.id.to_string();
    match &user.login {
        Login::Email(email) => serde_json::json!({
            "sub": id, "email": email.to_lowercase(), "email_verified": user.confirmed, "phone_verified": false,
        }),
        Login::Phone(phone) => serde_json::json!({
            "sub": id, "phone": phone, "email_verified": false, "phone_verified": user.confirmed,
        }),
    }
}

fn conflict(error: ApiError, login: &Login) -> Result<Conflict, ApiError> {
    match &error {
        ApiError::Database(db) if db.code == "23505" => {
            let text = format!("{} {}", db.message, db.details.clone().unwrap_or_default());
            Ok(if text.contains("phone") {
                Conflict::Phone
            } else if text.contains("email") {
                Conflict::Email
            } else {
                match login {
                    Login::Email(_) => Conflict::Email,
                    Login::Phone(_) => Conflict::Phone,
                }
            })
        }
        _ => Err(error),
    }
}

/// Changes to a user. `None` leaves a field alone.
#[derive(Default)]
pub struct Changes {
    pub email: Option<String>,
    /// With `email`: change it at once (autoconfirm, admin) rather than record
    /// it as pending in `email_change`.
    pub email_confirmed_now: bool,
    pub phone: Option<String>,
    pub password_hash: Option<String>,
    pub confirm_email: bool,
    pub confirm_phone: bool,
    pub user_metadata: Option<Value>,
    pub app_metadata: Option<Value>,
    /// `Some(None)` lifts a ban.
    pub banned_until: Option<Option<DateTime<Utc>>>,
}

/// Applies `changes`; `Ok(None)` when there is no such user.
pub async fn update_user(
    db: &Db,
    id: Uuid,
    changes: &Changes,
) -> Result<Result<Option<Value>, Conflict>, ApiError> {
    const UPDATE: &str = "\
        with u as ( \
          update auth.users set \
            email = case when $2::text is not null and $3 then lower($2::text) else email end, \
            email_change = case when $2::text is not null and not $3 then lower($2::text) else email_change end, \
            email_change_sent_at = case when $2::text is not null and not $3 then now() else email_change_sent_at end, \
            email_confirmed_at = case when ($2::text is not null and $3) or $6 \
                                      then coalesce(email_confirmed_at, now()) else email_confirmed_at end, \
            phone = coalesce($4, phone), \
            phone_confirmed_at = case when $7 then coalesce(phone_confirmed_at, now()) else phone_confirmed_at end, \
            encrypted_password = coalesce($5, encrypted_password), \
            raw_user_meta_data = case when $8::jsonb is null then raw_user_meta_data \
                                      else auth.gateway_merge_metadata(raw_user_meta_data, $8) end, \
            raw_app_meta_data = case when $9::jsonb is null then raw_app_meta_data \
                                     else auth.gateway_merge_metadata(raw_app_meta_data, $9) end, \
            banned_until = case when $10 then $11 else banned_until end, \
            updated_at = now() \
          where id = $1 returning id), \
        i as ( \
          update auth.identities set \
            identity_data = identity_data || jsonb_build_object('email', lower($2::text), 'email_verified', true), \
            updated_at = now() \
          where user_id = $1 and provider = 'email' and $2::text is not null and $3) \
        select id from u";
    let ban_set = changes.banned_until.is_some();
    let ban_until = changes.banned_until.flatten();
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let result = session
        .query(
            UPDATE,
            &[
                &id,
                &changes.email,
                &changes.email_confirmed_now,
                &changes.phone,
                &changes.password_hash,
                &changes.confirm_email,
                &changes.confirm_phone,
                &changes.user_metadata,
                &changes.app_metadata,
                &ban_set,
                &ban_until,
            ],
        )
        .await;
    let rows = match result {
        Ok(rows) => rows,
        Err(e) => {
            let login = Login::Email(String::new());
            return conflict(e, &login).map(Err);
        }
    };
    if rows.is_empty() {
        session.rollback().await?;
        return Ok(Ok(None));
    }
    let json = user_json_in(&mut session, id).await?;
    session.commit().await?;
    Ok(Ok(json))
}

pub async fn find_user(db: &Db, id: Uuid) -> Result<Option<Value>, ApiError> {
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let user = user_json_in(&mut session, id).await?;
    session.commit().await?;
    Ok(user)
}

/// One page of users, newest first, and the total; with `filter`, only those
/// whose e-mail or `full_name` metadata holds it, as GoTrue's
/// `FindUsersInAudience` matches (`email like %f%`, the name `ilike`, the
/// filter's own `%` and `_` matching as they do there).
pub async fn list_users(
    db: &Db,
    filter: Option<&str>,
    page: i64,
    per_page: i64,
) -> Result<(Vec<Value>, i64), ApiError> {
    const MATCHES: &str = "($1::text is null or u.email like '%' || $1 || '%' \
        or u.raw_user_meta_data ->> 'full_name' ilike '%' || $1 || '%')";
    let page_sql = format!(
        "select auth.gateway_user_json(u) from auth.users u where {MATCHES} \
         order by u.created_at desc, u.id limit $2 offset $3"
    );
    let count_sql = format!("select count(*) from auth.users u where {MATCHES}");
    let filter = filter.filter(|f| !f.is_empty());
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let offset = (page - 1).max(0).saturating_mul(per_page);
    let users =
        session.query(&page_sql, &[&filter, &per_page, &offset]).await?.iter().map(|r| r.get(0)).collect();
    let total: i64 = session.query(&count_sql, &[&filter]).await?[0].get(0);
    session.commit().await?;
    Ok((users, total))
}

/// A user's sessions, newest first, as the console lists them.
pub async fn user_sessions(db: &Db, user_id: Uuid) -> Result<Vec<Value>, ApiError> {
    const SESSIONS: &str = "select coalesce(jsonb_agg(jsonb_build_object( \
          'id', s.id, 'created_at', s.created_at, 'updated_at', s.updated_at, \
          'refreshed_at', s.refreshed_at, 'aal', s.aal, 'not_after', s.not_after, \
          'user_agent', s.user_agent, 'ip', host(s.ip)) order by s.created_at desc, s.id), '[]') \
        from auth.sessions s where s.user_id = $1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SESSIONS, &[&user_id]).await?;
    session.commit().await?;
    let sessions: Value = rows[0].get(0);
    Ok(match sessions {
        Value::Array(items) => items,
        _ => Vec::new(),
    })
}

/// Deletes a user with its identities, sessions and tokens; false when absent.
pub async fn delete_user(db: &Db, id: Uuid) -> Result<bool, ApiError> {
    const DELETE: &str = "\
        with t as (delete from auth.refresh_tokens where user_id = $1::uuid::text) \
        delete from auth.users where id = $1 returning id";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(DELETE, &[&id]).await?;
    session.commit().await?;
    Ok(!rows.is_empty())
}

/// Creates an anonymous user and starts its first session, in one transaction
/// (GoTrue's `SignupAnonymously`): no e-mail, phone, password or identity;
/// `app_metadata` names the `anonymous` provider; `is_anonymous` is true.
pub async fn create_anonymous(
    db: &Db,
    user_metadata: &Value,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Started, ApiError> {
    const INSERT: &str = "\
        insert into auth.users (instance_id, id, aud, role, raw_app_meta_data, raw_user_meta_data, \
          created_at, updated_at, is_sso_user, is_anonymous, \
          confirmation_token, recovery_token, email_change_token_new, email_change) \
        values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', \
          '{\"provider\": \"anonymous\", \"providers\": [\"anonymous\"]}', $2, now(), now(), false, true, \
          '', '', '', '')";
    let id = Uuid::new_v4();
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(INSERT, &[&id, user_metadata]).await?;
    let sign_in = SignIn { provider: "anonymous", method: method::ANONYMOUS };
    let started = start_session_in(&mut session, id, sign_in, token_digest, user_agent, ip).await?;
    session.commit().await?;
    Ok(started)
}

/// An anonymous user whose e-mail was just set and confirmed becomes an e-mail
/// user as one who signed up (GoTrue's `emailChangeVerify` for anonymous
/// users): an `email` identity, and `app_metadata` naming the provider. The
/// `is_anonymous` flag itself is cleared by the trigger of
/// `sql/015_auth_mfa_anonymous.sql`.
pub async fn make_permanent(db: &Db, id: Uuid) -> Result<Option<Value>, ApiError> {
    const CONVERT: &str = "\
        with u as (select id, email from auth.users \
                   where id = $1 and email is not null and email_confirmed_at is not null \
                     and raw_app_meta_data->>'provider' = 'anonymous'), \
        i as (insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
              select u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', lower(u.email), \
                'email_verified', true, 'phone_verified', false), 'email', now(), now() from u \
              on conflict (provider_id, provider) do nothing) \
        update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}') \
            || '{\"provider\": \"email\", \"providers\": [\"email\"]}', updated_at = now() \
        where id in (select id from u)";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(CONVERT, &[&id]).await?;
    let user = user_json_in(&mut session, id).await?;
    session.commit().await?;
    Ok(user)
}
