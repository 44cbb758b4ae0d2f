//! E-mail of `/auth/v1`: the links and codes GoTrue mails,
//! sent over SMTP with `lettre`.
//!
//! - [`otp`]: a code of `AUTH_MAILER_OTP_LENGTH` digits and its hashed form,
//!   `hex(sha224(email || code))`, which is what GoTrue stores in
//!   `confirmation_token`, `recovery_token`, … and puts in links as
//!   `token_hash` (supabase/auth `internal/crypto/crypto.go`,
//!   `GenerateTokenHash`). The code itself is never stored.
//! - `redirect_to` is honoured only when it is the site or matches
//!   `AUTH_URI_ALLOW_LIST` (GoTrue's `IsRedirectURLValid`, `crate::redirect`).
//! - [`send`]: one mail; without `AUTH_SMTP_HOST` it is only logged (GoTrue's
//!   no-op mailer), and what it carries is not.

pub mod config;
pub mod store;
pub mod templates;

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use sha2::{Digest, Sha224};

use crate::AuthConfig;
use config::{MailConfig, SmtpTls};
use gateway_core::error::ApiError;
use templates::Mail;

/// A fresh code and the hash stored for it.
pub struct Otp {
    pub code: String,
    pub hash: String,
}

pub fn otp(email: &str, length: u32) -> Result<Otp, ApiError> {
    let mut code = String::with_capacity(length as usize);
    while code.len() < length as usize {
        let mut byte = [0u8; 1];
        getrandom::fill(&mut byte).map_err(ApiError::internal)?;
        // 250 is the largest multiple of 10 below 256: no digit is favoured.
        if byte[0] < 250 {
            code.push(char::from(b'0' + byte[0] % 10));
        }
    }
    let hash = token_hash(email, &code);
    Ok(Otp { code, hash })
}

/// GoTrue's `GenerateTokenHash`: `hex(sha224(email || code))`.
pub fn token_hash(email: &str, code: &str) -> String {
    hex::encode(Sha224::digest(format!("{}{code}", email.to_lowercase()).as_bytes()))
}

/// The public base of `/auth/v1`, for links in mails.
pub fn external_url(config: &AuthConfig) -> &str {
    config.external_url.as_deref().unwrap_or(&config.jwt_issuer).trim_end_matches('/')
}

/// Sends one mail to `to`. Fails (500, without details to the client) when
/// the SMTP server cannot be reached or refuses it, as GoTrue does.
pub async fn send(config: &MailConfig, to: &str, mail: &Mail) -> Result<(), ApiError> {
    let Some(host) = config.smtp_host.as_deref().filter(|h| !h.is_empty()) else {
        tracing::info!(kind = mail.kind, "no AUTH_SMTP_HOST: mail not sent");
        return Ok(());
    };
    let from = Mailbox::new(
        Some(config.smtp_sender_name.clone()).filter(|n| !n.is_empty()),
        config.smtp_admin_email.parse().map_err(ApiError::internal)?,
    );
    let message = Message::builder()
        .from(from)
        .to(to.parse().map_err(ApiError::internal)?)
        .subject(&mail.subject)
        .header(ContentType::TEXT_HTML)
        .body(mail.html.clone())
        .map_err(ApiError::internal)?;
    let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
        .port(config.smtp_port)
        .timeout(Some(Duration::from_secs(10)));
    builder = match config.smtp_tls {
        SmtpTls::None => builder.tls(Tls::None),
        SmtpTls::Starttls => {
            builder.tls(Tls::Required(TlsParameters::new(host.to_owned()).map_err(ApiError::internal)?))
        }
        SmtpTls::Tls => {
            builder.tls(Tls::Wrapper(TlsParameters::new(host.to_owned()).map_err(ApiError::internal)?))
        }
    };
    if let (Some(user), Some(pass)) = (&config.smtp_user, &config.smtp_pass) {
        builder = builder.credentials(Credentials::new(user.clone(), pass.expose().to_owned()));
    }
    builder.build().send(message).await.map_err(ApiError::internal)?;
    metrics::counter!("gateway_auth_mails_sent_total").increment(1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_have_the_configured_digits_and_their_hash_is_gotrues() {
        for length in [6, 8, 10] {
            let otp = otp("A@b.co", length).expect("otp");
            assert_eq!(otp.code.len(), length as usize);
            assert!(otp.code.chars().all(|c| c.is_ascii_digit()));
            assert_eq!(otp.hash, token_hash("a@b.co", &otp.code));
        }
        // sha224("a@b.co123456"), computed independently with coreutils.
        assert_eq!(
            token_hash("A@b.co", "123456"),
            "4911e82389643aeb3ce581cfa27b1630931b88c0206a90fed98a99cf"
        );
        assert_eq!(token_hash("a@b.co", "123456").len(), 56);
    }
}
