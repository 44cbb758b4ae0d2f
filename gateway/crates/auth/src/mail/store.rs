//! The statements of the e-mail flows. Each mailed token lives, hashed, in the
//! `auth.users` column GoTrue keeps it in, with the time it was sent: a token
//! is valid while its column holds it and `AUTH_MAILER_OTP_EXP` has not
//! passed, and using it empties the column (single use).

use uuid::Uuid;

use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// A slot for a mailed token in `auth.users`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `confirmation_token`: sign-up and invite confirmations, and codes
    /// mailed to unconfirmed users.
    Confirmation,
    /// `recovery_token`: password recovery and magic links.
    Recovery,
    /// `email_change_token_current` and `email_change_token_new`.
    EmailChange,
    /// `reauthentication_token`: the nonce of `/reauthenticate`.
    Reauthentication,
}

/// A user as the mail flows need it.
#[derive(Debug, Clone)]
pub struct MailUser {
    pub id: Uuid,
    pub email: String,
    pub confirmed: bool,
    /// The pending new address of an e-mail change.
    pub new_email: Option<String>,
}

pub async fn by_email(db: &Db, email: &str) -> Result<Option<MailUser>, ApiError> {
    const FIND: &str = "select id, email, email_confirmed_at is not null, nullif(email_change, '') \
        from auth.users where lower(email) = lower($1) and deleted_at is null and not is_sso_user \
        order by created_at limit 1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(FIND, &[&email]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| MailUser {
        id: row.get(0),
        email: row.get(1),
        confirmed: row.get(2),
        new_email: row.get(3),
    }))
}

pub async fn by_id(db: &Db, id: Uuid) -> Result<Option<MailUser>, ApiError> {
    const FIND: &str = "select id, coalesce(email, ''), email_confirmed_at is not null, nullif(email_change, '') \
        from auth.users where id = $1";
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session.query(FIND, &[&id]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| MailUser {
        id: row.get(0),
        email: row.get(1),
        confirmed: row.get(2),
        new_email: row.get(3),
    }))
}

/// Records a freshly mailed token (or two, for an e-mail change: `hash` for
/// the current address, `second` for the new one), replacing any pending one
/// of the same slot. Pacing is the callers' (`handlers::mail::paced`).
pub async fn record(
    db: &Db,
    user_id: Uuid,
    slot: Slot,
    hash: &str,
    second: Option<&str>,
) -> Result<(), ApiError> {
    const CONFIRMATION: &str = "update auth.users set confirmation_token = $2, confirmation_sent_at = now(), \
        updated_at = now() where id = $1";
    const RECOVERY: &str = "update auth.users set recovery_token = $2, recovery_sent_at = now(), \
        updated_at = now() where id = $1";
    const EMAIL_CHANGE: &str = "update auth.users set email_change_token_current = $2, \
        email_change_token_new = coalesce($3, ''), email_change_confirm_status = 0, \
        email_change_sent_at = now(), updated_at = now() where id = $1";
    const REAUTHENTICATION: &str = "update auth.users set reauthentication_token = $2, \
        reauthentication_sent_at = now(), updated_at = now() where id = $1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    match slot {
        Slot::Confirmation => session.query(CONFIRMATION, &[&user_id, &hash]).await?,
        Slot::Recovery => session.query(RECOVERY, &[&user_id, &hash]).await?,
        Slot::EmailChange => session.query(EMAIL_CHANGE, &[&user_id, &hash, &second]).await?,
        Slot::Reauthentication => session.query(REAUTHENTICATION, &[&user_id, &hash]).await?,
    };
    session.commit().await
}

/// Forgets a token recorded for a mail that could not be sent.
pub async fn forget(db: &Db, user_id: Uuid, slot: Slot) -> Result<(), ApiError> {
    let sql = match slot {
        Slot::Confirmation => {
            "update auth.users set confirmation_token = '', confirmation_sent_at = null where id = $1"
        }
        Slot::Recovery => "update auth.users set recovery_token = '', recovery_sent_at = null where id = $1",
        Slot::EmailChange => {
            "update auth.users set email_change_token_current = '', email_change_token_new = '', \
            email_change_sent_at = null where id = $1"
        }
        Slot::Reauthentication => {
            "update auth.users set reauthentication_token = '', reauthentication_sent_at = null where id = $1"
        }
    };
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(sql, &[&user_id]).await?;
    session.commit().await
}

/// What a presented token turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Valid(Uuid),
    Expired,
    NotFound,
}

