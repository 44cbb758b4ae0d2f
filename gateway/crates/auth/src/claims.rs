//! Access tokens and the session object, exactly as GoTrue mints them
//! (supabase/auth `internal/tokens/service.go`: `AccessTokenClaims`,
//! `GenerateAccessToken`, `AccessTokenResponse`; wire-protocol.md §3.3):
//!
//! ```json
//! {"iss":"…/auth/v1","sub":"<user id>","aud":"authenticated","exp":…,"iat":…,
//!  "email":"a@b.c","phone":"","app_metadata":{…},"user_metadata":{…},
//!  "role":"authenticated","aal":"aal1","amr":[{"method":"password","timestamp":…}],
//!  "session_id":"<uuid>","is_anonymous":false}
//! ```
//!
//! `aud` is a plain string, never an array. The claims are read off the user
//! JSON the database rendered, so the token and the `user` object agree.

use serde_json::{Value, json};
use uuid::Uuid;

use super::config::AuthConfig;
use super::hooks;
use super::store::{self, Amr, Scope, Started};
use crate::AuthState;
use gateway_core::error::ApiError;
use gateway_core::jwt::{self, JwtKeys};
use gateway_core::role::Role;

/// One signed-in session, ready to be sent.
pub struct Grant<'a> {
    /// What the custom access-token hook is told (`authentication_method`):
    /// the session's newest `amr` method, or `token_refresh` for a refresh
    /// (GoTrue's `models.AuthenticationMethod`).
    pub authentication_method: String,
    pub user: Value,
    pub session_id: Uuid,
    /// `aal1`, or `aal2` once a second factor was verified in the session.
    pub aal: String,
    /// How the session was authenticated, newest first.
    pub amr: Vec<Amr>,
    pub refresh_token: &'a str,
    /// The OAuth client the session was issued to (`crate::oauth_server`):
    /// GoTrue then adds a `client_id` claim.
    pub client_id: Option<Uuid>,
}

impl<'a> Grant<'a> {
    /// The grant of a session just started or refreshed.
    pub fn of(started: Started, refresh_token: &'a str) -> Self {
        let authentication_method = started.amr.first().map(|a| a.method.clone()).unwrap_or_default();
        Grant {
            authentication_method,
            user: started.user,
            session_id: started.session_id,
            aal: started.aal,
            amr: started.amr,
            refresh_token,
            client_id: None,
        }
    }

    /// The grant of a refresh-token rotation.
    pub fn refreshed(started: Started, refresh_token: &'a str) -> Self {
        Grant { authentication_method: "token_refresh".to_owned(), ..Grant::of(started, refresh_token) }
    }
}

/// The session object of every grant (`/token`, `/signup`, MFA verify, ...):
/// the claims, passed through the custom access-token hook when one is
/// configured (`hooks`), signed.
pub async fn session_response(state: &AuthState, grant: Grant<'_>) -> Result<Value, ApiError> {
    let config = &state.config;
    let now = jwt::now();
    let expires_at = now + config.jwt_expiry;
    let mut claims = access_claims(config, &grant, now, expires_at);
    if let Some(hook) = &config.hook_custom_access_token_uri {
        let user_id = Uuid::parse_str(grant.user.get("id").and_then(Value::as_str).unwrap_or_default())
            .map_err(ApiError::internal)?;
        match hooks::custom_access_token(&state.db, hook, user_id, claims, &grant.authentication_method).await
        {
            Ok(edited) => claims = edited,
            Err(refused) => {
                // A sign-in the hook refuses starts no session: GoTrue runs the
                // hook inside the session's transaction. A refresh or an MFA
                // upgrade keeps the session it had.
                if grant.authentication_method != "token_refresh" && grant.aal == "aal1" {
                    store::end_sessions(&state.db, user_id, Some(grant.session_id), Scope::Local).await?;
                }
                return Err(refused);
            }
        }
    }
    signed_session(&state.credentials.jwt, config, grant, &claims, expires_at)
}

fn signed_session(
    keys: &JwtKeys,
    config: &AuthConfig,
    grant: Grant<'_>,
    claims: &Value,
    expires_at: u64,
) -> Result<Value, ApiError> {
    let access_token = keys.sign(claims).map_err(ApiError::internal)?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": config.jwt_expiry,
        "expires_at": expires_at,
        "refresh_token": grant.refresh_token,
        "user": grant.user,
    }))
}

