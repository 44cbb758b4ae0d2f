//! The statements of passkeys (`auth.webauthn_credentials`,
//! `auth.webauthn_challenges`) and of the `webauthn` MFA factor
//! (`auth.mfa_factors`, `auth.mfa_challenges`), from `sql/055_auth_webauthn.sql`;
//! each in one transaction as service_role, like `store` and `mfa_store`.
//! The rules are GoTrue's (supabase/auth `internal/models/webauthn_*.go`,
//! `internal/api/passkey_*.go`, `mfa.go`).

use std::net::IpAddr;

use serde_json::Value;
use uuid::Uuid;

use super::config::AuthConfig;
use super::error::AuthError;
use super::store::{self, SignIn, Started, session_assurance};
use super::tokens;
use super::webauthn::Columns;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;

/// What a passkey ceremony's state is kept for (GoTrue's `challenge_type`).
#[derive(Clone, Copy)]
pub enum Ceremony {
    Registration,
    Authentication,
}

impl Ceremony {
    fn name(self) -> &'static str {
        match self {
            Ceremony::Registration => "registration",
            Ceremony::Authentication => "authentication",
        }
    }
}

/// Keeps a ceremony's state until it is verified: its id and expiry (Unix
/// time). Expired challenges of anyone are deleted on the way, so the table
/// holds only live ones.
pub async fn begin(
    db: &Db,
    config: &AuthConfig,
    ceremony: Ceremony,
    user_id: Option<Uuid>,
    state: &Value,
) -> Result<(Uuid, i64), ApiError> {
    const SWEEP: &str = "delete from auth.webauthn_challenges where expires_at < now()";
    const INSERT: &str = "insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, expires_at) \
        values ($1, $2, $3, $4, now() + make_interval(secs => $5::float8)) \
        returning extract(epoch from expires_at)::bigint";
    let id = Uuid::new_v4();
    let expiry = config.webauthn_challenge_expiry as f64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(SWEEP, &[]).await?;
    let rows = session.query(INSERT, &[&id, &user_id, &ceremony.name(), state, &expiry]).await?;
    session.commit().await?;
    let expires_at =
        rows.first().map(|row| row.get(0)).ok_or_else(|| ApiError::internal("no challenge row"))?;
    Ok((id, expires_at))
}

/// Takes a ceremony's state out, so it is used once whatever the outcome
/// (GoTrue's `ConsumeWebAuthnChallengeByID`): it must be of this ceremony
/// and user (no user for a sign-in), and not expired.
pub async fn consume(
    db: &Db,
    id: Uuid,
    ceremony: Ceremony,
    user_id: Option<Uuid>,
) -> Result<Value, ApiError> {
    const CONSUME: &str = "delete from auth.webauthn_challenges \
        where id = $1 and challenge_type = $2 and user_id is not distinct from $3 \
        returning session_data, expires_at < now()";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(CONSUME, &[&id, &ceremony.name(), &user_id]).await?;
    session.commit().await?;
    let Some(row) = rows.first() else {
        return Err(AuthError::webauthn_challenge_not_found().into());
    };
    if row.get::<_, bool>(1) {
        return Err(AuthError::webauthn_challenge_expired().into());
    }
    Ok(row.get(0))
}

/// The ids of a user's passkeys, which a new registration excludes.
pub async fn credential_ids(db: &Db, user_id: Uuid) -> Result<Vec<Vec<u8>>, ApiError> {
    const SQL: &str =
        "select credential_id from auth.webauthn_credentials where user_id = $1 order by created_at";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SQL, &[&user_id]).await?;
    session.commit().await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// A passkey as the routes answer it (GoTrue's `PasskeyMetadataResponse`
/// and `PasskeyListItem`).
const PASSKEY_JSON: &str = "jsonb_strip_nulls(jsonb_build_object('id', c.id, \
    'friendly_name', nullif(c.friendly_name, ''), 'created_at', auth.gateway_timestamp(c.created_at), \
    'last_used_at', auth.gateway_timestamp(c.last_used_at)))";

