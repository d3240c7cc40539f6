//! Reflective Memory: the markdown records YouRA leaves under `.serena/memories/` when a
//! hypothesis fails, pivots, is superseded or records a limitation, plus completion snapshots.
//!
//! The records are written by an LLM following loose templates, so real files drift: metadata
//! as `- **Key:** value` bullets, YAML front matter, subfolders, date-suffixed names, CRLF,
//! no trailing newline. Every extractor here is best-effort: what cannot be found is `None`
//! or empty, never an error, and no input makes it panic.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::{fmt, fs, str::FromStr};

/// What a record is. Decided from its file name or folder, the convention YouRA's own readers
/// match on (`failure_` prefix etc.), because titles and fields vary between writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Failure,
    Pivot,
    Superseded,
    Limitation,
    Phase5Failure,
    Snapshot,
    Other,
}

impl MemoryKind {
    /// Every kind, in display order (for CLI help and filters).
    pub const ALL: [MemoryKind; 7] = [
        Self::Failure,
        Self::Pivot,
        Self::Superseded,
        Self::Limitation,
        Self::Phase5Failure,
        Self::Snapshot,
        Self::Other,
    ];

    /// The lowercase name, as serialized and as accepted by [`FromStr`].
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failure => "failure",
            Self::Pivot => "pivot",
            Self::Superseded => "superseded",
            Self::Limitation => "limitation",
            Self::Phase5Failure => "phase5_failure",
            Self::Snapshot => "snapshot",
            Self::Other => "other",
        }
    }

    /// Kind from a record id (`dir/stem`): the name prefix wins, then the folder.
    fn from_id(rel_id: &str) -> Self {
        let lower = rel_id.to_ascii_lowercase();
        let (dir, stem) = lower.rsplit_once('/').unwrap_or(("", &lower));
        let folder = dir.rsplit('/').next().unwrap_or("");
        let folder = folder.strip_suffix('s').unwrap_or(folder);
        let prefixed = |p: &str| stem.starts_with(p);
        match () {
            _ if prefixed("phase5_failure") => Self::Phase5Failure,
            _ if prefixed("failure_") || folder == "failure" => Self::Failure,
            _ if prefixed("pivot_") || folder == "pivot" => Self::Pivot,
            _ if prefixed("superseded_") || folder == "superseded" => Self::Superseded,
            _ if prefixed("limitation_") || folder == "limitation" => Self::Limitation,
            _ if prefixed("snapshot") || folder == "snapshot" => Self::Snapshot,
            _ if folder == "phase4" && stem.contains("snapshot") => Self::Snapshot,
            _ => Self::Other,
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryKind {
    type Err = String;

    /// Accepts the [`MemoryKind::as_str`] names, any case, `-` or no separator for `_`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace(['-', '_'], "");
        Self::ALL
            .into_iter()
            .find(|k| k.as_str().replace('_', "") == norm)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown memory kind `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// A markdown table: header cells and body rows, cells trimmed, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A level-2 or level-3 heading and the text up to the next heading of level 1 to 3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub level: u8,
    pub title: String,
    pub body: String,
}

/// One Reflective Memory record, with the facts a reader needs pulled out of its markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryRecord {
    /// Path relative to the memory root, `/`-separated, without `.md`.
    pub id: String,
    pub path: PathBuf,
    pub kind: MemoryKind,
    pub title: Option<String>,
    /// Lowercase hypothesis id (`h-e1`); for pivots, the hypothesis pivoted from.
    pub hypothesis: Option<String>,
    /// The replacement hypothesis of a pivot (`New Hypothesis`/`To`/`Superseded By`).
    pub to_hypothesis: Option<String>,
    /// `**Run:**`, else `_run{N}` in the file name.
    pub run: Option<u32>,
    /// As written: an ISO timestamp from the fields, or the date token of the file name.
    pub date: Option<String>,
    /// As written (`FAIL`, `PARTIAL (MUST_WORK)`): Final Status, else Gate Result, Status, Result.
    pub final_status: Option<String>,
    pub failure_type: Option<String>,
    pub gate_type: Option<String>,
    /// Where the pipeline went next, as written (`ROUTED_TO_PHASE_0`, `SELF_MODIFY → h-e1-v2`,
    /// or free text): a Routing section's `Outcome`, else a Reflection Outcome / Routing /
    /// Routed To / Reflection field, else a Reflection section's `Outcome`, else the first
    /// line of a Routing section.
    pub routing_decision: Option<String>,
    /// Every `**Key:** value` line (also as a `-`/`*`/`+` bullet), in document order.
    pub fields: Vec<(String, String)>,
    /// Simple `key: value` lines of a leading `---` block, quotes removed.
    pub front_matter: Vec<(String, String)>,
    /// The first table outside code blocks (usually metrics vs. thresholds).
    pub results_table: Option<Table>,
    pub sections: Vec<Section>,
    /// Top-level list items (bold labels kept) under headings or `**Root Causes:**`-style
    /// labels mentioning "root cause", subsections included; a numbered `### 1. Topic`
    /// subheading becomes one item `Topic — a; b`; a matching section without a list gives
    /// its paragraphs; elsewhere, `Root cause: …` items.
    pub root_causes: Vec<String>,
    /// As `root_causes`, for "lesson" (Lessons Learned, Important Lessons, …).
    pub lessons: Vec<String>,
    /// The whole record, BOM removed and line endings normalized to `\n`.
    pub body: String,
}

impl MemoryRecord {
    /// First non-empty value of a bold field, keys compared case-insensitively.
    pub fn field(&self, key: &str) -> Option<&str> {
        lookup(&self.fields, &[key])
    }
}

/// A markdown line and whether it lies inside a fenced code block (fences included).
type Line<'a> = (&'a str, bool);

/// Parses one record. Pure: `path` is only stored, never read.
pub fn parse_record(rel_id: &str, path: &Path, text: &str) -> MemoryRecord {
    let body = normalize(text);
    let (front_matter, markdown) = split_front_matter(&body);
    let lines = mark_code(markdown);
    let fields = fields_of(&lines);
    let kind = MemoryKind::from_id(rel_id);
    let (name_hyp, name_to) = ids_from_name(rel_id, kind);
    let pick = |keys: &[&str]| lookup(&fields, keys).map(str::to_string);
    let hyp_keys = ["Hypothesis ID", "Hypothesis", "Original Hypothesis", "From"];
    let date = pick(&["Date", "Timestamp", "Written at"])
        .or_else(|| italic_value(&lines, "written at"))
        .or_else(|| date_from_name(rel_id));
    MemoryRecord {
        id: rel_id.to_string(),
        path: path.to_path_buf(),
        kind,
        title: lines
            .iter()
            .filter(|l| !l.1)
            .find_map(|l| heading(l.0).filter(|h| h.0 == 1))
            .map(|h| h.1.to_string()),
        hypothesis: lookup(&fields, &hyp_keys).and_then(id_token).or(name_hyp),
        to_hypothesis: lookup(&fields, &["New Hypothesis", "To", "Superseded By"])
            .and_then(id_token)
            .or(name_to),
        run: lookup(&fields, &["Run"])
            .and_then(leading_u32)
            .or_else(|| run_from_name(rel_id)),
        date,
        final_status: pick(&["Final Status", "Gate Result", "Status", "Result"]),
        failure_type: pick(&["Failure Type"]),
        gate_type: pick(&["Gate Type"]),
        routing_decision: routing(&lines, &fields),
        results_table: first_table(&lines),
        sections: sections(&lines),
        root_causes: collect_items(&lines, "root cause"),
        lessons: collect_items(&lines, "lesson"),
        front_matter,
        fields,
        body,
    }
}

/// Reads every `*.md` under `root` (recursively, not following directory links), sorted by id.
/// A missing root yields nothing; unreadable files and folders become warnings.
pub fn load_dir(root: &Path) -> (Vec<MemoryRecord>, Vec<String>) {
    let (mut files, mut warnings) = (Vec::new(), Vec::new());
    walk(root, 0, &mut files, &mut warnings);
    let mut records = Vec::new();
    for path in files {
        match fs::read(&path) {
            Ok(bytes) => {
                let id = rel_id(root, &path);
                records.push(parse_record(&id, &path, &String::from_utf8_lossy(&bytes)));
            }
            Err(e) => warnings.push(format!("cannot read {}: {e}", path.display())),
        }
    }
    records.sort_by(|a, b| a.id.cmp(&b.id));
    (records, warnings)
}

const MAX_DEPTH: usize = 16;

fn walk(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if depth == 0 && e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => return warnings.push(format!("cannot list {}: {e}", dir.display())),
    };
    for entry in entries {
        let Ok(entry) = entry else {
            warnings.push(format!("cannot list an entry of {}", dir.display()));
            continue;
        };
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && depth < MAX_DEPTH {
            walk(&path, depth + 1, files, warnings);
        } else if !is_dir
            && path
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("md"))
        {
            files.push(path);
        }
    }
}

