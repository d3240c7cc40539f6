//! Masking secrets in what youra writes and sends. An endpoint may echo the request's
//! `Authorization` header in an error body, and that body flows into a stop reason, the
//! history, events, the log and transcripts; so does whatever experiment code printed, and a
//! prompt may quote a file the sandbox replaced with `/proc/self/environ`. Every configured
//! key value, every value of a secret-named variable of this process, every string shaped like
//! an API key (`sk-…`, `sk-ant-…`, `Bearer …`), the value of a secret-named assignment
//! (`HF_TOKEN=…`, `export DB_PASSWORD='…'`) and the password of a URL (`user:…@host`) becomes
//! `[redacted]`. The same masker runs on transcripts and on the request body that goes out
//! (`llm::http::post`), so a model never sees what the transcript hides.
//!
//! This module sits at the base: it names its own secret-name rule rather than asking `exec`.

use std::borrow::Cow;

/// Shorter values are not masked: they would hide ordinary words.
const MIN_SECRET: usize = 8;
/// A key-shaped token needs at least this many characters after its prefix.
const MIN_TOKEN: usize = 16;
pub(crate) const MASK: &str = "[redacted]";
/// Words that make a variable's name secret-looking (upper-cased before matching).
const SECRET_WORDS: [&str; 6] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// Whether a variable named `name` likely holds a secret: the providers' own prefixes, or a
/// name holding one of [`SECRET_WORDS`] (`AWS_SECRET_ACCESS_KEY`, `HF_TOKEN`, `PGPASSWORD`).
pub(crate) fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("ANTHROPIC_")
        || upper.starts_with("OPENAI_")
        || SECRET_WORDS.iter().any(|w| upper.contains(w))
}

/// The values of this process's secret-looking variables ([`secret_name`]): the keys a run's
/// endpoints may be using, masked wherever youra writes text that could quote them.
pub fn known_secrets() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| secret_name(k))
        .map(|(_, v)| v)
        .filter(|v| v.len() >= MIN_SECRET)
        .collect()
}

/// [`redact`] with [`known_secrets`].
pub fn redact_known(text: &str) -> Cow<'_, str> {
    redact(text, &known_secrets())
}

/// `text` with `secrets` (exact values), key-shaped tokens, secret-named assignments and URL
/// passwords masked.
pub fn redact<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    let mut out: Cow<'a, str> = Cow::Borrowed(text);
    for s in secrets.iter().filter(|s| s.len() >= MIN_SECRET) {
        if out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), MASK));
        }
    }
    if let Cow::Owned(o) = mask_tokens(&out) {
        out = Cow::Owned(o);
    }
    if let Cow::Owned(o) = mask_assignments(&out) {
        out = Cow::Owned(o);
    }
    if let Cow::Owned(o) = mask_url_passwords(&out) {
        out = Cow::Owned(o);
    }
    out
}

/// `sk-…` and `Bearer …` tokens.
fn mask_tokens(t: &str) -> Cow<'_, str> {
    if !(t.contains("sk-") || t.contains("Bearer ")) {
        return Cow::Borrowed(t);
    }
    let mut masked = String::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        let rest = &t[i..];
        let prefix = ["Bearer ", "sk-"].into_iter().find(|p| {
            rest.starts_with(p)
                && (*p == "Bearer " || !t[..i].chars().next_back().is_some_and(token_char))
        });
        if let Some(p) = prefix {
            let token: usize = rest[p.len()..]
                .chars()
                .take_while(|c| token_char(*c))
                .map(char::len_utf8)
                .sum();
            let need = if p == "Bearer " {
                MIN_SECRET
            } else {
                MIN_TOKEN
            };
            if token >= need {
                masked.push_str(p);
                masked.push_str(MASK);
                i += p.len() + token;
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        masked.push(c);
        i += c.len_utf8();
    }
    Cow::Owned(masked)
}

/// Where a value ends: blanks, control characters (an environ dump's NULs), quotes, and the
/// backslash that starts an escape in serialized JSON (so the recorder's text and the
/// request's strings are masked alike).
fn value_end(c: char) -> bool {
    c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '`' | '\\')
}

