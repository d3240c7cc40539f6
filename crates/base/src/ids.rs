//! The safe-id rule: an id youra makes a folder or file name from (a sub-hypothesis's
//! workspace `<run>/<id>/`, a plan node's `plan/nodes/<id>/`, an archive's
//! `_archive/<name>/`) must be one plain name, never a path. An id is text anyone can
//! write (a hand edit, `vsa set --create`, a model's reply), and `run.join("/abs/dir")`
//! is `/abs/dir`, `run.join("../x")` leaves the run. The rule lives here, below every
//! layer, so the VSA's invariants, the plan tree, the CLI and the engine apply the same one.

/// Longer ids are refused: they name folders and fill TUI columns.
pub(crate) const MAX_ID_LEN: usize = 64;

/// Why `raw` is not a safe single path segment, if it is not. Dots are allowed inside a
/// name (`n-3.b`, a plan node) but never alone, doubled or leading.
pub fn unsafe_segment(raw: &str) -> Option<&'static str> {
    if raw.is_empty() {
        Some("it is empty")
    } else if raw.len() > MAX_ID_LEN {
        Some("it is longer than 64 characters")
    } else if raw.chars().any(char::is_control) {
        Some("it holds a control character (a newline, a tab, an escape)")
    } else if raw.starts_with('/') {
        Some("it is an absolute path")
    } else if raw.contains(['/', '\\']) {
        Some("it holds a path separator (`/` or `\\`)")
    } else if raw == "." || raw.contains("..") {
        Some("it is `.` or holds `..`, which name other folders")
    } else if raw.starts_with('.') {
        Some("it starts with a dot (a hidden name)")
    } else if !raw
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        Some("use only letters, digits, `-`, `_` and `.`")
    } else {
        None
    }
}

/// Why `raw` is not a safe VSA id (a sub-hypothesis, an archive name), if it is not: a
/// safe segment without any dot, since a dot separates the parts of a VSA path
/// (`sub_hypotheses.<id>.gate`).
pub(crate) fn unsafe_id(raw: &str) -> Option<&'static str> {
    unsafe_segment(raw).or_else(|| {
        raw.contains('.')
            .then_some("it holds a `.`, which separates the parts of a VSA path")
    })
}

/// An id the rule refused, naming what it is, the id (escaped: it may hold a newline or
/// an escape sequence) and the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} id `{}` refused: {why}; an id names a folder, so it must be one plain name (letters, digits, `-` and `_`, at most 64 characters)",
    .id.escape_debug()
)]
pub struct UnsafeId {
    pub what: &'static str,
    pub id: String,
    pub why: &'static str,
}

/// `raw` as a safe VSA id, or the error naming it (`what`: "sub-hypothesis", "archive").
pub fn check_id(what: &'static str, raw: &str) -> Result<(), UnsafeId> {
    match unsafe_id(raw) {
        None => Ok(()),
        Some(why) => Err(UnsafeId {
            what,
            id: raw.to_string(),
            why,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_refuses_every_kind_of_path() {
        let long = "x".repeat(65);
        let max = "x".repeat(64);
        // (id, safe as a segment, safe as a VSA id)
        let table: &[(&str, bool, bool)] = &[
            ("h-e1", true, true),
            ("h-e1-v2", true, true),
            ("H_2", true, true),
            (&max, true, true),
            ("n-3.b_2", true, false),
            ("", false, false),
            (".", false, false),
            ("..", false, false),
            ("../x", false, false),
            ("a..b", false, false),
            ("/abs/dir", false, false),
            ("/", false, false),
            ("a/b", false, false),
            ("a\\b", false, false),
            (".hidden", false, false),
            ("h\n1", false, false),
            ("h\t1", false, false),
            ("h\u{1b}[2J", false, false),
            ("h\u{7f}", false, false),
            ("a b", false, false),
            ("é", false, false),
            (&long, false, false),
        ];
        for &(raw, segment, id) in table {
            assert_eq!(unsafe_segment(raw).is_none(), segment, "segment {raw:?}");
            assert_eq!(unsafe_id(raw).is_none(), id, "id {raw:?}");
        }
    }

    #[test]
    fn the_error_names_the_id_escaped_and_the_rule() {
        let e = check_id("sub-hypothesis", "h\n../x").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("sub-hypothesis id `h\\n../x` refused: it holds a control character"),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
        assert!(text.contains("one plain name"), "{text}");
        assert_eq!(
            check_id("archive", "a.b").unwrap_err().why,
            "it holds a `.`, which separates the parts of a VSA path"
        );
        assert!(check_id("sub-hypothesis", "h-m1").is_ok());
    }
}