fn rel_id(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// Drops a UTF-8 BOM and turns CRLF / lone CR into LF.
fn normalize(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Splits a leading `---` block (closed by `---` or `...`) into its simple `key: value` lines.
fn split_front_matter(text: &str) -> (Vec<(String, String)>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (Vec::new(), text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if matches!(line.trim_end(), "---" | "...") {
            let pairs = rest[..offset]
                .lines()
                .filter_map(front_matter_pair)
                .collect();
            return (pairs, &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (Vec::new(), text)
}

fn front_matter_pair(line: &str) -> Option<(String, String)> {
    let (key, value) = line.split_once(':')?;
    let simple = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || "_-".contains(c));
    let value = value.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|&q| value.strip_prefix(q)?.strip_suffix(q));
    simple.then(|| (key.to_string(), unquoted.unwrap_or(value).to_string()))
}

/// Pairs each line with "inside a ``` or ~~~ fence", so code never yields headings or fields.
fn mark_code(text: &str) -> Vec<Line<'_>> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        let is_fence = marker.is_some() && (fence.is_none() || fence == marker);
        if is_fence {
            fence = if fence.is_some() { None } else { marker };
        }
        out.push((line, is_fence || fence.is_some()));
    }
    out
}

/// `# Title` → (1, "Title"); levels 1 to 6.
fn heading(line: &str) -> Option<(u8, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[level..];
    let ok = (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then(|| (level as u8, rest.trim().trim_end_matches('#').trim_end()))
}

/// Text of a top-level list item (`-`, `*`, `+` or `1.`/`1)`), and whether it is numbered.
fn list_item(line: &str) -> Option<(&str, bool)> {
    if line.starts_with("  ") || line.starts_with('\t') {
        return None;
    }
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        return rest.strip_prefix([' ', '\t']).map(|r| (r.trim(), false));
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = t[digits..].strip_prefix(['.', ')'])?;
    (digits > 0 && rest.starts_with([' ', '\t'])).then(|| (rest.trim(), true))
}

/// `**Key:** value` or `**Key**: value`, optionally as a bullet (numbered items excluded).
fn bold_field(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    let t = match list_item(t) {
        Some((text, false)) => text,
        Some((_, true)) => return None,
        None => t,
    };
    let rest = t.strip_prefix("**")?;
    let end = rest.find("**")?;
    let (inner, after) = (&rest[..end], &rest[end + 2..]);
    let (key, value) = match inner.strip_suffix(':') {
        Some(key) => (key, after),
        None => (inner, after.strip_prefix(':')?),
    };
    let key = key.trim();
    let ok = !key.is_empty() && key.len() <= 80;
    ok.then(|| (key.to_string(), value.trim().to_string()))
}

fn fields_of(lines: &[Line]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter(|l| !l.1)
        .filter_map(|l| bold_field(l.0))
        .collect()
}

/// Every bold field of `text` (normalized, code blocks skipped); shared with archive markers.
pub(crate) fn bold_fields(text: &str) -> Vec<(String, String)> {
    fields_of(&mark_code(&normalize(text)))
}

/// The first non-empty value among `keys`, tried in priority order.
pub(crate) fn lookup<'a>(fields: &'a [(String, String)], keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|key| {
        let found = fields
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(key) && !v.is_empty());
        found.map(|(_, v)| v.as_str())
    })
}

