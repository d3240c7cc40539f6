//! Markdown as LLM-written records use it: front matter, bold `**Key:** value` fields,
//! headings, lists, tables and fenced code. Best-effort and total: no input panics.

use serde::Serialize;

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

/// A markdown line and whether it lies inside a fenced code block (fences included).
pub(crate) type Line<'a> = (&'a str, bool);

pub(crate) fn normalize(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Splits a leading `---` block (closed by `---` or `...`) into its simple `key: value` lines.
pub(crate) fn split_front_matter(text: &str) -> (Vec<(String, String)>, &str) {
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

pub(crate) fn front_matter_pair(line: &str) -> Option<(String, String)> {
    let (key, value) = line.split_once(':')?;
    let simple = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || "_-".contains(c));
    let value = value.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|&q| value.strip_prefix(q)?.strip_suffix(q));
    simple.then(|| (key.to_string(), unquoted.unwrap_or(value).to_string()))
}

/// Pairs each line with "inside a ``` or ~~~ fence", so code never yields headings or fields.
pub(crate) fn mark_code(text: &str) -> Vec<Line<'_>> {
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
pub(crate) fn heading(line: &str) -> Option<(u8, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[level..];
    let ok = (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then(|| (level as u8, rest.trim().trim_end_matches('#').trim_end()))
}

/// Text of a top-level list item (`-`, `*`, `+` or `1.`/`1)`), and whether it is numbered.
pub(crate) fn list_item(line: &str) -> Option<(&str, bool)> {
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
pub(crate) fn bold_field(line: &str) -> Option<(String, String)> {
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

pub(crate) fn fields_of(lines: &[Line]) -> Vec<(String, String)> {
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
pub(crate) fn italic_value(lines: &[Line], key: &str) -> Option<String> {
    lines.iter().filter(|l| !l.1).find_map(|l| {
        let inner = l.0.trim().strip_prefix('*')?.strip_suffix('*')?;
        let (k, v) = inner.split_once(':').filter(|_| !inner.starts_with('*'))?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| v.trim().to_string())
    })
}

/// `h-e1 - Cross-Benchmark …` → `h-e1`; placeholders like `{{hypothesis_id}}` → None.
pub(crate) fn id_token(value: &str) -> Option<String> {
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

pub(crate) fn cells(line: &str) -> Vec<String> {
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

pub(crate) fn first_table(lines: &[Line]) -> Option<Table> {
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

pub(crate) fn sections(lines: &[Line]) -> Vec<Section> {
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

/// `- Key: value` with a short plain key (no bold).
pub(crate) fn plain_kv(line: &str) -> Option<(&str, &str)> {
    let (key, value) = list_item(line)?.0.split_once(':')?;
    let short = !key.is_empty()
        && key.len() <= 40
        && !key.contains('*')
        && key.split_whitespace().count() <= 4;
    short.then(|| (key.trim(), value.trim()))
}

/// List items of headings / bold labels matching `wanted`, plus labelled items elsewhere.
pub(crate) fn collect_items(lines: &[Line], wanted: &str) -> Vec<String> {
    let mut c = Collector {
        wanted,
        ..Collector::default()
    };
    lines.iter().filter(|l| !l.1).for_each(|l| c.feed(l.0));
    c.flush();
    c.items
}

#[derive(Default)]
pub(crate) struct Collector<'w> {
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
