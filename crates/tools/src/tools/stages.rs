//! Which tools a stage may use, as data: YouRA's Table 7 (stage-agent assignment) maps each
//! stage to tool services; we name the services by the capability they provide (Table 6),
//! so any server filling that role qualifies, not only the one YouRA used.
//!
//! | capability | YouRA's service | role in Table 6 |
//! |---|---|---|
//! | memory | Archon | RAG-backed knowledge base, implementation patterns |
//! | web_search | Exa | web evidence (search, contents) |
//! | literature | Semantic Scholar | paper metadata and citations |
//! | code | Serena | symbol-level code navigation |
//! | reasoning | Clear Thought | structured reasoning scaffolds |
//! | general | — | a server of no known kind: offered in every stage |

/// Stage key (`Stage::key`) → the capabilities its model calls may use (Table 7).
pub(crate) const STAGE_TOOLS: &[(&str, &[&str])] = &[
    ("problem_scoping", &["memory", "code"]),
    (
        "literature_grounding",
        &["memory", "literature", "web_search"],
    ),
    (
        "hypothesis_debate",
        &["memory", "literature", "web_search", "code", "reasoning"],
    ),
    (
        "verification_planning",
        &["memory", "web_search", "reasoning"],
    ),
    ("experiment_design", &["memory", "web_search", "code"]),
    ("implementation_planning", &["memory", "code"]),
    ("coding_validation", &["memory", "web_search", "code"]),
    ("evidence_check", &["memory", "code"]),
    ("manuscript_drafting", &["memory", "code"]),
    ("fact_review", &["memory", "code"]),
    ("manuscript_refinement", &[]),
];

/// The capability a server provides when its config does not say: from YouRA's service
/// names (Table 6), else `general`.
pub(crate) fn capability_of_name(name: &str) -> &'static str {
    let n: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    match n.as_str() {
        "archon" => "memory",
        "exa" => "web_search",
        "semanticscholar" | "ss" => "literature",
        "serena" => "code",
        "clearthought" => "reasoning",
        _ => "general",
    }
}

/// The default selectors of a stage (an unknown stage key gets general servers only).
pub(crate) fn default_selectors(stage: &str) -> Vec<String> {
    let mut out: Vec<String> = STAGE_TOOLS
        .iter()
        .find(|(k, _)| *k == stage)
        .map(|(_, caps)| caps.iter().map(|c| c.to_string()).collect())
        .unwrap_or_default();
    out.push("general".into());
    out
}

/// Whether `selectors` let a stage use `tool` of the server `server` with `capability`.
/// A selector is a capability, a server name, or `server:tool-glob`.
pub fn selected(selectors: &[String], server: &str, capability: &str, tool: &str) -> bool {
    selectors.iter().any(|s| match s.split_once(':') {
        Some((srv, pattern)) => srv == server && glob(pattern, tool),
        None => s == server || s == capability,
    })
}

/// `*` matches any run of characters, `?` one; everything else matches itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Iterative matcher with one backtrack point: linear for the patterns people write.
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (p, t, want) in [
            ("*", "anything", true),
            ("find_*", "find_symbol", true),
            ("find_*", "read_file", false),
            ("?et", "get", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob(p, t), want, "{p} vs {t}");
        }
    }

    #[test]
    fn table_7_defaults() {
        let lit = default_selectors("literature_grounding");
        assert!(selected(&lit, "ss", "literature", "search"));
        assert!(!selected(&lit, "serena", "code", "find_symbol"));
        assert!(selected(&lit, "mine", "general", "x"));
        let refine = default_selectors("manuscript_refinement");
        assert_eq!(refine, vec!["general".to_string()]);
        let coding = default_selectors("coding_validation");
        assert!(selected(&coding, "serena", "code", "find_symbol"));
        assert!(!selected(&coding, "ct", "reasoning", "think"));
        assert_eq!(STAGE_TOOLS.len(), 11);
    }

    #[test]
    fn every_stage_has_a_row() {
        let keys: Vec<&str> = STAGE_TOOLS.iter().map(|(k, _)| *k).collect();
        let stages: Vec<&str> = crate::stage::Stage::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(keys, stages);
    }

    #[test]
    fn selectors_with_tool_globs() {
        let s = vec!["papers:search*".to_string()];
        assert!(selected(&s, "papers", "general", "search_title"));
        assert!(!selected(&s, "papers", "general", "download"));
        assert!(!selected(&s, "other", "general", "search_title"));
        assert_eq!(capability_of_name("Semantic-Scholar"), "literature");
        assert_eq!(capability_of_name("clear_thought"), "reasoning");
        assert_eq!(capability_of_name("mytool"), "general");
    }
}