/// `*Written at: X*` footers (italic, not bold).
fn italic_value(lines: &[Line], key: &str) -> Option<String> {
    lines.iter().filter(|l| !l.1).find_map(|l| {
        let inner = l.0.trim().strip_prefix('*')?.strip_suffix('*')?;
        let (k, v) = inner.split_once(':').filter(|_| !inner.starts_with('*'))?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| v.trim().to_string())
    })
}

/// `h-e1 - Cross-Benchmark …` → `h-e1`; placeholders like `{{hypothesis_id}}` → None.
fn id_token(value: &str) -> Option<String> {
    let tok = value.split_whitespace().next()?;
    let tok = tok
        .trim_matches(|c: char| ",;:()[]`*\"'".contains(c))
        .trim_end_matches('.');
    let valid = tok
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    (valid && tok.chars().any(|c| c.is_ascii_alphanumeric())).then(|| tok.to_ascii_lowercase())
}

/// `17`, `17 files` → 17.
pub(crate) fn leading_u32(value: &str) -> Option<u32> {
    let t = value.trim();
    t[..t.bytes().take_while(u8::is_ascii_digit).count()]
        .parse()
        .ok()
}

fn stem(rel_id: &str) -> String {
    rel_id
        .rsplit('/')
        .next()
        .unwrap_or(rel_id)
        .to_ascii_lowercase()
}

