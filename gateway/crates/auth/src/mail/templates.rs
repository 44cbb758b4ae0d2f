//! The mails' subjects and bodies. Built-in in Spanish (the shop's language)
//! and English, picked by `AUTH_MAILER_LANGUAGE`; any of them replaced by a
//! file `<AUTH_MAILER_TEMPLATES_DIR>/<kind>.html`, read when the mail is sent
//! (so edits need no restart). A file whose first line is `Subject: …` sets
//! the subject too.
//!
//! Placeholders are GoTrue's template variables
//! (supabase/auth `internal/mailer/template.go`): `{{ .ConfirmationURL }}`,
//! `{{ .Token }}` (the code), `{{ .TokenHash }}`, `{{ .SiteURL }}`,
//! `{{ .RedirectTo }}`, `{{ .Email }}`, `{{ .NewEmail }}`. Values are
//! HTML-escaped; nothing else of Go's template language is understood.

use super::config::{MailConfig, MailLanguage};

/// Which mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Confirmation,
    Recovery,
    MagicLink,
    Invite,
    EmailChange,
    Reauthentication,
}

impl Kind {
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Confirmation => "confirmation",
            Kind::Recovery => "recovery",
            Kind::MagicLink => "magic_link",
            Kind::Invite => "invite",
            Kind::EmailChange => "email_change",
            Kind::Reauthentication => "reauthentication",
        }
    }

    fn built_in(self, language: MailLanguage) -> (&'static str, &'static str) {
        use MailLanguage::{En, Es};
        match (self, language) {
            (Kind::Confirmation, Es) => (
                "Confirma tu registro",
                "<h2>Confirma tu registro</h2>\n<p>Sigue este enlace para confirmar tu cuenta:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Confirmar mi correo</a></p>\n\
                 <p>O introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::Confirmation, En) => (
                "Confirm Your Signup",
                "<h2>Confirm your signup</h2>\n<p>Follow this link to confirm your user:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Confirm your mail</a></p>\n\
                 <p>Alternatively, enter the code: {{ .Token }}</p>\n",
            ),
            (Kind::Recovery, Es) => (
                "Restablece tu contraseña",
                "<h2>Restablece tu contraseña</h2>\n<p>Sigue este enlace para restablecer la contraseña:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Restablecer contraseña</a></p>\n\
                 <p>O introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::Recovery, En) => (
                "Reset Your Password",
                "<h2>Reset Password</h2>\n<p>Follow this link to reset the password for your user:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Reset Password</a></p>\n\
                 <p>Alternatively, enter the code: {{ .Token }}</p>\n",
            ),
            (Kind::MagicLink, Es) => (
                "Tu enlace de acceso",
                "<h2>Enlace de acceso</h2>\n<p>Sigue este enlace para entrar:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Entrar</a></p>\n\
                 <p>O introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::MagicLink, En) => (
                "Your Magic Link",
                "<h2>Magic Link</h2>\n<p>Follow this link to login:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Log In</a></p>\n\
                 <p>Alternatively, enter the code: {{ .Token }}</p>\n",
            ),
            (Kind::Invite, Es) => (
                "Te han invitado",
                "<h2>Te han invitado</h2>\n<p>Te han invitado a crear una cuenta en {{ .SiteURL }}. \
                 Sigue este enlace para aceptar:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Aceptar la invitación</a></p>\n\
                 <p>O introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::Invite, En) => (
                "You have been invited",
                "<h2>You have been invited</h2>\n<p>You have been invited to create a user on {{ .SiteURL }}. \
                 Follow this link to accept the invite:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Accept the invite</a></p>\n\
                 <p>Alternatively, enter the code: {{ .Token }}</p>\n",
            ),
            (Kind::EmailChange, Es) => (
                "Confirma el cambio de correo",
                "<h2>Confirma el cambio de correo</h2>\n<p>Sigue este enlace para confirmar el cambio \
                 de {{ .Email }} a {{ .NewEmail }}:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Confirmar el cambio</a></p>\n\
                 <p>O introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::EmailChange, En) => (
                "Confirm Email Change",
                "<h2>Confirm Change of Email</h2>\n<p>Follow this link to confirm the update of your email \
                 from {{ .Email }} to {{ .NewEmail }}:</p>\n\
                 <p><a href=\"{{ .ConfirmationURL }}\">Change Email</a></p>\n\
                 <p>Alternatively, enter the code: {{ .Token }}</p>\n",
            ),
            (Kind::Reauthentication, Es) => (
                "Confirma que eres tú",
                "<h2>Confirma que eres tú</h2>\n<p>Introduce este código: {{ .Token }}</p>\n",
            ),
            (Kind::Reauthentication, En) => (
                "Confirm Reauthentication",
                "<h2>Confirm reauthentication</h2>\n<p>Enter the code: {{ .Token }}</p>\n",
            ),
        }
    }
}

/// The values a template may use.
#[derive(Default)]
pub struct Values<'a> {
    pub confirmation_url: &'a str,
    pub token: &'a str,
    pub token_hash: &'a str,
    pub site_url: &'a str,
    pub redirect_to: &'a str,
    pub email: &'a str,
    pub new_email: &'a str,
}

/// A mail ready to send.
pub struct Mail {
    pub kind: &'static str,
    pub subject: String,
    pub html: String,
}

pub fn render(config: &MailConfig, kind: Kind, values: &Values<'_>) -> Mail {
    let (default_subject, default_body) = kind.built_in(config.mailer_language);
    let custom = config
        .mailer_templates_dir
        .as_ref()
        .and_then(|dir| std::fs::read_to_string(dir.join(format!("{}.html", kind.file_name()))).ok());
    let (subject, body) = match custom.as_deref() {
        Some(text) => match text.strip_prefix("Subject:").and_then(|rest| rest.split_once('\n')) {
            Some((subject, body)) => (subject.trim().to_owned(), body.to_owned()),
            None => (default_subject.to_owned(), text.to_owned()),
        },
        None => (default_subject.to_owned(), default_body.to_owned()),
    };
    Mail { kind: kind.file_name(), subject, html: fill(&body, values) }
}

fn fill(template: &str, values: &Values<'_>) -> String {
    let pairs = [
        ("ConfirmationURL", values.confirmation_url),
        ("TokenHash", values.token_hash),
        ("Token", values.token),
        ("SiteURL", values.site_url),
        ("RedirectTo", values.redirect_to),
        ("NewEmail", values.new_email),
        ("Email", values.email),
    ];
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = rest[start + 2..start + end].trim().trim_start_matches('.');
        match pairs.iter().find(|(key, _)| *key == name) {
            Some((_, value)) => out.push_str(&escape(value)),
            None => out.push_str(&rest[start..start + end + 2]),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

fn escape(value: &str) -> String {
    value.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_escaped_and_unknown_ones_kept() {
        let values =
            Values { confirmation_url: "https://x/verify?a=1&b=2", token: "123456", ..Values::default() };
        let cases = [
            ("{{ .ConfirmationURL }}", "https://x/verify?a=1&amp;b=2"),
            ("code {{.Token}}!", "code 123456!"),
            ("{{ .Unknown }} {{ .Token }}", "{{ .Unknown }} 123456"),
            ("open {{ .Token", "open {{ .Token"),
        ];
        for (template, expected) in cases {
            assert_eq!(fill(template, &values), expected, "{template}");
        }
    }
}
