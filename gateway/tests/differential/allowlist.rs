//! The one list of differences from PostgREST 12.0.2 that the differential test
//! accepts, each with why. Every entry checks that the two answers differ in
//! exactly that way; anything else fails the test.
//!
//! Kinds of entries:
//! * **13+**: PostgREST changed this after 12.0.2; hosted Supabase runs 13/14
//!   (supabase-js's snapshots record it) and the gateway follows the newer one.
//! * **parser**: a deliberate difference of the gateway's parser, listed in
//!   `gateway/src/rest/parse/mod.rs`, "Where we differ from PostgREST on purpose".
//! * **12.0.2 defect**: PostgREST 12.0.2 fails or answers inconsistently; the
//!   gateway does not copy it. Whether 13+ still does is not verified here.
//! * **gap**: a known shortcoming of the gateway, kept here so that the test
//!   still guards everything else; each is to be fixed, then removed.

use serde_json::{Value, json};

use super::compare::{Answer, Body, Request, same};

pub struct Delta {
    pub name: &'static str,
    /// Whether `reference` (PostgREST 12.0.2) and `ours` differ by this delta only.
    pub applies: fn(&Request, &Answer, &Answer) -> bool,
}

fn query(request: &Request) -> String {
    let raw = request.path.split_once('?').map_or("", |(_, q)| q);
    form_urlencoded::parse(raw.as_bytes()).map(|(k, v)| format!("{k}={v}&")).collect()
}

fn is_error(answer: &Answer, status: u16, code: &str) -> bool {
    answer.status == status && answer.code() == Some(code)
}

/// The PostgREST 12 error rewritten field by field; the rest must be equal.
fn rewritten(request: &Request, reference: &Answer, ours: &Answer, fields: &[(&str, Value)]) -> bool {
    let mut expected = reference.clone();
    for (name, value) in fields {
        expected = expected.with(name, value.clone());
    }
    same(request, &expected, ours)
}

fn parse_error(answer: &Answer) -> bool {
    is_error(answer, 400, "PGRST100")
}

