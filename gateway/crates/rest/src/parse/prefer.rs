//! The `Prefer` request header (RFC 7240) as PostgREST reads it.
//!
//! Copied from `fromHeaders` in
//! <https://github.com/PostgREST/postgrest/blob/main/src/library/PostgREST/ApiRequest/Preferences.hs>: tokens
//! are split on commas across every `Prefer` header, trimmed, and matched exactly (values are
//! case-sensitive); the first token of each kind wins; unknown tokens are collected.
//!
//! `timezone=` names a zone of `pg_timezone_names`, exactly (PostgREST 12's
//! `isTimezonePrefAccepted`): when the first one does, it applies and later
//! `timezone=` tokens are ignored; when it does not, no zone applies and every
//! `timezone=` token is invalid.

use crate::ast::{CountMethod, Handling, Missing, Prefer, Representation, Resolution, Transaction};

/// Reads every `Prefer` header value, in the order they arrived; `known_zone` says whether a
/// time zone is one PostgreSQL names. Never fails: what is not recognised lands in
/// [`Prefer::invalid`], for the caller to reject under `handling=strict`.
pub fn parse_prefer<'a>(
    header_values: impl IntoIterator<Item = &'a str>,
    known_zone: impl Fn(&str) -> bool,
) -> Prefer {
    let mut prefer = Prefer::default();
    let mut max_affected_seen = false;
    // Whether the first `timezone=` named a known zone, once one was seen.
    let mut zone_known = None;
    for token in header_values.into_iter().flat_map(|value| value.split(',')) {
        let token = token.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
        match token {
            "resolution=merge-duplicates" => first(&mut prefer.resolution, Resolution::MergeDuplicates),
            "resolution=ignore-duplicates" => first(&mut prefer.resolution, Resolution::IgnoreDuplicates),
            "return=representation" => first(&mut prefer.representation, Representation::Full),
            "return=minimal" => first(&mut prefer.representation, Representation::Minimal),
            "return=headers-only" => first(&mut prefer.representation, Representation::HeadersOnly),
            "count=exact" => first(&mut prefer.count, CountMethod::Exact),
            "count=planned" => first(&mut prefer.count, CountMethod::Planned),
            "count=estimated" => first(&mut prefer.count, CountMethod::Estimated),
            "tx=commit" => first(&mut prefer.transaction, Transaction::Commit),
            "tx=rollback" => first(&mut prefer.transaction, Transaction::Rollback),
            "missing=default" => first(&mut prefer.missing, Missing::Default),
            "missing=null" => first(&mut prefer.missing, Missing::Null),
            "handling=strict" => first(&mut prefer.handling, Handling::Strict),
            "handling=lenient" => first(&mut prefer.handling, Handling::Lenient),
            _ => {
                if let Some(zone) = token.strip_prefix("timezone=") {
                    let known = *zone_known.get_or_insert_with(|| known_zone(zone));
                    if !known {
                        prefer.invalid.push(token.to_owned());
                    } else if prefer.timezone.is_none() {
                        prefer.timezone = Some(zone.to_owned());
                    }
                } else if let Some(count) = token.strip_prefix("max-affected=") {
                    // PostgREST reads only the first `max-affected=` and drops it if it is not a number.
                    if !max_affected_seen {
                        max_affected_seen = true;
                        prefer.max_affected = count.parse().ok();
                    }
                } else {
                    prefer.invalid.push(token.to_owned());
                }
            }
        }
    }
    prefer
}

