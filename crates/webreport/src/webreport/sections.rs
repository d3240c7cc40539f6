//! One function per section of the page, each from the [`Report`]'s plain data to HTML.
//! Every run-derived string goes through [`text`]; numbers youra computed are formatted here.

use super::escape::text;
use super::{Chart, EscalationRow, GateRow, MemoryRow, Paper, PlanRow, Report, StageRow};

fn opt(v: Option<&str>) -> String {
    v.map(text).unwrap_or_else(|| "—".into())
}

/// A table from a header and rows of already-escaped cells.
fn table(head: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut out = String::from("<table>\n<thead><tr>");
    for h in head {
        out.push_str(&format!("<th>{h}</th>"));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            out.push_str(&format!("<td>{cell}</td>"));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// A timestamp in UTC, the full stamp on hover: the time of day (to the millisecond) when
/// every row is on one day, else with its date.
fn time(stamp: &str, one_day: bool) -> String {
    let format = if one_day {
        "%H:%M:%S%.3f"
    } else {
        "%Y-%m-%d %H:%M:%S"
    };
    match chrono::DateTime::parse_from_rfc3339(stamp) {
        Ok(t) => format!(
            "<span title=\"{}\">{}</span>",
            text(stamp),
            t.naive_utc().format(format)
        ),
        Err(_) => text(stamp),
    }
}

fn none(what: &str) -> String {
    format!("<p class=\"muted\">{what}</p>\n")
}

fn verdict(met: Option<bool>, yes: &str, no: &str) -> String {
    match met {
        Some(true) => format!("<span class=\"pass\">{yes}</span>"),
        Some(false) => format!("<span class=\"fail\">{no}</span>"),
        None => "—".into(),
    }
}

pub fn summary(r: &Report) -> String {
    let s = &r.summary;
    let mut out = String::new();
    if s.waiting {
        out.push_str(
            "<p class=\"wait\">An escalation waits for the researcher's decision (see \
             Escalations).</p>\n",
        );
    }
    out.push_str("<dl class=\"kv\">\n");
    let rows = [
        ("Project", s.project.as_deref()),
        ("Topic", s.topic.as_deref()),
        ("Hypothesis", s.hypothesis_title.as_deref()),
        ("Statement", s.hypothesis.as_deref()),
        ("Status", s.status.as_deref()),
        ("Stage", s.stage.as_deref()),
        ("Mode", s.mode.as_deref()),
        ("Stopped because", s.stop_reason.as_deref()),
        ("Next", s.next_action.as_deref()),
        ("Model calls", s.usage.as_deref()),
    ];
    for (k, v) in rows {
        if let Some(v) = v {
            out.push_str(&format!("<dt>{k}</dt><dd>{}</dd>\n", text(v)));
        }
    }
    out.push_str("</dl>\n");
    out
}

/// A stage run's own time, and beside it the wait for the researcher it does not count.
fn took(r: &StageRow) -> String {
    let own = r.seconds.map_or("—".into(), |s| format!("{s:.3}\u{a0}s"));
    match r.waited.filter(|w| *w > 0.0) {
        Some(w) => format!("{own} (+{w:.3}\u{a0}s waiting for the researcher)"),
        None => own,
    }
}

pub fn lifecycle(rows: &[StageRow], from_history: bool) -> String {
    if rows.is_empty() {
        return none(
            "No stage has run yet (neither events.jsonl nor the VSA's history names one).",
        );
    }
    let days: std::collections::BTreeSet<_> = rows
        .iter()
        .filter_map(|r| chrono::DateTime::parse_from_rfc3339(&r.started).ok())
        .map(|t| t.naive_utc().date())
        .collect();
    let one_day = days.len() <= 1;
    let cells = rows
        .iter()
        .map(|r| {
            vec![
                time(&r.started, one_day),
                text(&r.stage),
                opt(r.hypothesis.as_deref()),
                took(r),
                text(&r.outcome),
                opt(r.detail.as_deref()),
            ]
        })
        .collect();
    let day = match days.first() {
        Some(d) if one_day => format!(", on {d}"),
        _ => String::new(),
    };
    let source = if from_history {
        " From the VSA's history: this run has no stage events."
    } else {
        ""
    };
    format!(
        "<p class=\"muted\">Times in UTC{day}.{source}</p>\n{}",
        table(
            &["Started", "Stage", "Hypothesis", "Took", "Outcome", "Why"],
            cells
        )
    )
}

pub fn gates(rows: &[GateRow]) -> String {
    if rows.is_empty() {
        return none("No sub-hypothesis yet.");
    }
    let mut out = String::new();
    for g in rows {
        out.push_str(&format!(
            "<h3 id=\"gate-{0}\">{0} <span class=\"muted\">{1} · {2} · {3}</span> {4}</h3>\n",
            text(&g.id),
            opt(g.kind.as_deref()),
            opt(g.gate_type.as_deref()),
            text(&g.status),
            result_badge(g),
        ));
        if let Some(s) = &g.statement {
            out.push_str(&format!("<p>{}</p>\n", text(s)));
        }
        if g.criteria.is_empty() {
            out.push_str(&none("No criterion and nothing measured."));
        } else {
            let rows = g
                .criteria
                .iter()
                .map(|c| {
                    vec![
                        text(&c.metric),
                        if c.required.is_empty() {
                            "—".into()
                        } else {
                            text(&c.required)
                        },
                        opt(c.measured.as_deref()),
                        verdict(c.met, "met", "missed"),
                    ]
                })
                .collect();
            out.push_str(&table(&["Metric", "Required", "Measured", ""], rows));
        }
        if !g.intervals.is_empty() {
            let rows = g
                .intervals
                .iter()
                .map(|i| {
                    vec![
                        text(&i.quantity),
                        text(&i.card),
                        verdict_word(&i.verdict),
                        text(&i.detail),
                    ]
                })
                .collect();
            out.push_str(&table(
                &[
                    "Quantity",
                    "Interval (youra's, from repeats)",
                    "Verdict",
                    "Method",
                ],
                rows,
            ));
        }
        if !g.failed_checks.is_empty() || !g.undecided.is_empty() {
            out.push_str("<ul>\n");
            for c in &g.failed_checks {
                out.push_str(&format!("<li class=\"fail\">{}</li>\n", text(c)));
            }
            for c in &g.undecided {
                out.push_str(&format!(
                    "<li class=\"inconclusive\">undecided: {}</li>\n",
                    text(c)
                ));
            }
            out.push_str("</ul>\n");
        }
    }
    out
}

/// A gate's result in its own colour: INCONCLUSIVE is neither a pass nor a failure.
fn result_badge(g: &GateRow) -> String {
    match g.result.as_deref() {
        Some(r) if r.eq_ignore_ascii_case("INCONCLUSIVE") => verdict_word(r),
        r => verdict(r.is_some().then_some(g.met), &opt(r), &opt(r)),
    }
}

/// PASS, FAIL or INCONCLUSIVE as a coloured word; anything else as plain text.
fn verdict_word(v: &str) -> String {
    let class = match v {
        "PASS" => "pass",
        "FAIL" => "fail",
        "INCONCLUSIVE" => "inconclusive",
        _ => return text(v),
    };
    format!("<span class=\"{class}\">{}</span>", text(v))
}

pub fn plan(rows: &[PlanRow]) -> String {
    if rows.is_empty() {
        return none("No plan tree (plan/tree.json is absent: no search ran).");
    }
    let rows = rows
        .iter()
        .map(|n| {
            let marks = [(n.pinned, " pinned"), (n.vetoed, " vetoed")]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, m)| *m)
                .collect::<String>();
            vec![
                format!(
                    "<span style=\"padding-left:{}em\">{}{}</span>",
                    n.depth * 2,
                    if n.depth > 0 { "└ " } else { "" },
                    text(&n.id)
                ),
                opt(n.hypothesis.as_deref()),
                format!("{}{marks}", text(&n.status)),
                format!("{:.2}", n.prior),
                format!("{:.3} ({})", n.q, n.visits),
                n.reward.map_or("—".into(), |r| format!("{r:.3}")),
                text(&n.summary),
            ]
        })
        .collect();
    table(
        &[
            "Node",
            "Hypothesis",
            "Status",
            "P",
            "Q (visits)",
            "Reward",
            "Proposal",
        ],
        rows,
    )
}

