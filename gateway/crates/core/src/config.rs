//! Configuration primitives every service's settings are made of: secrets
//! that never print, durations and sizes written with units. Each service
//! parses its own section of flags and environment variables from these; the
//! binary composes the sections into one struct, read once at start.

use std::{fmt, str::FromStr, time::Duration};

/// A value that must never appear in logs or error messages.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The only way to read the value; grep for it to audit where secrets go.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_owned()))
    }
}

/// A duration written as `500ms`, `3s`, `2min`, `6h` or a bare number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span(pub Duration);

impl FromStr for Span {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (number, unit) = s.split_at(split);
        let n: u64 =
            number.parse().map_err(|_| format!("invalid duration {s:?}: expected e.g. 500ms, 3s or 2min"))?;
        let duration = match unit.trim() {
            "ms" => Duration::from_millis(n),
            "" | "s" => Duration::from_secs(n),
            "min" | "m" => Duration::from_secs(n * 60),
            "h" => Duration::from_secs(n * 3600),
            other => return Err(format!("invalid duration unit {other:?} in {s:?}: use ms, s, min or h")),
        };
        Ok(Self(duration))
    }
}

/// A size in bytes: a bare number, or a number with `B`, `KB`, `MB`, `GB`
/// (powers of 1000, as Supabase's bucket settings parse them) or `KiB`, `MiB`,
/// `GiB` (powers of 1024). Case-insensitive; spaces allowed before the unit.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| format!("invalid size {text:?}: expected e.g. 50MB"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" | "k" => 1_000,
        "mb" | "m" => 1_000_000,
        "gb" | "g" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        other => {
            return Err(format!(
                "invalid size unit {other:?} in {text:?}: use B, KB, MB, GB, KiB, MiB or GiB"
            ));
        }
    };
    let bytes = number * factor as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("invalid size {text:?}"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print() {
        let secret = Secret::new("super-secret-value");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert_eq!(format!("{secret:?}"), "[redacted]");
        assert_eq!(secret.expose(), "super-secret-value");
    }

    #[test]
    fn durations_parse_with_units() {
        let cases = [
            ("500ms", Some(Duration::from_millis(500))),
            ("3s", Some(Duration::from_secs(3))),
            ("3", Some(Duration::from_secs(3))),
            ("2min", Some(Duration::from_secs(120))),
            ("2h", Some(Duration::from_secs(7200))),
            ("2d", None),
            ("s", None),
        ];
        for (input, expected) in cases {
            assert_eq!(input.parse::<Span>().ok().map(|s| s.0), expected, "{input}");
        }
    }

    #[test]
    fn sizes_parse_with_units() {
        let cases = [
            ("1024", Some(1024)),
            ("50MB", Some(50_000_000)),
            ("50 mb", Some(50_000_000)),
            ("1.5KB", Some(1500)),
            ("2MiB", Some(2 << 20)),
            ("1GB", Some(1_000_000_000)),
            ("ten", None),
            ("5TB", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_size(text).ok(), expected, "{text}");
        }
    }
}
