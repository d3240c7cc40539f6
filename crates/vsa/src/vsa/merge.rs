//! A line-based three-way merge: how a stale save (an editor buffer loaded at revision N and
//! written back after youra wrote N+1…M) is reconciled instead of silently undoing youra's
//! writes. `base` is the text youra wrote at N, `ours` what youra wrote last, `theirs` the
//! file as the outside writer left it. Changes on one side only are taken; where both
//! sides changed the same lines the outside writer's lines win (the researcher typed them)
//! and the region is reported as a conflict. The VSA is line-oriented YAML and youra's own
//! edits are whole-line splices, so lines are the right unit.

use std::ops::Range;

use similar::{Algorithm, DiffTag, capture_diff_slices};

/// One side's change: base lines `base` replaced by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk<'a> {
    base: Range<usize>,
    lines: Vec<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    pub text: String,
    /// Base line ranges (0-based) where both sides changed differently: theirs was kept.
    pub conflicts: Vec<Range<usize>>,
}

fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn hunks<'a>(base: &[&'a str], other: &[&'a str]) -> Vec<Hunk<'a>> {
    capture_diff_slices(Algorithm::Myers, base, other)
        .iter()
        .map(|op| op.as_tag_tuple())
        .filter(|(tag, _, _)| *tag != DiffTag::Equal)
        .map(|(_, b, o)| Hunk {
            base: b,
            lines: other[o].to_vec(),
        })
        .fold(Vec::new(), |mut acc: Vec<Hunk<'a>>, h| {
            // Adjacent ops (a delete then an insert) are one hunk.
            match acc.last_mut() {
                Some(last) if last.base.end == h.base.start => {
                    last.base.end = h.base.end;
                    last.lines.extend(h.lines);
                }
                _ => acc.push(h),
            }
            acc
        })
}

/// Whether two hunks touch the same base lines (two insertions at one point count).
fn clash(a: &Hunk<'_>, b: &Hunk<'_>) -> bool {
    let overlap = a.base.start < b.base.end && b.base.start < a.base.end;
    let same_point = a.base.start == b.base.start && (a.base.is_empty() || b.base.is_empty());
    let inside = |ins: &Hunk<'_>, r: &Hunk<'_>| {
        ins.base.is_empty() && r.base.start < ins.base.start && ins.base.start < r.base.end
    };
    overlap || same_point || inside(a, b) || inside(b, a)
}

/// Merge `ours` and `theirs`, both descended from `base`.
pub(crate) fn merge3(base: &str, ours: &str, theirs: &str) -> Merged {
    let b = split(base);
    let (o, t) = (split(ours), split(theirs));
    let mine = hunks(&b, &o);
    let yours = hunks(&b, &t);
    let mut chosen: Vec<Hunk<'_>> = Vec::new();
    let mut conflicts = Vec::new();
    // Ours is kept unless one of theirs clashes with it (and says something else).
    for h in &mine {
        let clashing: Vec<&Hunk<'_>> = yours.iter().filter(|y| clash(h, y)).collect();
        if clashing.is_empty() || (clashing.len() == 1 && clashing[0] == h) {
            chosen.push(h.clone());
        } else {
            let start = clashing
                .iter()
                .map(|y| y.base.start)
                .min()
                .unwrap_or(h.base.start);
            let end = clashing
                .iter()
                .map(|y| y.base.end)
                .max()
                .unwrap_or(h.base.end);
            conflicts.push(start.min(h.base.start)..end.max(h.base.end));
        }
    }
    // Theirs always stands, except the identical hunk already taken from ours.
    chosen.extend(yours.iter().filter(|y| !mine.contains(y)).cloned());
    chosen.sort_by_key(|h| (h.base.start, h.base.end));
    let mut text = String::with_capacity(ours.len().max(theirs.len()));
    let mut cursor = 0;
    for h in &chosen {
        if h.base.start < cursor {
            // A clash that dropped our hunk can still leave theirs overlapping another
            // of theirs only if the diff were inconsistent; skip defensively.
            continue;
        }
        text.extend(b[cursor..h.base.start].iter().copied());
        text.extend(h.lines.iter().copied());
        cursor = h.base.end;
    }
    text.extend(b[cursor..].iter().copied());
    Merged { text, conflicts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_on_different_lines_both_survive() {
        let base = "a: 1\nb: 2\nc: 3\nhistory:\n- x\n";
        let ours = "a: 1\nb: 20\nc: 3\nhistory:\n- x\n- y\n";
        let theirs = "a: 10\nb: 2\nc: 3\nhistory:\n- x\n";
        let m = merge3(base, ours, theirs);
        assert_eq!(m.text, "a: 10\nb: 20\nc: 3\nhistory:\n- x\n- y\n");
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn a_stale_copy_written_back_restores_ours() {
        let base = "revision: 3\nstatus: ACTIVE\n";
        let ours = "revision: 5\nstatus: COMPLETED\nhistory:\n- r4\n- r5\n";
        let m = merge3(base, ours, base);
        assert_eq!(m.text, ours);
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn the_same_line_changed_twice_keeps_theirs_and_says_so() {
        let base = "a: 1\nb: 2\n";
        let ours = "a: 1\nb: 3\n";
        let theirs = "a: 1\nb: 4\n";
        let m = merge3(base, ours, theirs);
        assert_eq!(m.text, theirs);
        assert_eq!(m.conflicts, vec![1..2]);
    }

    #[test]
    fn identical_changes_are_no_conflict() {
        let base = "a: 1\n";
        let both = "a: 2\n";
        let m = merge3(base, both, both);
        assert_eq!(m.text, both);
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn insertions_at_one_point_clash() {
        let base = "a: 1\n";
        let m = merge3(base, "a: 1\nb: 2\n", "a: 1\nc: 3\n");
        assert_eq!(m.text, "a: 1\nc: 3\n");
        assert_eq!(m.conflicts.len(), 1);
    }
}
