//! A gate criterion's threshold edited while its sub-hypothesis's statement still names the
//! old number (`at least 0.92 accuracy` under a gate that now asks 0.95): the note the TUI's
//! edit confirmation and `youra vsa set` print, so the paper's claim and its gate do not part
//! silently. Pure, over the parsed VSA; the callers say how to edit the statement.

use super::model::Vsa;

/// `sub_hypotheses.<id>.gate.criteria[<i>].value` as `(id, i)`.
pub fn criterion_path(path: &str) -> Option<(&str, usize)> {
    let rest = path.strip_prefix("sub_hypotheses.")?;
    let (id, rest) = rest.split_once(".gate.criteria[")?;
    let (index, field) = rest.split_once(']')?;
    (field == ".value" && !id.is_empty())
        .then(|| index.parse().ok().map(|i| (id, i)))
        .flatten()
}

/// The value criterion `path` holds in `vsa` (before an edit lands).
pub fn criterion_value(vsa: &Vsa, path: &str) -> Option<f64> {
    let (id, i) = criterion_path(path)?;
    let h = vsa.hypothesis(id)?;
    h.gate.rules.iter().find(|r| r.index == i).map(|r| r.value)
}

/// Numbers as a statement writes them, with their value: `0.92`, `20000`, `20k` (20000),
/// `92%` (0.92, and 92 as written); none inside a word (`v1.2`).
fn numbers(text: &str) -> Vec<(&str, Vec<f64>)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j + 1 < bytes.len() && bytes[j] == b'.' && bytes[j + 1].is_ascii_digit() {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
        }
        let Ok(v) = text[i..j].parse::<f64>() else {
            i = j;
            continue;
        };
        let word_ends = |k: usize| k >= bytes.len() || !bytes[k].is_ascii_alphanumeric();
        let (end, values) = match bytes.get(j) {
            Some(b'k' | b'K') if word_ends(j + 1) => (j + 1, vec![v * 1e3]),
            Some(b'M') if word_ends(j + 1) => (j + 1, vec![v * 1e6]),
            Some(b'%') => (j + 1, vec![v / 100.0, v]),
            _ => (j, vec![v]),
        };
        out.push((&text[i..end], values));
        i = end;
    }
    out
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The note for criterion `path` edited from `old` to `new`: `None` unless the path is a
/// criterion's value, the numbers differ, and `<id>`'s statement names the old number and
/// not the new one.
pub fn stale_statement(vsa: &Vsa, path: &str, old: f64, new: &str) -> Option<String> {
    let (id, _) = criterion_path(path)?;
    let new_value: f64 = new.trim().trim_matches(['"', '\'']).parse().ok()?;
    if same(old, new_value) {
        return None;
    }
    let statement = vsa.hypothesis(id)?.statement.as_deref()?;
    let found = numbers(statement);
    let names = |x: f64| move |(_, vs): &&(&str, Vec<f64>)| vs.iter().any(|v| same(*v, x));
    let (written, _) = found.iter().find(names(old))?;
    if found.iter().any(|n| names(new_value)(&n)) {
        return None;
    }
    Some(format!(
        "{id}'s statement still says {written} (the gate now requires {}): edit the statement too",
        new.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vsa(statement: &str) -> Vsa {
        let text = format!(
            "sub_hypotheses:\n- id: h-e1\n  statement: \"{statement}\"\n  gate:\n    criteria:\n    - {{metric: accuracy, op: '>=', value: 0.92}}\n"
        );
        crate::vsa::read(&crate::yaml::parse(text.as_bytes()).unwrap()).0
    }

    #[test]
    fn an_edited_threshold_names_the_stale_statement() {
        let path = "sub_hypotheses.h-e1.gate.criteria[0].value";
        let v = vsa("A centroid rule reaches at least 0.92 accuracy in 5-fold CV.");
        assert_eq!(criterion_value(&v, path), Some(0.92));
        let table: [(&Vsa, &str, f64, &str, Option<&str>); 9] = [
            (
                &vsa("groks within 20k steps"),
                path,
                20000.0,
                "15000",
                Some(
                    "h-e1's statement still says 20k (the gate now requires 15000): edit the statement too",
                ),
            ),
            (
                &vsa("reaches 92% accuracy"),
                path,
                0.92,
                "0.9",
                Some(
                    "h-e1's statement still says 92% (the gate now requires 0.9): edit the statement too",
                ),
            ),
            (
                &v,
                path,
                0.92,
                "0.95",
                Some(
                    "h-e1's statement still says 0.92 (the gate now requires 0.95): edit the statement too",
                ),
            ),
            // Unchanged number, another field, another sub-hypothesis: nothing to say.
            (&v, path, 0.92, "0.920", None),
            (&v, "sub_hypotheses.h-e1.statement", 0.92, "0.95", None),
            (
                &v,
                "sub_hypotheses.h-x.gate.criteria[0].value",
                0.92,
                "0.95",
                None,
            ),
            (
                &v,
                "sub_hypotheses.h-e1.gate.criteria[0].metric",
                0.92,
                "0.95",
                None,
            ),
            // `5` of `5-fold` is no threshold of 0.92's; a statement already updated is fine.
            (
                &vsa("at least 0.95 accuracy (was 0.92)"),
                path,
                0.92,
                "0.95",
                None,
            ),
            (&vsa("accuracy v1.92 and 10.92"), path, 0.92, "0.95", None),
        ];
        for (v, p, old, new, want) in table {
            assert_eq!(
                stale_statement(v, p, old, new).as_deref(),
                want,
                "{p} {new}"
            );
        }
    }
}
