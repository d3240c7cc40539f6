//! Numbers in manuscript text: where each one is (byte span), what it is worth, and how
//! precisely it was written, so the sanitizer can compare it with measured values.
//!
//! Recognised: integers, decimals, thousands separators (`4,493`; `1, 2, 3` stays three
//! numbers), percentages (`96.5%`), scientific notation (`1.2e-3`, `1.2 × 10^-3`,
//! `1.1×10⁻⁸`), a spread after `±` / `+/-` (a second number of kind [`Kind::Spread`]),
//! units (`12 ms`, `3.5 GB`, `500 tokens`: recorded, the value is unchanged), multiplier
//! suffixes glued to the number (`4k` = 4000, `1.5M`, `7B` = 7·10⁹) and negatives (`-0.3`,
//! `−3.45`). Not measurements, hence skipped: section numbers (`§3.2`, a heading's leading
//! number, a list marker), labels (`Table 2`, `Figure 3`, `Phase 4.5`, `Seed 3`, software
//! versions like `Python 3.10`), years 1900–2100 standing alone, citation brackets (`[12]`,
//! `[3, 4]`), identifiers with digits (`h-e1`, `ResNet-18`, `x86`, `3rd`, `2020a`), version
//! strings (`1.2.3`), ISO dates, compound modifiers (`5-fold`, `8-bit`), inline code, URLs and
//! link targets.

use serde::Serialize;

use super::numbers_lex::{
    LABELS, after_unit, is_ident_char, multiplier, prev_char, skip_token, superscript_exponent,
};

/// How a number was written, as far as checking it is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Kind {
    Plain,
    /// Written with `%`: the value is in percent (96.5 for `96.5%`).
    Percent,
    /// The second number of `a ± b`.
    Spread,
}

/// One number found in text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Number {
    /// Byte span: sign, digits, exponent, `%` and a glued multiplier; a unit is not included.
    pub start: usize,
    pub end: usize,
    pub value: f64,
    pub kind: Kind,
    /// The value is in percent: `96.5%`, a spread written `± 0.3%`, and the main number of
    /// `96.5 ± 0.3%` (the `%` conventionally governs both).
    pub percent: bool,
    pub unit: Option<String>,
    /// Half the place value of the last digit written, in the value's own units: how far
    /// the measured value may lie from the written one if the author rounded it.
    pub half_step: f64,
    /// Significant digits as written (`0.0012` → 2, `4,493` → 4).
    pub sig_digits: u32,
}

/// Every number in `text`, in order.
pub fn scan(text: &str) -> Vec<Number> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if let Some(end) = skipped_region(text, i) {
            i = end;
        } else if starts_number(text, i) {
            let (found, end) = read_at(text, i);
            out.extend(found);
            i = end.max(i + 1);
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// Regions whose digits are never measurements: citations, section signs, inline code,
/// link targets and URLs. Returns where scanning resumes.
fn skipped_region(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    if rest.starts_with('[') {
        let close = rest.find(']')?;
        let inner = &rest[1..close];
        let citation = close <= 40
            && (inner.starts_with('^')
                || (inner.bytes().any(|b| b.is_ascii_digit())
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_digit() || matches!(c, ',' | ';' | ' ' | '-' | '–'))));
        return citation.then_some(i + close + 1);
    }
    if let Some(after) = rest.strip_prefix('§') {
        let n = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ' '))
            .unwrap_or(after.len());
        return Some(i + '§'.len_utf8() + n);
    }
    if let Some(code) = rest.strip_prefix('`') {
        return Some(code.find('`').map_or(i + 1, |n| i + n + 2));
    }
    if rest.starts_with("](") {
        return Some(rest.find(')').map_or(i + 2, |n| i + n + 1));
    }
    if rest.starts_with("http://") || rest.starts_with("https://") {
        return Some(i + rest.find(char::is_whitespace).unwrap_or(rest.len()));
    }
    None
}

fn is_sign(rest: &str) -> Option<usize> {
    ['-', '+', '−']
        .into_iter()
        .find(|c| rest.starts_with(*c))
        .map(char::len_utf8)
}

/// Whether a number (or a token that looks like one and must be skipped whole) starts here.
fn starts_number(text: &str, i: usize) -> bool {
    let rest = &text[i..];
    let digit_at = |k: usize| rest.as_bytes().get(k).is_some_and(u8::is_ascii_digit);
    if digit_at(0) {
        return true;
    }
    if rest.starts_with('.') {
        return digit_at(1) && !prev_char(text, i).is_some_and(is_ident_char);
    }
    is_sign(rest).is_some_and(|n| digit_at(n) || (rest[n..].starts_with('.') && digit_at(n + 1)))
}

