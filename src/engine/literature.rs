//! Literature search for Literature Grounding. This build has no HTTP search client wired
//! in yet, so every search reports that the model wrote the section alone.

#[derive(Debug, Clone, Default)]
pub struct Search {
    /// One sentence for the artifact: where the sources came from.
    pub note: String,
    pub papers: Vec<Paper>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Paper {
    pub title: String,
    pub year: Option<u32>,
    pub venue: Option<String>,
    pub url: Option<String>,
}

impl Search {
    pub fn results_markdown(&self) -> String {
        if self.papers.is_empty() {
            return "(no search results)".into();
        }
        self.papers
            .iter()
            .map(|p| {
                let year = p.year.map(|y| format!(" ({y})")).unwrap_or_default();
                format!(
                    "- {}{year}{}",
                    p.title,
                    p.url
                        .as_deref()
                        .map(|u| format!(" <{u}>"))
                        .unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

pub fn search(enabled: bool, _question: &str) -> Search {
    let note = if enabled {
        "Literature search: no search client in this build; written by the model alone, sources unverified."
    } else {
        "Literature search: disabled in youra.toml; written by the model alone, sources unverified."
    };
    Search {
        note: note.into(),
        papers: Vec::new(),
    }
}
