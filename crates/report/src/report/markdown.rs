//! Just enough Markdown structure for grounded reporting: which lines are prose, which are
//! GitHub-flavoured pipe tables (and their cells), and which are code.
//!
//! A table is a header row with at least one `|`, directly followed by a delimiter row
//! (`|---|:--:|`, as many cells as the header), then body rows until a blank line or a line
//! without `|`. A cell is the text between unescaped pipes (a pipe inside a code span does
//! not split). Fenced code (```` ``` ```` / `~~~`), YAML front matter and HTML comments are
//! neither prose nor tables: numbers there are not claims about results.

/// What a line is.
#[derive(Debug, Clone, PartialEq)]
pub enum LineKind {
    Prose,
    TableHeader,
    TableDelimiter,
    /// A body row; `header` is the index of its table's header line.
    TableRow {
        header: usize,
    },
    Code,
    /// Under a `References` / `Bibliography` heading: citations, whose years, volumes and
    /// pages are not claims about the run.
    Reference,
}

/// One line of the document: byte range (without the newline), 1-based number, kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub number: usize,
    pub kind: LineKind,
}

/// A cell of a table row: byte range of its content (between the pipes) in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub start: usize,
    pub end: usize,
}

/// Classify every line of `text`.
pub fn lines(text: &str) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let mut offset = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let body = raw.strip_suffix('\r').unwrap_or(raw);
        out.push(Line {
            start: offset,
            end: offset + body.len(),
            number: i + 1,
            kind: LineKind::Prose,
        });
        offset += raw.len() + 1;
    }
    mark_code(text, &mut out);
    mark_tables(text, &mut out);
    mark_references(text, &mut out);
    out
}

/// The heading level of a line (`## x` → 2), if it is an ATX heading.
pub(crate) fn heading_level(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let level = t.bytes().take_while(|b| *b == b'#').count();
    ((1..=6).contains(&level) && t[level..].starts_with([' ', '\t'])).then_some(level)
}

/// Prose under a references heading, up to the next heading of the same or a higher level.
fn mark_references(text: &str, lines: &mut [Line]) {
    let mut inside: Option<usize> = None;
    for line in lines.iter_mut() {
        if line.kind != LineKind::Prose {
            continue;
        }
        let t = &text[line.start..line.end];
        if let Some(level) = heading_level(t) {
            let title = t.trim().trim_start_matches('#').trim().to_ascii_lowercase();
            let title = title.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if inside.is_some_and(|l| level <= l) {
                inside = None;
            }
            if matches!(title.trim(), "references" | "bibliography" | "works cited") {
                inside = Some(level);
            }
            continue;
        }
        if inside.is_some() {
            line.kind = LineKind::Reference;
        }
    }
}

/// Fenced code, front matter and HTML comments become `Code`.
fn mark_code(text: &str, lines: &mut [Line]) {
    let mut fence: Option<&str> = None;
    let mut comment = false;
    let mut front_matter = lines
        .first()
        .is_some_and(|l| &text[l.start..l.end] == "---");
    for (i, line) in lines.iter_mut().enumerate() {
        let t = text[line.start..line.end].trim_start();
        if front_matter {
            line.kind = LineKind::Code;
            front_matter = !(i > 0 && t.trim_end() == "---");
            continue;
        }
        if let Some(f) = fence {
            line.kind = LineKind::Code;
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            line.kind = LineKind::Code;
            continue;
        }
        if comment || t.starts_with("<!--") {
            line.kind = LineKind::Code;
            comment = !t.contains("-->");
        }
    }
}

fn mark_tables(text: &str, lines: &mut [Line]) {
    let mut i = 0;
    while i + 1 < lines.len() {
        let header = &text[lines[i].start..lines[i].end];
        let delim = &text[lines[i + 1].start..lines[i + 1].end];
        let is_table = lines[i].kind == LineKind::Prose
            && lines[i + 1].kind == LineKind::Prose
            && header.contains('|')
            && is_delimiter_row(delim)
            && cells(header, 0).len() == cells(delim, 0).len();
        if !is_table {
            i += 1;
            continue;
        }
        lines[i].kind = LineKind::TableHeader;
        lines[i + 1].kind = LineKind::TableDelimiter;
        let mut j = i + 2;
        while j < lines.len() {
            let row = &text[lines[j].start..lines[j].end];
            if lines[j].kind != LineKind::Prose || row.trim().is_empty() || !row.contains('|') {
                break;
            }
            lines[j].kind = LineKind::TableRow { header: i };
            j += 1;
        }
        i = j;
    }
}

/// `|---|:---:|--:|`: dash runs between pipes (outer pipes optional, one pipe at least).
pub fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    if !t.contains('-') || !t.contains('|') {
        return false;
    }
    let cells = cells(t, 0);
    !cells.is_empty()
        && cells.iter().all(|c| {
            let s = t[c.start..c.end].trim();
            let inner = s.trim_start_matches(':').trim_end_matches(':');
            !inner.is_empty() && inner.bytes().all(|b| b == b'-')
        })
}

/// The cells of a row whose text starts at byte `offset` of the document.
pub fn cells(row: &str, offset: usize) -> Vec<Cell> {
    let b = row.as_bytes();
    let mut pipes = Vec::new();
    let mut in_code = false;
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 1,
            b'`' => in_code = !in_code,
            b'|' if !in_code => pipes.push(k),
            _ => {}
        }
        k += 1;
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    for p in pipes.iter().copied().chain(std::iter::once(row.len())) {
        pieces.push((start, p));
        start = p + 1;
    }
    // Outer pipes leave a blank piece before the first and after the last: not cells.
    let blank = |(s, e): (usize, usize)| row[s..e].trim().is_empty();
    if !pipes.is_empty() && pieces.first().is_some_and(|p| blank(*p)) {
        pieces.remove(0);
    }
    if !pipes.is_empty() && pieces.len() > 1 && pieces.last().is_some_and(|p| blank(*p)) {
        pieces.pop();
    }
    pieces
        .into_iter()
        .map(|(s, e)| Cell {
            start: offset + s,
            end: offset + e,
        })
        .collect()
}

/// 1-based column (in characters) of byte `at` on a line starting at byte `line_start`.
pub fn column(text: &str, line_start: usize, at: usize) -> usize {
    text[line_start..at].chars().count() + 1
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
