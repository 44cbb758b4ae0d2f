//! The e-mail flows of `/auth/v1` (supabase/auth `internal/api/recover.go`,
//! `magic_link.go`, `otp.go`, `resend.go`, `reauthenticate.go`, `invite.go`,
//! `mail.go`): each sends one mail carrying a link to `GET /verify` and the
//! same token as a code for `POST /verify` (see `crate::mail`).
//!
//! Enumeration: `/recover` and `/otp` answer 200 `{}` whether or not the
//! address has an account, and their mails are sent after the answer, so
//! neither status, body nor timing tells. One exception is GoTrue's own
//! (`internal/api/otp.go`, `magic_link.go`): `/otp` with `create_user:
//! false` for an unknown address answers 422 `otp_disabled` "Signups not
//! allowed for otp", which supabase-js apps check for to tell "no account"
//! apart; an app that must not reveal that leaves `create_user` on.

use axum::{
    Json,
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode, header},
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{metadata, query_param, valid_email};
use crate::AuthState;
use crate::error::AuthError;
use crate::extract::{Admin, Body, ClientIp, SignedIn};
use crate::flow_state::{self, Pkce};
use crate::mail;
use crate::mail::store::{self as mail_store, MailUser, Slot};
use crate::mail::templates::{self, Kind, Values};
use crate::ratelimit::{self, Bucket};
use crate::redirect;
use crate::sms;
use crate::store::{self, Login, NewUser, method};
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// Which verification a mail asks for: its `type` in the link and `/verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    Signup,
    Invite,
    Recovery,
    MagicLink,
    EmailChange,
}

impl Verification {
    pub fn name(self) -> &'static str {
        match self {
            Verification::Signup => "signup",
            Verification::Invite => "invite",
            Verification::Recovery => "recovery",
            Verification::MagicLink => "magiclink",
            Verification::EmailChange => "email_change",
        }
    }

    /// The flow's `authentication_method`, and the session's, when the
    /// link ends a PKCE flow (GoTrue's `ParseAuthenticationMethod`).
    pub fn method(self) -> &'static str {
        match self {
            Verification::Signup => method::EMAIL_SIGNUP,
            Verification::Invite => method::INVITE,
            Verification::Recovery => method::RECOVERY,
            Verification::MagicLink => method::MAGIC_LINK,
            Verification::EmailChange => method::EMAIL_CHANGE,
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Signup, Self::Invite, Self::Recovery, Self::MagicLink, Self::EmailChange]
            .into_iter()
            .find(|v| v.name() == name)
    }

    fn slot(self) -> Slot {
        match self {
            Verification::Signup | Verification::Invite => Slot::Confirmation,
            Verification::Recovery | Verification::MagicLink => Slot::Recovery,
            Verification::EmailChange => Slot::EmailChange,
        }
    }

    fn kind(self) -> Kind {
        match self {
            Verification::Signup => Kind::Confirmation,
            Verification::Invite => Kind::Invite,
            Verification::Recovery => Kind::Recovery,
            Verification::MagicLink => Kind::MagicLink,
            Verification::EmailChange => Kind::EmailChange,
        }
    }
}

/// `redirect_to` from the query (auth-js puts it there) or the `Referer`,
/// checked against the allow-list; otherwise the site URL.
pub(crate) fn redirect_of(state: &AuthState, query: Option<&str>, headers: &HeaderMap) -> String {
    let site = crate::site_url(state);
    let allow = &state.config.uri_allow_list;
    let wanted = headers
        .get("redirect_to")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| query_param(query, "redirect_to"));
    if let Some(wanted) = wanted.filter(|w| redirect::allowed(w, site, allow)) {
        return wanted;
    }
    let referer = headers.get(header::REFERER).and_then(|v| v.to_str().ok());
    redirect::checked(referer, site, allow)
}

/// A link and code, recorded and ready to mail.
pub(crate) struct Prepared {
    pub code: String,
    pub hash: String,
    pub link: String,
    /// For an e-mail change: the new address's own code and link.
    pub second: Option<(String, String, String)>,
}