/// An environment-style name: upper case, digits and `_`, not starting with a digit. Only
/// these count, so code such as `sorted(xs, key=len)` or `max_tokens=512` stays readable.
fn env_name_char(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
}

/// `NAME=value` (optionally quoted) where `NAME` is secret-looking: the value is masked unless
/// it is short or a plain number (`MAX_TOKENS=4096` is a setting, not a secret).
fn mask_assignments(t: &str) -> Cow<'_, str> {
    if !t.contains('=') {
        return Cow::Borrowed(t);
    }
    let mut masked = String::new();
    let mut copied = 0;
    let mut search = 0;
    while let Some(off) = t[search..].find('=') {
        let eq = search + off;
        search = eq + 1;
        let start = t[..eq]
            .char_indices()
            .rev()
            .take_while(|(_, c)| env_name_char(*c))
            .last()
            .map_or(eq, |(i, _)| i);
        let name = &t[start..eq];
        if name.is_empty()
            || name.starts_with(|c: char| c.is_ascii_digit())
            || start < copied
            || t[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric())
            || !secret_name(name)
        {
            continue;
        }
        let (v, len) = assigned_value(t, eq + 1);
        let value = &t[v..v + len];
        let numeric = value.chars().all(|c| c.is_ascii_digit() || c == '.');
        if value.chars().count() < 6 || numeric {
            continue;
        }
        masked.push_str(&t[copied..v]);
        masked.push_str(MASK);
        copied = v + len;
        search = copied;
    }
    if copied == 0 {
        return Cow::Borrowed(t);
    }
    masked.push_str(&t[copied..]);
    Cow::Owned(masked)
}

/// Where the value that starts at `at` lies (start, length). A quoted value (`'…'`, `"…"`,
/// or `\"…\"` in serialized JSON) runs to its closing quote, blanks included; a bare one
/// to [`value_end`].
fn assigned_value(t: &str, at: usize) -> (usize, usize) {
    let rest = &t[at..];
    let quote = ["\\\"", "\"", "'"]
        .into_iter()
        .find(|q| rest.starts_with(q));
    let Some(q) = quote else {
        let len = rest
            .chars()
            .take_while(|c| !value_end(*c))
            .map(char::len_utf8)
            .sum();
        return (at, len);
    };
    let inner = &rest[q.len()..];
    let len = inner
        .char_indices()
        .find(|(i, c)| inner[*i..].starts_with(q) || c.is_control())
        .map_or(inner.len(), |(i, _)| i);
    (at + q.len(), len)
}

/// `scheme://user:password@host` → `scheme://user:[redacted]@host`.
fn mask_url_passwords(t: &str) -> Cow<'_, str> {
    if !t.contains("://") {
        return Cow::Borrowed(t);
    }
    let mut masked = String::new();
    let mut copied = 0;
    let mut search = 0;
    while let Some(off) = t[search..].find("://") {
        let auth = search + off + 3;
        search = auth;
        let authority: usize = t[auth..]
            .chars()
            .take_while(|c| !(value_end(*c) || matches!(c, '/' | '?' | '#')))
            .map(char::len_utf8)
            .sum();
        let Some(at) = t[auth..auth + authority].rfind('@') else {
            continue;
        };
        let Some(colon) = t[auth..auth + at].find(':') else {
            continue;
        };
        let (from, to) = (auth + colon + 1, auth + at);
        if from == to || &t[from..to] == MASK {
            continue;
        }
        masked.push_str(&t[copied..from]);
        masked.push_str(MASK);
        copied = to;
        search = to;
    }
    if copied == 0 {
        return Cow::Borrowed(t);
    }
    masked.push_str(&t[copied..]);
    Cow::Owned(masked)
}

/// Every string inside `value` masked in place (the request body of any provider): keys,
/// object structure and numbers are left alone, so the JSON stays what the API expects.
pub fn redact_json(value: &mut serde_json::Value, secrets: &[String]) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(m) = redact(s, secrets) {
                *s = m;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_json(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_json(v, secrets)),
        _ => {}
    }
}

