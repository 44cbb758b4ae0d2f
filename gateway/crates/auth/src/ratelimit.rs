//! Per-address rate limits, as token buckets kept in PostgreSQL
//! (`auth.rate_limits`), so that they hold across several gateway instances.
//!
//! GoTrue's defaults (`internal/api/apilimiter`, reliability.md §2.5, G27): a
//! burst of 30, refilled at 30 per 5 minutes for password sign-ins and sign-ups
//! and at 150 per 5 minutes for refresh-token grants. Over the limit is 429
//! `over_request_rate_limit`.
//!
//! A bucket left alone for [`IDLE`] is full again, so its row carries nothing
//! and is deleted: about one request in 64 sweeps such rows, which keeps the
//! table as small as the set of recently active addresses.

use std::net::IpAddr;

use super::config::AuthConfig;
use super::error::AuthError;
use crate::AuthState;
use gateway_core::db::{Access, Db};
use gateway_core::error::ApiError;

const WINDOW_SECS: f64 = 300.0;

/// Longer than a bucket of a 5-minute (or shorter) window takes to refill.
pub const IDLE: &str = "10 minutes";

/// The same for the buckets of a one-hour window (anonymous sign-ins, every
/// mail sent) and the per-address mail pacing of `handlers::mail`, which
/// would otherwise be forgotten before they are full again.
pub const IDLE_HOURLY: &str = "70 minutes";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    /// `grant_type=password` and `/signup`.
    SignInSignUp,
    /// `grant_type=refresh_token`.
    TokenRefresh,
    /// `/signup` without e-mail or phone, per hour (GoTrue's `AnonymousSignIns`).
    AnonymousSignIn,
    /// `/factors/{id}/challenge` and `/verify`, per minute (GoTrue's
    /// `FactorChallenge` and `FactorVerify`, one bucket here).
    MfaChallengeVerify,
    /// `/otp` and `/recover` (GoTrue's `RATE_LIMIT_OTP`).
    Otp,
    /// `grant_type=web3` (GoTrue's `RATE_LIMIT_WEB3`).
    Web3,
    /// `/verify` (GoTrue's `RATE_LIMIT_VERIFY`).
    Verify,
    /// Every mail sent, per hour and for all addresses together (GoTrue's
    /// `RATE_LIMIT_EMAIL_SENT`); taken with no address.
    EmailSent,
    /// Every SMS sent, per hour and for all phones together (GoTrue's
    /// `RATE_LIMIT_SMS_SENT`); taken with no address.
    SmsSent,
}

impl Bucket {
    fn name(self) -> &'static str {
        match self {
            Bucket::SignInSignUp => "sign_in_sign_ups",
            Bucket::TokenRefresh => "token_refresh",
            Bucket::AnonymousSignIn => "anonymous_users",
            Bucket::MfaChallengeVerify => "mfa_challenge_verify",
            Bucket::Otp => "otp",
            Bucket::Web3 => "web3",
            Bucket::Verify => "verify",
            Bucket::EmailSent => "email_sent",
            Bucket::SmsSent => "sms_sent",
        }
    }

    /// The window `per_window` counts in.
    fn window_secs(self) -> f64 {
        match self {
            Bucket::SignInSignUp | Bucket::TokenRefresh | Bucket::Otp | Bucket::Verify | Bucket::Web3 => {
                WINDOW_SECS
            }
            Bucket::AnonymousSignIn | Bucket::EmailSent | Bucket::SmsSent => 3600.0,
            Bucket::MfaChallengeVerify => 60.0,
        }
    }

    fn per_window(self, config: &AuthConfig) -> u32 {
        match self {
            Bucket::SignInSignUp => config.rate_limit_sign_in_sign_ups,
            Bucket::TokenRefresh => config.rate_limit_token_refresh,
            Bucket::AnonymousSignIn => config.rate_limit_anonymous_users,
            Bucket::MfaChallengeVerify => config.mfa_rate_limit_challenge_and_verify,
            Bucket::Otp => config.mail.rate_limit_otp,
            Bucket::Web3 => config.rate_limit_web3,
            Bucket::Verify => config.mail.rate_limit_verify,
            Bucket::EmailSent => config.mail.rate_limit_email_sent,
            Bucket::SmsSent => config.sms.rate_limit_sms_sent,
        }
    }

    fn capacity(self, config: &AuthConfig) -> f64 {
        match self {
            // A count per hour, not a burst-limited rate.
            Bucket::EmailSent => f64::from(config.mail.rate_limit_email_sent),
            Bucket::SmsSent => f64::from(config.sms.rate_limit_sms_sent),
            _ => f64::from(self.per_window(config).min(config.rate_limit_burst.max(1))),
        }
    }
}

/// Takes one token from `bucket` for `ip`, or refuses with 429. The statement is
/// atomic: concurrent requests from one address never overdraw the bucket.
const TAKE: &str = "\
insert into auth.rate_limits as r (key, tokens, updated_at) values ($1, $2::float8 - 1, now()) \
on conflict (key) do update \
  set tokens = least($2::float8, r.tokens + extract(epoch from now() - r.updated_at)::float8 * $3::float8) - 1, \
      updated_at = now() \
  where least($2::float8, r.tokens + extract(epoch from now() - r.updated_at)::float8 * $3::float8) >= 1 \
returning tokens";

pub async fn take(state: &AuthState, bucket: Bucket, ip: Option<IpAddr>) -> Result<(), ApiError> {
    let config = &state.config;
    let per_window = bucket.per_window(config);
    if per_window == 0 {
        return Ok(());
    }
    let capacity = bucket.capacity(config);
    let refill_per_sec = f64::from(per_window) / bucket.window_secs();
    let address = ip.map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
    let key = format!("{}:{address}", bucket.name());
    let mut session = state.db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(TAKE, &[&key, &capacity, &refill_per_sec]).await?;
    session.commit().await?;
    let mut dice = [0u8; 1];
    if getrandom::fill(&mut dice).is_ok() && dice[0] < 4 {
        forget_idle(&state.db).await?;
    }
    if rows.is_empty() {
        metrics::counter!("gateway_auth_rate_limited_total", "limit" => bucket.name()).increment(1);
        return Err(AuthError::over_request_rate_limit().into());
    }
    Ok(())
}

/// Takes one mail from the hourly `AUTH_RATE_LIMIT_EMAIL_SENT` budget, or
/// refuses with GoTrue's 429 `over_email_send_rate_limit`.
pub async fn take_email(state: &AuthState) -> Result<(), ApiError> {
    match take(state, Bucket::EmailSent, None).await {
        Err(e) if e.as_service::<AuthError>().is_some_and(|e| e.code == "over_request_rate_limit") => {
            Err(AuthError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                "over_email_send_rate_limit",
                "Email rate limit exceeded",
            )
            .into())
        }
        other => other,
    }
}

/// Deletes the buckets nobody used for [`IDLE`] ([`IDLE_HOURLY`] for hourly
/// ones and the mail pacing): they are full anyway.
pub async fn forget_idle(db: &Db) -> Result<u64, ApiError> {
    const SWEEP: &str = "delete from auth.rate_limits where updated_at < now() - \
        case when key like 'anonymous\\_users:%' or key like 'email\\_sent:%' or key like 'sms\\_sent:%' or key like 'email\\_frequency:%' \
        then $2::text::interval else $1::text::interval end returning 1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(SWEEP, &[&IDLE, &IDLE_HOURLY]).await?;
    session.commit().await?;
    Ok(rows.len() as u64)
}