fn link(state: &AuthState, hash: &str, verification: Verification, redirect_to: &str) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("token", hash)
        .append_pair("type", verification.name())
        .append_pair("redirect_to", redirect_to)
        .finish();
    format!("{}/verify?{query}", mail::external_url(&state.config))
}

/// 429 `over_email_send_rate_limit` when the last mail to `address` went out
/// less than `AUTH_SMTP_MAX_FREQUENCY` ago. Kept per address in
/// `auth.rate_limits` whether or not the address has an account, so the
/// limit tells nothing about accounts.
pub(crate) async fn paced(state: &AuthState, address: &str) -> Result<(), ApiError> {
    const TAKE: &str = "insert into auth.rate_limits as r (key, tokens, updated_at) values ($1, 0, now()) \
        on conflict (key) do update set tokens = 0, updated_at = now() \
        where r.updated_at <= now() - $2 * interval '1 second' returning 1";
    const WAIT: &str = "select ceil($2 - extract(epoch from now() - updated_at)::float8)::bigint \
        from auth.rate_limits where key = $1";
    let gap = state.config.mail.smtp_max_frequency as f64;
    if gap <= 0.0 {
        return Ok(());
    }
    let key = format!("email_frequency:{}", address.to_lowercase());
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    if !session.query(TAKE, &[&key, &gap]).await?.is_empty() {
        return session.commit().await;
    }
    let wait: i64 = session.query(WAIT, &[&key, &gap]).await?.first().map_or(1, |r| r.get(0));
    session.rollback().await?;
    metrics::counter!("gateway_auth_rate_limited_total", "limit" => "email_frequency").increment(1);
    Err(over_email_send_rate_limit(wait.max(1)).into())
}

pub(crate) fn over_email_send_rate_limit(seconds: i64) -> AuthError {
    AuthError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "over_email_send_rate_limit",
        format!("For security purposes, you can only request this after {seconds} seconds."),
    )
}

/// Makes and records the token(s) of `verification` for `user`.
pub(crate) async fn prepare(
    state: &AuthState,
    user: &MailUser,
    verification: Verification,
    redirect_to: &str,
    pkce: Option<&Pkce>,
) -> Result<Prepared, ApiError> {
    let length = state.config.mail.mailer_otp_length;
    if let Some(pkce) = pkce {
        flow_state::start_email_flow(&state.db, user.id, verification.method(), pkce).await?;
    }
    // A PKCE flow's token is stored and linked with its prefix (`flow_state`).
    let prefix = if pkce.is_some() { flow_state::TOKEN_PREFIX } else { "" };
    let otp = |email: &str| {
        mail::otp(email, length).map(|o| mail::Otp { hash: format!("{prefix}{}", o.hash), code: o.code })
    };
    let (address, second) = match (verification, &user.new_email) {
        (Verification::EmailChange, Some(new_email)) => {
            let new = otp(new_email)?;
            let new_link = link(state, &new.hash, verification, redirect_to);
            let secure = state.config.mail.secure_email_change_enabled && !user.email.is_empty();
            if secure {
                (user.email.as_str(), Some((new.code, new.hash, new_link)))
            } else {
                // Only the new address confirms: its token is the one recorded.
                let prepared = Prepared { code: new.code, hash: new.hash, link: new_link, second: None };
                mail_store::record(&state.db, user.id, Slot::EmailChange, "", Some(&prepared.hash)).await?;
                return Ok(prepared);
            }
        }
        _ => (user.email.as_str(), None),
    };
    let otp = otp(address)?;
    let second_hash = second.as_ref().map(|(_, hash, _)| hash.as_str());
    mail_store::record(&state.db, user.id, verification.slot(), &otp.hash, second_hash).await?;
    let link = link(state, &otp.hash, verification, redirect_to);
    Ok(Prepared { code: otp.code, hash: otp.hash, link, second })
}

