//! Where a mailed link or a sign-in flow may send the browser (GoTrue's `GetReferrer` and
//! `IsRedirectURLValid`, `internal/utilities/request.go`): the site itself
//! (same scheme and host; any port on loopback), or an address matching a
//! pattern of `AUTH_URI_ALLOW_LIST`. Anything else becomes the site URL, so a
//! link can never redirect to a stranger's page.
//!
//! Patterns are matched as GoTrue's `gobwas/glob` with `.` and `/` as
//! separators: `*` is any run of characters within one host label or path
//! segment, `**` any run at all, `?` one non-separator character. Character
//! classes and `{a,b}` alternatives are not supported.

use axum::http::Uri;

/// `wanted` when it is allowed, otherwise `site_url`.
pub fn checked(wanted: Option<&str>, site_url: &str, allow_list: &[String]) -> String {
    match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        Some(wanted) if allowed(wanted, site_url, allow_list) => wanted.to_owned(),
        _ => site_url.to_owned(),
    }
}

pub fn allowed(wanted: &str, site_url: &str, allow_list: &[String]) -> bool {
    let (Ok(base), Ok(target)) = (site_url.parse::<Uri>(), wanted.parse::<Uri>()) else {
        return false;
    };
    let (Some(host), Some(scheme)) = (target.host(), target.scheme_str()) else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if base.host() == Some(host)
        && base.scheme_str() == Some(scheme)
        && (base.port_u16() == target.port_u16() || loopback)
    {
        return true;
    }
    if host.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return ip.is_loopback();
    }
    let regular = host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !host.starts_with(['.', '-'])
        && !host.ends_with(['.', '-']);
    if matches!(scheme, "http" | "https") && !regular {
        return false;
    }
    let without_fragment = wanted.split('#').next().unwrap_or(wanted);
    allow_list.iter().any(|pattern| glob(pattern.trim().as_bytes(), without_fragment.as_bytes()))
}

fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let separator = |c: u8| c == b'.' || c == b'/';
    match pattern {
        [] => text.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=text.len()).any(|i| glob(rest, &text[i..])),
        [b'*', rest @ ..] => {
            let run = text.iter().take_while(|&&c| !separator(c)).count();
            (0..=run).any(|i| glob(rest, &text[i..]))
        }
        [b'?', rest @ ..] => text.first().is_some_and(|&c| !separator(c)) && glob(rest, &text[1..]),
        [p, rest @ ..] => text.first() == Some(p) && glob(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_site_and_the_allow_list_are_redirected_to() {
        let site = "https://shop.example";
        let list = ["https://*.shop.example/**".to_owned(), "myapp://callback".to_owned()];
        // (wanted, where the browser goes)
        let cases = [
            (Some("https://shop.example/account"), "https://shop.example/account"),
            (Some("https://evil.example"), site),
            (Some("https://shop.example.evil.example/x"), site),
            (Some("https://a.shop.example/deep/path?x=1"), "https://a.shop.example/deep/path?x=1"),
            (Some("https://a.b.shop.example/"), site),
            (Some("http://shop.example/"), site),
            (Some("myapp://callback"), "myapp://callback"),
            (Some("http://127.0.0.1:3000/cb"), "http://127.0.0.1:3000/cb"),
            (Some("http://2130706433/"), site),
            (Some("javascript:alert(1)"), site),
            (Some("//evil.example"), site),
            (Some(""), site),
            (None, site),
        ];
        for (wanted, expected) in cases {
            assert_eq!(checked(wanted, site, &list), expected, "{wanted:?}");
        }
    }

    #[test]
    fn an_entry_without_wildcards_allows_that_address_only() {
        let site = "https://shop.example.com";
        let list = ["https://app.example.org/auth".to_owned(), "https://*.preview.example.net/**".to_owned()];
        let cases = [
            ("https://shop.example.com/account", true),
            ("https://shop.example.com:8443/x", false),
            ("http://shop.example.com/x", false),
            ("http://127.0.0.1:3000/cb", true),
            ("https://app.example.org/auth", true),
            ("https://app.example.org/auth/done", false),
            ("https://app.example.org/authx", false),
            ("https://pr-1.preview.example.net/a/b", true),
            ("https://a.b.preview.example.net/a", false),
            ("https://evil.example/?https://shop.example.com", false),
            ("https://shop.example.com.evil.example/", false),
        ];
        for (url, expected) in cases {
            assert_eq!(allowed(url, site, &list), expected, "{url}");
        }
    }

    #[test]
    fn loopback_sites_accept_any_port() {
        let site = "http://localhost:5173";
        assert!(allowed("http://localhost:4000/x", site, &[]));
        assert!(!allowed("https://localhost:4000/x", site, &[]));
    }
}
