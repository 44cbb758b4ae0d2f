//! The handlers of `/auth/v1`, one file per resource. Each is a recipe: check
//! the input, take from the rate limit, call `store`, answer.

pub mod admin;
pub mod disabled;
pub mod factors;
pub mod info;
pub mod logout;
pub mod mail;
pub mod oauth;
pub mod passkeys;
pub mod phone;
pub mod signup;
pub mod sso;
pub mod sso_admin;
pub mod token;
pub mod user;
pub mod verify;
pub mod web3;
pub mod webauthn_factor;

use serde_json::Value;

use super::error::AuthError;
use super::store::Login;

/// Query-string pairs, form-decoded (GoTrue reads them with `r.FormValue`).
pub(crate) fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The e-mail or phone a request names, checked: a plausible e-mail
/// (GoTrue: "Unable to validate email address: invalid format") or a phone of
/// 8 to 15 digits, kept as digits only like GoTrue stores it.
pub(crate) fn login_of(email: Option<&str>, phone: Option<&str>) -> Result<Option<Login>, AuthError> {
    let email = email.map(str::trim).filter(|e| !e.is_empty());
    let phone = phone.map(str::trim).filter(|p| !p.is_empty());
    match (email, phone) {
        (Some(email), _) => Ok(Some(Login::Email(valid_email(email)?))),
        (None, Some(phone)) => Ok(Some(Login::Phone(valid_phone(phone)?))),
        (None, None) => Ok(None),
    }
}

/// An e-mail address as GoTrue checks it (`validateEmail` in `mail.go`):
/// at most 255 bytes, then the format of `checkmail.ValidateFormat`, whose
/// pattern is `^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@` and a host of dot-separated
/// labels of 1-63 letters, digits and inner hyphens (`a@localhost` passes;
/// `xx:;x@x.x` does not); kept lower-cased.
pub(crate) fn valid_email(email: &str) -> Result<String, AuthError> {
    let email = email.trim();
    if email.is_empty() {
        return Err(AuthError::validation_failed("An email address is required"));
    }
    if email.len() > 255 {
        return Err(AuthError::validation_failed("An email address is too long"));
    }
    let local_char = |c: char| c.is_ascii_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c);
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let valid = email.split_once('@').is_some_and(|(local, host)| {
        !local.is_empty() && local.chars().all(local_char) && host.split('.').all(label)
    });
    if !valid {
        return Err(AuthError::validation_failed("Unable to validate email address: invalid format"));
    }
    Ok(email.to_lowercase())
}

pub(crate) fn valid_phone(phone: &str) -> Result<String, AuthError> {
    let digits: String = phone.chars().filter(|c| !matches!(c, '+' | ' ' | '-' | '(' | ')')).collect();
    if !(8..=15).contains(&digits.len()) || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(AuthError::validation_failed("Invalid phone number format (E.164 required)"));
    }
    Ok(digits)
}

/// Metadata must be a JSON object (or absent).
pub(crate) fn metadata(value: Option<Value>, what: &str) -> Result<Option<Value>, AuthError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(object @ Value::Object(_)) => Ok(Some(object)),
        Some(_) => Err(AuthError::validation_failed(format!("{what} must be a JSON object"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// checkmail's pattern, case by case (GoTrue's `validateEmail`).
    #[test]
    fn emails_are_checked_as_gotrue_checks_them() {
        let valid = ["a@b.co", "A.b+c@x-y.example", "o'neil@host", "a@localhost", "!#$%&'*+/=?^_`{|}~-@x.y"];
        for email in valid {
            assert!(valid_email(email).is_ok(), "{email}");
        }
        let invalid = [
            ("xx:;x@x.x", "Unable to validate email address: invalid format"),
            ("a@b@c", "Unable to validate email address: invalid format"),
            ("a@-b.c", "Unable to validate email address: invalid format"),
            ("a@b..c", "Unable to validate email address: invalid format"),
            ("a@b.c.", "Unable to validate email address: invalid format"),
            ("@b.c", "Unable to validate email address: invalid format"),
            ("é@b.c", "Unable to validate email address: invalid format"),
            ("", "An email address is required"),
        ];
        for (email, message) in invalid {
            assert_eq!(valid_email(email).map_err(|e| e.message), Err(message.to_owned()), "{email}");
        }
        let long = format!("{}@b.co", "a".repeat(251));
        assert_eq!(valid_email(&long).map_err(|e| e.message), Err("An email address is too long".to_owned()));
    }

    /// (email, phone, expected login or error code)
    type Case = (Option<&'static str>, Option<&'static str>, Result<Option<Login>, &'static str>);

    #[test]
    fn emails_and_phones_are_checked_and_normalised() {
        let cases: [Case; 9] = [
            (Some("A@B.co"), None, Ok(Some(Login::Email("a@b.co".to_owned())))),
            (Some(" a@b.co "), Some("123"), Ok(Some(Login::Email("a@b.co".to_owned())))),
            (None, Some("+1 (555) 123-4567"), Ok(Some(Login::Phone("15551234567".to_owned())))),
            (None, None, Ok(None)),
            (Some(""), Some(""), Ok(None)),
            (Some("not-an-email"), None, Err("validation_failed")),
            (Some("a b@c.d"), None, Err("validation_failed")),
            (Some("xx:;x@x.x"), None, Err("validation_failed")),
            (None, Some("12ab5678"), Err("validation_failed")),
        ];
        for (email, phone, expected) in cases {
            assert_eq!(login_of(email, phone).map_err(|e| e.code), expected, "{email:?} {phone:?}");
        }
    }
}