/// Prepares and mails `verification` to `user`. Callers that answer anyone
/// pace the address first ([`paced`]).
pub(crate) async fn send_verification(
    state: &AuthState,
    user: &MailUser,
    verification: Verification,
    redirect_to: &str,
    pkce: Option<&Pkce>,
) -> Result<(), ApiError> {
    let to = match (verification, &user.new_email) {
        (Verification::EmailChange, Some(new_email)) => new_email.clone(),
        _ => user.email.clone(),
    };
    ratelimit::take_email(state).await?;
    let prepared = prepare(state, user, verification, redirect_to, pkce).await?;
    let config = &state.config.mail;
    let site_url = crate::site_url(state);
    let new_email = user.new_email.as_deref().unwrap_or("");
    let mail_for = |code: &str, hash: &str, link: &str| {
        templates::render(
            config,
            verification.kind(),
            &Values {
                confirmation_url: link,
                token: code,
                token_hash: hash,
                site_url,
                redirect_to,
                email: &user.email,
                new_email,
            },
        )
    };
    let result = match (&prepared.second, verification) {
        (Some((code, hash, link)), _) => {
            let current = mail_for(&prepared.code, &prepared.hash, &prepared.link);
            mail::send(config, &user.email, &current).await?;
            mail::send(config, &to, &mail_for(code, hash, link)).await
        }
        (None, _) => mail::send(config, &to, &mail_for(&prepared.code, &prepared.hash, &prepared.link)).await,
    };
    if result.is_err() {
        mail_store::forget(&state.db, user.id, verification.slot()).await?;
    }
    result
}

