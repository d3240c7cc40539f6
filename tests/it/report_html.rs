//! `youra report html` read back by a real browser: the demo run's report loaded by headless
//! Chromium (Debian's `chromium`, installed by scripts/test.sh), its rendered DOM searched
//! for every gate's measured value (read from the VSA) and the paper's title, a screenshot
//! taken; a statement carrying markup and a bidi override arrives as text; and the file
//! names nothing to load from elsewhere.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::youra;

/// The demo run (made once for every test here) and its report.
struct Built {
    _tmp: tempfile::TempDir,
    run: PathBuf,
    html: PathBuf,
}

/// A statement a model might write to attack the reader's browser and eyes.
const HOSTILE: &str =
    "Bills <script>document.title=1</script><img src=x onerror=alert(1)> \u{202e}gnp.exe";

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("demo");
        let out = youra(&[
            "demo",
            "--headless",
            "--fast",
            "--dir",
            run.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "demo: {:?}", common::text(&out));
        let store = youra::vsa::Store::new(run.join("verification_state.yaml"));
        common::set_field(&store, "sub_hypotheses.h-c1.statement", HOSTILE);
        let html = tmp.path().join("out").join("report.html");
        std::fs::create_dir_all(html.parent().unwrap()).unwrap();
        let out = youra(&[
            "report",
            "html",
            run.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ]);
        let (stdout, stderr) = common::text(&out);
        assert!(out.status.success(), "report html: {stdout}{stderr}");
        assert!(
            stdout.contains(html.to_str().unwrap()),
            "names the file: {stdout}"
        );
        Built {
            _tmp: tmp,
            run,
            html,
        }
    })
}

/// The browser, or a failure that says how to get it: this test is the report's proof.
fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser"] {
        if let Ok(out) = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            && out.status.success()
        {
            return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        }
    }
    panic!(
        "chromium is not installed: run scripts/test.sh (it installs Debian's `chromium`), \
         or `apt-get install -y chromium`"
    );
}

/// Headless Chromium on `page` with `extra` flags, no network and a throwaway profile.
fn browse(page: &Path, extra: &[String]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "90",
        chromium().to_str().unwrap(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--user-data-dir={}", profile.path().display()));
    args.extend(extra.iter().cloned());
    args.push(format!("file://{}", page.display()));
    // `timeout`: a browser that hangs fails the test instead of holding it forever.
    Command::new("timeout").args(&args).output().unwrap()
}

/// The rendered DOM's text: tags dropped, entities decoded, whitespace folded.
fn dom_text(dom: &str) -> String {
    let mut text = String::with_capacity(dom.len());
    let mut in_tag = false;
    for c in dom.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn chromium_renders_every_gates_measured_value_and_the_papers_title() {
    let b = built();
    let out = browse(&b.html, &["--dump-dom".into()]);
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && dom.contains("</html>"),
        "chromium --dump-dom failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = dom_text(&dom);

    let snap = youra::vsa::Store::new(b.run.join("verification_state.yaml"))
        .load()
        .unwrap();
    let mut measured = 0;
    for h in &snap.vsa.sub_hypotheses {
        for (metric, value) in &h.gate.measured {
            measured += 1;
            // As a reader meets it: at four decimals (a mean over repeats is a long float).
            let shown = youra::vsa::model::shown_value(value);
            assert!(
                text.contains(shown.as_str()),
                "{}'s measured {metric} = {shown} is not on the page",
                h.id
            );
        }
    }
    assert!(measured >= 3, "the demo measures each of its three gates");

    let paper = std::fs::read_to_string(b.run.join("paper/06_paper_final.md")).unwrap();
    let title = paper
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .expect("the paper has a title")
        .trim();
    assert!(
        text.contains(title),
        "the paper's title {title:?} is not on the page"
    );

    // The escalation's decision with its reason, as the events recorded it.
    let events = youra::rundir::events::read(&b.run.join("events.jsonl"));
    let decision = events
        .iter()
        .find(|e| e.kind == "decision")
        .and_then(|e| e.message.clone())
        .expect("the demo's escalation is decided");
    assert!(text.contains(&decision), "decision {decision:?} not shown");

    // The hostile statement is text: no script ran (the title is the report's), no element
    // was made from it, and the bidi override is gone.
    assert!(text.contains("Bills <script>document.title=1</script><img src=x onerror=alert(1)>"));
    assert!(!text.contains('\u{202e}') && text.contains("gnp.exe"));
    assert!(
        dom.contains("<title>youra report: penguins-demo</title>"),
        "title kept"
    );
    assert!(
        !dom.contains("<script") && !dom.contains("<img"),
        "no element injected"
    );
}

#[test]
fn chromium_takes_a_screenshot_of_the_report() {
    let b = built();
    let shot = b.html.with_file_name("shot.png");
    let out = browse(
        &b.html,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000".into(),
        ],
    );
    let bytes = std::fs::read(&shot).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}); chromium said: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        bytes.len() > 10_000,
        "a 1280×2000 page is more than a blank: {}",
        bytes.len()
    );
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
}

