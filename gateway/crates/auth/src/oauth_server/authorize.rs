//! The authorization step (supabase/auth `internal/api/oauthserver/authorize.go`):
//!
//! 1. `GET /oauth/authorize?client_id&redirect_uri&code_challenge&...` records
//!    a pending request and sends the browser to the app's consent screen,
//!    `<site>/<AUTH_OAUTH_SERVER_AUTHORIZATION_PATH>?authorization_id=`. Until
//!    the client and its `redirect_uri` are known good, errors are answered
//!    here; after, they go back to the client as `error=` on its redirect.
//! 2. The screen, with the user signed in, reads `GET /oauth/authorizations/{id}`,
//!    which binds the request to that user. A standing consent covering the
//!    scopes approves at once and answers `{redirect_url}` instead.
//! 3. `POST /oauth/authorizations/{id}/consent {action: approve|deny}` answers
//!    `{redirect_url}`: the client's redirect with `code` and `state`, or
//!    with `error=access_denied`.

use axum::{
    Json,
    extract::{Path, RawQuery, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::store::{self, Authorization, NewAuthorization};
use super::{DEFAULT_SCOPE, SUPPORTED_SCOPES, enabled, scopes, with_query};
use crate::error::AuthError;
use crate::extract::{Body, SignedIn};
use crate::handlers::query_param;
use crate::handlers::user::current_user;
use crate::{AuthState, redirect, site_url};
use gateway_core::db::Access;
use gateway_core::error::ApiError;

/// `GET /oauth/authorize`: 302 to the consent screen, or to the client with
/// an error.
pub async fn authorize(
    State(state): State<AuthState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    enabled(&state)?;
    let param = |name: &str| query_param(query.as_deref(), name).filter(|v| !v.is_empty());
    let client_id =
        param("client_id").ok_or_else(|| AuthError::validation_failed("client_id is required"))?;
    let redirect_uri =
        param("redirect_uri").ok_or_else(|| AuthError::validation_failed("redirect_uri is required"))?;
    let client_id = uuid::Uuid::parse_str(&client_id)
        .map_err(|_| AuthError::oauth_client_unknown("invalid client_id format"))?;
    let client = store::find_client(&state.db, client_id)
        .await?
        .ok_or_else(|| AuthError::oauth_client_unknown("invalid client_id"))?;
    if !client.redirect_uris.contains(&redirect_uri) {
        return Err(AuthError::validation_failed("invalid redirect_uri").into());
    }
    let client_state = param("state");
    let back = |error: &str, description: &str| {
        let state = client_state.as_deref().unwrap_or("");
        let pairs = [("error", error), ("error_description", description), ("state", state)];
        Ok(found(&with_query(&redirect_uri, &pairs)))
    };
    let scope = param("scope").unwrap_or_else(|| DEFAULT_SCOPE.to_owned());
    let challenge = param("code_challenge");
    if let Err(problem) = request_problem(
        param("response_type").as_deref(),
        &scope,
        param("resource").as_deref(),
        challenge.as_deref(),
        param("code_challenge_method").as_deref(),
    ) {
        return back("invalid_request", &problem);
    }
    let Some(path) = state.config.oauth_server_authorization_path.as_deref().filter(|p| !p.is_empty()) else {
        return back("server_error", "oauth authorization path not configured");
    };
    let (resource, nonce) = (param("resource"), param("nonce"));
    let new = NewAuthorization {
        client_id: client.id,
        redirect_uri: &redirect_uri,
        scope: &scope,
        state: client_state.as_deref(),
        resource: resource.as_deref(),
        code_challenge: challenge.as_deref().unwrap_or_default(),
        nonce: nonce.as_deref(),
        ttl_secs: state.config.oauth_server_authorization_ttl,
    };
    let authorization_id = match store::create_authorization(&state.db, &new).await {
        Ok(id) => id,
        Err(e) => {
            tracing::warn!(error = %e, "an OAuth authorization request was not recorded");
            return back("server_error", "error creating authorization");
        }
    };
    let consent = format!("{}/{}", site_url(&state).trim_end_matches('/'), path.trim_start_matches('/'));
    Ok(found(&with_query(&consent, &[("authorization_id", &authorization_id)])))
}

/// 302 Found, as GoTrue's `http.Redirect` answers (axum's `Redirect::to` is 303).
fn found(location: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location.to_owned())]).into_response()
}

