//! Reading what a model replied: the JSON object inside a reply (models wrap it in prose or
//! code fences), with errors that say where it broke.

/// The first JSON object in `text`: the whole reply, else a fenced block, else the span from
/// the first `{` to the last `}`.
pub fn json_object(text: &str) -> Result<serde_json::Value, String> {
    let candidates = [Some(text.trim()), fenced(text), braces(text)];
    let mut first_err = None;
    for c in candidates.into_iter().flatten() {
        match serde_json::from_str::<serde_json::Value>(c) {
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

fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let body = &text[start + 3..];
    let body = &body[body.find('\n')? + 1..];
    Some(body[..body.find("```")?].trim())
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
}