const NAME_PREFIXES: [&str; 8] = [
    "phase5_failure_",
    "phase5_comparison_",
    "failure_",
    "limitation_",
    "superseded_",
    "snapshot_",
    "lessons_",
    "experiment_log_",
];

/// Hypothesis ids encoded in the file name: `failure_{h}_run{N}`, `limitation_{h}_{date}`,
/// `pivot_{old}_{new}`, `pivot/{old}_to_{new}_…`, and `{h}_…` inside subfolders.
fn ids_from_name(rel_id: &str, kind: MemoryKind) -> (Option<String>, Option<String>) {
    let stem = stem(rel_id);
    let first = |s: &str| id_token(s.split('_').next().unwrap_or(""));
    let pair = match stem.strip_prefix("pivot_") {
        Some(rest) => rest.split_once("_to_").or_else(|| rest.split_once('_')),
        None if kind == MemoryKind::Pivot => stem.split_once("_to_"),
        None => None,
    };
    if let Some((from, to)) = pair {
        return (id_token(from), first(to));
    }
    if let Some(rest) = NAME_PREFIXES.iter().find_map(|p| stem.strip_prefix(p)) {
        return (first(rest), None);
    }
    // Without a known prefix only an `h-…`/`h1…`-shaped leading token counts as an id.
    let id_like = |s: &String| {
        s.starts_with("h-")
            || s.starts_with('h') && s[1..].starts_with(|c: char| c.is_ascii_digit())
    };
    (first(&stem).filter(id_like), None)
}

fn run_from_name(rel_id: &str) -> Option<u32> {
    stem(rel_id)
        .split('_')
        .find_map(|s| s.strip_prefix("run").and_then(|n| n.parse().ok()))
}

/// `…_20260317`, `…_20260317T110000`, `…_20260511_031944` → the date token as written.
fn date_from_name(rel_id: &str) -> Option<String> {
    let stem = rel_id.rsplit('/').next().unwrap_or(rel_id);
    let parts: Vec<&str> = stem.split('_').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let is_date = |s: &str| {
        digits(s.get(..8).unwrap_or(""), 8) && (s.len() == 8 || s.as_bytes().get(8) == Some(&b'T'))
    };
    let i = parts
        .iter()
        .position(|p| p.starts_with("20") && is_date(p))?;
    match parts.get(i + 1) {
        Some(time) if parts[i].len() == 8 && digits(time, 6) => {
            Some(format!("{}_{time}", parts[i]))
        }
        _ => Some(parts[i].to_string()),
    }
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") {
        &t[..t.len() - 1]
    } else {
        t
    };
    let (mut out, mut cur, mut escaped) = (Vec::new(), String::new(), false);
    for c in t.chars() {
        match c {
            '|' if !escaped => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
        escaped = c == '\\';
    }
    out.push(cur.trim().to_string());
    out
}

fn first_table(lines: &[Line]) -> Option<Table> {
    let is_row = |l: &Line| !l.1 && l.0.contains('|');
    let is_sep = |l: &Line| {
        is_row(l) && l.0.contains('-') && l.0.trim().chars().all(|c| "|-: \t".contains(c))
    };
    let start = lines
        .windows(2)
        .position(|w| is_row(&w[0]) && is_sep(&w[1]))?;
    let rows = lines[start + 2..]
        .iter()
        .take_while(|l| is_row(l))
        .map(|l| cells(l.0))
        .collect();
    Some(Table {
        header: cells(lines[start].0),
        rows,
    })
}

