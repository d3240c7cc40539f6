//! A note at the head of a paper's Method section: where youra says what a reader must know
//! before the method (no sandbox, post-hoc claims, how many claims, selection apart from
//! reporting, data the audit does not find real). Below `drafting.rs` and the notes' own
//! files, so none imports another in a loop.

/// `paper` with `note` as the first paragraph of its Method section; without a Method, after
/// the title when `or_title` (else `None`), or at the very top when there is no title either.
pub(crate) fn opening_method(paper: &str, note: &str, or_title: bool) -> Option<String> {
    let mut lines: Vec<&str> = paper.lines().collect();
    let heading = |l: &&str| {
        let t = l.trim_start_matches('#').trim().to_ascii_lowercase();
        l.starts_with('#') && (t == "method" || t == "methods" || t.ends_with(" method"))
    };
    let at = match lines.iter().position(heading) {
        Some(i) => i + 1,
        None if or_title => lines
            .iter()
            .position(|l| l.starts_with("# "))
            .map_or(0, |i| i + 1),
        None => return None,
    };
    lines.insert(at, "");
    lines.insert(at + 1, note);
    let mut out = lines.join("\n");
    if paper.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// The paper with `note` opening its Method section; unchanged without a note, without a
/// Method, or when the note is already there (never inserted twice).
pub(crate) fn with_note(paper: &str, note: Option<&str>) -> String {
    match note.filter(|n| !paper.contains(n)) {
        Some(note) => opening_method(paper, note, false).unwrap_or_else(|| paper.into()),
        None => paper.to_string(),
    }
}
