use super::*;
use crate::report::registry::{Entry, Registry};

fn texts<'a>(text: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
    ranges.iter().map(|r| text[r.clone()].trim()).collect()
}

#[test]
fn sentences_end_at_stops_but_not_abbreviations_or_decimals() {
    let text = "Gorman et al. (2014) measured 0.93. See Fig. 2, e.g. the curve! Done? yes";
    assert_eq!(
        texts(text, &sentences(text)),
        [
            "Gorman et al. (2014) measured 0.93.",
            "See Fig. 2, e.g. the curve!",
            "Done?",
            "yes"
        ]
    );
}

#[test]
fn clauses_split_at_joins_unless_respectively() {
    let cases: &[(&str, &[&str])] = &[
        (
            "h-e1 reaches 0.91 and h-e2 0.85",
            &["h-e1 reaches 0.91", "h-e2 0.85"],
        ),
        (
            "0.91 for h-e1, 0.85 for h-e2; done",
            &["0.91 for h-e1", "0.85 for h-e2", "done"],
        ),
        (
            "4,493 models while 3,749 cards",
            &["4,493 models", "3,749 cards"],
        ),
        (
            "h-e1 and h-e2 reach 0.91 and 0.85, respectively",
            &["h-e1 and h-e2 reach 0.91 and 0.85, respectively"],
        ),
    ];
    for (sentence, want) in cases {
        assert_eq!(texts(sentence, &clauses(sentence)), *want, "{sentence}");
    }
}

#[test]
fn paragraphs_break_at_blank_lines_headings_and_list_items() {
    let md = "# T\nA wraps\nacross lines.\n\n- item one\n- item two\n| a |\n|---|\n| 1 |\nB.\n";
    let lines = markdown::lines(md);
    assert_eq!(
        texts(md, &paragraphs(md, &lines)),
        [
            "# T",
            "A wraps\nacross lines.",
            "- item one",
            "- item two",
            "B."
        ]
    );
}

fn index() -> (ClaimIndex, Registry) {
    let reg = Registry {
        entries: [
            "h-e1.results.metrics.accuracy",
            "h-e2.results.metrics.accuracy",
            "h-m1.results.metrics.gain",
        ]
        .iter()
        .map(|k| Entry::new((*k).to_string(), 1.0))
        .collect(),
        ..Registry::empty()
    };
    (ClaimIndex::new(&reg), reg)
}

/// The hypotheses and metrics each numbered clause of `text` names.
fn named(text: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let (index, _) = index();
    prose_clauses(text, &index)
        .into_iter()
        .filter(|(r, _)| !numbers::scan(&text[r.clone()]).is_empty())
        .map(|(r, m)| {
            let mut metrics: Vec<String> = m.families.iter().map(|f| f.to_string()).collect();
            for x in m.metrics {
                if !metrics.contains(&x) {
                    metrics.push(x);
                }
            }
            (text[r].trim().to_string(), m.hypotheses, metrics)
        })
        .collect()
}

#[test]
fn each_number_gets_its_clause_or_its_sentence() {
    let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        named("h-e1 reaches an accuracy of 0.91 and h-e2\nof 0.85."),
        [
            (
                "h-e1 reaches an accuracy of 0.91".into(),
                h(&["h-e1"]),
                h(&["accuracy"])
            ),
            ("h-e2\nof 0.85.".into(), h(&["h-e2"]), h(&["accuracy"])),
        ]
    );
    // A clause without a number passes what it names on.
    assert_eq!(
        named("For h-m1, the gain is 0.03."),
        [("the gain is 0.03.".into(), h(&["h-m1"]), h(&["gain"]))]
    );
    // “respectively” keeps the whole sentence: both hypotheses for both numbers.
    assert_eq!(
        named("h-e1 and h-e2 reach 0.91 and 0.85 accuracy, respectively.")[0].1,
        h(&["h-e1", "h-e2"])
    );
    // A clause naming no hypothesis takes the sentence's.
    assert_eq!(
        named("h-e1 reaches 0.91 accuracy, above 0.85.")[1].1,
        h(&["h-e1"])
    );
}

#[test]
fn a_cell_is_named_by_its_header_and_the_rows_labels() {
    let row = ["h-e1 (first run)", "accuracy", "0.88", "0.91", "missed"];
    assert_eq!(
        cell_context(Some("Value"), &row, 2),
        "Value | h-e1 (first run) | accuracy | missed | 0.88"
    );
}

#[test]
fn a_numbers_place_names_its_summary() {
    let roles = |text: &str| -> Vec<(String, Summary)> {
        summary_roles(text)
            .into_iter()
            .map(|(at, s)| {
                (
                    text[at..]
                        .split([' ', ',', ']', ')', '–'])
                        .next()
                        .unwrap_or("")
                        .to_string(),
                    s,
                )
            })
            .collect()
    };
    let min_max =
        |a: &str, b: &str| vec![(a.to_string(), Summary::Min), (b.to_string(), Summary::Max)];
    assert_eq!(
        roles("the gain lies between 0.0321 and 0.0352 over ten seeds"),
        min_max("0.0321", "0.0352")
    );
    assert_eq!(
        roles("a gain of 0.0321–0.0352"),
        min_max("0.0321", "0.0352")
    );
    assert_eq!(
        roles("the gain [0.0321, 0.0352] holds"),
        min_max("0.0321", "0.0352")
    );
    assert_eq!(
        roles("gains ranging from 0.0321 to 0.0352"),
        min_max("0.0321", "0.0352")
    );
    assert_eq!(
        roles("accuracy 0.91 ± 0.02"),
        [("0.02".to_string(), Summary::Spread)]
    );
    // A change is not a range, and two numbers joined by “and” are two claims.
    assert_eq!(roles("accuracy rose from 0.88 to 0.94"), []);
    assert_eq!(roles("h-e1 reaches 0.91 and h-e2 0.85"), []);
    assert_eq!(
        roles("a confidence interval of (0.91, 0.95)"),
        min_max("0.91", "0.95")
    );
}