/// The values of the environment variables `names` (the configured `api_key_env`s).
pub fn secrets_from_env<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    names
        .into_iter()
        .filter_map(|n| std::env::var(n).ok())
        .filter(|v| v.len() >= MIN_SECRET)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_key_shaped_tokens_are_masked() {
        let cases: &[(&str, &str)] = &[
            (
                "401: invalid key Bearer abcdEFGH12345678 sent",
                "401: invalid key Bearer [redacted] sent",
            ),
            (
                r#"{"error":"sk-proj-AbC123dEf456GhI789"}"#,
                r#"{"error":"sk-[redacted]"}"#,
            ),
            ("sk-ant-api03-xyzXYZ0123456789abc", "sk-[redacted]"),
            ("task-sk-short and desk-top", "task-sk-short and desk-top"),
            ("Bearer short", "Bearer short"),
            ("no secrets here", "no secrets here"),
            ("the key is hunter2hunter2!", "the key is [redacted]!"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input, &["hunter2hunter2".into()]), *want, "{input}");
        }
        assert!(matches!(redact("plain", &[]), Cow::Borrowed(_)));
    }

    #[test]
    fn secret_named_assignments_and_url_passwords_are_masked() {
        let cases: &[(&str, &str)] = &[
            (
                "PATH=/usr/bin\0AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\0HF_TOKEN=hf_AbCdEfGh\0HOME=/root",
                "PATH=/usr/bin\0AWS_SECRET_ACCESS_KEY=[redacted]\0HF_TOKEN=[redacted]\0HOME=/root",
            ),
            (
                "export DB_PASSWORD='correct horse' PGPASSWD=\"s3cr3t!x\"",
                "export DB_PASSWORD='[redacted]' PGPASSWD=\"[redacted]\"",
            ),
            (
                "GITHUB_CREDENTIALS=ghp_abcdef AWS_ACCESS_KEY_ID=AKIAIOSFODNN7",
                "GITHUB_CREDENTIALS=[redacted] AWS_ACCESS_KEY_ID=[redacted]",
            ),
            // Serialized JSON: the value stops at the escape, the next line is untouched.
            (
                r#""HF_TOKEN=hf_AbCdEfGh\nUSER=alice""#,
                r#""HF_TOKEN=[redacted]\nUSER=alice""#,
            ),
            (
                r#"{"text":"export API_KEY=\"abc def ghi\" next"}"#,
                r#"{"text":"export API_KEY=\"[redacted]\" next"}"#,
            ),
            // Code and settings are not secrets.
            (
                "sorted(xs, key=lambda r: r[1])",
                "sorted(xs, key=lambda r: r[1])",
            ),
            ("MAX_TOKENS=4096 NUM_KEYS=12", "MAX_TOKENS=4096 NUM_KEYS=12"),
            (
                "max_tokens=512, api_key=None",
                "max_tokens=512, api_key=None",
            ),
            ("HOME=/root SHELL=/bin/bash", "HOME=/root SHELL=/bin/bash"),
            (
                "DATABASE_URL=postgres://youra:pa55w0rd-db@db.lab:5432/runs",
                "DATABASE_URL=postgres://youra:[redacted]@db.lab:5432/runs",
            ),
            (
                "see https://example.org/a@b and https://user@host/x",
                "see https://example.org/a@b and https://user@host/x",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input, &[]), *want, "{input:?}");
        }
    }

    #[test]
    fn json_strings_are_masked_in_place() {
        let mut body = serde_json::json!({
            "model": "m",
            "messages": [{"role": "user", "content": "HF_TOKEN=hf_AbCdEfGhIj and a key hunter2hunter2"}],
            "max_tokens": 77,
        });
        redact_json(&mut body, &["hunter2hunter2".into()]);
        assert_eq!(
            body["messages"][0]["content"],
            "HF_TOKEN=[redacted] and a key [redacted]"
        );
        assert_eq!(body["max_tokens"], 77);
        assert_eq!(body["model"], "m");
    }
}
