//! The custom access-token hook (Supabase "Custom Access Token Hook";
//! supabase/auth `internal/hooks/hookspgfunc`, `internal/tokens/service.go`
//! `GenerateAccessToken`, `validateTokenClaims`): a PostgreSQL function named
//! by `AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI=pg-functions://postgres/<schema>/<function>`
//! gets `{"user_id", "claims", "authentication_method"}` before every access
//! token is signed and answers `{"claims": {...}}`, which become the token's
//! claims, or `{"error": {"http_code", "message"}}`, which refuses the grant.
//!
//! As GoTrue: the call has a 2-second `statement_timeout`; an error object
//! answers with its `http_code` (500 when absent) and message; returned claims
//! must keep GoTrue's required claims with their types; a missing `claims` is
//! 500 "output claims field is missing". Anything else going wrong (the
//! function failing, missing, or not allowed) is a bare 500 whose cause is only
//! logged, so no database detail reaches the client.
//!
//! The function runs as `service_role` (the gateway's bookkeeping role; on
//! Supabase it is `supabase_auth_admin`): an app grants it `execute` on the
//! function and `select` on what the function reads, and revokes `execute`
//! from `public`, `anon` and `authenticated`.

use std::fmt;
use std::str::FromStr;

use axum::http::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use super::error::AuthError;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;
use gateway_core::sql::quote_ident;

/// `pg-functions://postgres/<schema>/<function>`, checked when the
/// configuration is read.
#[derive(Clone, PartialEq, Eq)]
pub struct HookUri {
    schema: String,
    function: String,
}

impl fmt::Debug for HookUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pg-functions://postgres/{}/{}", self.schema, self.function)
    }
}

impl FromStr for HookUri {
    type Err = String;

    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        let bad = || format!("{uri:?} is not pg-functions://postgres/<schema>/<function>");
        let path = uri.strip_prefix("pg-functions://").ok_or_else(bad)?;
        let mut parts = path.split('/');
        let (Some(_database), Some(schema), Some(function), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let valid = |s: &str| !s.is_empty() && s.len() <= 63 && !s.contains('\0');
        if !valid(schema) || !valid(function) {
            return Err(bad());
        }
        Ok(HookUri { schema: schema.to_owned(), function: function.to_owned() })
    }
}

/// GoTrue's `MinimumViableTokenSchema`: the claims a token must keep, and the
/// JSON type of each claim it types.
const REQUIRED: [&str; 10] =
    ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"];

fn type_error(claims: &serde_json::Map<String, Value>) -> Option<String> {
    let kind_ok = |key: &str, value: &Value| match key {
        "aud" => value.is_string() || value.is_array(),
        "exp" | "iat" | "nbf" => value.is_i64() || value.is_u64(),
        "jti" | "iss" | "sub" | "email" | "phone" | "role" | "aal" | "session_id" | "client_id" => {
            value.is_string()
        }
        "app_metadata" | "user_metadata" => value.is_object(),
        "amr" => value.as_array().is_some_and(|items| items.iter().all(|i| i.is_string() || i.is_object())),
        _ => true,
    };
    let mut problems: Vec<String> = REQUIRED
        .iter()
        .filter(|key| !claims.contains_key(**key))
        .map(|key| format!("- (root): {key} is required\n"))
        .collect();
    problems.extend(
        claims
            .iter()
            .filter(|(key, value)| !kind_ok(key, value))
            .map(|(key, _)| format!("- {key}: Invalid type.\n")),
    );
    (!problems.is_empty())
        .then(|| format!("output claims do not conform to the expected schema: \n{}", problems.concat()))
}

/// A hook's `{"error": {"http_code", "message"}}`, which refuses the request
/// with that status (500 when absent) and message; every hook answers so.
pub fn refusal(answer: &Value) -> Option<ApiError> {
    let error = answer.get("error").filter(|e| e.is_object())?;
    let code = error.get("http_code").and_then(Value::as_u64).unwrap_or(500);
    let status = u16::try_from(code)
        .ok()
        .and_then(|c| StatusCode::from_u16(c).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let message = error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(AuthError::hook_error(status, message).into())
}

/// What the hook's answer means.
fn outcome(answer: Value) -> Result<Value, ApiError> {
    if let Some(refused) = refusal(&answer) {
        return Err(refused);
    }
    let Some(claims) = answer.get("claims") else {
        return Err(AuthError::hook_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "output claims field is missing".into(),
        )
        .into());
    };
    let Some(object) = claims.as_object() else {
        return Err(AuthError::hook_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error unmarshaling JSON output.".into(),
        )
        .into());
    };
    if let Some(problem) = type_error(object) {
        return Err(AuthError::hook_error(StatusCode::INTERNAL_SERVER_ERROR, problem).into());
    }
    Ok(claims.clone())
}

