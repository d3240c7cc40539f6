//! The parser walk: what becomes a metric site, an assignment, a string, a use.

use super::*;

fn m(src: &str) -> Module {
    parse("t.py", src).expect("parses")
}

#[test]
fn format_specs_docstrings_and_comments_are_not_values() {
    let module = m("\"\"\"accuracy = 0.95\"\"\"\n# acc = 0.9\nprint(f\"{val_mae:.4f}\")\n");
    assert!(module.sites.is_empty(), "{:?}", module.sites);
    assert!(module.scopes[0].assigns.is_empty());
    // The docstring is no string the rules read; the f-string's literal text is.
    assert!(
        module.strings.iter().all(|(_, s)| !s.contains("accuracy")),
        "{:?}",
        module.strings
    );
    assert!(module.uses.iter().any(|u| u.name == "val_mae"));
}

#[test]
fn dict_keys_and_subscript_stores_are_metric_sites_with_their_holder() {
    let module = m("cfg = {'lr_acc': 0.1}\nres = {}\nres['f1'] = f1\nres2 = {'accuracy': 0.93}\n");
    let sites: Vec<(String, usize, Option<String>)> = module
        .sites
        .iter()
        .map(|s| (s.key.clone(), s.line, s.holder.clone()))
        .collect();
    assert_eq!(
        sites,
        [
            ("lr_acc".to_string(), 1, Some("cfg".to_string())),
            ("f1".to_string(), 3, Some("res".to_string())),
            ("accuracy".to_string(), 4, Some("res2".to_string())),
        ]
    );
    assert_eq!(module.sites[2].value, Expr::Num("0.93".into()));
}

#[test]
fn a_literal_under_a_random_test_is_an_outcome_and_augmentation_is_not() {
    let module = m(
        "for t in ts:\n    if random.random() < p:\n        wins += 1\n        img = flip(img)\n",
    );
    let assigns = &module.scopes[0].assigns;
    let wins = assigns.iter().find(|a| a.target == "wins").unwrap();
    assert_eq!(wins.value, Expr::Outcome);
    let img = assigns.iter().find(|a| a.target == "img").unwrap();
    assert!(matches!(img.value, Expr::Call(_)), "{:?}", img.value);
}

#[test]
fn open_for_writing_is_no_loader_and_len_only_counts() {
    let module = m("f = open('r.json', 'w')\ng = open('d.csv')\nn = len(data)\n");
    let callees: Vec<&str> = module
        .calls
        .iter()
        .map(|(_, c)| c.callee.as_str())
        .collect();
    assert_eq!(callees, ["open_for_writing", "open", "len"]);
    assert!(module.uses.iter().any(|u| u.name == "data" && u.counted));
}

#[test]
fn a_notebook_maps_code_lines_to_its_json_lines_and_blanks_magics() {
    let nb = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"source\": [\n    \"%matplotlib inline\\n\",\n    \"x = 1\\n\"\n   ]\n  }\n ]\n}\n";
    let (code, map) = notebook_code(nb).unwrap();
    assert_eq!(code, "\nx = 1\n");
    assert_eq!(map, [6, 7]);
}

#[test]
fn syntax_errors_are_flagged_and_the_rest_still_read() {
    let module = m("def broken(:\n    pass\nacc = 0.5\n");
    assert!(module.syntax_errors);
    assert!(
        module
            .scopes
            .iter()
            .flat_map(|s| &s.assigns)
            .any(|a| a.target == "acc")
    );
}