/// What is wrong with a request whose client and redirect are good, as
/// GoTrue's `validateRemainingAuthorizeParams` words it; only S256 PKCE is
/// accepted here.
fn request_problem(
    response_type: Option<&str>,
    scope: &str,
    resource: Option<&str>,
    challenge: Option<&str>,
    method: Option<&str>,
) -> Result<(), String> {
    if response_type.is_some_and(|t| t != "code") {
        return Err("only response_type=code is supported".to_owned());
    }
    let asked = scopes(scope);
    if asked.is_empty() {
        return Err("scope parameter cannot be empty".to_owned());
    }
    if let Some(unknown) = asked.iter().find(|s| !SUPPORTED_SCOPES.contains(s)) {
        return Err(format!("unsupported scope: {unknown}"));
    }
    if let Some(resource) = resource {
        let url = reqwest::Url::parse(resource).map_err(|_| "resource must be an absolute URI".to_owned())?;
        if url.fragment().is_some() {
            return Err("resource must not include a fragment component".to_owned());
        }
        if url.query().is_some() {
            return Err("resource must not include a query component".to_owned());
        }
    }
    let (Some(challenge), Some(method)) = (challenge, method) else {
        return Err("PKCE flow requires both code_challenge and code_challenge_method".to_owned());
    };
    if !method.eq_ignore_ascii_case("s256") {
        return Err("code_challenge_method must be 'S256'".to_owned());
    }
    if !(43..=128).contains(&challenge.len()) {
        return Err("code_challenge must be between 43 and 128 characters".to_owned());
    }
    Ok(())
}

/// GoTrue's `validateRequestOrigin`: a browser's `Origin` must be one a
/// redirect could go to (the site or the allow list).
fn check_origin(state: &AuthState, headers: &HeaderMap) -> Result<(), AuthError> {
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        Some(origin) if !redirect::allowed(origin, site_url(state), &state.config.uri_allow_list) => {
            Err(AuthError::validation_failed("unauthorized request origin"))
        }
        _ => Ok(()),
    }
}

