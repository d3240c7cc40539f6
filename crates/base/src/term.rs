//! Text for a terminal: the one escaping function every human-readable write goes through.
//!
//! Statements, lessons, event messages and log lines come from model replies and experiment
//! output. Written raw, `ESC ]52;c;…BEL` sets the reader's clipboard, `ESC [2J` clears the
//! screen, `ESC ]0;…BEL` retitles the window, `\r` overwrites a line and U+202E reverses what
//! follows: a prompt-injected reply could spoof what the researcher reads. [`escape`] makes
//! every such character visible instead.
//!
//! The form is `\uXXXX` (four hex digits, as JSON writes it): readable, names the exact code
//! point, and keeps serialized JSON exact — inside a JSON string `\u202e` *is* U+202E, and
//! outside strings JSON has none of these characters — so the CLI's `--json` output can go
//! through the same writer and still parse to the same values. A backslash itself is left
//! alone (paths and regexes stay readable), so a literal `\u001b` typed into a statement reads
//! the same as an escaped ESC: the escaping is for safety, not a reversible encoding.
//!
//! The CLI routes every `print!`/`println!`/`eprint!`/`eprintln!` through [`escape`] (see
//! `cli/mod.rs`); the TUI needs no help for control characters (ratatui drops them).

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 controls other than newline and tab,
/// DEL, C1 controls, and the bidirectional formatting characters (embeddings, overrides,
/// isolates, marks).
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every [`is_unsafe`] character written as `\uXXXX`; borrowed when nothing needs it
/// (the common case costs one scan and no allocation).
pub fn escape(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(is_unsafe) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if is_unsafe(c) {
            // Every unsafe character is in the Basic Multilingual Plane: four digits suffice.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_unsafe_character_is_made_visible_and_the_rest_kept() {
        let table: &[(&str, &str)] = &[
            (
                "plain text, 0.88 ≥ 0.92 — ok",
                "plain text, 0.88 ≥ 0.92 — ok",
            ),
            ("line\nnext\ttab", "line\nnext\ttab"),
            ("\u{1b}]52;c;aGk=\u{7}", "\\u001b]52;c;aGk=\\u0007"),
            (
                "\u{1b}[2J\u{1b}]0;title\u{7}",
                "\\u001b[2J\\u001b]0;title\\u0007",
            ),
            ("over\rwrite", "over\\u000dwrite"),
            ("nul\0", "nul\\u0000"),
            ("\u{b}\u{c}\u{8}", "\\u000b\\u000c\\u0008"),
            ("del\u{7f}", "del\\u007f"),
            (
                "c1 \u{9b}2J \u{9d}0;t\u{9c} \u{80}",
                "c1 \\u009b2J \\u009d0;t\\u009c \\u0080",
            ),
            ("\u{202e}gnp.exe", "\\u202egnp.exe"),
            (
                "\u{202a}\u{202b}\u{202c}\u{202d}",
                "\\u202a\\u202b\\u202c\\u202d",
            ),
            (
                "\u{2066}\u{2067}\u{2068}\u{2069}",
                "\\u2066\\u2067\\u2068\\u2069",
            ),
            ("\u{200e}\u{200f}\u{61c}", "\\u200e\\u200f\\u061c"),
            // Neighbours of the ranges stay: U+A0, U+2029, U+2070, U+200D (emoji joiner).
            (
                "\u{a0}\u{2029}\u{2070}\u{200d}",
                "\u{a0}\u{2029}\u{2070}\u{200d}",
            ),
            ("C:\\path\\u001b", "C:\\path\\u001b"),
        ];
        for (input, want) in table {
            assert_eq!(escape(input), *want, "input {input:?}");
            assert!(!escape(input).contains(is_unsafe), "input {input:?}");
        }
    }

    #[test]
    fn nothing_to_escape_borrows() {
        assert!(matches!(escape("ordinary"), Cow::Borrowed("ordinary")));
    }

    #[test]
    fn escaped_json_parses_to_the_same_values() {
        let hostile = "\u{1b}]52;c;x\u{7}\u{7f}\u{85}\u{9b}\u{202e}\u{2066}\u{200f}\u{61c}\r\n\t\\";
        let value = serde_json::json!({"statement": hostile, hostile: [hostile, 1.5]});
        for text in [
            serde_json::to_string(&value).expect("serializes"),
            serde_json::to_string_pretty(&value).expect("serializes"),
        ] {
            let safe = escape(&text);
            assert!(!safe.contains(is_unsafe), "{safe}");
            let back: serde_json::Value = serde_json::from_str(&safe).expect("still JSON");
            assert_eq!(back, value);
        }
    }
}
