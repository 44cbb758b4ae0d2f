//! The statements of MFA (`auth.mfa_factors`, `auth.mfa_challenges`,
//! `sql/015_auth_mfa_anonymous.sql`), each in one transaction as service_role,
//! like `store`. The rules are GoTrue's (supabase/auth `internal/api/mfa.go`,
//! `internal/models/factor.go`, `challenge.go`, `sessions.go`).

use std::net::IpAddr;

use axum::http::StatusCode;
use uuid::Uuid;

use super::config::{AuthConfig, MFA_ATTEMPTS_PER_CHALLENGE};
use super::error::AuthError;
use super::mfa::{self, Sealer};
use super::store::{Started, session_assurance};
use super::tokens;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;

/// A signed-in session's assurance level (`aal1` without a session row) and
/// how many verified factors its user has.
pub async fn assurance(db: &Db, user_id: Uuid, session_id: Option<Uuid>) -> Result<(String, i64), ApiError> {
    const SQL: &str = "select coalesce((select aal::text from auth.sessions where id = $2 and user_id = $1), 'aal1'), \
        (select count(*) from auth.mfa_factors where user_id = $1 and status = 'verified')";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let row = session.query(SQL, &[&user_id, &session_id]).await?;
    session.commit().await?;
    let row = row.first().ok_or_else(|| ApiError::internal("no assurance row"))?;
    Ok((row.get(0), row.get(1)))
}

/// A new unverified factor: `totp` with its sealed secret, or `webauthn`,
/// whose credential comes with its first verification.
pub struct NewFactor<'a> {
    pub user_id: Uuid,
    pub id: Uuid,
    pub factor_type: &'a str,
    pub friendly_name: &'a str,
    pub sealed_secret: Option<&'a str>,
    pub session_aal: &'a str,
}

/// Enrols a factor under GoTrue's `validateFactors`: unverified factors older
/// than the challenge expiry go first; then the friendly name must be new, the
/// counts under their limits, and a user who already has a verified factor
/// must be at `aal2`. The user's row is locked so two enrolments cannot both
/// slip under a limit.
pub async fn enroll(db: &Db, config: &AuthConfig, factor: &NewFactor<'_>) -> Result<(), ApiError> {
    const LOCK: &str = "select 1 from auth.users where id = $1 for update";
    const EXPIRED: &str = "delete from auth.mfa_factors where user_id = $1 and status = 'unverified' \
        and created_at < now() - make_interval(secs => $2::float8)";
    const COUNTS: &str = "select count(*), count(*) filter (where status = 'verified'), \
        coalesce(bool_or(friendly_name = $2), false) from auth.mfa_factors where user_id = $1";
    const INSERT: &str = "insert into auth.mfa_factors \
        (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret) \
        values ($1, $2, $3, $5::text::auth.factor_type, 'unverified', now(), now(), $4)";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(LOCK, &[&factor.user_id]).await?;
    session.query(EXPIRED, &[&factor.user_id, &(config.mfa_challenge_expiry as f64)]).await?;
    let rows = session.query(COUNTS, &[&factor.user_id, &factor.friendly_name]).await?;
    let row = rows.first().ok_or_else(|| ApiError::internal("no factor counts"))?;
    let (all, verified, name_taken): (i64, i64, bool) = (row.get(0), row.get(1), row.get(2));
    // GoTrue compares names even when empty: a second unnamed factor conflicts.
    let refusal = if name_taken {
        Some(AuthError::mfa_factor_name_conflict(factor.friendly_name))
    } else if all >= i64::from(config.mfa_max_enrolled_factors)
        || verified >= i64::from(config.mfa_max_verified_factors)
    {
        Some(AuthError::too_many_enrolled_mfa_factors())
    } else if verified > 0 && factor.session_aal != "aal2" {
        Some(AuthError::insufficient_aal(StatusCode::FORBIDDEN, "AAL2 required to enroll a new factor"))
    } else {
        None
    };
    if let Some(refusal) = refusal {
        session.rollback().await?;
        return Err(refusal.into());
    }
    session
        .query(
            INSERT,
            &[&factor.id, &factor.user_id, &factor.friendly_name, &factor.sealed_secret, &factor.factor_type],
        )
        .await?;
    session.commit().await
}

/// One of the user's factors: its type and whether it is verified. Another
/// user's factor is not found, exactly like one that does not exist.
pub async fn find(db: &Db, user_id: Uuid, factor_id: Uuid) -> Result<Option<(String, bool)>, ApiError> {
    const SQL: &str = "select factor_type::text, status = 'verified' from auth.mfa_factors \
        where id = $1 and user_id = $2";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(SQL, &[&factor_id, &user_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (row.get(0), row.get(1))))
}