/// A sign is a sign after a space or an opening/relational mark; after a digit a dash is a
/// range (`0.1-3.0`), after a letter a hyphen (`ResNet-18`).
fn sign_allowed(text: &str, i: usize) -> bool {
    prev_char(text, i)
        .is_none_or(|c| c.is_whitespace() || "([{=|:;,<>≈~/*".contains(c) || c == '\u{a0}')
}

/// Read the number at `i` (and a `± spread` after it), or the span of a token to skip.
fn read_at(text: &str, i: usize) -> (Vec<Number>, usize) {
    let signed = is_sign(&text[i..]).is_some();
    if signed && !sign_allowed(text, i) {
        let prev = prev_char(text, i);
        return if prev.is_some_and(|c| c.is_ascii_digit()) {
            (Vec::new(), i + 1) // a range dash: the next number is read on its own
        } else {
            (Vec::new(), skip_token(text, i))
        };
    }
    if is_identifier_digit(text, i) || is_label_number(text, i) || is_line_marker(text, i) {
        return (Vec::new(), skip_token(text, i));
    }
    let Some(mut main) = read_one(text, i, Kind::Plain) else {
        return (Vec::new(), skip_token(text, i));
    };
    let Some(spread_at) = spread_sign(text, main.resume) else {
        return (vec![main.number], main.resume);
    };
    match read_one(text, spread_at, Kind::Spread) {
        Some(spread) => {
            if spread.number.percent && !main.number.percent {
                main.number.percent = true;
                main.number.kind = Kind::Percent;
            }
            (vec![main.number, spread.number], spread.resume)
        }
        None => (vec![main.number], main.resume),
    }
}

/// A digit glued to a word (`e1`, `v2`, `x86`), after a hyphen in a name (`ResNet-18`,
/// `h-1`), or after an abbreviation's dot (`e.g.5`).
fn is_identifier_digit(text: &str, i: usize) -> bool {
    let Some(prev) = prev_char(text, i) else {
        return false;
    };
    if is_ident_char(prev) {
        return true;
    }
    let before = &text[..i - prev.len_utf8()];
    let prev2 = before.chars().next_back();
    match prev {
        '-' => prev2.is_some_and(char::is_alphabetic),
        '.' => prev2.is_some_and(char::is_alphanumeric),
        _ => false,
    }
}

/// `Table 2`, `Figure 3b`, `Phase 4.5`, `Python 3.10`: the word before names a label.
fn is_label_number(text: &str, i: usize) -> bool {
    let before = text[..i].trim_end_matches([' ', '\u{a0}', '~']);
    if before.len() == i || before.len() + 3 < i {
        return false; // glued, or too far to be a label
    }
    let word: String = before
        .trim_end_matches('.')
        .chars()
        .rev()
        .take_while(|c| c.is_alphabetic() || *c == '-')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    LABELS.contains(&word.to_lowercase().as_str())
}

/// The leading number of a heading (`## 3.2 Results`) or an ordered-list marker (`1. `).
fn is_line_marker(text: &str, i: usize) -> bool {
    let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
    let prefix = text[line_start..i].trim_start();
    if !prefix.is_empty() && prefix.trim_start_matches('#').trim().is_empty() {
        return prefix.starts_with('#');
    }
    if !prefix.is_empty() {
        return false;
    }
    let digits = text[i..].bytes().take_while(u8::is_ascii_digit).count();
    let after = &text[i + digits..];
    after.starts_with(". ") || after.starts_with(") ") || after.starts_with(".\t")
}

/// Where a spread number starts after `±`, `+/-`, `+-` or `\pm`, skipping spaces.
fn spread_sign(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let trimmed = rest.trim_start_matches([' ', '\u{a0}']);
    let skipped = rest.len() - trimmed.len();
    let sign = ["±", "+/-", "+-", "\\pm"]
        .into_iter()
        .find(|s| trimmed.starts_with(s))?;
    let after = &trimmed[sign.len()..];
    let pad = after.len() - after.trim_start_matches([' ', '\u{a0}']).len();
    let start = at + skipped + sign.len() + pad;
    text[start..]
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.')
        .then_some(start)
}

struct ReadOne {
    number: Number,
    /// Past the unit, where a `±` may follow.
    resume: usize,
}

