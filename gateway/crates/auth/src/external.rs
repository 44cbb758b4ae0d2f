//! The statements of sign-in through external providers, on `auth.flow_state`
//! and `auth.identities` (`sql/016_auth_oauth.sql`), as fixed SQL with bound
//! parameters run as service_role, like `store`.

use std::net::IpAddr;

use serde_json::{Value, json};
use uuid::Uuid;

use super::store::{self, SignIn, Started};
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// How long a flow may take from `/authorize` to `/token?grant_type=pkce`
/// (GoTrue's `GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION` default: 300 s).
pub const FLOW_EXPIRY_SECS: i64 = 300;

/// A sign-in starting at `/authorize`.
pub struct NewFlow<'a> {
    pub id: Uuid,
    pub provider: &'a str,
    /// `Some((challenge, method))` for PKCE; with it an auth code is made.
    pub pkce: Option<(&'a str, &'a str)>,
    pub auth_code: Option<&'a str>,
    pub referrer: &'a str,
    pub nonce: &'a str,
    pub linking_target: Option<Uuid>,
}

pub async fn create_flow(db: &Db, flow: &NewFlow<'_>) -> Result<(), ApiError> {
    // Flows nobody finished are useless after their 5 minutes; each new one
    // clears a few of those a day old (GoTrue's cleanup does the same).
    const INSERT: &str = "\
        with stale as (delete from auth.flow_state where id in ( \
          select id from auth.flow_state where created_at < now() - interval '24 hours' limit 100)) \
        insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge, \
          provider_type, created_at, updated_at, authentication_method, referrer, linking_target_id, nonce) \
        values ($1, $2, $3::text::auth.code_challenge_method, $4, $5, now(), now(), 'oauth', $6, $7, $8)";
    let (challenge, method) = flow.pkce.unzip();
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session
        .query(
            INSERT,
            &[
                &flow.id,
                &flow.auth_code,
                &method,
                &challenge,
                &flow.provider,
                &flow.referrer,
                &flow.linking_target,
                &flow.nonce,
            ],
        )
        .await?;
    session.commit().await
}

/// A flow as `/callback` finds it.
pub struct Flow {
    pub id: Uuid,
    pub provider: String,
    pub referrer: Option<String>,
    pub nonce: Option<String>,
    pub pkce: bool,
    pub linking_target: Option<Uuid>,
}

pub enum Claimed {
    Found(Flow),
    NotFound,
    Expired,
    /// The state was presented to `/callback` before.
    Used,
}

/// Marks the flow's state as presented; a state works once.
pub async fn claim_state(db: &Db, id: Uuid) -> Result<Claimed, ApiError> {
    const CLAIM: &str = "with old as (select id, state_used_at, user_id, \
            created_at < now() - make_interval(secs => $2) as expired \
          from auth.flow_state where id = $1 for update) \
        update auth.flow_state f set state_used_at = coalesce(f.state_used_at, now()), updated_at = now() \
        from old where f.id = old.id \
        returning f.provider_type, f.referrer, f.nonce, f.code_challenge is not null, f.linking_target_id, \
          old.state_used_at is not null or old.user_id is not null, old.expired";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(CLAIM, &[&id, &(FLOW_EXPIRY_SECS as f64)]).await?;
    session.commit().await?;
    let Some(row) = rows.first() else { return Ok(Claimed::NotFound) };
    if row.get::<_, bool>(5) {
        return Ok(Claimed::Used);
    }
    if row.get::<_, bool>(6) {
        return Ok(Claimed::Expired);
    }
    Ok(Claimed::Found(Flow {
        id,
        provider: row.get(0),
        referrer: row.get(1),
        nonce: row.get(2),
        pkce: row.get(3),
        linking_target: row.get(4),
    }))
}

/// Records who signed in on a PKCE flow; returns its auth code.
pub async fn complete_flow(
    db: &Db,
    id: Uuid,
    user_id: Uuid,
    provider_access_token: &str,
    provider_refresh_token: Option<&str>,
) -> Result<Option<String>, ApiError> {
    const COMPLETE: &str = "update auth.flow_state set user_id = $2, provider_access_token = $3, \
          provider_refresh_token = $4, auth_code_issued_at = now(), updated_at = now() \
        where id = $1 and user_id is null returning auth_code";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows =
        session.query(COMPLETE, &[&id, &user_id, &provider_access_token, &provider_refresh_token]).await?;
    session.commit().await?;
    Ok(rows.first().and_then(|r| r.get(0)))
}

