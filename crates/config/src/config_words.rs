//! A youra.toml value of the wrong type, said in words: serde's "invalid type: string
//! \"900\", expected f64" becomes "`engine.experiment_time_limit_s` takes a number, e.g.
//! 900.0; found the text "900": did you mean 900.0 (without quotes)?", and an unknown name
//! gets the nearest known one ("did you mean `off`?"). `config::read_table`
//! asks this for each layer's error, which already names the file, line and column.
//! `nearest` (edit distance) is the one "did you mean" of every config message.

/// The dotted key the value on `line` (1-based) of `text` sets: the last `[table]` (or
/// `[[table]]`) header above it, then the left side of its `=`. `None` for a line that
/// assigns nothing (a continued inline table or array).
pub fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let own = lines.get(line.checked_sub(1)?)?;
    let (lhs, _) = own.split_once('=')?;
    let lhs = lhs.trim();
    if lhs.is_empty() || lhs.starts_with('[') {
        return None;
    }
    let table = lines[..line - 1].iter().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
        })
    });
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{lhs}"),
        _ => lhs.to_string(),
    })
}

/// `key` takes …, e.g. …; found …[: did you mean …?] — for serde's type errors, `None` for
/// any other message (kept as serde wrote it).
pub(crate) fn wrong_type(message: &str, key: &str) -> Option<String> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let (kind, example) = match expected.trim() {
        "f64" | "f32" => ("a number", "900.0"),
        "u8" | "u16" | "u32" | "u64" | "usize" => ("a whole number, 0 or more", "3"),
        "i8" | "i16" | "i32" | "i64" | "isize" => ("a whole number", "3"),
        "a boolean" => ("true or false", "true"),
        "a string" => ("text in quotes", "\"text\""),
        "a sequence" => ("a list", "[\"a\", \"b\"]"),
        _ => return None,
    };
    let found = found.replace('`', "");
    let fix = meant(&found, expected.trim())
        .map(|v| format!(": did you mean {v}?"))
        .unwrap_or_default();
    Some(format!(
        "`{key}` takes {kind}, e.g. {example}; found {}{fix}",
        found_words(&found)
    ))
}

/// serde's `string "x"`, `integer 3`, `floating point 1.5`, `boolean true` as a reader says
/// them: `the text "x"`, `3`, `1.5`, `true`.
fn found_words(found: &str) -> String {
    if let Some(text) = found.strip_prefix("string ") {
        return format!("the text {text}");
    }
    ["integer ", "floating point ", "boolean "]
        .iter()
        .find_map(|p| found.strip_prefix(p))
        .map_or_else(|| found.to_string(), str::to_string)
}

/// serde's "unknown variant `of`, expected `required` or `off`" with the nearest name:
/// "…; did you mean `off`?". `None` for any other message, or when no name is near.
pub fn unknown_variant(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown variant `")?;
    let (given, expected) = rest.split_once("`, expected ")?;
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let near = nearest(given, names.iter().copied())?;
    Some(format!("{message}: did you mean `{near}`?"))
}

/// serde's "unknown field `max_resume`, expected one of `max_resumes`, …" said short when a
/// known name is near: "unknown field `max_resume`: did you mean `max_resumes`?" (the
/// whole list only when none is). `None` for any other message.
pub(crate) fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (given, expected) = rest.split_once("`, expected ")?;
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let near = nearest(given, names.iter().copied())?;
    Some(format!("unknown field `{given}`: did you mean `{near}`?"))
}

/// The value the researcher most likely meant: a quoted number or boolean unquoted, a
/// number quoted where text is wanted, a fraction's whole part where a count is wanted.
fn meant(found: &str, expected: &str) -> Option<String> {
    let quoted = found
        .strip_prefix("string \"")
        .and_then(|s| s.strip_suffix('"'))
        .map(str::trim);
    let bare = found
        .strip_prefix("integer ")
        .or_else(|| found.strip_prefix("floating point "))
        .or_else(|| found.strip_prefix("boolean "));
    match (expected, quoted, bare) {
        ("f64" | "f32", Some(s), _) => {
            let v: f64 = s.parse().ok().filter(|v: &f64| v.is_finite())?;
            Some(format!("{v:?} (without quotes)"))
        }
        (
            "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize",
            Some(s),
            _,
        ) => {
            let v: i64 = s.parse().ok()?;
            Some(format!("{v} (without quotes)"))
        }
        ("u8" | "u16" | "u32" | "u64" | "usize", None, Some(n)) => {
            let v: f64 = n.parse().ok()?;
            (v.is_finite() && v >= 0.0).then(|| format!("{}", v.trunc() as u64))
        }
        ("a boolean", Some(s), _) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some("true (without quotes)".into()),
            "false" | "no" | "off" | "0" => Some("false (without quotes)".into()),
            _ => None,
        },
        // A command written as one line: its words as the list (no shell runs it).
        ("a sequence", Some(s), _) if !s.is_empty() => {
            let words: Vec<String> = s.split_whitespace().map(|w| format!("{w:?}")).collect();
            Some(format!("[{}]", words.join(", ")))
        }
        ("a string", None, Some(v)) => Some(format!("\"{v}\" (in quotes)")),
        _ => None,
    }
}