/// Finds and locks, inside `session`, the user whose `slot` holds `hash`
/// (for e-mail changes, either of the two tokens); with `email`, only among
/// that address's users (the `{email, token}` form of `/verify`).
pub async fn find_token(
    session: &mut Session,
    slot: Slot,
    hash: &str,
    email: Option<&str>,
    otp_exp_secs: u64,
) -> Result<Found, ApiError> {
    let sql = match slot {
        Slot::Confirmation => {
            "select id, confirmation_sent_at > now() - $3 * interval '1 second' from auth.users \
            where confirmation_token = $1 and ($2::text is null or lower(email) = lower($2)) for update"
        }
        Slot::Recovery => {
            "select id, recovery_sent_at > now() - $3 * interval '1 second' from auth.users \
            where recovery_token = $1 and ($2::text is null or lower(email) = lower($2)) for update"
        }
        Slot::EmailChange => {
            "select id, email_change_sent_at > now() - $3 * interval '1 second' from auth.users \
            where (email_change_token_current = $1 and ($2::text is null or lower(email) = lower($2))) \
               or (email_change_token_new = $1 and ($2::text is null or lower(email_change) = lower($2))) for update"
        }
        Slot::Reauthentication => {
            "select id, reauthentication_sent_at > now() - $3 * interval '1 second' \
            from auth.users where reauthentication_token = $1 and ($2::text is null or lower(email) = lower($2)) \
            for update"
        }
    };
    if hash.is_empty() {
        return Ok(Found::NotFound);
    }
    let exp = otp_exp_secs as f64;
    let rows = session.query(sql, &[&hash, &email, &exp]).await?;
    Ok(match rows.first() {
        None => Found::NotFound,
        Some(row) if row.get::<_, Option<bool>>(1) == Some(true) => Found::Valid(row.get(0)),
        Some(_) => Found::Expired,
    })
}

/// Uses a sign-up, invite or magic-link token: emptied, and the address
/// confirmed (following a mailed link proves it).
pub async fn consume_and_confirm(session: &mut Session, user_id: Uuid, slot: Slot) -> Result<(), ApiError> {
    let sql = match slot {
        Slot::Recovery => {
            "update auth.users set recovery_token = '', \
            email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() where id = $1"
        }
        _ => {
            "update auth.users set confirmation_token = '', \
            email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() where id = $1"
        }
    };
    session.query(sql, &[&user_id]).await?;
    mark_identity_verified(session, user_id).await
}

async fn mark_identity_verified(session: &mut Session, user_id: Uuid) -> Result<(), ApiError> {
    const IDENTITY: &str = "update auth.identities set \
        identity_data = identity_data || jsonb_build_object('email', (select email from auth.users where id = $1), \
                                                            'email_verified', true), \
        updated_at = now() where user_id = $1 and provider = 'email'";
    session.query(IDENTITY, &[&user_id]).await?;
    Ok(())
}

/// The outcome of one e-mail-change token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailChange {
    /// The other address must still confirm.
    FirstOfTwo,
    Changed,
}

/// Uses an e-mail-change token: with two pending (secure change), the first
/// only empties itself; the last one moves `email_change` into `email`.
pub async fn consume_email_change(
    session: &mut Session,
    user_id: Uuid,
    hash: &str,
) -> Result<EmailChange, ApiError> {
    const FIRST: &str = "update auth.users set \
          email_change_token_current = case when email_change_token_current = $2 then '' else email_change_token_current end, \
          email_change_token_new = case when email_change_token_new = $2 then '' else email_change_token_new end, \
          email_change_confirm_status = 1, updated_at = now() \
        where id = $1 and email_change_token_current <> '' and email_change_token_new <> '' returning 1";
    const CHANGE: &str = "update auth.users set email = lower(email_change), email_change = '', \
          email_change_token_current = '', email_change_token_new = '', email_change_confirm_status = 0, \
          email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() \
        where id = $1";
    if !session.query(FIRST, &[&user_id, &hash]).await?.is_empty() {
        return Ok(EmailChange::FirstOfTwo);
    }
    session.query(CHANGE, &[&user_id]).await?;
    mark_identity_verified(session, user_id).await?;
    Ok(EmailChange::Changed)
}

/// Uses the reauthentication nonce of `PUT /user`; false when it is not the
/// user's current, unexpired nonce.
pub async fn consume_nonce(db: &Db, user_id: Uuid, hash: &str, otp_exp_secs: u64) -> Result<bool, ApiError> {
    const USE: &str = "update auth.users set reauthentication_token = '', updated_at = now() \
        where id = $1 and reauthentication_token = $2 and $2 <> '' \
          and reauthentication_sent_at > now() - $3 * interval '1 second' returning 1";
    let exp = otp_exp_secs as f64;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let used = !session.query(USE, &[&user_id, &hash, &exp]).await?.is_empty();
    session.commit().await?;
    Ok(used)
}

/// Marks a user invited (`POST /invite`, `generate_link` type `invite`).
pub async fn mark_invited(db: &Db, user_id: Uuid) -> Result<(), ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query("update auth.users set invited_at = now() where id = $1", &[&user_id]).await?;
    session.commit().await
}

/// Records a pending e-mail change (`email_change`), before its mails go out.
pub async fn set_new_email(db: &Db, user_id: Uuid, new_email: &str) -> Result<bool, ApiError> {
    const TAKEN: &str =
        "select 1 from auth.users where lower(email) = lower($2) and id <> $1 and deleted_at is null";
    const SET: &str = "update auth.users set email_change = lower($2), updated_at = now() where id = $1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    if !session.query(TAKEN, &[&user_id, &new_email]).await?.is_empty() {
        session.rollback().await?;
        return Ok(false);
    }
    session.query(SET, &[&user_id, &new_email]).await?;
    session.commit().await?;
    Ok(true)
}