pub async fn delete_flow(db: &Db, id: Uuid) -> Result<(), ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query("delete from auth.flow_state where id = $1", &[&id]).await?;
    session.commit().await
}

/// A flow found by its auth code, locked for the exchange.
pub struct Exchange {
    pub id: Uuid,
    pub user_id: Uuid,
    pub provider: String,
    pub method: String,
    pub challenge: String,
    pub challenge_method: String,
    pub expired: bool,
    pub provider_access_token: Option<String>,
    pub provider_refresh_token: Option<String>,
}

/// `/token?grant_type=pkce` in one transaction: the flow is locked, `check`
/// judges it, and only when it passes is it deleted and a session started.
pub async fn exchange<E>(
    db: &Db,
    auth_code: &str,
    check: impl FnOnce(Option<&Exchange>) -> Result<(), E>,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Result<(Exchange, Started), E>, ApiError> {
    const FIND: &str = "select id, user_id, provider_type, authentication_method, coalesce(code_challenge, ''), \
          coalesce(code_challenge_method::text, ''), \
          coalesce(auth_code_issued_at, created_at) < now() - make_interval(secs => $2), \
          provider_access_token, provider_refresh_token \
        from auth.flow_state where auth_code = $1 and user_id is not null for update";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(FIND, &[&auth_code, &(FLOW_EXPIRY_SECS as f64)]).await?;
    let found = rows.first().map(|row| Exchange {
        id: row.get(0),
        user_id: row.get(1),
        provider: row.get(2),
        method: row.get(3),
        challenge: row.get(4),
        challenge_method: row.get(5),
        expired: row.get(6),
        provider_access_token: row.get(7),
        provider_refresh_token: row.get(8),
    });
    if let Err(e) = check(found.as_ref()) {
        session.rollback().await?;
        return Ok(Err(e));
    }
    let found = found.ok_or_else(|| ApiError::internal("flow vanished"))?;
    session.query("delete from auth.flow_state where id = $1", &[&found.id]).await?;
    let sign_in = SignIn { provider: &found.provider, method: &found.method };
    let started =
        store::start_session_in(&mut session, found.user_id, sign_in, token_digest, user_agent, ip).await?;
    session.commit().await?;
    Ok(Ok((found, started)))
}

/// What a provider said about the user signing in.
pub struct External<'a> {
    pub provider: &'a str,
    pub subject: &'a str,
    pub email: Option<&'a str>,
    pub email_verified: bool,
    pub identity_data: &'a Value,
}

/// Whom an external sign-in is for.
pub enum Account {
    Found(Uuid),
    Banned,
    /// Linking: the identity belongs to another user.
    IdentityTaken,
    /// Linking: the identity is the target's already.
    AlreadyLinked,
    /// The provider's unverified address is another account's.
    EmailTaken,
    /// A new user would be needed, and sign-ups are off.
    SignupDisabled,
}

/// GoTrue's account linking (`models.DetermineAccountLinking`), narrowed:
///
/// 1. the identity (provider, subject) exists: its user, identity data renewed;
/// 2. linking (`target`): the identity is added to that user;
/// 3. the provider vouches for the address (`email_verified`) and a user
///    has it: the identity is added to that user;
/// 4. otherwise a new user, confirmed when the address is verified or
///    `autoconfirm` is on, unless sign-ups are off; an unverified address
///    someone already has is refused.
pub async fn find_or_create(
    db: &Db,
    external: &External<'_>,
    target: Option<Uuid>,
    autoconfirm: bool,
    signup_enabled: bool,
) -> Result<Account, ApiError> {
    const IDENTITY: &str = "update auth.identities set identity_data = $3, updated_at = now() \
        where provider = $1 and provider_id = $2 returning user_id";
    const BY_EMAIL: &str = "select id from auth.users where lower(email) = lower($1) and deleted_at is null \
        and not is_sso_user order by created_at limit 1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows =
        session.query(IDENTITY, &[&external.provider, &external.subject, external.identity_data]).await?;
    let owner: Option<Uuid> = rows.first().map(|r| r.get(0));
    let user_id = match (owner, target) {
        (Some(owner), Some(target)) => {
            session.rollback().await?;
            return Ok(if owner == target { Account::AlreadyLinked } else { Account::IdentityTaken });
        }
        (Some(owner), _) => owner,
        (None, Some(target)) => {
            add_identity(&mut session, target, external).await?;
            target
        }
        (None, None) => {
            let existing = match external.email {
                Some(email) => session.query(BY_EMAIL, &[&email]).await?.first().map(|r| r.get::<_, Uuid>(0)),
                None => None,
            };
            match existing {
                Some(user) if external.email_verified => {
                    add_identity(&mut session, user, external).await?;
                    user
                }
                Some(_) => {
                    session.rollback().await?;
                    return Ok(Account::EmailTaken);
                }
                None if !signup_enabled => {
                    session.rollback().await?;
                    return Ok(Account::SignupDisabled);
                }
                None => create_user(&mut session, external, external.email_verified || autoconfirm).await?,
            }
        }
    };
    const BANNED: &str = "select coalesce(banned_until > now(), false) from auth.users where id = $1";
    let banned = session.query(BANNED, &[&user_id]).await?.first().is_some_and(|r| r.get::<_, bool>(0));
    session.commit().await?;
    Ok(if banned { Account::Banned } else { Account::Found(user_id) })
}

