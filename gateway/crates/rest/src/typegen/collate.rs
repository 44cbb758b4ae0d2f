//! The order of names in the generated file. postgres-meta sorts with
//! JavaScript's `localeCompare`, which in Node is ICU's root collation: case
//! and punctuation weigh less than letters, so `Zeta` follows `alpha` and
//! `product_categories` precedes `products`
//! (<https://unicode-org.github.io/icu/userguide/collation/concepts.html>).
//! This is that order for the characters identifiers are made of: spaces,
//! then ASCII punctuation and symbols in the root collation's order, then
//! digits, then letters ignoring case; ties go lowercase first, then by code
//! point.

use std::cmp::Ordering;

/// Punctuation and symbols in the root collation's primary order.
const PUNCTUATION: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

fn primary(c: char) -> (u8, u32) {
    if c.is_whitespace() {
        return (0, c as u32);
    }
    if let Some(at) = PUNCTUATION.find(c) {
        return (1, at as u32);
    }
    if c.is_ascii_digit() {
        return (3, c as u32);
    }
    if c.is_alphabetic() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        return (4, lower as u32);
    }
    (2, c as u32)
}

/// `a.localeCompare(b)` as Node answers it for identifiers.
pub fn compare(a: &str, b: &str) -> Ordering {
    let primary_a = a.chars().map(primary);
    let primary_b = b.chars().map(primary);
    primary_a
        .cmp(primary_b)
        // Lowercase before uppercase, at the first position they differ.
        .then_with(|| a.chars().map(char::is_uppercase).cmp(b.chars().map(char::is_uppercase)))
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::compare;
    use std::cmp::Ordering::{Greater, Less};

    #[test]
    fn names_sort_as_node_sorts_them() {
        let cases = [
            ("alpha", "Zeta", Less),
            ("product_categories", "products", Less),
            ("a", "A", Less),
            ("users", "users_audit", Less),
            ("a10", "a2", Less),
            ("b", "a_b", Greater),
            ("", "a", Less),
        ];
        for (a, b, expected) in cases {
            assert_eq!(compare(a, b), expected, "{a} vs {b}");
        }
    }
}
