//! Errors of the auth API, in GoTrue's shape: `{"code","message"}` for clients
//! that send `X-Supabase-Api-Version: 2024-01-01` (supabase-js always does), plus
//! the legacy `error_code` and `msg` keys, with the error code also in the
//! `x-sb-error-code` header (supabase/auth `internal/api/errors.go`).
//!
//! The constructors below are the catalogue: codes, statuses and messages as
//! GoTrue answers them (`internal/api/apierrors/errorcode.go`, `token.go`,
//! `signup.go`, `auth.go`, `logout.go`, `admin.go`); [`GoTrue`] renders the
//! errors every service shares in the same shape.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{Map, Value, json};

use gateway_core::error::{
    ApiError, ErrorShape, ServiceFault, client_data_error, json_response, log_failure,
};

#[derive(Debug, Clone, PartialEq)]
pub struct AuthError {
    pub status: StatusCode,
    /// GoTrue's `error_code`, e.g. `invalid_credentials`.
    pub code: &'static str,
    pub message: String,
    /// Keys added to the body, e.g. `weak_password: {"reasons": [...]}`.
    pub extra: Map<String, Value>,
}

impl AuthError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self { status, code, message: message.into(), extra: Map::new() }
    }

    fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub(crate) fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// Unknown e-mail, no password, or a wrong one: the same answer for all.
    pub fn invalid_credentials() -> Self {
        Self::bad_request("invalid_credentials", "Invalid login credentials")
    }

    /// Told only after the password was right.
    pub fn email_not_confirmed() -> Self {
        Self::bad_request("email_not_confirmed", "Email not confirmed")
    }

    pub fn phone_not_confirmed() -> Self {
        Self::bad_request("phone_not_confirmed", "Phone not confirmed")
    }

    pub fn user_banned() -> Self {
        Self::bad_request("user_banned", "User is banned")
    }

    pub fn validation_failed(message: impl Into<String>) -> Self {
        Self::bad_request("validation_failed", message)
    }

    pub fn bad_json() -> Self {
        Self::bad_request("bad_json", "Could not parse request body as JSON")
    }

    /// GoTrue checks `len()`, that is bytes; bcrypt would silently ignore the rest.
    pub fn password_too_long() -> Self {
        Self::validation_failed("Password cannot be longer than 72 characters")
    }

    pub fn weak_password(min_length: u32) -> Self {
        let mut error = Self::unprocessable(
            "weak_password",
            format!("Password should be at least {min_length} characters."),
        );
        error.extra.insert("weak_password".to_owned(), json!({ "reasons": ["length"] }));
        error
    }

    pub fn user_already_exists() -> Self {
        Self::unprocessable("user_already_exists", "User already registered")
    }

    pub fn email_exists() -> Self {
        Self::unprocessable("email_exists", "A user with this email address has already been registered")
    }

    pub fn phone_exists() -> Self {
        Self::unprocessable("phone_exists", "A user with this phone number has already been registered")
    }

    pub fn signup_disabled() -> Self {
        Self::unprocessable("signup_disabled", "Signups not allowed for this instance")
    }

    pub fn refresh_token_not_found() -> Self {
        Self::bad_request("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
    }

    pub fn refresh_token_already_used() -> Self {
        Self::bad_request("refresh_token_already_used", "Invalid Refresh Token: Already Used")
    }

    pub fn session_not_found() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        )
    }

    pub fn user_not_found() -> Self {
        Self::new(StatusCode::FORBIDDEN, "user_not_found", "User from sub claim in JWT does not exist")
    }

    /// `/admin/users/{id}` for an id that does not exist.
    pub fn admin_user_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "user_not_found", "User not found")
    }

    pub fn no_authorization() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "no_authorization", "This endpoint requires a valid Bearer token")
    }

    pub fn bad_jwt(reason: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {reason}"),
        )
    }

    pub fn not_admin() -> Self {
        Self::new(StatusCode::FORBIDDEN, "not_admin", "User not allowed")
    }

    pub fn over_request_rate_limit() -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "over_request_rate_limit", "Request rate limit reached")
    }

    /// `grant_type` of none of GoTrue's kinds (`token.go`), with its odd code.
    pub fn unsupported_grant_type() -> Self {
        Self::bad_request("invalid_credentials", "unsupported_grant_type")
    }

    /// `GET /admin/users` with a `page` or `per_page` that is not a positive
    /// count (`admin.go`; `reason` as Go's `strconv.ParseUint` words it).
    pub fn bad_pagination(reason: &str) -> Self {
        Self::validation_failed(format!("Bad Pagination Parameters: {reason}"))
    }

    /// What GoTrue answers for what is switched off (`api.go`, `web3.go`,
    /// `middleware.go`, `mfa.go`).
    pub fn anonymous_provider_disabled() -> Self {
        Self::unprocessable("anonymous_provider_disabled", "Anonymous sign-ins are disabled")
    }

    /// Both Web3 chains are off.
    pub fn web3_provider_disabled() -> Self {
        Self::unprocessable("web3_provider_disabled", "Web3 provider is disabled")
    }

    /// The chain asked for is off, the other on; `chain` as GoTrue capitalises it.
    pub fn web3_chain_disabled(chain: &str) -> Self {
        Self::unprocessable("web3_provider_disabled", format!("{chain} Web3 provider is disabled"))
    }

    pub fn web3_unsupported_chain() -> Self {
        Self::bad_request("web3_unsupported_chain", "Unsupported chain")
    }

    pub fn saml_provider_disabled() -> Self {
        Self::new(StatusCode::NOT_FOUND, "saml_provider_disabled", "SAML 2.0 is disabled")
    }

    /// SAML single sign-on (`sso.go`, `samlacs.go`, `ssoadmin.go`).
    pub fn sso_provider_not_found(message: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "sso_provider_not_found", message)
    }

    pub fn sso_provider_disabled(message: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "sso_provider_disabled", message)
    }

    pub fn saml_relay_state_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "saml_relay_state_not_found",
            "SAML RelayState does not exist, try logging in again?",
        )
    }

    pub fn saml_relay_state_expired() -> Self {
        Self::unprocessable("saml_relay_state_expired", "SAML RelayState has expired. Try logging in again?")
    }

    pub fn saml_idp_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "saml_idp_not_found",
            "A SAML connection has not been established with this Identity Provider",
        )
    }

    pub fn saml_assertion_invalid() -> Self {
        Self::validation_failed("SAML Assertion is not valid")
    }

    pub fn saml_assertion_no_user_id() -> Self {
        Self::bad_request(
            "saml_assertion_no_user_id",
            "SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user",
        )
    }

    pub fn saml_assertion_no_email() -> Self {
        Self::bad_request("saml_assertion_no_email", "SAML Assertion does not contain an email address")
    }

    pub fn saml_idp_already_exists(entity_id: &str) -> Self {
        Self::unprocessable(
            "saml_idp_already_exists",
            format!("SAML Identity Provider with this EntityID ({entity_id}) already exists"),
        )
    }

    pub fn sso_domain_already_exists(message: String) -> Self {
        Self::bad_request("sso_domain_already_exists", message)
    }

    pub fn saml_entity_id_mismatch(expected: &str, got: &str) -> Self {
        Self::bad_request(
            "saml_entity_id_mismatch",
            format!(
                "SAML Metadata can be updated only if the EntityID matches for the provider; expected '{expected}' but got '{got}'"
            ),
        )
    }

    pub fn saml_metadata_fetch_failed(status: u16, url: &str) -> Self {
        Self::bad_request(
            "saml_metadata_fetch_failed",
            format!("HTTP {status} error fetching SAML Metadata from URL '{url}'"),
        )
    }

    pub fn manual_linking_disabled() -> Self {
        Self::new(StatusCode::NOT_FOUND, "manual_linking_disabled", "Manual linking is disabled")
    }

    /// `kind` as GoTrue names it: `TOTP`, `Phone`, `WebAuthn`.
    pub fn mfa_enroll_disabled(code: &'static str, kind: &str) -> Self {
        Self::unprocessable(code, format!("MFA enroll is disabled for {kind}"))
    }

    pub fn mfa_factor_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "mfa_factor_not_found", "Factor not found")
    }

    pub fn factor_id_not_uuid() -> Self {
        Self::new(StatusCode::NOT_FOUND, "validation_failed", "factor_id must be an UUID")
    }

    /// MFA (`mfa.go`, `auth.go`).
    pub fn anonymous_not_allowed() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        )
    }

    pub fn mfa_factor_name_conflict(name: &str) -> Self {
        Self::unprocessable(
            "mfa_factor_name_conflict",
            format!("A factor with the friendly name {name:?} for this user already exists"),
        )
    }

    pub fn too_many_enrolled_mfa_factors() -> Self {
        Self::unprocessable(
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue",
        )
    }

    /// `status` differs by route in GoTrue: 403 to enrol, 422 to unenrol,
    /// 401 to change e-mail or password.
    pub fn insufficient_aal(status: StatusCode, message: &str) -> Self {
        Self::new(status, "insufficient_aal", message)
    }

    pub fn mfa_challenge_not_found() -> Self {
        Self::unprocessable("mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
    }

    /// Also GoTrue's answer for a challenge already verified.
    pub fn mfa_ip_address_mismatch() -> Self {
        Self::unprocessable("mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")
    }

    pub fn mfa_challenge_expired(id: uuid::Uuid) -> Self {
        Self::unprocessable(
            "mfa_challenge_expired",
            format!(
                "MFA challenge {id} has expired, verify against another challenge or create a new challenge."
            ),
        )
    }

    pub fn mfa_verification_failed() -> Self {
        Self::unprocessable("mfa_verification_failed", "Invalid TOTP code entered")
    }

    /// Passkeys and WebAuthn (`passkey_*.go`, `middleware.go`
    /// `requirePasskeyEnabled`).
    pub fn passkey_disabled() -> Self {
        Self::new(StatusCode::NOT_FOUND, "passkey_disabled", "Passkeys are disabled")
    }

    pub fn too_many_passkeys() -> Self {
        Self::unprocessable("too_many_passkeys", "Maximum number of passkeys reached")
    }

    pub fn passkey_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "validation_failed", "Passkey not found")
    }

    pub fn webauthn_challenge_not_found() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "webauthn_challenge_not_found",
            "Challenge not found or already used",
        )
    }

    pub fn webauthn_challenge_expired() -> Self {
        Self::new(StatusCode::BAD_REQUEST, "webauthn_challenge_expired", "Challenge has expired")
    }

    pub fn webauthn_invalid_response() -> Self {
        Self::new(StatusCode::BAD_REQUEST, "webauthn_verification_failed", "Invalid credential response")
    }

    pub fn webauthn_verification_failed() -> Self {
        Self::new(StatusCode::BAD_REQUEST, "webauthn_verification_failed", "Credential verification failed")
    }

    pub fn webauthn_credential_exists() -> Self {
        Self::unprocessable("webauthn_credential_exists", "This credential is already registered")
    }

    /// A `webauthn` factor's ceremony that did not verify. GoTrue answers 500
    /// for a failed assertion; a client's mistake is a 422 here, as a wrong
    /// TOTP code is.
    pub fn mfa_webauthn_verification_failed() -> Self {
        Self::unprocessable("mfa_verification_failed", "WebAuthn verification failed")
    }

    /// An error a custom access-token hook returned (`hooks`), with its
    /// status; GoTrue codes it `unexpected_failure` when 500, else `unknown`.
    pub fn hook_error(status: StatusCode, message: String) -> Self {
        let code = if status == StatusCode::INTERNAL_SERVER_ERROR { "unexpected_failure" } else { "unknown" };
        Self::new(status, code, message)
    }

    /// An OAuth 2.0 error as GoTrue sends it (`apierrors.OAuthError`): 400
    /// with only `error` and `error_description` in the body (the empty code
    /// tells the renderer so).
    pub fn oauth(error: &str, description: impl Into<String>) -> Self {
        let mut e = Self::bad_request("", description);
        e.extra.insert("error".to_owned(), json!(error));
        e.extra.insert("error_description".to_owned(), json!(e.message));
        e
    }

    /// `/authorize` for a provider that is not configured (`external.go`).
    pub fn unsupported_provider(name: &str) -> Self {
        Self::validation_failed(format!("Unsupported provider: Provider {name} could not be found"))
    }

    /// `grant_type=id_token` for a provider name that is not configured
    /// (`token_oidc.go`, its default case without allowed issuers).
    pub fn oidc_provider_not_allowed(name: &str) -> Self {
        Self::validation_failed(format!("Custom OIDC provider \"{name}\" not allowed"))
    }

    pub fn bad_oauth_state(message: &str) -> Self {
        Self::bad_request("bad_oauth_state", message)
    }

    pub fn bad_oauth_callback(message: &str) -> Self {
        Self::bad_request("bad_oauth_callback", message)
    }

    pub fn flow_state_already_used() -> Self {
        Self::bad_request("flow_state_already_used", "State has already been used")
    }

    /// `/token?grant_type=pkce` (`token.go`).
    pub fn flow_state_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "flow_state_not_found",
            "invalid flow state, no valid flow state found",
        )
    }

    pub fn flow_state_expired() -> Self {
        Self::unprocessable("flow_state_expired", "invalid flow state, flow state has expired")
    }

    pub fn bad_code_verifier() -> Self {
        Self::bad_request("bad_code_verifier", "code challenge does not match previously saved code verifier")
    }

    /// GoTrue's `linkIdentityToUser` and `DeleteIdentity` (`identity.go`).
    pub fn identity_already_exists(message: &str) -> Self {
        Self::unprocessable("identity_already_exists", message)
    }

    pub fn identity_not_found() -> Self {
        Self::unprocessable("identity_not_found", "Identity doesn't exist")
    }

    pub fn single_identity_not_deletable() -> Self {
        Self::unprocessable(
            "single_identity_not_deletable",
            "User must have at least 1 identity after unlinking",
        )
    }

    /// The provider's address is unverified and another account has it.
    pub fn provider_email_needs_verification(provider: &str) -> Self {
        Self::unprocessable(
            "provider_email_needs_verification",
            format!("Unverified email with {provider}. Verify the email with {provider} in order to sign in"),
        )
    }

    /// The OAuth 2.1 server's routes while it is off (GoTrue's
    /// `requireOAuthServerEnabled`).
    pub fn oauth_server_disabled() -> Self {
        Self::new(StatusCode::NOT_FOUND, "feature_disabled", "OAuth server is disabled")
    }

    pub fn oauth_dynamic_client_registration_disabled() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "oauth_dynamic_client_registration_disabled",
            "Dynamic client registration is not enabled",
        )
    }

    /// `/admin/oauth/clients/{id}` for a client that does not exist.
    pub fn oauth_client_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "oauth_client_not_found", "OAuth client not found")
    }

    /// `/oauth/authorize` for an unknown client: 400, as GoTrue answers it.
    pub fn oauth_client_unknown(message: &str) -> Self {
        Self::bad_request("oauth_client_not_found", message)
    }

    pub fn oauth_authorization_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "oauth_authorization_not_found", "authorization not found")
    }

    pub fn oauth_consent_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "oauth_consent_not_found", "No active grant found for this client")
    }

    /// The client authentication of `/oauth/token` failed (GoTrue's
    /// `requireOAuthClientAuth`).
    pub fn invalid_client_credentials(reason: &str) -> Self {
        Self::bad_request("invalid_credentials", reason)
    }

    pub fn not_implemented(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_IMPLEMENTED,
            "not_implemented",
            format!("{what} is not supported by this server"),
        )
    }
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl ServiceFault for AuthError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn render(&self) -> Response {
        gotrue_response(self.status, self.code, &self.message, self.extra.clone())
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        ApiError::service(error)
    }
}