async fn add_identity(session: &mut Session, user_id: Uuid, external: &External<'_>) -> Result<(), ApiError> {
    const ADD: &str = "\
        with i as (insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
          values ($2, $1, $3, $4, now(), now())) \
        update auth.users set updated_at = now(), raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), \
          '{providers}', (select to_jsonb(array(select distinct p from unnest( \
            array(select jsonb_array_elements_text(coalesce(raw_app_meta_data -> 'providers', '[]'))) || $4::text) p \
            order by p)))) \
        where id = $1";
    session.query(ADD, &[&user_id, &external.subject, external.identity_data, &external.provider]).await?;
    Ok(())
}

async fn create_user(
    session: &mut Session,
    external: &External<'_>,
    confirmed: bool,
) -> Result<Uuid, ApiError> {
    const INSERT: &str = "\
        with u as ( \
          insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, \
            raw_user_meta_data, created_at, updated_at, is_sso_user, is_anonymous, \
            confirmation_token, recovery_token, email_change_token_new, email_change) \
          values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2::text, \
            case when $3 and $2::text is not null then now() end, $4, $5, now(), now(), false, false, '', '', '', '') \
          returning id) \
        insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
        select $6, id, $5, $7, now(), now() from u";
    let id = Uuid::new_v4();
    let email = external.email.map(str::to_lowercase);
    let app_metadata = json!({"provider": external.provider, "providers": [external.provider]});
    session
        .query(
            INSERT,
            &[
                &id,
                &email,
                &confirmed,
                &app_metadata,
                external.identity_data,
                &external.subject,
                &external.provider,
            ],
        )
        .await?;
    Ok(id)
}

/// Why an identity could not be unlinked.
pub enum Unlinked {
    Done,
    NotFound,
    LastIdentity,
}

/// `unlinkIdentity`: removes one of the user's identities, never the last,
/// and the provider from `app_metadata.providers`.
pub async fn unlink(db: &Db, user_id: Uuid, identity_id: Uuid) -> Result<Unlinked, ApiError> {
    const COUNT: &str = "select count(*), count(*) filter (where id = $2) \
        from auth.identities where user_id = $1";
    const DELETE: &str = "\
        with d as (delete from auth.identities where id = $2 and user_id = $1) \
        update auth.users set updated_at = now(), raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), \
          '{providers}', (select to_jsonb(array(select distinct i.provider from auth.identities i \
            where i.user_id = $1 and i.id <> $2 order by i.provider)))) \
        where id = $1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(COUNT, &[&user_id, &identity_id]).await?;
    let (all, this): (i64, i64) = rows.first().map(|r| (r.get(0), r.get(1))).unwrap_or((0, 0));
    // GoTrue tells a lone identity before looking for the one named.
    if all <= 1 {
        session.rollback().await?;
        return Ok(Unlinked::LastIdentity);
    }
    if this == 0 {
        session.rollback().await?;
        return Ok(Unlinked::NotFound);
    }
    session.query(DELETE, &[&user_id, &identity_id]).await?;
    session.commit().await?;
    Ok(Unlinked::Done)
}
