//! Output checks: the sections a Markdown artifact must have, the keys a structured one
//! must have. Pure; a failed check becomes the resume prompt that names what is missing.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub missing: Vec<String>,
}

impl Check {
    pub fn ok(&self) -> bool {
        self.missing.is_empty()
    }

    pub fn describe(&self) -> String {
        if self.ok() {
            "all required parts present".into()
        } else {
            format!("missing: {}", self.missing.join(", "))
        }
    }
}

/// Headings present at any level (`## Gaps`, `# Gaps:`), compared without case.
pub fn sections(markdown: &str, required: &[&str]) -> Check {
    let heads: Vec<String> = markdown
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .map(|l| {
            l.trim_start()
                .trim_start_matches('#')
                .trim()
                .trim_end_matches(':')
                .to_ascii_lowercase()
        })
        .collect();
    let missing = required
        .iter()
        .filter(|r| !heads.iter().any(|h| h.starts_with(&r.to_ascii_lowercase())))
        .map(|r| format!("section \"## {r}\""))
        .collect();
    Check { missing }
}

/// Keys present (non-null) in a JSON object.
pub fn keys(value: &serde_json::Value, required: &[&str]) -> Check {
    let missing = required
        .iter()
        .filter(|k| value.get(**k).is_none_or(serde_json::Value::is_null))
        .map(|k| format!("key \"{k}\""))
        .collect();
    Check { missing }
}

/// The body of one section (up to the next heading of the same or a higher level).
pub fn section_body<'a>(markdown: &'a str, name: &str) -> Option<&'a str> {
    let want = name.to_ascii_lowercase();
    let mut start = None;
    let mut level = 0;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let t = line.trim_start();
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if hashes > 0 {
            let title = t[hashes..]
                .trim()
                .trim_end_matches(':')
                .to_ascii_lowercase();
            match start {
                Some(s) if hashes <= level => return Some(markdown[s..offset].trim()),
                None if title.starts_with(&want) => {
                    start = Some(offset + line.len());
                    level = hashes;
                }
                _ => {}
            }
        }
        offset += line.len();
    }
    start.map(|s| markdown[s..].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_found_at_any_level_without_case() {
        let md = "# Title\n## Research Question\nq\n### gaps:\n1. a\n";
        assert!(sections(md, &["Research Question", "Gaps"]).ok());
        let c = sections(md, &["Research Question", "Motivation"]);
        assert_eq!(c.missing, vec!["section \"## Motivation\""]);
        assert_eq!(c.describe(), "missing: section \"## Motivation\"");
    }

    #[test]
    fn section_body_stops_at_the_next_heading_of_its_level() {
        let md = "## A\none\n### A.1\ntwo\n## B\nthree\n";
        assert_eq!(section_body(md, "A"), Some("one\n### A.1\ntwo"));
        assert_eq!(section_body(md, "b"), Some("three"));
        assert_eq!(section_body(md, "C"), None);
    }

    #[test]
    fn keys_must_be_present_and_not_null() {
        let v = serde_json::json!({"a": 1, "b": null});
        assert_eq!(
            keys(&v, &["a", "b", "c"]).missing,
            vec!["key \"b\"", "key \"c\""]
        );
    }
}