/// GoTrue's shape for the errors every service shares.
pub struct GoTrue;

impl ErrorShape for GoTrue {
    fn render(error: &ApiError) -> Response {
        let (status, code, message) = match error {
            ApiError::Jwt(jwt) => (
                StatusCode::FORBIDDEN,
                "bad_jwt",
                format!("invalid JWT: unable to parse or verify signature, {jwt}"),
            ),
            ApiError::NotFound => (StatusCode::NOT_FOUND, "not_found", "Not Found".to_owned()),
            // GoTrue has no body limit, so no code for it; `request_timeout` is
            // its own (`apierrors/errorcode.go`), used by its request timeout.
            ApiError::BodyTooLarge(limit) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                format!("Request body too large: the limit is {limit} bytes"),
            ),
            ApiError::BodyTimeout(_) => (
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                "Request body did not arrive in time".to_owned(),
            ),
            ApiError::Database(db) if let Some(status) = client_data_error(db) => {
                let code = if status == StatusCode::CONFLICT { "conflict" } else { "validation_failed" };
                (status, code, db.message.clone())
            }
            ApiError::Unavailable(_) | ApiError::PoolTimeout => (
                StatusCode::SERVICE_UNAVAILABLE,
                "unexpected_failure",
                "Service temporarily unavailable".to_owned(),
            ),
            _ => {
                // Whatever PostgREST would make of it, here it is a server error:
                // the cause goes to the log.
                if !error.status().is_server_error() {
                    log_failure(error);
                }
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "unexpected_failure",
                    "Unexpected failure, please check server logs for more information".to_owned(),
                )
            }
        };
        gotrue_response(status, code, &message, Map::new())
    }
}

/// GoTrue's error body, with the API version and the code in headers.
fn gotrue_response(
    status: StatusCode,
    code: &'static str,
    message: &str,
    extra: Map<String, Value>,
) -> Response {
    // An OAuth 2.0 error carries only `error` and `error_description`.
    if code.is_empty() {
        return json_response(status, Value::Object(extra));
    }
    let mut body = json!({ "code": code, "error_code": code, "msg": message, "message": message });
    if let Value::Object(map) = &mut body {
        map.extend(extra);
    }
    let mut response = json_response(status, body);
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("x-supabase-api-version"), HeaderValue::from_static("2024-01-01"));
    headers.insert(HeaderName::from_static("x-sb-error-code"), HeaderValue::from_static(code));
    response
}