/// The valid key closest to `key` among `known` (edit distance at most a third of its
/// length, at least 2), for "did you mean".
pub fn nearest<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (key.chars().count() / 3).max(2);
    known
        .into_iter()
        .map(|k| (distance(key, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_keys() {
        let known = ["sandbox", "backend", "max_parallel"];
        assert_eq!(nearest("sandbx", known), Some("sandbox"));
        assert_eq!(nearest("backnd", known), Some("backend"));
        assert_eq!(nearest("zzzzzz", known), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_key_is_named_with_its_table() {
        let text = "[run]\ntopic = \"t\"\n\n[engine]\nexperiment_time_limit_s = \"900\"\n";
        assert_eq!(
            key_at(text, 5).as_deref(),
            Some("engine.experiment_time_limit_s")
        );
        assert_eq!(key_at(text, 2).as_deref(), Some("run.topic"));
        assert_eq!(key_at(text, 4), None, "a header sets nothing");
        assert_eq!(key_at("a = 1\n", 1).as_deref(), Some("a"));
        assert_eq!(
            key_at("[[tools.servers]]\nname = 3\n", 2).as_deref(),
            Some("tools.servers.name")
        );
    }

    #[test]
    fn type_errors_are_said_in_words_with_what_was_meant() {
        let say = |m: &str| wrong_type(m, "k").unwrap_or_default();
        assert_eq!(
            say("invalid type: string \"900\", expected f64"),
            "`k` takes a number, e.g. 900.0; found the text \"900\": did you mean 900.0 (without quotes)?"
        );
        assert_eq!(
            say("invalid type: string \"soon\", expected f64"),
            "`k` takes a number, e.g. 900.0; found the text \"soon\""
        );
        assert_eq!(
            say("invalid type: floating point `2.5`, expected u64"),
            "`k` takes a whole number, 0 or more, e.g. 3; found 2.5: did you mean 2?"
        );
        assert_eq!(
            say("invalid type: string \"yes\", expected a boolean"),
            "`k` takes true or false, e.g. true; found the text \"yes\": did you mean true (without quotes)?"
        );
        assert_eq!(
            say("invalid type: string \"maybe\", expected a boolean"),
            "`k` takes true or false, e.g. true; found the text \"maybe\""
        );
        assert_eq!(
            say("invalid type: integer `4`, expected a string"),
            "`k` takes text in quotes, e.g. \"text\"; found 4: did you mean \"4\" (in quotes)?"
        );
        assert_eq!(
            say("invalid type: string \"notify-send done\", expected a sequence"),
            "`k` takes a list, e.g. [\"a\", \"b\"]; found the text \"notify-send done\": did you mean [\"notify-send\", \"done\"]?"
        );
        assert_eq!(
            say("invalid value: integer `-1`, expected u64"),
            "`k` takes a whole number, 0 or more, e.g. 3; found -1"
        );
        assert_eq!(wrong_type("unknown variant `x`", "k"), None);
        assert_eq!(
            wrong_type("invalid type: map, expected a weird thing", "k"),
            None
        );
    }

    #[test]
    fn an_unknown_name_gets_the_nearest_known_one() {
        assert_eq!(
            unknown_variant("unknown variant `of`, expected `required` or `off`").as_deref(),
            Some("unknown variant `of`, expected `required` or `off`: did you mean `off`?")
        );
        assert_eq!(
            unknown_variant("unknown variant `slurmm`, expected one of `local`, `slurm`")
                .as_deref(),
            Some(
                "unknown variant `slurmm`, expected one of `local`, `slurm`: did you mean `slurm`?"
            )
        );
        assert_eq!(
            unknown_variant("unknown variant `banana`, expected `required` or `off`"),
            None,
            "nothing near: serde's words stand"
        );
    }

    #[test]
    fn an_unknown_field_names_the_nearest_known_one() {
        let m = "unknown field `max_resume`, expected one of `max_resumes`, `review_max_rounds`";
        assert_eq!(
            unknown_field(m).as_deref(),
            Some("unknown field `max_resume`: did you mean `max_resumes`?")
        );
        assert_eq!(
            unknown_field("unknown field `zzzzzz`, expected one of `max_resumes`"),
            None,
            "no near name: serde's list stays"
        );
        assert_eq!(unknown_field("invalid type: string"), None);
    }
}
