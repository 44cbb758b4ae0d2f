//! `POST /token?grant_type=web3`: `signInWithWeb3` (supabase/auth
//! `internal/api/web3.go`). The wallet signed a Sign-In with Ethereum or
//! Solana message; the message is parsed and its signature checked
//! (`crate::web3`), then what it claims is judged in GoTrue's order: the URI
//! is HTTPS (or localhost) and one `redirect_to` could name, the domain is
//! the URI's host, and the times hold. The user is the identity
//! `web3:<chain>:<address>` of provider `web3`, made on the first sign-in.

use std::net::IpAddr;

use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::AuthState;
use crate::claims::{Grant, session_response};
use crate::error::AuthError;
use crate::external::{self, Account, External};
use crate::ratelimit::{self, Bucket};
use crate::store::{self, SignIn, method};
use crate::tokens;
use crate::web3::{self, Chain, Message};
use gateway_core::error::ApiError;

/// GoTrue's bounds on the message, in bytes.
const MESSAGE_MIN: usize = 64;
const MESSAGE_MAX: usize = 20 * 1024;

/// What the request carries.
pub struct Web3Params {
    pub chain: Option<String>,
    pub message: Option<String>,
    pub signature: Option<String>,
}

/// What GoTrue does before it reads a Web3 grant's body: take from the
/// limit, even when Web3 is off, then refuse while both chains are off, so a
/// body it could not parse still gets "Web3 provider is disabled"
/// (supabase/auth `internal/api/web3.go`, `Web3Grant`).
pub async fn admit(state: &AuthState, ip: Option<IpAddr>) -> Result<(), ApiError> {
    ratelimit::take(state, Bucket::Web3, ip).await?;
    let config = &state.config;
    if !config.web3_ethereum_enabled && !config.web3_solana_enabled {
        return Err(AuthError::web3_provider_disabled().into());
    }
    Ok(())
}

/// The grant, after [`admit`].
pub async fn web3_grant(
    state: &AuthState,
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
    params: Web3Params,
) -> Result<Value, ApiError> {
    let config = &state.config;
    let chain = match params.chain.as_deref().unwrap_or("") {
        "ethereum" if config.web3_ethereum_enabled => Chain::Ethereum,
        "solana" if config.web3_solana_enabled => Chain::Solana,
        "ethereum" => return Err(AuthError::web3_chain_disabled("Ethereum").into()),
        "solana" => return Err(AuthError::web3_chain_disabled("Solana").into()),
        _ => return Err(AuthError::web3_unsupported_chain().into()),
    };
    let raw = params.message.unwrap_or_default();
    if raw.len() < MESSAGE_MIN {
        return Err(AuthError::validation_failed("message is too short").into());
    }
    if raw.len() > MESSAGE_MAX {
        return Err(AuthError::validation_failed("message must not exceed 20KB").into());
    }
    let signature = params.signature.unwrap_or_default();
    let message = match chain {
        Chain::Ethereum => {
            if signature.strip_prefix("0x").unwrap_or(&signature).len() != 130 {
                return Err(AuthError::validation_failed(
                    "signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string",
                )
                .into());
            }
            let message = web3::parse(chain, &raw).map_err(AuthError::validation_failed)?;
            if !web3::verify_ethereum(&raw, &message.address, &signature) {
                return Err(signature_mismatch());
            }
            message
        }
        Chain::Solana => {
            if signature.len() != 86 && signature.len() != 88 {
                return Err(AuthError::validation_failed(
                    "signature must be 64 bytes encoded as base64 with or without padding",
                )
                .into());
            }
            // Standard or URL-safe alphabet, padded or not, as GoTrue takes it.
            let url_safe = signature.trim_end_matches('=').replace('+', "-").replace('/', "_");
            let bytes = URL_SAFE_NO_PAD.decode(url_safe).map_err(|_| {
                AuthError::validation_failed("signature does not contain valid base64 characters")
            })?;
            let message = web3::parse(chain, &raw).map_err(AuthError::validation_failed)?;
            if !web3::verify_solana(&raw, &message.domain, &message.address, &bytes) {
                return Err(signature_mismatch());
            }
            message
        }
    };
    judge(state, chain, &message)?;
    let subject = format!("web3:{}:{}", chain.name(), message.address);
    let data = identity_data(chain, &message, &subject);
    let external = External {
        provider: "web3",
        subject: &subject,
        email: None,
        email_verified: false,
        identity_data: &data,
    };
    let account =
        external::find_or_create(&state.db, &external, None, config.autoconfirm, config.signup_enabled)
            .await?;
    let user_id = match account {
        Account::Found(id) => id,
        Account::Banned => {
            return Err(AuthError::new(StatusCode::FORBIDDEN, "user_banned", "User is banned").into());
        }
        Account::SignupDisabled => return Err(AuthError::signup_disabled().into()),
        // Without a linking target or an e-mail address nothing else is answered.
        Account::AlreadyLinked | Account::IdentityTaken | Account::EmailTaken => {
            return Err(ApiError::internal("unexpected account linking decision for web3"));
        }
    };
    tracing::info!(chain = chain.name(), address = %message.address, domain = %message.domain, "web3 sign-in");
    let refresh_token = tokens::generate()?;
    let sign_in = SignIn { provider: "web3", method: method::WEB3 };
    let started =
        store::start_session(&state.db, user_id, sign_in, &tokens::digest(&refresh_token), user_agent, ip)
            .await?;
    session_response(state, Grant::of(started, &refresh_token)).await
}