/// `GET /oauth/authorizations/{authorization_id}`.
pub async fn details(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    headers: HeaderMap,
    Path(authorization_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    enabled(&state)?;
    check_origin(&state, &headers)?;
    let user = current_user(&state, &signed_in).await?;
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let Some(authorization) = pending(&mut session, &authorization_id).await? else {
        session.commit().await?;
        return Err(AuthError::oauth_authorization_not_found().into());
    };
    let approved_code = match authorization.user_id {
        None => {
            store::set_authorization_user(&mut session, authorization.id, signed_in.user_id).await?;
            let consent =
                store::active_consent(&mut session, signed_in.user_id, authorization.client_id).await?;
            let covered = consent.is_some_and(|granted| {
                let granted = scopes(&granted);
                scopes(&authorization.scope).iter().all(|s| granted.contains(s))
            });
            if covered { Some(store::approve(&mut session, authorization.id).await?) } else { None }
        }
        Some(owner) if owner == signed_in.user_id => None,
        Some(_) => {
            session.rollback().await?;
            return Err(AuthError::oauth_authorization_not_found().into());
        }
    };
    session.commit().await?;
    if let Some(code) = approved_code {
        return Ok(Json(json!({ "redirect_url": success_url(&authorization, &code) })));
    }
    let client = store::find_client(&state.db, authorization.client_id)
        .await?
        .ok_or_else(AuthError::oauth_authorization_not_found)?;
    let mut user_details = json!({ "id": signed_in.user_id.to_string() });
    if let Some(email) = user.get("email").and_then(Value::as_str).filter(|e| !e.is_empty()) {
        user_details["email"] = json!(email);
    }
    Ok(Json(json!({
        "authorization_id": authorization_id,
        "redirect_uri": authorization.redirect_uri,
        "client": client.details(),
        "user": user_details,
        "scope": authorization.scope,
    })))
}

/// The authorization, locked, if it is still pending; an expired one is
/// marked so (the caller commits) and counts as not found. One that is no
/// longer pending is GoTrue's 400.
async fn pending(
    session: &mut gateway_core::db::Session,
    authorization_id: &str,
) -> Result<Option<Authorization>, ApiError> {
    let Some(authorization) = store::lock_authorization(session, authorization_id).await? else {
        return Ok(None);
    };
    if authorization.status != "pending" {
        return Err(AuthError::validation_failed("authorization request cannot be processed").into());
    }
    if authorization.expired {
        store::mark_expired(session, authorization.id).await?;
        return Ok(None);
    }
    Ok(Some(authorization))
}

fn success_url(authorization: &Authorization, code: &str) -> String {
    let state = authorization.state.as_deref().unwrap_or("");
    with_query(&authorization.redirect_uri, &[("code", code), ("state", state)])
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ConsentBody {
    action: String,
}

/// `POST /oauth/authorizations/{authorization_id}/consent`.
pub async fn consent(
    State(state): State<AuthState>,
    signed_in: SignedIn,
    headers: HeaderMap,
    Path(authorization_id): Path<String>,
    Body(body): Body<ConsentBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    enabled(&state)?;
    check_origin(&state, &headers)?;
    let approve = match body.action.as_str() {
        "approve" => true,
        "deny" => false,
        _ => return Err(AuthError::validation_failed("action must be 'approve' or 'deny'").into()),
    };
    current_user(&state, &signed_in).await?;
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let found = store::lock_authorization(&mut session, &authorization_id).await?;
    let Some(authorization) = found else {
        session.rollback().await?;
        return Err(AuthError::oauth_authorization_not_found().into());
    };
    if authorization.expired && authorization.status == "pending" {
        store::mark_expired(&mut session, authorization.id).await?;
        session.commit().await?;
        return Err(AuthError::oauth_authorization_not_found().into());
    }
    if authorization.status != "pending" {
        session.rollback().await?;
        return Err(AuthError::validation_failed("authorization request is no longer pending").into());
    }
    if authorization.user_id != Some(signed_in.user_id) {
        session.rollback().await?;
        return Err(AuthError::oauth_authorization_not_found().into());
    }
    let redirect_url = if approve {
        let code = store::approve(&mut session, authorization.id).await?;
        let scope = &authorization.scope;
        store::upsert_consent(&mut session, signed_in.user_id, authorization.client_id, scope).await?;
        success_url(&authorization, &code)
    } else {
        store::deny(&mut session, authorization.id).await?;
        let state = authorization.state.as_deref().unwrap_or("");
        let pairs =
            [("error", "access_denied"), ("error_description", "User denied the request"), ("state", state)];
        with_query(&authorization.redirect_uri, &pairs)
    };
    session.commit().await?;
    Ok((StatusCode::OK, Json(json!({ "redirect_url": redirect_url }))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (response_type, scope, resource, code_challenge, method, expected)
    type Case = (
        Option<&'static str>,
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
        Result<(), &'static str>,
    );

    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    #[test]
    fn requests_are_checked_as_gotrue_checks_them_with_s256_required() {
        let cases: [Case; 10] = [
            (None, "email", None, Some(CHALLENGE), Some("S256"), Ok(())),
            (
                Some("code"),
                "openid email profile",
                Some("https://api.example/"),
                Some(CHALLENGE),
                Some("s256"),
                Ok(()),
            ),
            (
                Some("token"),
                "email",
                None,
                Some(CHALLENGE),
                Some("S256"),
                Err("only response_type=code is supported"),
            ),
            (None, "email admin", None, Some(CHALLENGE), Some("S256"), Err("unsupported scope: admin")),
            (None, "  ", None, Some(CHALLENGE), Some("S256"), Err("scope parameter cannot be empty")),
            (
                None,
                "email",
                Some("https://api.example/?x=1"),
                Some(CHALLENGE),
                Some("S256"),
                Err("resource must not include a query component"),
            ),
            (
                None,
                "email",
                None,
                None,
                None,
                Err("PKCE flow requires both code_challenge and code_challenge_method"),
            ),
            (
                None,
                "email",
                None,
                Some(CHALLENGE),
                None,
                Err("PKCE flow requires both code_challenge and code_challenge_method"),
            ),
            (
                None,
                "email",
                None,
                Some(CHALLENGE),
                Some("plain"),
                Err("code_challenge_method must be 'S256'"),
            ),
            (
                None,
                "email",
                None,
                Some("short"),
                Some("S256"),
                Err("code_challenge must be between 43 and 128 characters"),
            ),
        ];
        for (response_type, scope, resource, challenge, method, expected) in cases {
            let got = request_problem(response_type, scope, resource, challenge, method);
            assert_eq!(
                got.as_ref().map_err(String::as_str),
                expected.as_ref().map_err(|e| *e),
                "{scope} {method:?}"
            );
        }
    }
}
