//! A small layout printer in the manner of Prettier's (Wadler's "prettier
//! printer", as Prettier implements it in `src/document/printer.js`): a
//! document of text, groups, indentation and line breaks, printed so that
//! each group stays on one line when it fits in the width and breaks its
//! lines otherwise. The Supabase CLI formats its types with Prettier (width
//! 80, two spaces); building the same documents and printing them the same
//! way gives the same text without running Node.

/// A document.
#[derive(Clone, Debug)]
pub enum Doc {
    Text(String),
    Concat(Vec<Doc>),
    /// On one line if it fits, else its lines break; `broken` forces that.
    Group(Box<Doc>, bool),
    /// Two more spaces after each break inside.
    Indent(Box<Doc>),
    /// `n` more spaces after each break inside.
    Align(usize, Box<Doc>),
    /// A space, or a break.
    Line,
    /// Nothing, or a break.
    Softline,
    /// Always a break; it breaks the groups around it.
    Hardline,
    /// The first when the enclosing group breaks, else the second.
    IfBreak(Box<Doc>, Box<Doc>),
}

pub fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}

pub fn concat(parts: Vec<Doc>) -> Doc {
    Doc::Concat(parts)
}

pub fn group(doc: Doc) -> Doc {
    Doc::Group(Box::new(doc), false)
}

pub fn broken_group(doc: Doc) -> Doc {
    Doc::Group(Box::new(doc), true)
}

pub fn indent(doc: Doc) -> Doc {
    Doc::Indent(Box::new(doc))
}

pub fn align(n: usize, doc: Doc) -> Doc {
    Doc::Align(n, Box::new(doc))
}

pub fn if_break(broken: Doc, flat: Doc) -> Doc {
    Doc::IfBreak(Box::new(broken), Box::new(flat))
}

/// `parts` with `separator` between them.
pub fn join(separator: &Doc, parts: Vec<Doc>) -> Doc {
    let mut out = Vec::with_capacity(parts.len() * 2);
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(separator.clone());
        }
        out.push(part);
    }
    Doc::Concat(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Flat,
    Break,
}

/// Marks every group that holds a hard break or a broken group as broken,
/// as Prettier's `propagateBreaks` does. Returns whether `doc` forces a break.
fn propagate(doc: &mut Doc) -> bool {
    match doc {
        Doc::Text(_) | Doc::Line | Doc::Softline => false,
        Doc::Hardline => true,
        Doc::Concat(parts) => parts.iter_mut().fold(false, |any, part| propagate(part) | any),
        Doc::Group(inner, broken) => {
            let inside = propagate(inner);
            *broken |= inside;
            *broken
        }
        Doc::Indent(inner) | Doc::Align(_, inner) => propagate(inner),
        Doc::IfBreak(broken, flat) => propagate(broken) | propagate(flat),
    }
}

/// Whether `next` fits in `width` columns, reading on into `rest` (in the
/// modes they were queued in) up to the first possible break.
fn fits(next: (Mode, &Doc), rest: &[(usize, Mode, &Doc)], mut width: isize) -> bool {
    let mut stack = vec![next];
    let mut rest_index = rest.len();
    while width >= 0 {
        let Some((mode, doc)) = stack.pop() else {
            if rest_index == 0 {
                return true;
            }
            rest_index -= 1;
            let (_, mode, doc) = rest[rest_index];
            stack.push((mode, doc));
            continue;
        };
        match doc {
            Doc::Text(s) => width -= s.chars().count() as isize,
            Doc::Concat(parts) => stack.extend(parts.iter().rev().map(|p| (mode, p))),
            Doc::Indent(inner) | Doc::Align(_, inner) => stack.push((mode, inner)),
            Doc::Group(inner, broken) => stack.push((if *broken { Mode::Break } else { mode }, inner)),
            Doc::IfBreak(broken, flat) => stack.push((mode, if mode == Mode::Break { broken } else { flat })),
            Doc::Hardline => return true,
            Doc::Line | Doc::Softline if mode == Mode::Break => return true,
            Doc::Line => width -= 1,
            Doc::Softline => {}
        }
    }
    false
}

/// Prints `doc` in `width` columns.
pub fn print(mut doc: Doc, width: usize) -> String {
    propagate(&mut doc);
    let mut out = String::new();
    let mut column = 0usize;
    let mut stack: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, &doc)];
    while let Some((indentation, mode, doc)) = stack.pop() {
        match doc {
            Doc::Text(s) => {
                out.push_str(s);
                column += s.chars().count();
            }
            Doc::Concat(parts) => stack.extend(parts.iter().rev().map(|p| (indentation, mode, p))),
            Doc::Indent(inner) => stack.push((indentation + 2, mode, inner)),
            Doc::Align(n, inner) => stack.push((indentation + n, mode, inner)),
            Doc::Group(inner, broken) => {
                let flat = mode == Mode::Flat
                    || (!*broken && fits((Mode::Flat, inner), &stack, width as isize - column as isize));
                let mode = if flat && !*broken { Mode::Flat } else { Mode::Break };
                stack.push((indentation, mode, inner));
            }
            Doc::IfBreak(broken, flat) => {
                stack.push((indentation, mode, if mode == Mode::Break { broken } else { flat }));
            }
            Doc::Line if mode == Mode::Flat => {
                out.push(' ');
                column += 1;
            }
            Doc::Softline if mode == Mode::Flat => {}
            Doc::Line | Doc::Softline | Doc::Hardline => {
                // Prettier trims the whitespace a broken line leaves behind.
                let trimmed = out.trim_end_matches([' ', '\t']).len();
                out.truncate(trimmed);
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', indentation));
                column = indentation;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(members: Vec<&str>) -> Doc {
        let members = members.into_iter().map(text).collect();
        group(concat(vec![
            text("{"),
            indent(concat(vec![
                Doc::Line,
                join(&concat(vec![if_break(text(""), text(";")), Doc::Line]), members),
            ])),
            Doc::Line,
            text("}"),
        ]))
    }

    #[test]
    fn a_group_stays_on_one_line_when_it_fits_and_breaks_when_it_does_not() {
        let short = concat(vec![text("Args: "), object(vec!["a: string", "b?: number"])]);
        assert_eq!(print(short, 80), "Args: { a: string; b?: number }");
        let long = concat(vec![text("Args: "), object(vec!["a: string", "b?: number"])]);
        assert_eq!(print(long, 20), "Args: {\n  a: string\n  b?: number\n}");
    }

    #[test]
    fn a_hard_break_breaks_every_group_around_it() {
        let doc = group(concat(vec![
            text("a"),
            indent(concat(vec![Doc::Line, text("b"), Doc::Hardline, text("c")])),
        ]));
        assert_eq!(print(doc, 80), "a\n  b\n  c");
    }
}