fn signature_mismatch() -> ApiError {
    AuthError::oauth("invalid_grant", "Signature does not match address in message").into()
}

/// The checks of what a correctly signed message says, in GoTrue's order and
/// words. A message for another site, or one kept too long, is refused even
/// though its owner signed it.
fn judge(state: &AuthState, chain: Chain, message: &Message) -> Result<(), AuthError> {
    let name = chain.title();
    let refuse = |what: String| AuthError::oauth("invalid_grant", what);
    let (scheme, host, hostname) = message.uri_parts();
    let localhost = hostname.as_deref() == Some("localhost");
    if scheme.as_deref() != Some("https") && !localhost {
        return Err(refuse(format!("Signed {name} message is using URI which does not use HTTPS")));
    }
    let site_url = crate::site_url(state);
    let allow_list = &state.config.uri_allow_list;
    if !crate::redirect::allowed(&message.uri, site_url, allow_list) {
        return Err(refuse(format!(
            "Signed {name} message is using URI which is not allowed on this server, message was signed for another app"
        )));
    }
    if !localhost
        && (host.as_deref() != Some(message.domain.as_str())
            || !crate::redirect::allowed(&format!("https://{}/", message.domain), site_url, allow_list))
    {
        return Err(refuse(format!(
            "Signed {name} message is using a Domain that does not match the one in URI which is not allowed on this server"
        )));
    }
    let now = Utc::now();
    if message.not_before.is_some_and(|not_before| now < not_before) {
        return Err(refuse(format!("Signed {name} message becomes valid in the future")));
    }
    // GoTrue looks at an Ethereum message's expiry only when it also has a
    // `Not Before`; here an expired message is refused either way.
    if message.expiration_time.is_some_and(|expires| now > expires) {
        return Err(refuse(format!("Signed {name} message is expired")));
    }
    let validity = match chain {
        Chain::Ethereum => state.config.web3_ethereum_maximum_validity,
        Chain::Solana => state.config.web3_solana_maximum_validity,
    };
    let validity =
        Duration::try_seconds(i64::try_from(validity).unwrap_or(i64::MAX)).unwrap_or(Duration::MAX);
    if message.issued_at.checked_add_signed(validity).is_some_and(|latest| now > latest) {
        return Err(refuse(format!("{name} message was issued too long ago")));
    }
    if message.issued_at.checked_sub_signed(validity).is_some_and(|earliest| now < earliest) {
        return Err(refuse(format!("{name} message was issued too far in the future")));
    }
    Ok(())
}

/// The identity's data and the new user's `user_metadata`, as GoTrue fills
/// them from its provider claims: the subject, the message's facts under
/// `custom_claims`, and the two `*_verified` flags its claims always carry.
/// An Ethereum message without statement has `null`, a Solana one `""`.
fn identity_data(chain: Chain, message: &Message, subject: &str) -> Value {
    let statement = match (chain, &message.statement) {
        (_, Some(statement)) => json!(statement),
        (Chain::Ethereum, None) => Value::Null,
        (Chain::Solana, None) => json!(""),
    };
    json!({
        "sub": subject,
        "custom_claims": {
            "address": message.address,
            "chain": chain.name(),
            "network": message.chain_id.as_deref().unwrap_or(""),
            "domain": message.domain,
            "statement": statement,
        },
        "email_verified": false,
        "phone_verified": false,
    })
}