fn sections(lines: &[Line]) -> Vec<Section> {
    let heads: Vec<(usize, u8, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.1)
        .filter_map(|(i, l)| heading(l.0).filter(|h| h.0 <= 3).map(|(lv, t)| (i, lv, t)))
        .collect();
    heads
        .iter()
        .enumerate()
        .filter(|(_, h)| h.1 >= 2)
        .map(|(n, &(i, level, title))| {
            let end = heads.get(n + 1).map_or(lines.len(), |h| h.0);
            let body: Vec<&str> = lines[i + 1..end].iter().map(|l| l.0).collect();
            Section {
                level,
                title: title.to_string(),
                body: body.join("\n").trim().to_string(),
            }
        })
        .collect()
}

/// Routing: a Routing section's `Outcome`, else a routing-ish field, else a Reflection
/// section's `Outcome`, else the first line of a Routing section (free text like `→ Phase 0`).
fn routing(lines: &[Line], fields: &[(String, String)]) -> Option<String> {
    let (mut in_routing, mut in_reflection) = (None, None);
    let (mut section, mut first_line) = (String::new(), None);
    for &(line, code) in lines {
        if let Some((_, title)) = heading(line).filter(|_| !code) {
            section = title.to_ascii_lowercase();
            continue;
        }
        let kv = bold_field(line)
            .or_else(|| plain_kv(line).map(|(k, v)| (k.to_string(), v.to_string())));
        let outcome =
            kv.filter(|(k, v)| !code && k.eq_ignore_ascii_case("outcome") && !v.is_empty());
        if section.contains("routing") {
            in_routing = in_routing.or_else(|| outcome.clone().map(|o| o.1));
            let text = line.trim();
            let usable = !code && !text.is_empty();
            first_line = first_line.or_else(|| usable.then(|| text.to_string()));
        } else if section.contains("reflection") {
            in_reflection = in_reflection.or(outcome.map(|o| o.1));
        }
    }
    let keys = [
        "Reflection Outcome",
        "Routing Decision",
        "Routing",
        "Routed To",
        "Route To",
        "Reflection",
    ];
    in_routing
        .or_else(|| lookup(fields, &keys).map(str::to_string))
        .or(in_reflection)
        .or(first_line)
}

/// `- Key: value` with a short plain key (no bold).
fn plain_kv(line: &str) -> Option<(&str, &str)> {
    let (key, value) = list_item(line)?.0.split_once(':')?;
    let short = !key.is_empty()
        && key.len() <= 40
        && !key.contains('*')
        && key.split_whitespace().count() <= 4;
    short.then(|| (key.trim(), value.trim()))
}

/// List items of headings / bold labels matching `wanted`, plus labelled items elsewhere.
fn collect_items(lines: &[Line], wanted: &str) -> Vec<String> {
    let mut c = Collector {
        wanted,
        ..Collector::default()
    };
    lines.iter().filter(|l| !l.1).for_each(|l| c.feed(l.0));
    c.flush();
    c.items
}

#[derive(Default)]
struct Collector<'w> {
    wanted: &'w str,
    items: Vec<String>,
    /// `Some(level)` under a matching heading, `Some(0)` under a bold label, else `None`.
    capture: Option<u8>,
    pushed: bool,
    /// Under a numbered subheading (`### 1. Topic`): items join the topic's entry.
    merge: usize,
    paragraphs: Vec<String>,
}

