//! Masking secrets in what youra writes. An endpoint may echo the request's
//! `Authorization` header in an error body, and that body flows into a stop reason, the
//! history, events, the log and transcripts; so does whatever experiment code printed. Every
//! configured key value and every string shaped like an API key (`sk-…`, `sk-ant-…`,
//! `Bearer …`) becomes `[redacted]`.

use std::borrow::Cow;

/// Shorter values are not masked: they would hide ordinary words.
const MIN_SECRET: usize = 8;
/// A key-shaped token needs at least this many characters after its prefix.
const MIN_TOKEN: usize = 16;
pub const MASK: &str = "[redacted]";

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// The values of this process's secret-looking variables (`OPENAI_API_KEY`, `*_TOKEN`,
/// `*SECRET*`, … by `exec::env::secret_reason`): the keys a run's endpoints may be using,
/// masked wherever youra writes text that could quote them.
pub fn known_secrets() -> Vec<String> {
    std::env::vars()
        .filter(|(k, _)| crate::exec::secret_reason(k).is_some())
        .map(|(_, v)| v)
        .filter(|v| v.len() >= MIN_SECRET)
        .collect()
}

/// [`redact`] with [`known_secrets`].
pub fn redact_known(text: &str) -> Cow<'_, str> {
    redact(text, &known_secrets())
}

/// `text` with `secrets` (exact values) and key-shaped tokens masked.
pub fn redact<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    let mut out: Cow<'a, str> = Cow::Borrowed(text);
    for s in secrets.iter().filter(|s| s.len() >= MIN_SECRET) {
        if out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), MASK));
        }
    }
    if !(out.contains("sk-") || out.contains("Bearer ")) {
        return out;
    }
    let t = out.as_ref();
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
}