/// Runs a mail after the answer: its outcome, and how long the SMTP server
/// takes, must not tell the caller whether the address has an account.
fn in_background(
    state: &AuthState,
    user: MailUser,
    verification: Verification,
    redirect_to: String,
    pkce: Option<Pkce>,
) {
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(error) = send_verification(&state, &user, verification, &redirect_to, pkce.as_ref()).await
        {
            tracing::warn!(kind = verification.name(), %error, "mail not sent");
        }
    });
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct RecoverBody {
    email: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

/// `POST /recover`: 200 `{}` always; a known address gets a recovery mail.
pub async fn recover(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(body): Body<RecoverBody>,
) -> Result<Json<Value>, ApiError> {
    let email = valid_email(body.email.as_deref().unwrap_or(""))?;
    let pkce = flow_state::params(body.code_challenge.as_deref(), body.code_challenge_method.as_deref())?;
    ratelimit::take(&state, Bucket::Otp, ip).await?;
    let redirect_to = redirect_of(&state, query.as_deref(), &headers);
    paced(&state, &email).await?;
    if let Some(user) = mail_store::by_email(&state.db, &email).await? {
        in_background(&state, user, Verification::Recovery, redirect_to, pkce);
    }
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
#[serde(default)]
pub struct OtpBody {
    email: Option<String>,
    phone: Option<String>,
    create_user: bool,
    data: Option<Value>,
    channel: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

impl Default for OtpBody {
    fn default() -> Self {
        Self {
            email: None,
            phone: None,
            create_user: true,
            data: None,
            channel: None,
            code_challenge: None,
            code_challenge_method: None,
        }
    }
}

/// `POST /otp` with an e-mail: a magic link and its code in one mail. A new
/// address (with `create_user`, the default) becomes an unconfirmed user
/// who gets the sign-up confirmation instead, as GoTrue does.
pub async fn otp(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(body): Body<OtpBody>,
) -> Result<Json<Value>, ApiError> {
    let given = |field: &Option<String>| field.as_deref().is_some_and(|v| !v.is_empty());
    if given(&body.email) && given(&body.phone) {
        return Err(
            AuthError::validation_failed("Only an email address or phone number should be provided").into()
        );
    }
    if let Some(phone) = body.phone.as_deref().filter(|_| !given(&body.email)).filter(|p| !p.is_empty()) {
        let data = metadata(body.data, "data")?;
        ratelimit::take(&state, Bucket::Otp, ip).await?;
        return super::phone::otp(&state, phone, body.channel.as_deref(), body.create_user, data).await;
    }
    let email = valid_email(body.email.as_deref().unwrap_or(""))?;
    let data = metadata(body.data, "data")?;
    let pkce = flow_state::params(body.code_challenge.as_deref(), body.code_challenge_method.as_deref())?;
    ratelimit::take(&state, Bucket::Otp, ip).await?;
    let redirect_to = redirect_of(&state, query.as_deref(), &headers);
    paced(&state, &email).await?;
    match mail_store::by_email(&state.db, &email).await? {
        Some(user) if user.confirmed => {
            in_background(&state, user, Verification::MagicLink, redirect_to, pkce);
        }
        Some(user) => in_background(&state, user, Verification::Signup, redirect_to, pkce),
        None if body.create_user => {
            if !state.config.signup_enabled {
                return Err(AuthError::signup_disabled().into());
            }
            let user = new_email_user(&state, &email, data.unwrap_or_else(|| json!({})), false).await?;
            in_background(&state, user, Verification::Signup, redirect_to, pkce);
        }
        None => return Err(AuthError::unprocessable("otp_disabled", "Signups not allowed for otp").into()),
    }
    Ok(Json(json!({})))
}

/// Creates an unconfirmed e-mail user without a password.
async fn new_email_user(
    state: &AuthState,
    email: &str,
    data: Value,
    invited: bool,
) -> Result<MailUser, ApiError> {
    // `user_metadata` is the `data` given: GoTrue's `Invite` and
    // `adminGenerateLink` give the identity its data but, unlike a sign-up,
    // do not copy it into the user's metadata.
    let user = NewUser {
        id: Uuid::new_v4(),
        login: Login::Email(email.to_owned()),
        password_hash: None,
        confirmed: false,
        confirmation_sent: true,
        user_metadata: data,
        app_metadata: json!({ "provider": "email", "providers": ["email"] }),
        banned_until: None,
    };
    match store::create_user(&state.db, &user, None).await? {
        Ok(_) => {}
        Err(_) => return Err(AuthError::email_exists().into()),
    }
    if invited {
        mail_store::mark_invited(&state.db, user.id).await?;
    }
    Ok(MailUser { id: user.id, email: email.to_owned(), confirmed: false, new_email: None })
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ResendBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

/// `POST /resend` (`type` `signup` or `email_change`): mails the pending
/// confirmation again; 200 `{}` (with `message_id` null for SMS parity is
/// not sent). An address with nothing pending gets nothing, and the same
/// answer.
pub async fn resend(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(body): Body<ResendBody>,
) -> Result<Json<Value>, ApiError> {
    let verification = match body.kind.as_deref() {
        Some("signup") => Verification::Signup,
        Some("email_change") => Verification::EmailChange,
        Some(kind @ ("sms" | "phone_change")) => {
            if body.email.as_deref().is_some_and(|e| !e.is_empty()) {
                return Err(AuthError::validation_failed(
                    "Only an email address or phone number should be provided.",
                )
                .into());
            }
            let kind = if kind == "sms" { sms::Verification::Sms } else { sms::Verification::PhoneChange };
            ratelimit::take(&state, Bucket::Otp, ip).await?;
            return super::phone::resend(&state, kind, body.phone.as_deref().unwrap_or("")).await;
        }
        _ => {
            return Err(AuthError::validation_failed(
                "Missing one of these types: signup, email_change, sms, phone_change",
            )
            .into());
        }
    };
    if body.phone.as_deref().is_some_and(|p| !p.is_empty()) && body.email.is_none() {
        return Err(AuthError::validation_failed(
            "Only an email address or phone number should be provided.",
        )
        .into());
    }
    let email = valid_email(body.email.as_deref().unwrap_or(""))?;
    ratelimit::take(&state, Bucket::Otp, ip).await?;
    let redirect_to = redirect_of(&state, query.as_deref(), &headers);
    let user = match verification {
        Verification::EmailChange => {
            mail_store::by_email(&state.db, &email).await?.filter(|u| u.new_email.is_some())
        }
        _ => mail_store::by_email(&state.db, &email).await?.filter(|u| !u.confirmed),
    };
    paced(&state, &email).await?;
    if let Some(user) = user {
        in_background(&state, user, verification, redirect_to, None);
    }
    Ok(Json(json!({})))
}

/// `GET /reauthenticate`: mails the signed-in user a nonce that `PUT /user`
/// then needs to change the password (when `AUTH_SECURE_PASSWORD_CHANGE`).
pub async fn reauthenticate(
    State(state): State<AuthState>,
    signed_in: SignedIn,
) -> Result<Json<Value>, ApiError> {
    super::user::current_user(&state, &signed_in).await?;
    let user =
        mail_store::by_id(&state.db, signed_in.user_id).await?.ok_or_else(AuthError::user_not_found)?;
    if user.email.is_empty() {
        return Err(AuthError::validation_failed(
            "Reauthentication requires the user to have an email or a phone number",
        )
        .into());
    }
    paced(&state, &user.email).await?;
    ratelimit::take_email(&state).await?;
    let otp = mail::otp(&user.email, state.config.mail.mailer_otp_length)?;
    mail_store::record(&state.db, user.id, Slot::Reauthentication, &otp.hash, None).await?;
    let config = &state.config.mail;
    let values = Values {
        token: &otp.code,
        site_url: crate::site_url(&state),
        email: &user.email,
        ..Values::default()
    };
    let sent =
        mail::send(config, &user.email, &templates::render(config, Kind::Reauthentication, &values)).await;
    if sent.is_err() {
        mail_store::forget(&state.db, user.id, Slot::Reauthentication).await?;
    }
    sent?;
    Ok(Json(json!({})))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct InviteBody {
    email: Option<String>,
    data: Option<Value>,
}

/// `POST /invite` (auth-js `admin.inviteUserByEmail`): a new user, invited,
/// and the invite mail; 200 with the user. An address already confirmed is
/// 422 `email_exists`.
pub async fn invite(
    State(state): State<AuthState>,
    _: Admin,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(body): Body<InviteBody>,
) -> Result<Json<Value>, ApiError> {
    let data = metadata(body.data, "data")?.unwrap_or_else(|| json!({}));
    let redirect_to = redirect_of(&state, query.as_deref(), &headers);
    invite_user(&state, body.email.as_deref().unwrap_or(""), data, &redirect_to).await.map(Json)
}

/// What `POST /invite` does, for the operator console too: the user (made
/// when new, refused when confirmed) with the invitation sent.
pub async fn invite_user(
    state: &AuthState,
    email: &str,
    data: Value,
    redirect_to: &str,
) -> Result<Value, ApiError> {
    let email = valid_email(email)?;
    let user = match mail_store::by_email(&state.db, &email).await? {
        Some(user) if user.confirmed => return Err(AuthError::email_exists().into()),
        Some(user) => {
            mail_store::mark_invited(&state.db, user.id).await?;
            user
        }
        None => new_email_user(state, &email, data, true).await?,
    };
    send_verification(state, &user, Verification::Invite, redirect_to, None).await?;
    store::find_user(&state.db, user.id).await?.ok_or_else(|| ApiError::internal("user vanished"))
}

/// A recovery mail to a known user, sent before the answer (the operator
/// console's "send a recovery link", where the sender is no stranger and
/// wants to know it left); false when no user has the address.
pub async fn send_recovery(state: &AuthState, email: &str) -> Result<bool, ApiError> {
    let email = valid_email(email)?;
    let Some(user) = mail_store::by_email(&state.db, &email).await? else { return Ok(false) };
    let redirect_to = crate::site_url(state).to_owned();
    send_verification(state, &user, Verification::Recovery, &redirect_to, None).await?;
    Ok(true)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct GenerateLinkBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    new_email: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    redirect_to: Option<String>,
}

/// `POST /admin/generate_link`: the link and code a mail would carry, without
/// sending it (GoTrue's `GenerateLink`): the user with `action_link`,
/// `email_otp`, `hashed_token`, `verification_type` and `redirect_to` added,
/// as GoTrue answers and auth-js splits into `properties`.
pub async fn generate_link(
    State(state): State<AuthState>,
    _: Admin,
    headers: HeaderMap,
    Body(body): Body<GenerateLinkBody>,
) -> Result<Json<Value>, ApiError> {
    let email = valid_email(body.email.as_deref().unwrap_or(""))?;
    let site = crate::site_url(&state);
    let wanted = body
        .redirect_to
        .clone()
        .or_else(|| headers.get("redirect_to").and_then(|v| v.to_str().ok()).map(str::to_owned));
    let redirect_to = redirect::checked(wanted.as_deref(), site, &state.config.uri_allow_list);
    let data = metadata(body.data, "data")?.unwrap_or_else(|| json!({}));
    let existing = mail_store::by_email(&state.db, &email).await?;
    let (user, verification, type_name) = match body.kind.as_deref().unwrap_or("") {
        "signup" => {
            let user = match existing {
                Some(user) if user.confirmed => return Err(AuthError::email_exists().into()),
                Some(user) => user,
                None => {
                    let secret = body.password.unwrap_or_default();
                    if secret.is_empty() {
                        return Err(AuthError::validation_failed("Signup requires a valid password").into());
                    }
                    crate::password::check_new(&secret, state.config.password_min_length)?;
                    let user = new_email_user(&state, &email, data, false).await?;
                    let hash = crate::password::hash(&secret).await?;
                    let changes = store::Changes { password_hash: Some(hash), ..store::Changes::default() };
                    store::update_user(&state.db, user.id, &changes)
                        .await?
                        .map_err(|_| AuthError::email_exists())?;
                    user
                }
            };
            (user, Verification::Signup, "signup")
        }
        "invite" => {
            let user = match existing {
                Some(user) if user.confirmed => return Err(AuthError::email_exists().into()),
                Some(user) => user,
                None => new_email_user(&state, &email, data, true).await?,
            };
            mail_store::mark_invited(&state.db, user.id).await?;
            (user, Verification::Invite, "invite")
        }
        kind @ ("magiclink" | "recovery") => {
            let user = existing.ok_or_else(AuthError::admin_user_not_found)?;
            let verification =
                if kind == "magiclink" { Verification::MagicLink } else { Verification::Recovery };
            (user, verification, if kind == "magiclink" { "magiclink" } else { "recovery" })
        }
        kind @ ("email_change_current" | "email_change_new") => {
            let mut user = existing.ok_or_else(AuthError::admin_user_not_found)?;
            let new_email = valid_email(body.new_email.as_deref().unwrap_or(""))?;
            if !mail_store::set_new_email(&state.db, user.id, &new_email).await? {
                return Err(AuthError::email_exists().into());
            }
            user.new_email = Some(new_email);
            (
                user,
                Verification::EmailChange,
                if kind == "email_change_current" { "email_change_current" } else { "email_change_new" },
            )
        }
        _ => {
            return Err(AuthError::validation_failed(
                "Invalid email action link type requested: signup, magiclink, recovery, invite, email_change_current, email_change_new",
            )
            .into());
        }
    };
    let prepared = prepare(&state, &user, verification, &redirect_to, None).await?;
    let (code, hash, link) = match (type_name, &prepared.second) {
        ("email_change_new", Some((code, hash, link))) => (code.clone(), hash.clone(), link.clone()),
        _ => (prepared.code, prepared.hash, prepared.link),
    };
    let mut answer =
        store::find_user(&state.db, user.id).await?.ok_or_else(|| ApiError::internal("user vanished"))?;
    if let Value::Object(fields) = &mut answer {
        fields.insert("action_link".to_owned(), json!(link));
        fields.insert("email_otp".to_owned(), json!(code));
        fields.insert("hashed_token".to_owned(), json!(hash));
        fields.insert("verification_type".to_owned(), json!(verification.name()));
        fields.insert("redirect_to".to_owned(), json!(redirect_to));
    }
    Ok(Json(answer))
}
