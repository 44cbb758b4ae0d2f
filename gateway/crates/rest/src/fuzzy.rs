//! The "Perhaps you meant ..." of PostgREST's hints: the closest of a set of
//! names, scored as the `fuzzyset` package PostgREST uses scores them
//! (cosine similarity of character trigrams, else bigrams, of the names
//! lower-cased and padded with `-`, the best 50 then rescored by Levenshtein
//! distance; PostgREST's `noRelBetweenHint` and `tableNotFoundHint` in
//! `src/library/PostgREST/Error.hs`). Pure.

use std::collections::HashMap;

/// The score below which nothing is suggested by default (`fuzzyset`'s `get`).
pub const DEFAULT_MIN_SCORE: f64 = 0.33;

/// The names closest to `query`, best first, each with its score in 0..=1:
/// an exact match (ignoring case) alone with 1, else the matches of the
/// largest gram size that has any, scoring at least `min_score`.
pub fn matches<'a>(names: &[&'a str], query: &str, min_score: f64) -> Vec<(f64, &'a str)> {
    let lowered = query.to_lowercase();
    if let Some(exact) = names.iter().find(|n| n.to_lowercase() == lowered) {
        return vec![(1.0, exact)];
    }
    for size in [3, 2] {
        let found = matches_of_size(names, &lowered, size, min_score);
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// The best of [`matches`], if any.
pub fn best<'a>(names: &[&'a str], query: &str, min_score: f64) -> Option<&'a str> {
    matches(names, query, min_score).first().map(|(_, name)| *name)
}

fn matches_of_size<'a>(names: &[&'a str], query: &str, size: usize, min_score: f64) -> Vec<(f64, &'a str)> {
    let wanted = grams(query, size);
    let wanted_norm = norm(&wanted);
    let mut scored: Vec<(f64, &str)> = names
        .iter()
        .filter_map(|name| {
            let theirs = grams(name, size);
            let dot: usize = wanted.iter().map(|(g, n)| n * theirs.get(g).copied().unwrap_or(0)).sum();
            (dot > 0).then(|| (dot as f64 / (wanted_norm * norm(&theirs)), *name))
        })
        .collect();
    sort_best_first(&mut scored);
    scored.truncate(50);
    for entry in &mut scored {
        let name = entry.1.to_lowercase();
        let longest = name.chars().count().max(query.chars().count()).max(1);
        entry.0 = 1.0 - levenshtein(&name, query) as f64 / longest as f64;
    }
    sort_best_first(&mut scored);
    scored.retain(|(score, _)| *score >= min_score);
    scored
}

/// Stable, so that equal scores keep the names' order.
fn sort_best_first(scored: &mut [(f64, &str)]) {
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
}

/// The counts of the `size`-grams of `-name-`, lower-cased and kept to
/// letters, digits, spaces and commas; padded with `-` when shorter.
fn grams(name: &str, size: usize) -> HashMap<String, usize> {
    let kept: String = name
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace() || *c == ',')
        .collect();
    let mut padded: Vec<char> = format!("-{kept}-").chars().collect();
    while padded.len() < size {
        padded.push('-');
    }
    let mut counts = HashMap::new();
    for window in padded.windows(size) {
        *counts.entry(window.iter().collect::<String>()).or_insert(0) += 1;
    }
    counts
}

fn norm(grams: &HashMap<String, usize>) -> f64 {
    (grams.values().map(|n| (n * n) as f64).sum::<f64>()).sqrt()
}

/// The edit distance of two names, in characters.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(x != *y);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_is_suggested_as_postgrest_suggests_it() {
        // PostgREST's own examples (Error.hs), and answers of PostgREST 12.0.2.
        let tables = ["films", "directors", "roles", "actors", "film_stats", "technical_specs", "reviews"];
        let cases = [
            ("film", Some("films")),
            ("role", Some("roles")),
            ("film_list", Some("film_stats")),
            ("noclosealternative", None),
            ("ACTORS", Some("actors")),
        ];
        for (query, expected) in cases {
            assert_eq!(best(&tables, query, DEFAULT_MIN_SCORE), expected, "{query}");
        }
    }

    #[test]
    fn an_exact_match_scores_one_and_a_high_minimum_refuses_distant_names() {
        assert_eq!(matches(&["roles", "role"], "Roles", 0.33), vec![(1.0, "roles")]);
        assert_eq!(best(&["products"], "prodcts", 0.75), Some("products"));
        assert_eq!(best(&["products"], "brands", 0.75), None);
    }

    #[test]
    fn short_names_are_padded_into_grams() {
        assert_eq!(grams("a", 3), HashMap::from([("-a-".to_owned(), 1)]));
        assert_eq!(grams("", 3), HashMap::from([("--".to_owned() + "-", 1)]));
        assert_eq!(grams("A_b", 2).len(), 3);
    }
}
