//! A youra.toml value of the wrong type, said in words: serde's "invalid type: string
//! \"900\", expected f64" becomes "`engine.experiment_time_limit_s` takes a number, e.g.
//! 900.0; found the string "900": did you mean 900.0 (without quotes)?". `config::read_table`
//! asks this for each layer's error, which already names the file, line and column.

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
pub fn wrong_type(message: &str, key: &str) -> Option<String> {
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
        "`{key}` takes {kind}, e.g. {example}; found the {found}{fix}"
    ))
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
        ("a boolean", Some(s), _) if s == "true" || s == "false" => {
            Some(format!("{s} (without quotes)"))
        }
        ("a string", None, Some(v)) => Some(format!("\"{v}\" (in quotes)")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "`k` takes a number, e.g. 900.0; found the string \"900\": did you mean 900.0 (without quotes)?"
        );
        assert_eq!(
            say("invalid type: string \"soon\", expected f64"),
            "`k` takes a number, e.g. 900.0; found the string \"soon\""
        );
        assert_eq!(
            say("invalid type: floating point `2.5`, expected u64"),
            "`k` takes a whole number, 0 or more, e.g. 3; found the floating point 2.5: did you mean 2?"
        );
        assert_eq!(
            say("invalid type: string \"yes\", expected a boolean"),
            "`k` takes true or false, e.g. true; found the string \"yes\""
        );
        assert_eq!(
            say("invalid type: integer `4`, expected a string"),
            "`k` takes text in quotes, e.g. \"text\"; found the integer 4: did you mean \"4\" (in quotes)?"
        );
        assert_eq!(wrong_type("unknown variant `x`", "k"), None);
        assert_eq!(
            wrong_type("invalid type: map, expected a weird thing", "k"),
            None
        );
    }
}
