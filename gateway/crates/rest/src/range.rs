//! The rows a read asks for: the `limit`/`offset` query parameters and the
//! `Range` request header, combined as PostgREST does.
//!
//! PostgREST (`RangeQuery.hs`, `getRanges` in `ApiRequest.hs`,
//! <https://docs.postgrest.org/en/v12/references/api/pagination_count.html>):
//!
//! * `limit=L&offset=O` is the window `O..=O+L-1` (`0..=L-1` without an
//!   offset, `O..` without a limit). Where PostgREST 12.0.2 is inconsistent
//!   the gateway keeps its documented rules (`differential/allowlist.rs`):
//!   `limit=0` is an empty page even after an offset, a negative offset is
//!   ignored, a negative limit is 416;
//! * `Range: a-b` (or open-ended `a-`) is read only on GET, as RFC 9110 defines
//!   ranges for GET alone: PostgREST 12.0.2 ignores it on HEAD, on `POST /rpc`
//!   and on writes. A value not of the form `digits-[digits]` (`items=0-9`,
//!   `-5`, two ranges) is ignored, and `Range-Unit` is never looked at;
//! * the two windows are intersected, so neither overrides the other;
//! * an empty intersection is 416 PGRST103, except with `limit=0`, which
//!   PostgREST allows whatever else was asked (its `limitZeroRange`,
//!   postgrest#1121). The details blame the header when the header alone is
//!   empty (`Range: 5-2`), else the limit.

use super::response::range_error;
use gateway_core::error::ApiError;

/// Inclusive bounds; no `upper` is unbounded. Empty when `upper < lower`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bounds {
    lower: i64,
    upper: Option<i64>,
}

impl Bounds {
    const ALL: Bounds = Bounds { lower: 0, upper: None };

    fn is_empty(self) -> bool {
        self.upper.is_some_and(|upper| upper < self.lower)
    }

    /// `Data.Ranged`'s intersection: empty if either side is.
    fn intersect(self, other: Bounds) -> Option<Bounds> {
        if self.is_empty() || other.is_empty() {
            return None;
        }
        let upper = match (self.upper, other.upper) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Some(Bounds { lower: self.lower.max(other.lower), upper }).filter(|b| !b.is_empty())
    }
}

/// The window of a `Range` header value, `^([0-9]+)-([0-9]*)$`; anything else
/// is the whole result. A number past `i64` is taken as `i64::MAX` (PostgREST
/// 12 hands such a lower bound to PostgreSQL, which refuses it: 400 22003).
fn from_header(value: &str) -> Bounds {
    let Some((lower, upper)) = value.split_once('-') else { return Bounds::ALL };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(lower) || !(upper.is_empty() || digits(upper)) {
        return Bounds::ALL;
    }
    let number = |s: &str| s.parse::<i64>().unwrap_or(i64::MAX);
    Bounds { lower: number(lower), upper: (!upper.is_empty()).then(|| number(upper)) }
}

/// The rows to read: skip `offset`, then at most `limit` (none: all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub offset: i64,
    pub limit: Option<i64>,
}

/// The window of a read with these query parameters and this `Range` header
/// (`None` when absent or not a GET), or PostgREST's 416.
pub fn window(limit: Option<i64>, offset: Option<i64>, header: Option<&str>) -> Result<Window, ApiError> {
    let offset = offset.unwrap_or(0).max(0);
    let header = header.map_or(Bounds::ALL, from_header);
    match limit {
        Some(0) => return Ok(Window { offset, limit: Some(0) }),
        _ if header.is_empty() => {
            return Err(range_error(
                "The lower boundary must be lower than or equal to the upper boundary in the Range header."
                    .to_owned(),
            ));
        }
        Some(limit) if limit < 0 => return Err(negative_limit()),
        _ => {}
    }
    let query = Bounds { lower: offset, upper: limit.map(|limit| offset.saturating_add(limit - 1)) };
    let Bounds { lower, upper } = header.intersect(query).ok_or_else(negative_limit)?;
    Ok(Window { offset: lower, limit: upper.map(|upper| upper.saturating_sub(lower).saturating_add(1)) })
}

