//! Scalars: how a YAML reader would type them, and how to write one back safely.

/// How a scalar was written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The value after unquoting and folding.
    pub text: String,
    pub style: Style,
}

/// What a plain scalar means under YAML's core schema (and PyYAML's 1.1 extras, which YouRA's
/// own tools use: a plain `yes` is a boolean there, so youra quotes it when it writes a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar11 {
    Null,
    Bool(bool),
    Int,
    Float,
    Str,
}

pub fn interpret_plain(text: &str) -> Scalar11 {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar11::Null,
        "true" | "True" | "TRUE" => return Scalar11::Bool(true),
        "false" | "False" | "FALSE" => return Scalar11::Bool(false),
        ".inf" | "-.inf" | "+.inf" | ".Inf" | ".INF" | "-.Inf" | "-.INF" | ".nan" | ".NaN"
        | ".NAN" => return Scalar11::Float,
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return Scalar11::Int;
    }
    if text.starts_with("0x") || text.starts_with("0o") {
        return Scalar11::Int;
    }
    if looks_like_float(digits) {
        return Scalar11::Float;
    }
    Scalar11::Str
}

fn looks_like_float(s: &str) -> bool {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut parts = mantissa.splitn(2, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next();
    let num = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = num(int)
        && frac.is_none_or(num)
        && (!int.is_empty() || frac.is_some_and(|f| !f.is_empty()));
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && num(e)
    });
    mantissa_ok && exp_ok && (frac.is_some() || exp.is_some())
}

/// YAML 1.1 words that PyYAML reads as booleans: a string equal to one must be quoted.
fn is_yaml11_bool(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "yes" | "no" | "on" | "off" | "y" | "n"
    )
}

impl Scalar {
    /// A plain scalar that reads as null (`~`, `null`, or nothing at all).
    pub fn is_null(&self) -> bool {
        self.style == Style::Plain && interpret_plain(&self.text) == Scalar11::Null
    }

    pub fn as_bool(&self) -> Option<bool> {
        if self.style != Style::Plain {
            return None;
        }
        match interpret_plain(&self.text) {
            Scalar11::Bool(b) => Some(b),
            _ => match self.text.to_ascii_lowercase().as_str() {
                "yes" | "on" => Some(true),
                "no" | "off" => Some(false),
                _ => None,
            },
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        if self.style != Style::Plain {
            return None;
        }
        self.text.replace('_', "").parse().ok()
    }

    pub fn as_f64(&self) -> Option<f64> {
        if self.style != Style::Plain {
            return None;
        }
        self.text.replace('_', "").parse().ok()
    }

    /// Whether the scalar is a number, a boolean or null rather than a string.
    pub fn is_typed(&self) -> bool {
        self.style == Style::Plain && interpret_plain(&self.text) != Scalar11::Str
    }

    /// End of the scalar's own bytes. Block scalars' spans run over trailing blank lines,
    /// which belong to whatever follows.
    pub(super) fn content_end(&self, start: usize, end: usize, text: &str) -> usize {
        let body = &text[start..end.min(text.len())];
        match self.style {
            Style::Literal | Style::Folded => start + body.trim_end().len(),
            // saphyr-parser's span of a quoted scalar runs on over a trailing comment, so
            // the closing quote is found in the source itself.
            Style::SingleQuoted => start + closing_single(body).unwrap_or(body.len()),
            Style::DoubleQuoted => start + closing_double(body).unwrap_or(body.len()),
            Style::Plain => end,
        }
    }
}

/// Byte offset just past the closing `'` of a single-quoted scalar (`''` is an escaped quote).
fn closing_single(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Byte offset just past the closing `"` of a double-quoted scalar.
fn closing_double(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Where an edit of a scalar must start: block scalars begin at their `|` or `>` header,
/// which the parser's span leaves out.
pub(super) fn replace_start(scalar: &Scalar, start: usize, text: &str) -> usize {
    if !matches!(scalar.style, Style::Literal | Style::Folded) {
        return start;
    }
    let line_start = text[..start].rfind('\n').unwrap_or(0);
    let header_line_start = text[..line_start].rfind('\n').map_or(0, |i| i + 1);
    let header = &text[header_line_start..line_start];
    let code = header.split(" #").next().unwrap_or(header);
    code.rfind(['|', '>'])
        .map_or(start, |i| header_line_start + i)
}

/// Render a string as a YAML scalar in `prefer`'s quoting when that is safe, otherwise in
/// the least surprising style that reads back as the same string.
pub fn format_scalar(value: &str, prefer: Style) -> String {
    let needs_double = value.chars().any(|c| c.is_control() && c != '\t') || value.contains('\t');
    if needs_double || prefer == Style::DoubleQuoted {
        return double_quoted(value);
    }
    if prefer == Style::Plain && plain_is_safe(value) {
        return value.to_string();
    }
    format!("'{}'", value.replace('\'', "''"))
}

fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A plain scalar reads back as the same string only if it has no YAML syntax in it and
/// does not look like a number, boolean or null.
fn plain_is_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let indicator = "-?:,[]{}#&*!|>'\"%@`";
    let leading_ok = !indicator.contains(first)
        || (matches!(first, '-' | '?' | ':') && value.len() > 1 && !value[1..].starts_with(' '));
    leading_ok
        && value.trim() == value
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.contains(['\n', '\r'])
        && interpret_plain(value) == Scalar11::Str
        && !is_yaml11_bool(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_typing_follows_the_core_schema() {
        assert_eq!(interpret_plain("null"), Scalar11::Null);
        assert_eq!(interpret_plain(""), Scalar11::Null);
        assert_eq!(interpret_plain("True"), Scalar11::Bool(true));
        assert_eq!(interpret_plain("-12"), Scalar11::Int);
        assert_eq!(interpret_plain("0.05"), Scalar11::Float);
        assert_eq!(interpret_plain("1e-3"), Scalar11::Float);
        assert_eq!(interpret_plain(".5"), Scalar11::Float);
        assert_eq!(interpret_plain("3.5.1"), Scalar11::Str);
        assert_eq!(interpret_plain("e5"), Scalar11::Str);
        assert_eq!(interpret_plain("Phase 2B"), Scalar11::Str);
    }

    #[test]
    fn strings_that_would_change_type_are_quoted() {
        assert_eq!(format_scalar("3.5", Style::Plain), "'3.5'");
        assert_eq!(format_scalar("yes", Style::Plain), "'yes'");
        assert_eq!(format_scalar("null", Style::Plain), "'null'");
        assert_eq!(format_scalar("a: b", Style::Plain), "'a: b'");
        assert_eq!(format_scalar("it's", Style::SingleQuoted), "'it''s'");
        assert_eq!(format_scalar("MUST_WORK", Style::Plain), "MUST_WORK");
        assert_eq!(format_scalar("h-e1", Style::Plain), "h-e1");
        assert_eq!(format_scalar("- x", Style::Plain), "'- x'");
        assert_eq!(format_scalar("two\nlines", Style::Plain), "\"two\\nlines\"");
        assert_eq!(
            format_scalar("say \"hi\"", Style::DoubleQuoted),
            "\"say \\\"hi\\\"\""
        );
        assert_eq!(format_scalar("", Style::Plain), "''");
    }
}