fn first<T>(slot: &mut Option<T>, value: T) {
    if slot.is_none() {
        *slot = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few of the names `pg_timezone_names` holds.
    fn parse<'a>(header_values: impl IntoIterator<Item = &'a str>) -> Prefer {
        parse_prefer(header_values, |zone| {
            ["UTC", "America/Los_Angeles", "Asia/Tokyo", "EST5EDT"].contains(&zone)
        })
    }

    #[test]
    fn each_preference_is_recognised_alone() {
        let cases: &[(&str, Prefer)] = &[
            ("return=minimal", Prefer { representation: Some(Representation::Minimal), ..Prefer::default() }),
            (
                "return=headers-only",
                Prefer { representation: Some(Representation::HeadersOnly), ..Prefer::default() },
            ),
            (
                "return=representation",
                Prefer { representation: Some(Representation::Full), ..Prefer::default() },
            ),
            ("count=exact", Prefer { count: Some(CountMethod::Exact), ..Prefer::default() }),
            ("count=planned", Prefer { count: Some(CountMethod::Planned), ..Prefer::default() }),
            ("count=estimated", Prefer { count: Some(CountMethod::Estimated), ..Prefer::default() }),
            (
                "resolution=merge-duplicates",
                Prefer { resolution: Some(Resolution::MergeDuplicates), ..Prefer::default() },
            ),
            (
                "resolution=ignore-duplicates",
                Prefer { resolution: Some(Resolution::IgnoreDuplicates), ..Prefer::default() },
            ),
            ("missing=default", Prefer { missing: Some(Missing::Default), ..Prefer::default() }),
            ("missing=null", Prefer { missing: Some(Missing::Null), ..Prefer::default() }),
            ("tx=commit", Prefer { transaction: Some(Transaction::Commit), ..Prefer::default() }),
            ("tx=rollback", Prefer { transaction: Some(Transaction::Rollback), ..Prefer::default() }),
            ("handling=lenient", Prefer { handling: Some(Handling::Lenient), ..Prefer::default() }),
            ("handling=strict", Prefer { handling: Some(Handling::Strict), ..Prefer::default() }),
            (
                "timezone=America/Los_Angeles",
                Prefer { timezone: Some("America/Los_Angeles".into()), ..Prefer::default() },
            ),
            ("max-affected=5", Prefer { max_affected: Some(5), ..Prefer::default() }),
            ("max-affected=lots", Prefer::default()),
            ("count=none", Prefer { invalid: vec!["count=none".into()], ..Prefer::default() }),
            ("Count=Exact", Prefer { invalid: vec!["Count=Exact".into()], ..Prefer::default() }),
            ("", Prefer { invalid: vec![String::new()], ..Prefer::default() }),
        ];
        for (header, expected) in cases {
            assert_eq!(&parse([*header]), expected, "Prefer: {header}");
        }
    }

    #[test]
    fn several_preferences_in_one_header_are_split_on_commas_and_trimmed() {
        let prefer = parse([
            "count=exact,    tx=commit   ,return=representation , missing=default, handling=strict, anything",
        ]);
        assert_eq!(
            prefer,
            Prefer {
                representation: Some(Representation::Full),
                count: Some(CountMethod::Exact),
                transaction: Some(Transaction::Commit),
                missing: Some(Missing::Default),
                handling: Some(Handling::Strict),
                invalid: vec!["anything".into()],
                ..Prefer::default()
            }
        );
    }

    #[test]
    fn preferences_from_several_headers_are_combined() {
        let prefer = parse(["resolution=merge-duplicates", "return=representation", "count=planned"]);
        assert_eq!(prefer.resolution, Some(Resolution::MergeDuplicates));
        assert_eq!(prefer.representation, Some(Representation::Full));
        assert_eq!(prefer.count, Some(CountMethod::Planned));
    }

    #[test]
    fn the_first_value_of_a_kind_wins_within_and_across_headers() {
        assert_eq!(parse(["tx=commit, tx=rollback"]).transaction, Some(Transaction::Commit));
        assert_eq!(
            parse(["resolution=ignore-duplicates", "resolution=merge-duplicates"]).resolution,
            Some(Resolution::IgnoreDuplicates)
        );
        assert_eq!(parse(["max-affected=x, max-affected=3"]).max_affected, None);
    }

    #[test]
    fn no_header_means_no_preference() {
        assert_eq!(parse([]), Prefer::default());
        assert_eq!(Prefer::default().preference_applied(), None);
    }

    #[test]
    fn what_supabase_js_sends_is_recognised() {
        let cases: &[(&str, &str)] = &[
            ("count=exact", "count=exact"),
            ("count=exact, return=representation", "return=representation, count=exact"),
            (
                "resolution=merge-duplicates, return=representation",
                "resolution=merge-duplicates, return=representation",
            ),
            (
                "resolution=ignore-duplicates, missing=default",
                "resolution=ignore-duplicates, missing=default",
            ),
            ("tx=rollback", "tx=rollback"),
            ("handling=strict, max-affected=3", "handling=strict, max-affected=3"),
        ];
        for (header, applied) in cases {
            let prefer = parse([*header]);
            assert!(prefer.invalid.is_empty(), "{header}");
            assert_eq!(prefer.preference_applied().as_deref(), Some(*applied), "{header}");
        }
    }

    #[test]
    fn preference_applied_lists_max_affected_only_under_strict_handling() {
        assert_eq!(parse(["max-affected=3"]).preference_applied(), None);
        assert_eq!(
            parse(["timezone=UTC, handling=lenient, max-affected=3"]).preference_applied().as_deref(),
            Some("handling=lenient, timezone=UTC")
        );
    }

    #[test]
    fn a_time_zone_applies_only_if_postgresql_names_it() {
        let zone = |header: &str| {
            let prefer = parse([header]);
            (prefer.timezone, prefer.invalid)
        };
        let invalid = |tokens: &[&str]| tokens.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        // Checked against PostgREST 12.0.2.
        let cases: &[(&str, Option<&str>, Vec<String>)] = &[
            ("timezone=Asia/Tokyo", Some("Asia/Tokyo"), vec![]),
            ("timezone=EST5EDT", Some("EST5EDT"), vec![]),
            ("timezone=asia/tokyo", None, invalid(&["timezone=asia/tokyo"])),
            ("timezone=+05", None, invalid(&["timezone=+05"])),
            ("timezone=", None, invalid(&["timezone="])),
            ("timezone=UTC, timezone=Asia/Tokyo", Some("UTC"), vec![]),
            (
                "timezone=Nope, bogus, timezone=Asia/Tokyo",
                None,
                invalid(&["timezone=Nope", "bogus", "timezone=Asia/Tokyo"]),
            ),
        ];
        for (header, expected_zone, expected_invalid) in cases {
            assert_eq!(
                zone(header),
                (expected_zone.map(str::to_owned), expected_invalid.clone()),
                "{header}"
            );
        }
    }
}