/// PostgREST's details whenever no row can be in the window but the header
/// is not to blame, even when no limit was negative (`offset=7`, `Range: 0-5`).
fn negative_limit() -> ApiError {
    range_error("Limit should be greater than or equal to zero.".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RestError;

    const LOWER_GT_UPPER: &str =
        "The lower boundary must be lower than or equal to the upper boundary in the Range header.";
    const NEGATIVE: &str = "Limit should be greater than or equal to zero.";

    fn details(result: Result<Window, ApiError>) -> Result<Window, String> {
        result.map_err(|e| match e.as_service::<RestError>() {
            Some(e) => e.details.clone().and_then(|d| d.as_str().map(str::to_owned)).unwrap_or_default(),
            None => panic!("not a range error: {e:?}"),
        })
    }

    /// Every row of this table was checked against PostgREST 12.0.2.
    #[test]
    fn the_header_and_the_query_parameters_are_intersected() {
        let all = |offset| Ok(Window { offset, limit: None });
        let rows = |offset, limit| Ok(Window { offset, limit: Some(limit) });
        // (limit, offset, Range, window or the 416's details)
        type Case<'a> = (Option<i64>, Option<i64>, Option<&'a str>, Result<Window, String>);
        let cases: &[Case<'_>] = &[
            (None, None, None, all(0)),
            (Some(5), None, None, rows(0, 5)),
            (None, Some(3), None, all(3)),
            (Some(2), Some(3), None, rows(3, 2)),
            (None, None, Some("0-1"), rows(0, 2)),
            (None, None, Some("2-"), all(2)),
            (None, None, Some("100-200"), rows(100, 101)),
            (Some(2), None, Some("0-5"), rows(0, 2)),
            (Some(3), None, Some("1-5"), rows(1, 2)),
            (None, Some(2), Some("0-5"), rows(2, 4)),
            (Some(2), Some(2), Some("1-5"), rows(2, 2)),
            (None, Some(-2), Some("0-1"), rows(0, 2)),
            (None, Some(-2), None, all(0)),
            (None, Some(7), Some("0-5"), Err(NEGATIVE.into())),
            (None, None, Some("5-2"), Err(LOWER_GT_UPPER.into())),
            (Some(-1), None, Some("5-2"), Err(LOWER_GT_UPPER.into())),
            (Some(-1), None, Some("0-2"), Err(NEGATIVE.into())),
            (Some(-1), None, None, Err(NEGATIVE.into())),
        ];
        for (limit, offset, header, expected) in cases {
            assert_eq!(
                &details(window(*limit, *offset, *header)),
                expected,
                "{limit:?} {offset:?} {header:?}"
            );
        }
    }

    #[test]
    fn limit_zero_reads_nothing_whatever_else_was_asked() {
        let nothing = |offset| Ok(Window { offset, limit: Some(0) });
        assert_eq!(details(window(Some(0), None, None)), nothing(0));
        assert_eq!(details(window(Some(0), Some(0), Some("5-2"))), nothing(0));
        assert_eq!(details(window(Some(0), None, Some("1-5"))), nothing(0));
        // 12.0.2 refuses this one; the offset stays, for the 416 past the end.
        assert_eq!(details(window(Some(0), Some(3), None)), nothing(3));
    }

    #[test]
    fn header_values_other_than_one_range_of_items_are_ignored() {
        for header in ["abc", "items=0-1", "-3", "0-1, 3-4", "0-1x", "", "-"] {
            assert_eq!(
                details(window(None, None, Some(header))),
                Ok(Window { offset: 0, limit: None }),
                "{header:?}"
            );
        }
        assert_eq!(
            details(window(None, None, Some("0-99999999999999999999"))),
            Ok(Window { offset: 0, limit: Some(i64::MAX) })
        );
    }
}
