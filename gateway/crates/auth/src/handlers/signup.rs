//! `POST /signup` (supabase/auth `internal/api/signup.go`; wire-protocol.md §3.7).
//!
//! - Autoconfirm on: the user is confirmed and signed in; 200 with a session.
//!   An e-mail already registered is 422 `user_already_exists`, as GoTrue says.
//! - Autoconfirm off: 200 with the bare user and `confirmation_sent_at`, and
//!   the confirmation mail sent (its link leads to `GET /verify`). An
//!   e-mail already registered gets a look-alike user that exists nowhere, so
//!   the answer does not reveal who has an account (GoTrue does the same).
//! - Sign-ups disabled: 422 `signup_disabled`.
//! - Neither e-mail nor phone: an anonymous sign-in ([`anonymous`]).

use axum::{
    Json,
    extract::{RawQuery, State},
    http::HeaderMap,
};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::mail::{self, Verification};
use super::{login_of, metadata};
use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::extract::{Body, ClientIp, UserAgent};
use crate::flow_state;
use crate::mail::store::MailUser;
use crate::ratelimit::{self, Bucket};
use crate::sms;
use crate::store::{self, Login, NewUser};
use crate::{password, tokens};
use gateway_core::error::ApiError;

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SignupBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    channel: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

pub async fn signup(
    State(state): State<AuthState>,
    ClientIp(ip): ClientIp,
    UserAgent(user_agent): UserAgent,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Body(body): Body<SignupBody>,
) -> Result<Json<Value>, ApiError> {
    let config = &state.config;
    // Neither e-mail nor phone is an anonymous sign-in, which GoTrue
    // decides before anything else (`api.go`).
    let given = |field: &Option<String>| field.as_deref().is_some_and(|v| !v.trim().is_empty());
    if !given(&body.email) && !given(&body.phone) {
        return anonymous(&state, ip, user_agent.as_deref(), body.data).await;
    }
    if !config.signup_enabled {
        return Err(AuthError::signup_disabled().into());
    }
    ratelimit::take(&state, Bucket::SignInSignUp, ip).await?;
    let login = login_of(body.email.as_deref(), body.phone.as_deref())?
        .ok_or_else(|| AuthError::validation_failed("To signup, please provide your email"))?;
    let secret = body.password.unwrap_or_default();
    if secret.is_empty() {
        return Err(AuthError::validation_failed("Signup requires a valid password").into());
    }
    password::check_new(&secret, config.password_min_length)?;
    let pkce = flow_state::params(body.code_challenge.as_deref(), body.code_challenge_method.as_deref())?;
    let data = metadata(body.data, "data")?.unwrap_or_else(|| json!({}));
    let phone = matches!(login, Login::Phone(_));
    if phone {
        sms::enabled(&state)?;
    }
    let autoconfirm = if phone { sms::autoconfirm(&state) } else { config.autoconfirm };
    if store::exists(&state.db, &login).await? {
        return already_registered(autoconfirm, &login, &data);
    }
    let mut user = NewUser {
        id: Uuid::new_v4(),
        login,
        password_hash: Some(password::hash(&secret).await?),
        confirmed: autoconfirm,
        // A phone's code records when it was sent (`crate::sms`).
        confirmation_sent: !autoconfirm && !phone,
        user_metadata: data,
        app_metadata: Value::Null,
        banned_until: None,
    };
    let provider = user.login.provider();
    user.app_metadata = json!({ "provider": provider, "providers": [provider] });
    let identity = store::identity_data(&user);
    merge(&mut user.user_metadata, identity);

    if !autoconfirm {
        return match store::create_user(&state.db, &user, None).await? {
            Ok((created, _)) => {
                if let Login::Phone(phone) = &user.login {
                    // The confirmation code; a sign-up whose SMS failed is
                    // undone, as GoTrue's transaction is.
                    let channel = sms::channel(&config.sms, body.channel.as_deref())?;
                    if let Err(error) =
                        sms::send_code(&state, user.id, phone, channel, sms::Slot::Confirmation).await
                    {
                        store::delete_user(&state.db, user.id).await?;
                        return Err(error);
                    }
                    let user = store::find_user(&state.db, user.id).await?;
                    return Ok(Json(user.ok_or_else(|| ApiError::internal("user vanished"))?));
                }
                if let Login::Email(email) = &user.login {
                    // The confirmation mail (`crate::handlers::mail`).
                    let redirect_to = mail::redirect_of(&state, query.as_deref(), &headers);
                    let to =
                        MailUser { id: user.id, email: email.clone(), confirmed: false, new_email: None };
                    // A sign-up whose mail failed is undone, as GoTrue's
                    // transaction is: the address can sign up again.
                    if let Err(error) = mail::send_verification(
                        &state,
                        &to,
                        Verification::Signup,
                        &redirect_to,
                        pkce.as_ref(),
                    )
                    .await
                    {
                        store::delete_user(&state.db, user.id).await?;
                        return Err(error);
                    }
                }
                Ok(Json(created))
            }
            Err(_) => already_registered(false, &user.login, &user.user_metadata),
        };
    }
    let refresh_token = tokens::generate()?;
    let digest = tokens::digest(&refresh_token);
    let (_, started) =
        match store::create_user(&state.db, &user, Some((&digest, user_agent.as_deref(), ip))).await? {
            Ok(created) => created,
            Err(_) => return Err(AuthError::user_already_exists().into()),
        };
    let started = started.ok_or_else(|| ApiError::internal("signup started no session"))?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(&state, grant).await?))
}