/// Stores a verified registration under the user's limit (their row locked,
/// so two registrations cannot both slip under it).
pub async fn register(
    db: &Db,
    config: &AuthConfig,
    user_id: Uuid,
    columns: &Columns,
) -> Result<Value, ApiError> {
    const LOCK: &str = "select 1 from auth.users where id = $1 for update";
    const COUNT: &str = "select count(*) from auth.webauthn_credentials where user_id = $1";
    let insert = format!(
        "insert into auth.webauthn_credentials as c (user_id, credential_id, public_key, attestation_type, \
           sign_count, transports, backup_eligible, backed_up, friendly_name, gateway_credential) \
         values ($1, $2, $3, 'none', $4, $5, $6, $7, 'Passkey', $8) \
         on conflict (credential_id) do nothing returning {PASSKEY_JSON}"
    );
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(LOCK, &[&user_id]).await?;
    let count: i64 = session.query(COUNT, &[&user_id]).await?.first().map_or(0, |row| row.get(0));
    if count >= i64::from(config.passkey_max_passkeys_per_user) {
        session.rollback().await?;
        return Err(AuthError::too_many_passkeys().into());
    }
    let c = columns;
    let rows = session
        .query(
            &insert,
            &[
                &user_id,
                &c.credential_id,
                &c.public_key,
                &c.sign_count,
                &c.transports,
                &c.backup_eligible,
                &c.backed_up,
                &c.credential,
            ],
        )
        .await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Err(AuthError::webauthn_credential_exists().into());
    };
    let passkey = row.get(0);
    session.commit().await?;
    Ok(passkey)
}

/// A passkey found by the id the authenticator presented: its owner and
/// credential; `None` when no passkey has it.
pub async fn find_by_credential_id(db: &Db, credential_id: &[u8]) -> Result<Option<(Uuid, Value)>, ApiError> {
    const SQL: &str = "select user_id, gateway_credential from auth.webauthn_credentials \
        where credential_id = $1 and gateway_credential is not null";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SQL, &[&credential_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (row.get(0), row.get(1))))
}

/// Starts the session of a passkey sign-in and records the passkey's use,
/// with its new counter and backup flags, in one transaction. The user must
/// be confirmed and not banned (GoTrue's `PasskeyAuthenticationVerify`).
pub async fn sign_in(
    db: &Db,
    user_id: Uuid,
    columns: &Columns,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Started, ApiError> {
    const USER: &str = "select coalesce(email, '') <> '' and email_confirmed_at is null, \
          coalesce(phone, '') <> '' and phone_confirmed_at is null, \
          coalesce(banned_until > now(), false) \
        from auth.users where id = $1 and deleted_at is null for update";
    const USED: &str = "update auth.webauthn_credentials set sign_count = greatest(sign_count, $2), \
          backup_eligible = $3, backed_up = $4, gateway_credential = $5, last_used_at = now(), updated_at = now() \
        where credential_id = $1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(USER, &[&user_id]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Err(AuthError::webauthn_verification_failed().into());
    };
    let refusal = if row.get(0) {
        Some(AuthError::email_not_confirmed())
    } else if row.get(1) {
        Some(AuthError::phone_not_confirmed())
    } else if row.get(2) {
        Some(AuthError::user_banned())
    } else {
        None
    };
    if let Some(refusal) = refusal {
        session.rollback().await?;
        return Err(refusal.into());
    }
    let c = columns;
    session
        .query(USED, &[&c.credential_id, &c.sign_count, &c.backup_eligible, &c.backed_up, &c.credential])
        .await?;
    let how = SignIn { provider: "passkey", method: store::method::PASSKEY };
    let started = store::start_session_in(&mut session, user_id, how, token_digest, user_agent, ip).await?;
    session.commit().await?;
    Ok(started)
}