pub fn escalations(rows: &[EscalationRow]) -> String {
    if rows.is_empty() {
        return none("No escalation was raised.");
    }
    let mut out = String::new();
    for e in rows {
        out.push_str(&format!(
            "<h3>{} <span class=\"muted\">{} · raised {}</span></h3>\n",
            text(&e.id),
            opt(e.hypothesis.as_deref()),
            opt(e.raised_at.as_deref()),
        ));
        if e.waiting {
            out.push_str("<p class=\"wait\">Waits for the researcher's decision.</p>\n");
        }
        out.push_str("<dl class=\"kv\">\n");
        let rows = [
            ("Proposed", e.proposed.as_deref()),
            ("Decision", e.verdict.as_deref()),
            ("By", e.by.as_deref()),
            ("Applied", e.applied.as_deref()),
            ("Decided at", e.decided_at.as_deref()),
            ("Reason", e.reason.as_deref()),
        ];
        for (k, v) in rows {
            if let Some(v) = v {
                out.push_str(&format!("<dt>{k}</dt><dd>{}</dd>\n", text(v)));
            }
        }
        out.push_str("</dl>\n");
        if !e.grounds.is_empty() {
            out.push_str("<ul>\n");
            for g in &e.grounds {
                out.push_str(&format!("<li>{}</li>\n", text(g)));
            }
            out.push_str("</ul>\n");
        }
    }
    out
}

