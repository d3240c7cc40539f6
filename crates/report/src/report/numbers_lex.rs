//! The small word lists and character rules behind [`super::numbers`]: labels whose number
//! is not a measurement, units, multiplier suffixes, superscript exponents.

/// A number right after one of these words (case-insensitive, an abbreviation's dot allowed)
/// is a label, not a measurement: `Table 2`, `Fig. 3`, `Phase 4.5`, `Python 3.10`.
pub const LABELS: &[&str] = &[
    "table",
    "tables",
    "tab",
    "figure",
    "figures",
    "fig",
    "figs",
    "phase",
    "phases",
    "section",
    "sections",
    "sec",
    "appendix",
    "app",
    "eq",
    "eqs",
    "equation",
    "equations",
    "algorithm",
    "alg",
    "chapter",
    "ch",
    "stage",
    "hypothesis",
    "lemma",
    "theorem",
    "proposition",
    "corollary",
    "definition",
    "claim",
    "seed",
    "fold",
    "round",
    "version",
    "experiment",
    "task",
    "case",
    "level",
    "lvl",
    "part",
    "item",
    "rule",
    "line",
    "lines",
    "page",
    "pages",
    "footnote",
    "example",
    "python",
    "pytorch",
    "torch",
    "cuda",
    "numpy",
    "scikit-learn",
    "sklearn",
    "transformers",
    "tensorflow",
    "jax",
    "ubuntu",
];

/// Units written after a number with one space (`12 ms`) or glued (`12ms`, `3.5GB`, `10x`).
const GLUED_UNITS: &[&str] = &[
    "ns", "µs", "us", "ms", "s", "sec", "min", "h", "hr", "hrs", "kB", "KB", "MB", "GB", "TB",
    "KiB", "MiB", "GiB", "TiB", "FLOPs", "GFLOPs", "TFLOPs", "PFLOPs", "FLOPS", "Hz", "kHz", "MHz",
    "GHz", "W", "kW", "°C", "px", "dB", "pp", "x", "×",
];

/// Units (and the nouns a count is of) written only after a space: `500 tokens`.
const SPACED_UNITS: &[&str] = &[
    "seconds",
    "second",
    "secs",
    "minutes",
    "mins",
    "hours",
    "hour",
    "days",
    "day",
    "bytes",
    "tokens",
    "samples",
    "examples",
    "steps",
    "epochs",
    "models",
    "parameters",
    "params",
    "images",
    "seeds",
    "runs",
    "GPUs",
    "GPU",
    "layers",
    "features",
    "cards",
    "trees",
    "points",
    "percentage points",
];

pub(crate) fn prev_char(text: &str, i: usize) -> Option<char> {
    text[..i].chars().next_back()
}

/// A character that glues a digit into a word or identifier.
pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The end of the identifier-like token starting at `i` (`h-e1`, `-18`, `1.2.3`, `5-fold`,
/// `2026-03-17T19:00`), so none of its digits is read as a number.
pub(crate) fn skip_token(text: &str, i: usize) -> usize {
    let mut chars = text[i..].char_indices().peekable();
    let mut end = i;
    while let Some((k, c)) = chars.next() {
        let next_alnum = chars.peek().is_some_and(|(_, n)| n.is_alphanumeric());
        let joins = matches!(c, '.' | '-' | '−' | ':' | '/' | ',') && next_alnum;
        if !(is_ident_char(c) || joins || (k == 0 && matches!(c, '-' | '+' | '−'))) {
            break;
        }
        end = i + k + c.len_utf8();
    }
    end.max(i + text[i..].chars().next().map_or(1, char::len_utf8))
}

/// A multiplier glued to a number and ending the word: `4k`, `1.5M`, `7B`.
pub(crate) fn multiplier(rest: &str) -> Option<(f64, usize)> {
    let mut chars = rest.chars();
    let m = match chars.next()? {
        'k' | 'K' => 1e3,
        'M' => 1e6,
        'B' => 1e9,
        _ => return None,
    };
    (!chars.next().is_some_and(is_ident_char)).then_some((m, 1))
}

fn unit_at(rest: &str, units: &[&str]) -> Option<usize> {
    units
        .iter()
        .filter(|u| rest.starts_with(**u))
        .filter(|u| !rest[u.len()..].chars().next().is_some_and(is_ident_char))
        .map(|u| u.len())
        .max()
}

/// The unit after a number ending at `j`, and where reading may resume. `Err` when the
/// number is glued to a word that is no unit (`3rd`, `2D`, `2020a`) or is a compound
/// modifier (`5-fold`, `8-bit`): the token is then not a measurement.
pub(crate) fn after_unit(text: &str, j: usize) -> Result<(Option<String>, usize), ()> {
    let rest = &text[j..];
    let first = rest.chars().next();
    if first.is_some_and(|c| c.is_alphabetic() || c == '×' || c == '°') {
        return match unit_at(rest, GLUED_UNITS) {
            Some(n) => Ok((Some(rest[..n].to_string()), j + n)),
            None => Err(()),
        };
    }
    if first == Some('-') && rest[1..].chars().next().is_some_and(char::is_alphabetic) {
        return Err(());
    }
    if let Some(after) = rest.strip_prefix([' ', '\u{a0}']) {
        let pad = rest.len() - after.len();
        let n = unit_at(after, SPACED_UNITS).or_else(|| unit_at(after, GLUED_UNITS));
        if let Some(n) = n {
            return Ok((Some(after[..n].to_string()), j + pad + n));
        }
    }
    Ok((None, j))
}

/// A superscript exponent after `10`: `⁻³`, `⁸`, `⁻¹²`.
pub(crate) fn superscript_exponent(t: &str) -> Option<(i32, usize)> {
    let mut len = 0;
    let mut negative = false;
    if let Some(c) = t.chars().next().filter(|c| matches!(c, '⁻' | '⁺')) {
        negative = c == '⁻';
        len += c.len_utf8();
    }
    let mut value: i32 = 0;
    let mut digits = 0;
    for c in t[len..].chars() {
        let d = match c {
            '⁰' => 0,
            '¹' => 1,
            '²' => 2,
            '³' => 3,
            '⁴'..='⁹' => c as i32 - '⁴' as i32 + 4,
            _ => break,
        };
        value = value.checked_mul(10)?.checked_add(d)?;
        digits += 1;
        len += c.len_utf8();
    }
    (digits > 0).then_some((if negative { -value } else { value }, len))
}