pub const ALLOWLIST: &[Delta] = &[
    // 12.0.2 defect: PostgREST's statement ran past the role's
    // `statement_timeout` where the gateway's, for the same rows, did not.
    // The reverse, the gateway running out of time where PostgREST did not,
    // is never allowed.
    Delta {
        name: "12.0.2 defect: PostgREST ran out of time (57014) where the gateway answered",
        applies: |_, a, b| is_error(a, 500, "57014") && matches!(b.status, 200 | 206),
    },
    // 13+: a to-many embed may be spread, each of its outputs an array
    // (CHANGELOG 13.0.0, #3041 "Allow spreading one-to-many and many-to-many
    // embedded resources"); 12 refuses with PGRST119.
    Delta {
        name: "13+: a to-many embed can be spread",
        applies: |r, a, b| {
            is_error(a, 400, "PGRST119")
                && matches!(b.status, 200 | 206)
                && query(r).contains("...")
                && a.message().is_some_and(|m| m.starts_with("A spread operation on"))
        },
    },
    // 13+: the PGRST116 message (CHANGELOG #3795; wire-protocol.md §2.3 d).
    Delta {
        name: "13+: PGRST116 says \"Cannot coerce the result to a single JSON object\"",
        applies: |r, a, b| {
            is_error(a, 406, "PGRST116")
                && a.message() == Some("JSON object requested, multiple (or no) rows returned")
                && rewritten(
                    r,
                    a,
                    b,
                    &[("message", json!("Cannot coerce the result to a single JSON object"))],
                )
        },
    },
    // 13+: a missing table is PGRST205 from the schema cache, not 42P01 from
    // the database (CHANGELOG #3697/#3602).
    Delta {
        name: "13+: a missing table is 404 PGRST205",
        applies: |_, a, b| {
            is_error(a, 404, "42P01")
                && is_error(b, 404, "PGRST205")
                && b.message().is_some_and(|m| m.starts_with("Could not find the table 'public."))
        },
    },
    // 13+: JWT errors reworded, expiry split out as PGRST303 (CHANGELOG #3600).
    Delta {
        name: "13+: JWT errors: PGRST303 for an expired token, reworded PGRST301",
        applies: |_, a, b| {
            is_error(a, 401, "PGRST301")
                && (is_error(b, 401, "PGRST303") && b.message() == Some("JWT expired")
                    || is_error(b, 401, "PGRST301"))
                && a.content_range == b.content_range
        },
    },
    // 13+: PGRST202's details also name the single-unnamed-json-parameter
    // form, and its hint changed (wire-protocol.md §5.1, "the PGRST202 hint").
    Delta {
        name: "13+: PGRST202 details and hint",
        applies: |_, a, b| {
            is_error(a, 404, "PGRST202")
                && is_error(b, 404, "PGRST202")
                && a.message() == b.message()
                && b.field("details")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.contains("or with a single unnamed json/jsonb parameter"))
        },
    },
    // 13+: an unexposed schema in Accept-Profile/Content-Profile is "Invalid
    // schema: x" with a hint (wire-protocol.md §2.6, PGRST106).
    Delta {
        name: "13+: PGRST106 says \"Invalid schema\" with a hint",
        applies: |r, a, b| {
            let Some(exposed) =
                a.message().and_then(|m| m.strip_prefix("The schema must be one of the following: "))
            else {
                return false;
            };
            let profile = r.header("accept-profile").or_else(|| r.header("content-profile")).unwrap_or("");
            is_error(a, 406, "PGRST106")
                && rewritten(
                    r,
                    a,
                    b,
                    &[
                        ("message", json!(format!("Invalid schema: {profile}"))),
                        ("hint", json!(format!("Only the following schemas are exposed: {exposed}"))),
                    ],
                )
        },
    },
    // 13+: an Accept that no media type satisfies is 406 PGRST107, as the
    // issue specifies from the postgrest-js snapshots; 12.0.2 answers 415.
    Delta {
        name: "13+: PGRST107 is 406, not 415",
        applies: |r, a, b| {
            a.status == 415
                && (a.code() == Some("PGRST107") || r.method == reqwest::Method::HEAD)
                && same(r, &Answer { status: 406, ..a.clone() }, b)
        },
    },
    // 13+: `is.not_null`, and the parse error listing it.
    Delta {
        name: "13+: is.not_null is accepted; is-value errors list it",
        applies: |r, a, b| {
            parse_error(a)
                && a.field("details")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.ends_with("expecting null or trilean value (unknown, true, false)"))
                && query(r).contains("is.not_null")
                || r.method == reqwest::Method::HEAD && a.status == 400 && query(r).contains("is.not_null")
                || parse_error(a)
                    && a.field("details").and_then(Value::as_str).is_some_and(|d| {
                        d.ends_with("expecting null or trilean value (unknown, true, false)")
                    })
                    && rewritten(
                        r,
                        a,
                        b,
                        &[(
                            "details",
                            json!(a.field("details").and_then(Value::as_str).unwrap_or("").replace(
                                "null or trilean value (unknown, true, false)",
                                "isVal: (null, not_null, true, false, unknown)"
                            )),
                        )],
                    )
        },
    },
    // parser: `neq` takes (any)/(all); a quantified operand must be a list.
    // (Text after a complete `select` or logic tree and a limit that is not
    // an integer are ignored, as PostgREST 12-14 ignore them.)
    Delta {
        name: "parser: neq(any), quantified operands are PGRST100",
        applies: |r, a, b| {
            let q = query(r);
            let head = r.method == reqwest::Method::HEAD;
            (parse_error(b) || head && b.status == 400)
                && (!parse_error(a) || q.contains("(any).x"))
                && (q.contains("neq(any)") || q.contains("(any).x"))
        },
    },
    Delta {
        name: "parser: neq(any) is accepted",
        applies: |r, a, _| parse_error(a) && query(r).contains("neq(any)"),
    },
    // 12.0.2 defect: ranges at the edges. The gateway follows the documented
    // rules (wire-protocol.md §2.5: `limit=0` is an empty page, a negative
    // limit is 416, a negative offset is ignored).
    Delta {
        name: "12.0.2 defect: limit=0 with an offset, negative limits and offsets, an embed's limit=0",
        applies: |r, a, b| {
            let q = query(r);
            let head = r.method == reqwest::Method::HEAD;
            let negative_limit = |x: &Answer| {
                x.status == 416
                    && (head
                        || x.field("details").and_then(Value::as_str)
                            == Some("Limit should be greater than or equal to zero."))
            };
            let page = |x: &Answer| matches!(x.status, 200 | 206);
            // `limit=0&offset=2` is a 416 in 12.0.2, raised before anything
            // else is looked at: the rest of such a request is not compared.
            q.contains("limit=0&offset=") && negative_limit(a)
                // `limit=-1&offset=1` is an empty page in 12.0.2.
                || q.contains("limit=-1&offset=") && (page(a) || a.status == 406) && negative_limit(b)
                // `offset=-1` shrinks 12.0.2's window by one row.
                || q.contains("offset=-1&") && (page(a) || a.status == 406) && (page(b) || b.status == 406)
                // An embed's `limit=0` with an offset makes 12.0.2 fail.
                || q.contains(".limit=0&") && a.status == 500
        },
    },
    // 12.0.2 defect: ordering by a to-one related column fails unless the
    // embed also selects that column (`column products_brands_1.name does
    // not exist`); the gateway orders.
    Delta {
        name: "12.0.2 defect: order by brands(name) needs name in the embed",
        applies: |r, a, _| {
            is_error(a, 400, "42703")
                && a.message().is_some_and(|m| m.starts_with("column products_brands_1."))
                || r.method == reqwest::Method::HEAD
                    && a.status == 400
                    && query(r).contains("brands(name).desc")
        },
    },
    // 12.0.2 defect: with `rel(count)` and `rel=is.null`/`not.is.null`, the
    // exact count tests the embed's rows while the page tests the count's one
    // row, so the total disagrees with the page (`0-2/2`, or `*/2` over no
    // rows); the gateway counts what it returns.
    Delta {
        name: "12.0.2 defect: with rel(count), an exact count that disagrees with its page",
        applies: |r, a, b| {
            let window = |range: &Option<String>| {
                let (span, total) = range.as_deref()?.split_once('/')?;
                let (low, high) = span.split_once('-')?;
                Some((low.parse::<i64>().ok()?, high.parse::<i64>().ok()?, total.parse::<i64>().ok()?))
            };
            let q = query(r);
            let null_test = q.contains("=is.null&") || q.contains("=not.is.null&");
            let short = window(&a.content_range).is_some_and(|(low, high, total)| total < high - low + 1);
            let counted = |x: &Answer| matches!(x.status, 200 | 206 | 416);
            q.contains("(count)")
                && (short && a.body == b.body && a.content_type == b.content_type
                    || null_test && counted(a) && counted(b) && (a.body == b.body || a.status == b.status))
        },
    },
    // 12.0.2 defect: filtering an RPC's rows on a computed field while
    // selecting fewer columns than the row has fails (`cannot cast type
    // record to actors`: PostgREST passes its narrowed row to the function);
    // the gateway filters.
    Delta {
        name: "12.0.2 defect: a computed-field filter on a function's rows with a narrow select",
        applies: |r, a, b| {
            is_error(a, 400, "42846")
                && a.message().is_some_and(|m| m.starts_with("cannot cast type record to"))
                && r.path.starts_with("/rpc/")
                && b.status == 200
        },
    },
    // 12.2+: `Prefer: max-affected` (CHANGELOG 12.2.0, #2887 "Add
    // Preference `max-affected` to limit affected resources"; on RPC,
    // 13.0.7's #4100). 12.0.2 does not know it and, under
    // `handling=strict`, refuses it as an invalid preference; the generator
    // rolls such writes back, so the databases stay alike.
    Delta {
        name: "12.2+: max-affected is a preference (12.0.2: PGRST122 under handling=strict)",
        applies: |r, a, _| {
            let head = r.method == reqwest::Method::HEAD
                && a.status == 400
                && a.body == Body::Empty
                && r.header("prefer")
                    .is_some_and(|p| p.contains("handling=strict") && p.contains("max-affected"));
            head || is_error(a, 400, "PGRST122")
                && a.field("details")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.starts_with("Invalid preferences: max-affected="))
                && r.header("prefer").is_some_and(|p| {
                    p.contains("handling=strict")
                        && (p.contains("tx=rollback")
                            || matches!(r.method, reqwest::Method::GET | reqwest::Method::HEAD))
                })
        },
    },
    // 13+: a function's rows can be filtered and ordered by a column the
    // select leaves out (CHANGELOG 13.0.0, #3965 "Fix filter on unselected
    // columns in a table-valued function"); 12.0.2 fails with PostgreSQL's
    // 42703 for that column.
    Delta {
        name: "13+: a function's rows are filtered and ordered by columns the select leaves out",
        applies: |r, a, b| {
            let Some(column) = a
                .message()
                .and_then(|m| m.strip_prefix("column "))
                .and_then(|m| m.strip_suffix(" does not exist"))
                .and_then(|m| m.split_once('.'))
                .map(|(_, column)| column.to_owned())
            else {
                return false;
            };
            let q = query(r);
            let select = q.split('&').find_map(|p| p.strip_prefix("select=")).unwrap_or("*");
            let used = q.split('&').any(|p| {
                p.starts_with(&format!("{column}="))
                    || p.starts_with(&format!("{column}->"))
                    || (p.starts_with("order=") || p.starts_with("or=") || p.starts_with("and="))
                        && p.contains(&column)
            });
            is_error(a, 400, "42703")
                && r.path.starts_with("/rpc/")
                && select != "*"
                && !select.split(',').any(|item| item == column || item.ends_with(&format!(":{column}")))
                && used
                // The gateway reads every filter, so it may stop at another
                // column, one that the function's rows do not have.
                && (b.code() != Some("42703") || b.message().is_some_and(|m| !m.ends_with(&format!(".{column} does not exist"))))
        },
    },
    // 13+ (#3965, as above), on HEAD: no body names the column, so the
    // request must filter or order by a column its select leaves out.
    Delta {
        name: "13+: a function's rows are filtered and ordered by columns the select leaves out (HEAD)",
        applies: |r, a, b| {
            let q = query(r);
            let Some(select) = q.split('&').find_map(|p| p.strip_prefix("select=")) else {
                return false;
            };
            let selected: Vec<&str> =
                select.split(',').map(|item| item.rsplit(':').next().unwrap_or(item)).collect();
            let reserved = ["select", "order", "limit", "offset", "or", "and", "not.or", "not.and"];
            let unselected = q.split('&').filter_map(|p| p.split_once('=')).any(|(key, value)| {
                let column = key.split("->").next().unwrap_or(key);
                let ordered_by = key == "order"
                    && value
                        .split(',')
                        .any(|term| !selected.contains(&term.split('.').next().unwrap_or(term)));
                ordered_by || !column.is_empty() && !reserved.contains(&column) && !selected.contains(&column)
            }) || q.contains("or=(");
            r.method == reqwest::Method::HEAD
                && r.path.starts_with("/rpc/")
                && a.status == 400
                && a.body == Body::Empty
                && matches!(b.status, 200 | 206 | 416)
                && unselected
        },
    },
    // 12.0.2 defect: a function's CSV header. PostgREST 12.0.2 heads a
    // function's CSV with the real columns its select names, without
    // aliases or embeds, in alphabetical order (or, with no rows, with all
    // the selected columns); the gateway heads it with the outputs, as for
    // a table. The rows are compared.
    Delta {
        name: "12.0.2 defect: a function's CSV header names its columns, unaliased and sorted",
        applies: |r, a, b| {
            let (Body::Text(x), Body::Text(y)) = (&a.body, &b.body) else {
                return false;
            };
            let rows = |text: &str| text.split_once('\n').map(|(_, rows)| rows.to_owned());
            r.path.starts_with("/rpc/")
                && a.status == b.status
                && a.content_range == b.content_range
                && a.content_type.as_deref().is_some_and(|t| t.starts_with("text/csv"))
                && a.content_type == b.content_type
                && (rows(x) == rows(y) || rows(x).as_deref() == Some("") && y == "\n")
        },
    },
    // 14.6+: a function's name is suggested only at a fuzzy score of 0.75
    // (CHANGELOG 14.6, #4675 "Fix leaking table and function names when
    // calculating error hint"); 12.0.2 suggests any function of the schema.
    Delta {
        name: "14.6+: PGRST202 suggests another function's name only when it is close",
        applies: |r, a, b| {
            is_error(a, 404, "PGRST202")
                && a.field("hint").and_then(Value::as_str).is_some_and(|h| {
                    h.starts_with("Perhaps you meant to call the function ") && !h.contains('(')
                })
                && rewritten(r, a, b, &[("hint", Value::Null)])
        },
    },
    // 13+: the profile is checked before the query is parsed
    // (`userApiRequest` in `ApiRequest.hs` reads the schema first); 12.0.2
    // reports the query's own fault (parsing, then planning) first. A bad
    // `Accept` comes after planning in both (`negotiateContent`), as here.
    Delta {
        name: "13+: a bad Accept-Profile or Content-Profile is reported before the query's own fault",
        applies: |r, a, b| {
            let profiled = r.headers.iter().any(|(name, _)| {
                name.eq_ignore_ascii_case("accept-profile") || name.eq_ignore_ascii_case("content-profile")
            });
            let bad_profile = |x: &Answer| {
                x.status == 406 && (r.method == reqwest::Method::HEAD || x.code() == Some("PGRST106"))
            };
            profiled && bad_profile(b) && !bad_profile(a) && a.status >= 300
        },
    },
];