/// The digits, exponent, `%`, multiplier and unit of one number; `None` when the token is
/// not a measurement (a version, a year, a compound modifier, a glued word).
fn read_one(text: &str, i: usize, kind: Kind) -> Option<ReadOne> {
    let mantissa = read_mantissa(text, i)?;
    let mut j = mantissa.end;
    let (exp, after_exp) = exponent(text, j).unwrap_or((0, j));
    j = after_exp;
    let mut value = mantissa.value * 10f64.powi(exp);
    let mut half_step = 0.5 * 10f64.powi(exp - mantissa.decimals as i32);
    let rest = &text[j..];
    let percent = if rest.starts_with('%') || rest.starts_with(" %") {
        j += if rest.starts_with('%') { 1 } else { 2 };
        true
    } else {
        false
    };
    let mut mult = 1.0;
    if !percent && let Some((m, len)) = multiplier(&text[j..]) {
        mult = m;
        j += len;
    }
    value *= mult;
    half_step *= mult;
    let end = j;
    let (unit, resume) = match after_unit(text, j) {
        Ok(found) => found,
        Err(()) => return None, // glued to a word: `3rd`, `2D`, `2020a`, `5-fold`
    };
    let year = (1900.0..=2100.0).contains(&value)
        && mantissa.plain_int_digits == 4
        && exp == 0
        && !percent
        && mult == 1.0
        && unit.is_none();
    if year || iso_date(text, i) {
        return None;
    }
    let kind = match kind {
        Kind::Plain if percent => Kind::Percent,
        k => k,
    };
    let number = Number {
        start: i,
        end,
        value,
        kind,
        percent,
        unit,
        half_step,
        sig_digits: mantissa.sig_digits,
    };
    Some(ReadOne { number, resume })
}

fn iso_date(text: &str, i: usize) -> bool {
    let b = text.as_bytes().get(i..i + 10);
    b.is_some_and(|b| {
        b.iter().enumerate().all(|(k, c)| match k {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
    })
}

struct Mantissa {
    value: f64,
    end: usize,
    decimals: u32,
    sig_digits: u32,
    /// Digit count when written as a bare integer (no sign, separators or point), else 0.
    plain_int_digits: usize,
}

/// Sign, integer part with optional thousands groups, and fraction. A second `.digit`
/// makes it a version string (`None`).
fn read_mantissa(text: &str, i: usize) -> Option<Mantissa> {
    let b = text.as_bytes();
    let mut j = i;
    let negative = match is_sign(&text[i..]) {
        Some(n) => {
            j += n;
            !text[i..].starts_with('+')
        }
        None => false,
    };
    let digits_from = |k: usize| b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
    let lead = digits_from(j);
    let mut repr: String = text[j..j + lead].to_string();
    j += lead;
    let mut grouped = false;
    while (1..=3).contains(&lead)
        && b.get(j) == Some(&b',')
        && digits_from(j + 1) == 3
        && !b.get(j + 4).is_some_and(u8::is_ascii_digit)
    {
        repr.push_str(&text[j + 1..j + 4]);
        j += 4;
        grouped = true;
    }
    let mut decimals = 0;
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        let n = digits_from(j + 1);
        repr.push_str(&text[j..j + 1 + n]);
        decimals = n as u32;
        j += 1 + n;
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            return None; // 1.2.3: a version
        }
    }
    if lead == 0 && decimals == 0 {
        return None;
    }
    let magnitude: f64 = repr.parse().ok()?;
    let sig_digits = repr
        .trim_start_matches(['0', '.'])
        .bytes()
        .filter(u8::is_ascii_digit)
        .count() as u32;
    let bare = !negative && !grouped && decimals == 0;
    Some(Mantissa {
        value: if negative { -magnitude } else { magnitude },
        end: j,
        decimals,
        sig_digits: sig_digits.max(1),
        plain_int_digits: if bare { lead } else { 0 },
    })
}

/// `e-3`, ` × 10^-3`, `×10^{-3}`, `x10⁻³`: the power of ten and where it ends.
fn exponent(text: &str, j: usize) -> Option<(i32, usize)> {
    let rest = &text[j..];
    if let Some(after) = rest.strip_prefix(['e', 'E']) {
        let sign = is_sign(after).unwrap_or(0);
        let n = after[sign..].bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        let e: i32 = after[sign..sign + n].parse().ok()?;
        let neg = after.starts_with('-') || after.starts_with('−');
        return Some((if neg { -e } else { e }, j + 1 + sign + n));
    }
    let t = rest.trim_start_matches(' ');
    let times = ["×", "x", "X", "*", "·"]
        .into_iter()
        .find(|s| t.starts_with(s))?;
    let t = t[times.len()..]
        .trim_start_matches(' ')
        .strip_prefix("10")?;
    let consumed_to_ten = rest.len() - t.len();
    let (e, len) = if let Some(caret) = t.strip_prefix('^') {
        let braced = caret.strip_prefix('{');
        let body = braced.unwrap_or(caret);
        let sign = is_sign(body).unwrap_or(0);
        let n = body[sign..].bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || (braced.is_some() && !body[sign + n..].starts_with('}')) {
            return None;
        }
        let e: i32 = body[sign..sign + n].parse().ok()?;
        let neg = body.starts_with('-') || body.starts_with('−');
        let len = 1 + usize::from(braced.is_some()) * 2 + sign + n;
        (if neg { -e } else { e }, len)
    } else {
        superscript_exponent(t)?
    };
    Some((e, j + consumed_to_ten + len))
}

#[cfg(test)]
#[path = "numbers_tests.rs"]
mod tests;
