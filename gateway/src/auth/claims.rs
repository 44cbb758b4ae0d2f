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
use super::store::{Amr, Started};
use crate::error::ApiError;
use crate::jwt::{self, JwtKeys};
use crate::role::Role;

/// One signed-in session, ready to be sent.
pub struct Grant<'a> {
    pub user: Value,
    pub session_id: Uuid,
    /// `aal1`, or `aal2` once a second factor was verified in the session.
    pub aal: String,
    /// How the session was authenticated, newest first.
    pub amr: Vec<Amr>,
    pub refresh_token: &'a str,
}

impl<'a> Grant<'a> {
    /// The grant of a session just started or refreshed.
    pub fn of(started: Started, refresh_token: &'a str) -> Self {
        Grant {
            user: started.user,
            session_id: started.session_id,
            aal: started.aal,
            amr: started.amr,
            refresh_token,
        }
    }
}

/// The session object of `/token` and `/signup`.
pub fn session_response(keys: &JwtKeys, config: &AuthConfig, grant: Grant<'_>) -> Result<Value, ApiError> {
    let now = jwt::now();
    let expires_at = now + config.jwt_expiry;
    let claims = access_claims(config, &grant, now, expires_at);
    let access_token = keys.sign(&claims).map_err(ApiError::internal)?;
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
    json!({
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;

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
            user: user.clone(),
            session_id,
            aal: "aal1".to_owned(),
            amr: vec![Amr { method: "password".to_owned(), timestamp: 1_700_000_000 }],
            refresh_token: "rt",
        };
        let session = session_response(&keys, &config, grant).expect("session");
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
