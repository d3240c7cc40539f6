//! Reading what a model replied: the JSON object inside a reply (models wrap it in prose or
//! code fences), with errors that say where it broke.

/// The first JSON object in `text`: the whole reply, else a fenced block, else the first
/// balanced `{…}` span that parses (prose with braces before or after the object, or a
/// second object, does not break it), else the span from the first `{` to the last `}`.
/// Think blocks are gone by now: the provider layer separates them (`llm::reasoning`).
pub fn json_object(text: &str) -> Result<serde_json::Value, String> {
    let mut candidates = vec![Some(text.trim()), fenced(text)];
    candidates.extend(balanced(text).into_iter().map(Some));
    candidates.push(braces(text));
    let mut first_err = None;
    for c in candidates.into_iter().flatten() {
        // Models (and some grammar-constrained servers) put raw newlines and tabs inside
        // JSON strings; JSON forbids them, but their meaning is plain.
        let parsed = serde_json::from_str::<serde_json::Value>(c).or_else(|e| {
            let escaped = escape_controls(c);
            if escaped == c {
                Err(e)
            } else {
                serde_json::from_str(&escaped).map_err(|_| e)
            }
        });
        match parsed {
            Ok(v) if v.is_object() => return Ok(v),
            Ok(_) => {
                first_err.get_or_insert_with(|| "the reply is JSON but not an object".to_string());
            }
            Err(e) => {
                first_err.get_or_insert_with(|| {
                    format!(
                        "not valid JSON (line {}, column {}: {e})",
                        e.line(),
                        e.column()
                    )
                });
            }
        }
    }
    let excerpt: String = text.chars().take(160).collect();
    Err(format!(
        "{}; the reply began: {excerpt:?}",
        first_err.unwrap_or_else(|| "empty reply".into())
    ))
}

/// Control characters inside JSON strings written as their escapes (outside strings they are
/// whitespace or an error either way).
fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if in_str && !escaped && (c as u32) < 0x20 {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", other as u32)),
            }
            continue;
        }
        match (in_str, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => in_str = !in_str,
            _ => {}
        }
        out.push(c);
    }
    out
}

fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let body = &text[start + 3..];
    let body = &body[body.find('\n')? + 1..];
    Some(body[..body.find("```")?].trim())
}

/// Every balanced `{…}` span, outermost first, in order (braces inside JSON strings are
/// skipped); at most 16, so a reply full of braces stays cheap.
fn balanced(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(off) = text[start..].find('{') {
        let open = start + off;
        let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
        let mut end = None;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(e) => {
                out.push(&text[open..=e]);
                start = e + 1;
            }
            None => start = open + 1,
        }
        if out.len() >= 16 {
            break;
        }
    }
    out
}

fn braces(text: &str) -> Option<&str> {
    let (a, b) = (text.find('{')?, text.rfind('}')?);
    (a < b).then(|| &text[a..=b])
}

/// A string field, trimmed; `None` when absent, not a string, or blank.
pub fn str_field<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_objects_in_prose_and_fences() {
        assert_eq!(json_object("{\"a\":1}").unwrap()["a"], 1);
        assert_eq!(
            json_object("Sure:\n```json\n{\"a\":2}\n```\nDone").unwrap()["a"],
            2
        );
        assert_eq!(
            json_object("The answer is {\"a\":3} as asked").unwrap()["a"],
            3
        );
        let e = json_object("{\"a\": 1,").unwrap_err();
        assert!(e.contains("line 1") && e.contains("began"), "{e}");
        assert!(json_object("[1,2]").unwrap_err().contains("not an object"));
        assert!(json_object("").is_err());
    }

    #[test]
    fn raw_newlines_inside_strings_are_read_as_escapes() {
        let v = json_object("{\"a\": \"line one\nline two\tend\", \"b\": \"q\\\"\n\"}").unwrap();
        assert_eq!(v["a"], "line one\nline two\tend");
        assert_eq!(v["b"], "q\"\n");
        assert!(
            json_object("{\"a\": 1,\n\"b\": 2}").is_ok(),
            "newlines between keys stay whitespace"
        );
    }

    #[test]
    fn prose_braces_around_the_object_do_not_break_it() {
        let v = json_object("Plan {draft}: {\"a\": \"x}\"} and later {not json}").unwrap();
        assert_eq!(v["a"], "x}");
        let v = json_object("{\"a\":1} then {\"b\":2}").unwrap();
        assert_eq!(v["a"], 1);
    }
}