/// `signInAnonymously()` (GoTrue's `SignupAnonymously`, `anonymous.go`): off
/// unless `AUTH_ANONYMOUS_USERS_ENABLED`, under sign-ups being open, limited
/// per address per hour on a bucket of its own; `data` becomes
/// `user_metadata`. The session's `amr` is `anonymous` and its token says
/// `is_anonymous: true`, so RLS can tell these users apart.
async fn anonymous(
    state: &AuthState,
    ip: Option<std::net::IpAddr>,
    user_agent: Option<&str>,
    data: Option<Value>,
) -> Result<Json<Value>, ApiError> {
    let config = &state.config;
    if !config.anonymous_users_enabled {
        return Err(AuthError::anonymous_provider_disabled().into());
    }
    if !config.signup_enabled {
        return Err(AuthError::signup_disabled().into());
    }
    ratelimit::take(state, Bucket::AnonymousSignIn, ip).await?;
    let data = metadata(data, "data")?.unwrap_or_else(|| json!({}));
    let refresh_token = tokens::generate()?;
    let started =
        store::create_anonymous(&state.db, &data, &tokens::digest(&refresh_token), user_agent, ip).await?;
    let grant = Grant::of(started, &refresh_token);
    Ok(Json(session_response(state, grant).await?))
}

fn already_registered(autoconfirm: bool, login: &Login, data: &Value) -> Result<Json<Value>, ApiError> {
    if autoconfirm {
        return Err(AuthError::user_already_exists().into());
    }
    // GoTrue's obfuscated user: plausible, unsaved, without identities.
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let (email, phone) = match login {
        Login::Email(email) => (email.as_str(), ""),
        Login::Phone(phone) => ("", phone.as_str()),
    };
    let provider = login.provider();
    Ok(Json(json!({
        "id": Uuid::new_v4(), "aud": "authenticated", "role": "authenticated", "email": email, "phone": phone,
        "confirmation_sent_at": now, "app_metadata": {"provider": provider, "providers": [provider]},
        "user_metadata": data, "identities": [], "created_at": now, "updated_at": now, "is_anonymous": false,
    })))
}

fn merge(target: &mut Value, extra: Value) {
    if let (Value::Object(target), Value::Object(extra)) = (target, extra) {
        target.extend(extra);
    }
}