fn access_claims(config: &AuthConfig, grant: &Grant<'_>, iat: u64, exp: u64) -> Value {
    let user = &grant.user;
    let text = |key: &str| user.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let object = |key: &str| user.get(key).filter(|v| v.is_object()).cloned().unwrap_or_else(|| json!({}));
    // Only our three roles are valid in a token; a user row with another (or
    // none) gets GoTrue's default.
    let role = Role::parse(&text("role")).unwrap_or(Role::Authenticated);
    let aud = Some(text("aud")).filter(|a| !a.is_empty()).unwrap_or_else(|| "authenticated".to_owned());
    let mut claims = json!({
        "iss": config.jwt_issuer,
        "sub": text("id"),
        "aud": aud,
        "exp": exp,
        "iat": iat,
        "email": text("email"),
        "phone": text("phone"),
        "app_metadata": object("app_metadata"),
        "user_metadata": object("user_metadata"),
        "role": role.as_str(),
        "aal": grant.aal,
        "amr": grant.amr.iter().map(|a| json!({ "method": a.method, "timestamp": a.timestamp })).collect::<Vec<_>>(),
        "session_id": grant.session_id.to_string(),
        "is_anonymous": user.get("is_anonymous").and_then(Value::as_bool).unwrap_or(false),
    });
    if let (Some(client_id), Some(map)) = (grant.client_id, claims.as_object_mut()) {
        map.insert("client_id".to_owned(), json!(client_id.to_string()));
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::*;
    use gateway_core::config::Secret;

    fn config() -> AuthConfig {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Defaults {
            #[command(flatten)]
            auth: AuthConfig,
        }
        Defaults::try_parse_from(["x"]).expect("defaults").auth
    }

    #[test]
    fn access_tokens_carry_gotrues_claims() {
        let keys =
            JwtKeys::hs256(&Secret::new("a-test-secret-that-is-long-enough-0123456789"), None).expect("keys");
        let config = config();
        let session_id = Uuid::new_v4();
        let user = json!({"id":"11111111-1111-1111-1111-111111111111","aud":"authenticated","role":"authenticated",
            "email":"a@b.c","phone":"","app_metadata":{"provider":"email","providers":["email"]},
            "user_metadata":{"name":"A"},"is_anonymous":false});
        let grant = Grant {
            authentication_method: "password".to_owned(),
            user: user.clone(),
            session_id,
            aal: "aal1".to_owned(),
            amr: vec![Amr { method: "password".to_owned(), timestamp: 1_700_000_000 }],
            refresh_token: "rt",
            client_id: None,
        };
        let now = jwt::now();
        let claims = access_claims(&config, &grant, now, now + config.jwt_expiry);
        let session =
            signed_session(&keys, &config, grant, &claims, now + config.jwt_expiry).expect("session");
        assert_eq!(session["token_type"], "bearer");
        assert_eq!(session["expires_in"], 3600);
        assert_eq!(session["refresh_token"], "rt");
        assert_eq!(session["user"], user);
        let claims = keys.verify(session["access_token"].as_str().expect("token")).expect("valid").claims;
        assert_eq!(claims["exp"], session["expires_at"]);
        assert_eq!(claims["exp"].as_u64().expect("exp") - claims["iat"].as_u64().expect("iat"), 3600);
        let mut keys_present: Vec<&str> = claims.keys().map(String::as_str).collect();
        keys_present.sort_unstable();
        assert_eq!(
            keys_present,
            [
                "aal",
                "amr",
                "app_metadata",
                "aud",
                "email",
                "exp",
                "iat",
                "is_anonymous",
                "iss",
                "phone",
                "role",
                "session_id",
                "sub",
                "user_metadata"
            ]
        );
        let expected = json!({
            "iss": "http://127.0.0.1:54321/auth/v1", "sub": "11111111-1111-1111-1111-111111111111",
            "aud": "authenticated", "email": "a@b.c", "phone": "", "role": "authenticated", "aal": "aal1",
            "amr": [{"method":"password","timestamp":1_700_000_000}], "session_id": session_id.to_string(),
            "is_anonymous": false, "app_metadata": {"provider":"email","providers":["email"]},
            "user_metadata": {"name":"A"},
        });
        for (key, value) in expected.as_object().expect("object") {
            assert_eq!(&claims[key], value, "{key}");
        }
    }
}