impl Collector<'_> {
    fn wants(&self, text: &str) -> bool {
        text.to_lowercase().contains(self.wanted)
    }

    fn feed(&mut self, line: &str) {
        if let Some((level, title)) = heading(line) {
            return self.on_heading(level, title);
        }
        let item = list_item(line);
        let field = bold_field(line);
        if let Some((key, value)) = field.as_ref().filter(|_| item.is_none())
            && value.is_empty()
            && self.wants(key)
        {
            self.flush();
            return self.capture = Some(0);
        }
        match (self.capture, item) {
            (Some(_), Some((text, _))) => return self.push(text),
            (Some(_), None) if line.trim().is_empty() => {
                return self.paragraphs.push(String::new());
            }
            (Some(0), None) => self.flush(),
            (Some(_), None) => return self.paragraph(line.trim()),
            (None, _) => {}
        }
        let labelled = match (&field, plain_kv(line)) {
            (Some((key, value)), _) => !value.is_empty() && self.wants(key),
            (None, Some((key, value))) => !value.is_empty() && self.wants(key),
            _ => false,
        };
        if labelled {
            self.items
                .push(item.map_or(line.trim(), |i| i.0).to_string());
        }
    }

    fn on_heading(&mut self, level: u8, title: &str) {
        if self.capture.is_some_and(|c| c > 0 && level > c) {
            self.merge = 0;
            if let Some((topic, true)) = list_item(title) {
                self.push(topic);
                self.merge = 1;
            }
            return;
        }
        self.flush();
        self.capture = self.wants(title).then_some(level);
    }

    fn push(&mut self, text: &str) {
        self.pushed = true;
        match self.items.last_mut().filter(|_| self.merge > 0) {
            Some(last) => {
                last.push_str(if self.merge == 1 { " — " } else { "; " });
                last.push_str(text);
                self.merge += 1;
            }
            None => self.items.push(text.to_string()),
        }
    }

    /// Prose lines of a captured section; tables and rules are not prose.
    fn paragraph(&mut self, text: &str) {
        if text.starts_with('|') || text.chars().all(|c| "-*_ ".contains(c)) {
            return;
        }
        match self.paragraphs.last_mut() {
            Some(p) if !p.is_empty() => {
                p.push(' ');
                p.push_str(text);
            }
            _ => self.paragraphs.push(text.to_string()),
        }
    }

    /// Ends a capture; a matching section with prose but no list yields its paragraphs.
    fn flush(&mut self) {
        if !self.pushed && self.capture.is_some() {
            self.items
                .extend(self.paragraphs.drain(..).filter(|p| !p.is_empty()));
        }
        (self.capture, self.pushed, self.merge) = (None, false, 0);
        self.paragraphs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(id: &str, text: &str) -> MemoryRecord {
        parse_record(id, Path::new("m.md"), text)
    }

    #[test]
    fn crlf_bom_and_no_trailing_newline() {
        let r = parse(
            "x",
            "\u{feff}# Failure: h-x2\r\n\r\n**Date:** 2025-01-02\r\n**Hypothesis:** H-X2 - Name\r\n**Run:** 4\r\n**Final Status:** FAIL",
        );
        assert_eq!(r.title.as_deref(), Some("Failure: h-x2"));
        assert_eq!((r.hypothesis.as_deref(), r.run), (Some("h-x2"), Some(4)));
        assert_eq!(r.final_status.as_deref(), Some("FAIL"));
        assert_eq!(r.date.as_deref(), Some("2025-01-02"));
        assert!(!r.body.contains('\r') && !r.body.starts_with('\u{feff}'));
    }

    #[test]
    fn bullet_metadata_and_precedence() {
        let text = "## Metadata\n- **Hypothesis ID:** h-q\n* **Gate Type:** SHOULD_WORK\n  - **Gate Result**: FAIL\n1. **Numbered**: no\n**Timestamp:** t1\n```\n**Code:** no\n# not a title\n```\n";
        let r = parse("notes", text);
        let keys: Vec<_> = r.fields.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            keys,
            ["Hypothesis ID", "Gate Type", "Gate Result", "Timestamp"]
        );
        assert_eq!(
            (r.hypothesis.as_deref(), r.gate_type.as_deref()),
            (Some("h-q"), Some("SHOULD_WORK"))
        );
        assert_eq!(
            (r.final_status.as_deref(), r.date.as_deref()),
            (Some("FAIL"), Some("t1"))
        );
        assert_eq!((r.title, r.kind), (None, MemoryKind::Other));
    }

    #[test]
    fn front_matter_closed_and_unclosed() {
        let r = parse(
            "l",
            "---\r\nname: 'lim_h-z'\r\ndescription: \"a: b\"\r\n  nested: no\r\n---\r\n# L\r\n",
        );
        let fm: Vec<_> = r
            .front_matter
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(fm, [("name", "lim_h-z"), ("description", "a: b")]);
        assert_eq!(r.title.as_deref(), Some("L"));
        let r = parse("l", "---\nname: x\n# T");
        assert!(r.front_matter.is_empty());
        assert_eq!(r.title.as_deref(), Some("T"));
    }

    #[test]
    fn names_give_kind_ids_run_and_date() {
        use MemoryKind::*;
        let cases = [
            (
                "failure_h-e2_run3",
                Failure,
                Some("h-e2"),
                None,
                Some(3),
                None,
            ),
            (
                "phase5_failure_h-e1_run1",
                Phase5Failure,
                Some("h-e1"),
                None,
                Some(1),
                None,
            ),
            (
                "limitation_h-e1_20250101",
                Limitation,
                Some("h-e1"),
                None,
                None,
                Some("20250101"),
            ),
            (
                "pivot_h-e1_h-e1-v2",
                Pivot,
                Some("h-e1"),
                Some("h-e1-v2"),
                None,
                None,
            ),
            (
                "pivot/h-a_to_h-a-v3_scope",
                Pivot,
                Some("h-a"),
                Some("h-a-v3"),
                None,
                None,
            ),
            ("pivots/h-a_notes", Pivot, Some("h-a"), None, None, None),
            (
                "superseded_h-m2",
                Superseded,
                Some("h-m2"),
                None,
                None,
                None,
            ),
            (
                "snapshot_h-e1_20250101_120000",
                Snapshot,
                Some("h-e1"),
                None,
                None,
                Some("20250101_120000"),
            ),
            (
                "phase4/h-e1_completion_snapshot_20250101T120000",
                Snapshot,
                Some("h-e1"),
                None,
                None,
                Some("20250101T120000"),
            ),
            ("phase4/h-e1_notes", Other, Some("h-e1"), None, None, None),
            (
                "failures/h-m1_must_work_fail",
                Failure,
                Some("h-m1"),
                None,
                None,
                None,
            ),
            (
                "snapshot/H-M1_phase4_failed",
                Snapshot,
                Some("h-m1"),
                None,
                None,
                None,
            ),
            (
                "phase5_comparison_h-e1",
                Other,
                Some("h-e1"),
                None,
                None,
                None,
            ),
            ("project_overview", Other, None, None, None, None),
        ];
        for (id, kind, hyp, to, run, date) in cases {
            let r = parse(id, "");
            let got = (
                r.kind,
                r.hypothesis.as_deref(),
                r.to_hypothesis.as_deref(),
                r.run,
                r.date.as_deref(),
            );
            assert_eq!(got, (kind, hyp, to, run, date), "{id}");
        }
    }

    #[test]
    fn fields_beat_names_and_placeholders_do_not() {
        let r = parse(
            "pivot_h-a_h-b",
            "**From:** h-c\n**To:** h-d\n*Written at: w*\n",
        );
        assert_eq!(
            (r.hypothesis.as_deref(), r.to_hypothesis.as_deref()),
            (Some("h-c"), Some("h-d"))
        );
        assert_eq!(r.date.as_deref(), Some("w"));
        let r = parse(
            "failure_h-a_run2",
            "**Hypothesis:** {{hypothesis_id}}\n**Run:** {{run}}\n",
        );
        assert_eq!((r.hypothesis.as_deref(), r.run), (Some("h-a"), Some(2)));
    }

    #[test]
    fn root_causes_and_lessons() {
        let text = "## Root Cause Analysis\n\n### Primary\n- **Error:** tz\n### Secondary\n1. **Retry**: none\n2. plain\n\n\
            ## Lessons Learned\n### 1. Dates\n- **Lesson:** use UTC\n- **Impact:** high\n### 2. Gates\n- check n\n\
            ## Other\n- Root cause: labelled\n- nothing here\n**Root Causes:**\n\n- a\n- b\nprose ends it\n- c\n\
            ## Root Cause\nFirst line\nsame paragraph.\n\n| t | t |\n\nSecond.\n";
        let r = parse("x", text);
        assert_eq!(
            r.root_causes,
            [
                "**Error:** tz",
                "**Retry**: none",
                "plain",
                "Root cause: labelled",
                "a",
                "b",
                "First line same paragraph.",
                "Second."
            ]
        );
        assert_eq!(
            r.lessons,
            [
                "Dates — **Lesson:** use UTC; **Impact:** high",
                "Gates — check n"
            ]
        );
    }

    #[test]
    fn routing_sources_in_order() {
        let route = |t: &str| parse("x", t).routing_decision;
        let both = "**Reflection Outcome:** B\n## Routing Decision\n- **Outcome:** A\n";
        assert_eq!(route(both).as_deref(), Some("A"));
        assert_eq!(
            route("## Reflection\n- Outcome: SELF_MODIFY\n").as_deref(),
            Some("SELF_MODIFY")
        );
        assert_eq!(
            route("**Reflection:** C\n## Reflection\n- Outcome: D").as_deref(),
            Some("C")
        );
        assert_eq!(
            route("## Routing\n\n→ Phase 0 redo\n").as_deref(),
            Some("→ Phase 0 redo")
        );
        assert_eq!(route("## Notes\n- Outcome: no"), None);
    }

    #[test]
    fn first_table_and_sections() {
        let text = "```\n| a | b |\n|---|---|\n```\n## Results\n| A | B \\| C |\n|:--|--:|\n| 1 | 2 |\n|3|\n\n### Sub\nbody\n#### deep\nmore\n# Top\n";
        let r = parse("x", text);
        let table = r.results_table.unwrap_or_default();
        assert_eq!(table.header, ["A", "B \\| C"]);
        assert_eq!(table.rows, [vec!["1", "2"], vec!["3"]]);
        let titles: Vec<_> = r
            .sections
            .iter()
            .map(|s| (s.level, s.title.as_str()))
            .collect();
        assert_eq!(titles, [(2, "Results"), (3, "Sub")]);
        assert_eq!(r.sections[1].body, "body\n#### deep\nmore");
        assert_eq!(parse("x", "| a |\n| b |\n").results_table, None);
    }

    #[test]
    fn empty_and_junk_inputs_never_panic() {
        let r = parse("", "");
        assert!(
            r.title.is_none() && r.fields.is_empty() && r.sections.is_empty() && r.body.is_empty()
        );
        let junk =
            String::from_utf8_lossy(b"\xff\xfe# \xc3\x28\n**\xe2\x82:** \x00\n|\xff|\n|-|\n");
        let r = parse("failure_\u{fffd}_run99999999999", &junk);
        assert_eq!(r.run, None);
        for t in [
            "#", "**", "**:**", "** :**", "|", "|-|", "---", "---\n", "1.", "- ", "```", "\r",
            "*a:*", "###### ", "1)x", "\u{feff}",
        ] {
            let _ = parse("pivot/_to_", t);
            let _ = parse("snapshot_2", &t.repeat(3));
        }
    }

    #[test]
    fn kind_names_round_trip() {
        for kind in MemoryKind::ALL {
            assert_eq!(kind.as_str().parse::<MemoryKind>(), Ok(kind));
            assert_eq!(
                serde_json::to_string(&kind).ok(),
                Some(format!("\"{kind}\""))
            );
        }
        assert_eq!("Phase5-Failure".parse(), Ok(MemoryKind::Phase5Failure));
        assert!("failures".parse::<MemoryKind>().is_err());
    }

    #[test]
    fn load_dir_walks_sorted_and_lossy() {
        let root = std::env::temp_dir().join(format!("youra-memory-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("pivot")).unwrap();
        fs::write(root.join("snapshot_h-e1_20250101.MD"), "").unwrap();
        fs::write(root.join("pivot/h-a_to_h-b_x.md"), b"**Date:** \xff\r\n").unwrap();
        fs::write(root.join("failure_h-a_run1.md"), "# F").unwrap();
        fs::write(root.join("notes.txt"), "x").unwrap();
        let (records, warnings) = load_dir(&root);
        let _ = fs::remove_dir_all(&root);
        let ids: Vec<_> = records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "failure_h-a_run1",
                "pivot/h-a_to_h-b_x",
                "snapshot_h-e1_20250101"
            ]
        );
        assert_eq!(records[1].date.as_deref(), Some("\u{fffd}"));
        assert!(warnings.is_empty());
        assert_eq!(load_dir(&root), (Vec::new(), Vec::new()));
    }
}