/// A user's passkeys, oldest first (`GET /passkeys`).
pub async fn list(db: &Db, user_id: Uuid) -> Result<Value, ApiError> {
    let sql = format!(
        "select coalesce(jsonb_agg({PASSKEY_JSON} order by c.created_at), '[]'::jsonb) \
         from auth.webauthn_credentials c where c.user_id = $1"
    );
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(&sql, &[&user_id]).await?;
    session.commit().await?;
    Ok(rows.first().map_or(Value::Array(Vec::new()), |row| row.get(0)))
}

/// Renames one of the user's passkeys; `None` when it is not theirs.
pub async fn rename(db: &Db, user_id: Uuid, id: Uuid, name: &str) -> Result<Option<Value>, ApiError> {
    let sql = format!(
        "update auth.webauthn_credentials c set friendly_name = $3, updated_at = now() \
         where c.id = $1 and c.user_id = $2 returning {PASSKEY_JSON}"
    );
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(&sql, &[&id, &user_id, &name]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| row.get(0)))
}

/// Deletes one of the user's passkeys; `false` when it is not theirs.
pub async fn delete(db: &Db, user_id: Uuid, id: Uuid) -> Result<bool, ApiError> {
    const SQL: &str = "delete from auth.webauthn_credentials where id = $1 and user_id = $2 returning 1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let deleted = session.query(SQL, &[&id, &user_id]).await?;
    session.commit().await?;
    Ok(!deleted.is_empty())
}

/// A `webauthn` factor of the user: whether it is verified and its
/// credential once it is. Another user's factor is not found.
pub async fn factor(
    db: &Db,
    user_id: Uuid,
    factor_id: Uuid,
) -> Result<Option<(bool, Option<Value>)>, ApiError> {
    const SQL: &str = "select status = 'verified', web_authn_credential from auth.mfa_factors \
        where id = $1 and user_id = $2 and factor_type = 'webauthn'";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SQL, &[&factor_id, &user_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (row.get(0), row.get(1))))
}

/// The credential ids of the user's verified `webauthn` factors, which
/// enrolling another excludes.
pub async fn factor_credential_ids(db: &Db, user_id: Uuid) -> Result<Vec<Vec<u8>>, ApiError> {
    const SQL: &str = "select web_authn_credential from auth.mfa_factors \
        where user_id = $1 and factor_type = 'webauthn' and status = 'verified' \
          and web_authn_credential is not null";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SQL, &[&user_id]).await?;
    session.commit().await?;
    let mut ids = Vec::new();
    for row in rows {
        let passkey = super::webauthn::passkey(row.get(0))?;
        ids.push(passkey.cred_id().to_vec());
    }
    Ok(ids)
}

/// A challenge of a `webauthn` factor holding its ceremony's state (`kind`
/// is `create` or `request`, as GoTrue's `WebAuthnChallengeData`): its id
/// and expiry (Unix time).
pub async fn challenge_factor(
    db: &Db,
    config: &AuthConfig,
    user_id: Uuid,
    factor_id: Uuid,
    ip: IpAddr,
    kind: &str,
    state: Value,
) -> Result<Option<(Uuid, i64)>, ApiError> {
    const SQL: &str = "\
        with f as (update auth.mfa_factors set last_challenged_at = clock_timestamp(), updated_at = now() \
                   where id = $2 and user_id = $3 returning id) \
        insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, web_authn_session_data) \
        select $1, f.id, now(), $4, $5 from f \
        returning extract(epoch from created_at)::bigint + $6";
    let id = Uuid::new_v4();
    let data = serde_json::json!({ "type": kind, "state": state });
    let expiry = config.mfa_challenge_expiry as i64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(SQL, &[&id, &factor_id, &user_id, &ip, &data, &expiry]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (id, row.get(0))))
}