/// Every `attr="…"` value of `tag` elements in `html`.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<(&'a str, &'a str)> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = html[from..].find(&needle) {
        let start = from + i + needle.len();
        let end = start + html[start..].find('"').unwrap();
        let tag_start = html[..start].rfind('<').unwrap();
        let tag = html[tag_start + 1..].split([' ', '>']).next().unwrap();
        out.push((tag, &html[start..end]));
        from = end;
    }
    out
}

#[test]
fn the_file_loads_nothing_from_elsewhere() {
    let html = std::fs::read_to_string(&built().html).unwrap();
    let lower = html.to_lowercase();
    for banned in [
        "<script", "<link", "<iframe", "<object", "<embed", "@import", "url(",
    ] {
        assert!(!lower.contains(banned), "the report holds {banned}");
    }
    assert!(attrs(&html, "src").is_empty(), "nothing is loaded by src");
    let hrefs = attrs(&html, "href");
    assert!(
        hrefs.iter().any(|(_, h)| h.starts_with('#')),
        "the page has its section links"
    );
    for (tag, href) in hrefs {
        let fragment = href.starts_with('#');
        let reference = tag == "a" && (href.starts_with("https://") || href.starts_with("http://"));
        assert!(
            fragment || reference,
            "<{tag} href=\"{href}\"> loads or leaves the file"
        );
    }
    // The charts are inline SVG, one per measured sub-hypothesis and the gate summary.
    assert!(html.matches("<svg").count() >= 4, "charts are inline");
}

#[test]
fn a_folder_that_is_no_run_is_refused_with_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let out = youra(&["report", "html", tmp.path().to_str().unwrap()]);
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no verification_state.yaml"), "{stderr}");
    assert!(
        stderr.contains("youra report html"),
        "says what to run: {stderr}"
    );
    assert!(!tmp.path().join("report.html").exists());
}

/// Issue 43: the paper's citations read as the references' short form, not raw keys, and
/// the Coding & Validation run that escalated counts its own time, the wait for the
/// researcher beside it (the demo's policy decides after 0.5 s).
#[test]
fn citations_read_as_references_and_the_escalations_wait_is_its_own() {
    let b = built();
    let html = std::fs::read_to_string(&b.html).unwrap();
    assert!(!html.contains("[@gorman2014ecological]"), "a raw key");
    assert!(html.contains("(Gorman et al. 2014)"), "no short form");
    assert!(html.contains("(Fisher 1936)"), "no short form");
    let waited: Vec<&str> = html
        .lines()
        .filter(|l| l.contains("waiting for the researcher"))
        .collect();
    assert_eq!(waited.len(), 1, "one stage run waited: {waited:?}");
    // The escalation's row: its own time below the half second it waited.
    let cell = waited[0];
    let own: f64 = cell
        .split("<td>")
        .find(|c| c.contains("waiting for the researcher"))
        .and_then(|c| c.split('\u{a0}').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the Took cell: {cell}"));
    let wait: f64 = cell
        .split("(+")
        .nth(1)
        .and_then(|c| c.split('\u{a0}').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the wait: {cell}"));
    assert!(wait >= 0.4, "{cell}");
    assert!(own < 5.0, "{cell}");
}