/// Runs the hook on `claims`; the claims to sign.
pub async fn custom_access_token(
    db: &Db,
    hook: &HookUri,
    user_id: Uuid,
    claims: Value,
    authentication_method: &str,
) -> Result<Value, ApiError> {
    let event =
        json!({ "user_id": user_id, "claims": claims, "authentication_method": authentication_method });
    outcome(call_function(db, hook, &event, "custom access-token").await?)
}

/// Calls a hook function with `event` under GoTrue's 2-second timeout; its
/// answer (`Null` when it returns null). A failing call is a bare 500 whose
/// cause is only logged.
pub async fn call_function(db: &Db, hook: &HookUri, event: &Value, what: &str) -> Result<Value, ApiError> {
    let call = format!("select {}.{}($1::jsonb)", quote_ident(&hook.schema), quote_ident(&hook.function));
    let failed = |e: ApiError| {
        tracing::error!(hook = ?hook, error = %e, "the {what} hook failed");
        ApiError::internal(format!("the {what} hook failed"))
    };
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query("set local statement_timeout = '2s'", &[]).await.map_err(failed)?;
    let rows = session.query(&call, &[event]).await.map_err(failed)?;
    session.commit().await.map_err(failed)?;
    let answer: Option<Value> = rows.first().and_then(|row| row.try_get(0).ok());
    Ok(answer.unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_uris_name_a_schema_and_a_function() {
        let hook: HookUri = "pg-functions://postgres/public/custom_access_token_hook".parse().expect("valid");
        assert_eq!((hook.schema.as_str(), hook.function.as_str()), ("public", "custom_access_token_hook"));
        for bad in
            ["https://example.com/hook", "pg-functions://postgres/public", "pg-functions://postgres//f", "x"]
        {
            assert!(bad.parse::<HookUri>().is_err(), "{bad}");
        }
    }

    fn claims() -> Value {
        json!({"aud":"authenticated","exp":2,"iat":1,"sub":"u","email":"","phone":"","role":"authenticated",
               "aal":"aal1","session_id":"s","is_anonymous":false,"amr":[{"method":"password","timestamp":1}]})
    }

    /// The claims kept, or the status and message of the refusal.
    type Expected = Result<Value, (u16, &'static str)>;

    /// (hook answer, expected)
    #[test]
    fn hook_answers_become_claims_or_gotrues_errors() {
        let mut with_role = claims();
        with_role["user_role"] = json!("admin");
        let mut without_sub = claims();
        without_sub.as_object_mut().expect("object").remove("sub");
        let mut bad_exp = claims();
        bad_exp["exp"] = json!("soon");
        let cases: [(Value, Expected); 6] = [
            (json!({ "claims": with_role }), Ok(with_role.clone())),
            (json!({"error": {"http_code": 403, "message": "no entry"}}), Err((403, "no entry"))),
            (json!({"error": {"message": "broken"}}), Err((500, "broken"))),
            (json!({"other": 1}), Err((500, "output claims field is missing"))),
            (
                json!({ "claims": without_sub }),
                Err((
                    500,
                    "output claims do not conform to the expected schema: \n- (root): sub is required\n",
                )),
            ),
            (
                json!({ "claims": bad_exp }),
                Err((500, "output claims do not conform to the expected schema: \n- exp: Invalid type.\n")),
            ),
        ];
        for (answer, expected) in cases {
            let got = outcome(answer.clone()).map_err(|e| match e.as_service::<AuthError>() {
                Some(e) => (e.status.as_u16(), e.message.clone()),
                None => panic!("{e:?}"),
            });
            assert_eq!(got, expected.map_err(|(s, m)| (s, m.to_owned())), "{answer}");
        }
    }
}