pub fn charts(charts: &[Chart]) -> String {
    if charts.is_empty() {
        return none("No measured metrics to chart yet.");
    }
    let mut out = String::from("<div class=\"two\">\n");
    for c in charts {
        // The SVG is plotters' output from numbers and cleaned labels (collect.rs).
        out.push_str(&format!(
            "<figure>{}<figcaption>{}</figcaption></figure>\n",
            c.svg,
            text(&c.caption)
        ));
    }
    out.push_str("</div>\n");
    out
}

pub fn memory(rows: &[MemoryRow]) -> String {
    if rows.is_empty() {
        return none("No Reflective Memory record.");
    }
    let list = |items: &[String]| -> String {
        if items.is_empty() {
            return none("none recorded");
        }
        let li: String = items
            .iter()
            .map(|i| format!("<li>{}</li>", text(i)))
            .collect();
        format!("<ol>{li}</ol>")
    };
    let mut out = String::new();
    for m in rows {
        let meta = [
            Some(m.kind.as_str()),
            m.hypothesis.as_deref(),
            m.date.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(text)
        .collect::<Vec<_>>()
        .join(" · ");
        out.push_str(&format!(
            "<h3>{} <span class=\"muted\">{meta}</span></h3>\n",
            text(&m.id)
        ));
        if let Some(t) = &m.title {
            out.push_str(&format!("<p>{}</p>\n", text(t)));
        }
        if let Some(r) = &m.routing {
            out.push_str(&format!("<p>Routed: <strong>{}</strong></p>\n", text(r)));
        }
        out.push_str(&format!(
            "<div class=\"two\"><div><h4>Root causes</h4>{}</div><div><h4>Lessons</h4>{}</div></div>\n",
            list(&m.root_causes),
            list(&m.lessons)
        ));
    }
    out
}

pub fn paper(p: Option<&Paper>, charts: &[Chart]) -> String {
    let Some(p) = p else {
        return none("No paper yet (paper/06_paper_final.md or paper/06_paper.md).");
    };
    let mut out = format!(
        "<p class=\"muted\">{} — checked as <code>youra report check</code> does.</p>\n\
         <details><summary>Ground truth</summary><p>{}</p></details>\n",
        text(&p.file),
        text(&p.ground_truth)
    );
    let major = p
        .findings
        .iter()
        .filter(|f| f.severity == crate::report::findings::Severity::Major)
        .count();
    out.push_str(&format!(
        "<h3>Check: <span class=\"{}\">{major} MAJOR</span>, {} MINOR</h3>\n",
        if major == 0 { "pass" } else { "fail" },
        p.findings.len() - major
    ));
    if !p.findings.is_empty() {
        let rows = p
            .findings
            .iter()
            .map(|f| {
                vec![
                    f.severity.label().to_string(),
                    format!("{}:{}", f.line, f.column),
                    text(&f.message),
                    text(&f.evidence),
                ]
            })
            .collect();
        out.push_str(&table(&["Severity", "Line", "Finding", "Evidence"], rows));
    }
    out.push_str("<article class=\"paper\">\n");
    out.push_str(&super::markdown::to_html(&p.markdown, charts, 2));
    out.push_str("</article>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inconclusive_gate_shows_its_intervals_in_its_own_colour_and_as_text() {
        let evil = "acc<script>{x}</script>&\"'";
        let g = GateRow {
            id: "h-e1".into(),
            status: "IN_PROGRESS".into(),
            result: Some("INCONCLUSIVE".into()),
            met: false,
            intervals: vec![
                super::super::IntervalRow {
                    quantity: evil.into(),
                    card: "0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92".into(),
                    verdict: "INCONCLUSIVE".into(),
                    detail: "t".into(),
                },
                super::super::IntervalRow {
                    quantity: "accuracy - accuracy_lda".into(),
                    card: "<b>0.021</b>".into(),
                    verdict: "<i>PASS".into(),
                    detail: "t; accuracy 0.934 [0.900, 0.960]".into(),
                },
            ],
            undecided: vec![format!("{evil}: the interval holds the threshold")],
            ..GateRow::default()
        };
        let html = gates(&[g]);
        assert!(
            html.contains("h-e1 <span class=\"muted\">— · — · IN_PROGRESS</span> <span class=\"inconclusive\">INCONCLUSIVE</span></h3>"),
            "{html}"
        );
        assert!(
            !html.contains("class=\"fail\"") && !html.contains("class=\"pass\""),
            "{html}"
        );
        assert!(html.contains(
            "<td>0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92</td><td><span class=\"inconclusive\">INCONCLUSIVE</span></td>"
        ), "{html}");
        let escaped = "acc&lt;script&gt;{x}&lt;/script&gt;&amp;&quot;&#39;";
        assert_eq!(html.matches(escaped).count(), 2, "{html}");
        assert!(!html.contains("<script") && !html.contains("<b>") && !html.contains("<i>"));
        assert!(
            html.contains("<td>&lt;i&gt;PASS</td>"),
            "an unknown verdict is plain text"
        );
        assert!(html.contains("<li class=\"inconclusive\">undecided: acc&lt;script"));
    }

    fn row(started: &str) -> StageRow {
        StageRow {
            stage: "Scoping".into(),
            hypothesis: None,
            started: started.into(),
            ended: None,
            seconds: Some(1.25),
            waited: None,
            outcome: "PHASE_COMPLETE".into(),
            detail: None,
        }
    }

    #[test]
    fn stage_times_carry_their_date_only_when_the_run_spans_days() {
        let table: &[(&[&str], &[&str], &str)] = &[
            (
                &["2026-12-04T11:26:36.996Z", "2026-12-04T23:00:00Z"],
                &[">11:26:36.996<", ">23:00:00.000<"],
                "Times in UTC, on 2026-12-04.",
            ),
            (
                &["2026-03-14T21:17:54Z", "2026-03-15T00:00:00Z"],
                &[">2026-03-14 21:17:54<", ">2026-03-15 00:00:00<"],
                "Times in UTC.",
            ),
            (&["yesterday"], &["<td>yesterday</td>"], "Times in UTC."),
        ];
        for (stamps, cells, note) in table {
            let rows: Vec<StageRow> = stamps.iter().map(|s| row(s)).collect();
            let html = lifecycle(&rows, false);
            for c in *cells {
                assert!(html.contains(c), "{c} in {html}");
            }
            assert!(html.contains(note), "{note} in {html}");
            assert!(html.contains("1.250\u{a0}s"));
        }
    }
}
