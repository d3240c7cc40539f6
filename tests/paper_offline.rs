//! Without network, Literature Grounding retrieves nothing and says so: its artifact names
//! each service's failure, `literature.jsonl` is kept empty, and a paper written on it gets
//! the note that it cites no references, with a bibliography of nothing.

#[path = "it/common/mod.rs"]
mod common;

use std::time::Duration;

use common::script;
use youra::engine::{Engine, Options};

#[test]
fn no_network_means_no_references_and_the_paper_says_so() {
    let mut s = script::Script::default();
    s.scoping().literature();
    let (_g, run) = script::replay_run(&s, "");
    // Every service at a closed loopback port (9: discard, nothing listens).
    let toml = run.join("youra.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "literature_search = false",
        "literature_search = true\nsemantic_scholar_url = \"http://127.0.0.1:9\"\narxiv_url = \"http://127.0.0.1:9\"\nliterature_timeout_s = 2.0",
    );
    std::fs::write(&toml, text).unwrap();
    // SAFETY: this file's only test; nothing else in this process reads the environment.
    unsafe { std::env::set_var("YOURA_OPENALEX_URL", "http://127.0.0.1:9") };
    let started = std::time::Instant::now();
    let mut e = Engine::open(
        &run,
        Options {
            exit_when_paused: true,
            ..Options::default()
        },
    )
    .expect("engine opens");
    let _ = e.run().expect("engine runs");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "a refused connection is not retried for long"
    );
    let artifact = std::fs::read_to_string(run.join("01_targeted_research.md")).expect("artifact");
    for said in [
        "Literature search unavailable",
        "Semantic Scholar: unreachable",
        "OpenAlex: unreachable",
        "arXiv: unreachable",
        "cites none",
    ] {
        assert!(artifact.contains(said), "{said:?} not in: {artifact}");
    }
    let records = youra::paper::records(&run).expect("literature.jsonl");
    assert!(records.is_empty(), "{records:?}");
    assert!(run.join("literature.jsonl").is_file(), "kept, empty");
    let paper =
        youra::paper::with_reference_note("# T\n\n## Related Work\n\nPenguins differ.\n", &records);
    assert!(paper.contains(youra::paper::NO_REFERENCES_NOTE), "{paper}");
    let published = youra::paper::publish(&run, &paper).expect("publish");
    assert_eq!(published.references, 0);
    assert!(
        youra::paper::bib::keys(
            &std::fs::read_to_string(run.join("paper/references.bib")).unwrap()
        )
        .is_empty()
    );
    assert!(youra::paper::check(&run, &paper).is_empty());
    // A citation anyway is a hallucinated reference.
    let cited = youra::paper::check(&run, "Penguins differ [@gorman2014ecological].");
    assert_eq!(cited.len(), 1);
    assert!(
        cited[0].message.contains("hallucinated reference"),
        "{cited:?}"
    );
}