/// A challenge of the user's factor, from `ip`: its id and expiry (Unix
/// time); `None` when the factor is not the user's.
pub async fn challenge(
    db: &Db,
    config: &AuthConfig,
    user_id: Uuid,
    factor_id: Uuid,
    ip: Option<IpAddr>,
) -> Result<Option<(Uuid, i64)>, ApiError> {
    const SQL: &str = "\
        with f as (update auth.mfa_factors set last_challenged_at = clock_timestamp(), updated_at = now() \
                   where id = $2 and user_id = $3 returning id) \
        insert into auth.mfa_challenges (id, factor_id, created_at, ip_address) \
        select $1, f.id, now(), $4 from f \
        returning extract(epoch from created_at)::bigint + $5";
    let id = Uuid::new_v4();
    let expiry = config.mfa_challenge_expiry as i64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(SQL, &[&id, &factor_id, &user_id, &address(ip), &expiry]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| (id, row.get(0))))
}

/// Challenges store an address; an unknown one is stored as 0.0.0.0.
fn address(ip: Option<IpAddr>) -> IpAddr {
    ip.unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

/// What verifying a code asks for.
pub struct Verification<'a> {
    pub user_id: Uuid,
    pub session_id: Uuid,
    pub factor_id: Uuid,
    pub challenge_id: Uuid,
    pub code: &'a str,
    pub ip: Option<IpAddr>,
}

