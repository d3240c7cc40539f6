//! How far a router agrees with the level YouRA took, as a reader of a routing benchmark
//! needs it (issue 41 item 4): the share it got right beside the majority-class baseline
//! (always answering YouRA's most common level), Cohen's κ (agreement beyond what the two
//! label frequencies give by chance), and the confusion matrix. Pure: pairs in, numbers out.

use std::collections::{BTreeMap, BTreeSet};

use crate::reflect::routing::Level;

/// One router's agreement over `(YouRA's level, the router's level)` pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub n: usize,
    pub agreed: usize,
    /// YouRA's most common level and how many pairs it is (the baseline's hits).
    pub majority: Option<(Level, usize)>,
    /// `None` when chance agreement is already 1 (one label on both sides): κ says nothing.
    pub kappa: Option<f64>,
    /// (YouRA's level, the router's level) → count.
    pub confusion: BTreeMap<(Level, Level), usize>,
}

impl Agreement {
    pub fn of(pairs: &[(Level, Level)]) -> Agreement {
        let n = pairs.len();
        let agreed = pairs.iter().filter(|(y, r)| y == r).count();
        let mut confusion = BTreeMap::new();
        let (mut truth, mut said) = (BTreeMap::new(), BTreeMap::new());
        for &(y, r) in pairs {
            *confusion.entry((y, r)).or_insert(0) += 1;
            *truth.entry(y).or_insert(0usize) += 1;
            *said.entry(r).or_insert(0usize) += 1;
        }
        // The most common level; a tie goes to the one listed first (deterministic).
        let majority = truth
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(l, c)| (*l, *c));
        let kappa = (n > 0).then(|| {
            let nf = n as f64;
            let observed = agreed as f64 / nf;
            let chance: f64 = truth
                .iter()
                .map(|(l, c)| (*c as f64 / nf) * (*said.get(l).unwrap_or(&0) as f64 / nf))
                .sum();
            (chance < 1.0 - 1e-12).then(|| (observed - chance) / (1.0 - chance))
        });
        Agreement {
            n,
            agreed,
            majority,
            kappa: kappa.flatten(),
            confusion,
        }
    }

    /// The summary line and the confusion matrix, `word` naming each level.
    pub fn render(&self, router: &str, word: impl Fn(Level) -> &'static str) -> String {
        if self.n == 0 {
            return format!("{router}: no record it answered has a YouRA level to compare\n");
        }
        let pct = |k: usize| 100.0 * k as f64 / self.n as f64;
        let (base_label, base_hits) = self.majority.map_or(("-", 0), |(l, c)| (word(l), c));
        let kappa = self
            .kappa
            .map_or("undefined (one level on both sides)".into(), |k| {
                format!("{k:.2}")
            });
        let mut out = format!(
            "{router}: accuracy {}/{} ({:.0}%), majority-class baseline ({base_label}) {base_hits}/{} ({:.0}%), Cohen's κ {kappa}\n",
            self.agreed,
            self.n,
            pct(self.agreed),
            self.n,
            pct(base_hits),
        );
        let levels: BTreeSet<Level> = self.confusion.keys().flat_map(|(y, r)| [*y, *r]).collect();
        out.push_str(&format!("  {:<14}", "YouRA \\ said"));
        for l in &levels {
            out.push_str(&format!("{:>14}", word(*l)));
        }
        out.push('\n');
        for y in &levels {
            out.push_str(&format!("  {:<14}", word(*y)));
            for r in &levels {
                let c = self.confusion.get(&(*y, *r)).copied().unwrap_or(0);
                out.push_str(&format!("{c:>14}"));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Level::{Redesign, Reset, Retry};

    fn pairs(table: &[(Level, Level, usize)]) -> Vec<(Level, Level)> {
        table
            .iter()
            .flat_map(|&(y, r, c)| std::iter::repeat_n((y, r), c))
            .collect()
    }

    #[test]
    fn kappa_matches_the_textbook_example() {
        // Two raters, 50 items: agree on 20 + 15, disagree 5 + 10. p_o = 0.7, p_e = 0.5
        // (25/50 · 30/50 + 25/50 · 20/50), κ = 0.4.
        let a = Agreement::of(&pairs(&[
            (Reset, Reset, 20),
            (Reset, Redesign, 5),
            (Redesign, Reset, 10),
            (Redesign, Redesign, 15),
        ]));
        assert_eq!((a.n, a.agreed), (50, 35));
        assert!((a.kappa.unwrap() - 0.4).abs() < 1e-12, "{:?}", a.kappa);
        assert_eq!(
            a.majority,
            Some((Redesign, 25)),
            "a tie goes to the lesser level"
        );
        assert_eq!(a.confusion[&(Redesign, Reset)], 10);
    }

    #[test]
    fn always_the_majority_is_kappa_zero_and_one_label_is_undefined() {
        // A router that always says "reset" on 81 resets and 5 redesigns: 94% right, κ 0.
        let a = Agreement::of(&pairs(&[(Reset, Reset, 81), (Redesign, Reset, 5)]));
        assert_eq!(a.agreed, 81);
        assert!(a.kappa.unwrap().abs() < 1e-12, "{:?}", a.kappa);
        let one = Agreement::of(&pairs(&[(Reset, Reset, 4)]));
        assert_eq!(one.kappa, None);
        assert!(one.render("table", |_| "reset").contains("undefined"));
        assert_eq!(Agreement::of(&[]).kappa, None);
    }

    #[test]
    fn the_report_has_the_baseline_and_the_matrix() {
        let a = Agreement::of(&pairs(&[(Reset, Reset, 3), (Reset, Retry, 1)]));
        let word = |l: Level| match l {
            Reset => "reset",
            Retry => "repair",
            _ => "other",
        };
        let text = a.render("controller", word);
        assert!(
            text.starts_with("controller: accuracy 3/4 (75%), majority-class baseline (reset) 4/4 (100%), Cohen's κ"),
            "{text}"
        );
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), 3, "{text}");
        assert!(
            rows[0].contains("repair") && rows[0].contains("reset"),
            "{text}"
        );
        let reset_row: Vec<&str> = rows
            .iter()
            .find(|r| r.trim_start().starts_with("reset"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(reset_row[1..], ["1", "3"], "{text}");
    }
}