/// Takes a factor's challenge out (single use, whatever the outcome), as
/// `mfa_store::verify` checks TOTP's: the factor's, from the same address,
/// not expired. Its ceremony kind and state.
pub async fn consume_factor_challenge(
    db: &Db,
    config: &AuthConfig,
    factor_id: Uuid,
    challenge_id: Uuid,
    ip: IpAddr,
) -> Result<(String, Value), ApiError> {
    const SQL: &str = "delete from auth.mfa_challenges where id = $1 and factor_id = $2 \
        returning verified_at is not null, ip_address = $3, \
          extract(epoch from now() - created_at)::float8 > $4::float8, web_authn_session_data";
    let expiry = config.mfa_challenge_expiry as f64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(SQL, &[&challenge_id, &factor_id, &ip, &expiry]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Err(AuthError::mfa_challenge_not_found().into());
    };
    let (verified, same_ip, expired, data): (bool, bool, bool, Option<Value>) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    if verified || !same_ip {
        // Left in place, as TOTP's: the rightful client may still use it.
        session.rollback().await?;
        return Err(AuthError::mfa_ip_address_mismatch().into());
    }
    session.commit().await?;
    if expired {
        return Err(AuthError::mfa_challenge_expired(challenge_id).into());
    }
    let mut data = data.ok_or_else(AuthError::mfa_challenge_not_found)?;
    let kind = data.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok((kind, data["state"].take()))
}

/// What a verified `webauthn` factor ceremony changes.
pub struct FactorVerified<'a> {
    pub user_id: Uuid,
    pub session_id: Uuid,
    pub factor_id: Uuid,
    /// The factor's credential, new (`create`) or with its new counter.
    pub credential: &'a Value,
    /// What GoTrue keeps in `last_webauthn_challenge_data`.
    pub last_challenge: &'a Value,
}

/// Accepts a `webauthn` factor's ceremony, as `mfa_store::verify` accepts a
/// TOTP code: the factor becomes verified with its credential, the session
/// `aal2` with an `mfa/webauthn` amr entry, the user's other `aal1` sessions
/// and unverified `webauthn` factors are deleted, and the session gets a
/// fresh refresh token (its earlier ones revoked).
pub async fn accept_factor(db: &Db, v: &FactorVerified<'_>) -> Result<(Started, String), ApiError> {
    const ACCEPT: &str = "\
        with f as (update auth.mfa_factors set status = 'verified', web_authn_credential = $3, \
                     last_webauthn_challenge_data = $4, updated_at = now() \
                   where id = $2 and user_id = $5 and factor_type = 'webauthn' returning id), \
        s as (update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() \
              where id = $1 and user_id = $5 and exists (select 1 from f) returning id), \
        a as (insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method) \
              select s.id, now(), now(), 'mfa/webauthn' from s \
              on conflict (session_id, authentication_method) do update set updated_at = now()), \
        o as (delete from auth.sessions where user_id = $5 and id <> $1 and (aal is null or aal = 'aal1') \
              and exists (select 1 from s)), \
        u as (delete from auth.mfa_factors where user_id = $5 and id <> $2 and factor_type = 'webauthn' \
              and status = 'unverified' and exists (select 1 from s)), \
        r as (update auth.refresh_tokens set revoked = true, updated_at = now() \
              where session_id = $1 and not revoked and exists (select 1 from s)) \
        insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
        select '00000000-0000-0000-0000-000000000000', $6, $5::uuid::text, false, now(), now(), s.id from s \
        returning 1";
    const USER: &str = "select auth.gateway_user_json(u) from auth.users u where u.id = $1";
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session
        .query(ACCEPT, &[&v.session_id, &v.factor_id, v.credential, v.last_challenge, &v.user_id, &digest])
        .await?;
    if rows.is_empty() {
        session.rollback().await?;
        return Err(AuthError::session_not_found().into());
    }
    let user = session.query(USER, &[&v.user_id]).await?;
    let user = user.first().map(|row| row.get(0)).ok_or_else(|| ApiError::internal("user vanished"))?;
    let (aal, amr) = session_assurance(&mut session, v.session_id).await?;
    session.commit().await?;
    Ok((Started { session_id: v.session_id, aal, amr, user }, refresh_token))
}