/// Verifies a TOTP code against a challenge, as GoTrue's `verifyTOTPFactor`,
/// with the factor's row locked so concurrent attempts queue:
///
/// 1. the challenge must be the factor's, unverified and from the same
///    address (else GoTrue's "IP addresses mismatch"), and not expired (an
///    expired one is deleted);
/// 2. the code must be the current step's or one either side, and of a later
///    step than the last code accepted, so a code is never accepted twice; a
///    wrong code counts against the challenge, which is deleted after
///    [`MFA_ATTEMPTS_PER_CHALLENGE`] of them;
/// 3. then the challenge is verified, the factor too, the session becomes
///    `aal2` with a `totp` amr entry, the user's other `aal1` sessions and
///    unverified TOTP factors are deleted, and the session gets a fresh
///    refresh token (its earlier ones are revoked, so an `aal1` token cannot
///    refresh into this `aal2` session: GoTrue bumps its counter by two for the
///    same reason).
pub async fn verify(
    db: &Db,
    config: &AuthConfig,
    sealer: &Sealer,
    v: &Verification<'_>,
) -> Result<(Started, String), ApiError> {
    const FACTOR: &str = "select secret, gateway_last_totp_step from auth.mfa_factors \
        where id = $1 and user_id = $2 and factor_type = 'totp' for update";
    const CHALLENGE: &str = "select verified_at is not null, ip_address = $3, \
        extract(epoch from now() - created_at)::float8 > $4::float8, gateway_attempts \
        from auth.mfa_challenges where id = $1 and factor_id = $2";
    const DROP: &str = "delete from auth.mfa_challenges where id = $1";
    const MISS: &str = "update auth.mfa_challenges set gateway_attempts = gateway_attempts + 1 where id = $1";
    const ACCEPT: &str = "\
        with c as (update auth.mfa_challenges set verified_at = now() where id = $1), \
        f as (update auth.mfa_factors set status = 'verified', gateway_last_totp_step = $3, updated_at = now() \
              where id = $2), \
        s as (update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() \
              where id = $4 and user_id = $5 returning id), \
        a as (insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method) \
              select s.id, now(), now(), 'totp' from s \
              on conflict (session_id, authentication_method) do update set updated_at = now()), \
        o as (delete from auth.sessions where user_id = $5 and id <> $4 and (aal is null or aal = 'aal1')), \
        u as (delete from auth.mfa_factors where user_id = $5 and id <> $2 and factor_type = 'totp' \
              and status = 'unverified'), \
        r as (update auth.refresh_tokens set revoked = true, updated_at = now() \
              where session_id = $4 and not revoked) \
        insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
        select '00000000-0000-0000-0000-000000000000', $6, $5::uuid::text, false, now(), now(), s.id from s \
        returning 1";
    const USER: &str = "select auth.gateway_user_json(u) from auth.users u where u.id = $1";

    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(FACTOR, &[&v.factor_id, &v.user_id]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Err(AuthError::mfa_factor_not_found().into());
    };
    let (sealed, last_step): (Option<String>, Option<i64>) = (row.get(0), row.get(1));
    let expiry = config.mfa_challenge_expiry as f64;
    let rows = session.query(CHALLENGE, &[&v.challenge_id, &v.factor_id, &address(v.ip), &expiry]).await?;
    let Some(row) = rows.first() else {
        session.rollback().await?;
        return Err(AuthError::mfa_challenge_not_found().into());
    };
    let (verified, same_ip, expired, attempts): (bool, bool, bool, i32) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    if verified || !same_ip {
        session.rollback().await?;
        return Err(AuthError::mfa_ip_address_mismatch().into());
    }
    if expired {
        session.query(DROP, &[&v.challenge_id]).await?;
        session.commit().await?;
        return Err(AuthError::mfa_challenge_expired(v.challenge_id).into());
    }
    let secret = sealed
        .and_then(|sealed| sealer.open(&v.factor_id.to_string(), &sealed))
        .ok_or_else(|| ApiError::internal("a TOTP secret did not open: AUTH_MFA_ENCRYPTION_KEY changed?"))?;
    let step = mfa::matching_step(&secret, v.code.trim(), gateway_core::jwt::now() as i64)
        .filter(|step| last_step.is_none_or(|last| *step > last));
    let Some(step) = step else {
        let sql = if attempts + 1 >= MFA_ATTEMPTS_PER_CHALLENGE { DROP } else { MISS };
        session.query(sql, &[&v.challenge_id]).await?;
        session.commit().await?;
        return Err(AuthError::mfa_verification_failed().into());
    };
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let rows = session
        .query(ACCEPT, &[&v.challenge_id, &v.factor_id, &step, &v.session_id, &v.user_id, &digest])
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

/// Deletes one of the user's factors. A verified one needs an `aal2` session
/// (GoTrue's `UnenrollFactor`); sessions it raised to `aal2` go back to
/// `aal1` and lose its `totp` amr entry. `Ok(false)` when not the user's.
pub async fn unenroll(db: &Db, user_id: Uuid, factor_id: Uuid, session_aal: &str) -> Result<bool, ApiError> {
    const LOCK: &str =
        "select status = 'verified' from auth.mfa_factors where id = $1 and user_id = $2 for update";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(LOCK, &[&factor_id, &user_id]).await?;
    let Some(verified) = rows.first().map(|row| row.get::<_, bool>(0)) else {
        session.rollback().await?;
        return Ok(false);
    };
    if verified && session_aal != "aal2" {
        session.rollback().await?;
        let message = "AAL2 required to unenroll verified factor";
        return Err(AuthError::insufficient_aal(StatusCode::UNPROCESSABLE_ENTITY, message).into());
    }
    session.query(DELETE_FACTOR, &[&factor_id]).await?;
    session.commit().await?;
    Ok(true)
}

/// Deletes a factor, and takes the sessions it raised back to `aal1`
/// without their `totp` or `mfa/webauthn` amr entry (GoTrue's
/// `DowngradeSessionsToAAL1`).
const DELETE_FACTOR: &str = "\
    with d as (update auth.sessions set aal = 'aal1', factor_id = null where factor_id = $1 returning id), \
    a as (delete from auth.mfa_amr_claims where session_id in (select id from d) \
          and authentication_method in ('totp', 'mfa/webauthn')) \
    delete from auth.mfa_factors where id = $1";

/// A user's factors as GoTrue's admin API lists them (`adminUserGetFactors`):
/// `None` when there is no such user.
pub async fn list(db: &Db, user_id: Uuid) -> Result<Option<serde_json::Value>, ApiError> {
    const LIST: &str = "select coalesce((select jsonb_agg(auth.gateway_factor_json(f) order by f.created_at) \
          from auth.mfa_factors f where f.user_id = u.id), '[]'::jsonb) \
        from auth.users u where u.id = $1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(LIST, &[&user_id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| row.get(0)))
}

/// Deletes one of a user's factors, verified or not, as the admin API does
/// (`adminUserDeleteFactor`), and returns it; `None` when it is not that
/// user's.
pub async fn delete_as_admin(
    db: &Db,
    user_id: Uuid,
    factor_id: Uuid,
) -> Result<Option<serde_json::Value>, ApiError> {
    const LOCK: &str = "select auth.gateway_factor_json(f) from auth.mfa_factors f \
        where f.id = $1 and f.user_id = $2 for update";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(LOCK, &[&factor_id, &user_id]).await?;
    let Some(factor) = rows.first().map(|row| row.get::<_, serde_json::Value>(0)) else {
        session.rollback().await?;
        return Ok(None);
    };
    session.query(DELETE_FACTOR, &[&factor_id]).await?;
    session.commit().await?;
    Ok(Some(factor))
}
