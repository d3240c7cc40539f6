//! The name of a set of tree rules (`[plan] tree_rules`, `tree.json`'s `rules`): what the
//! tree file records, below both the files (`files.rs`) and the rules themselves (`rules.rs`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TreeRules {
    /// PrimeScientist's reference code (see the module doc).
    #[default]
    Reference,
    /// youra's rules before issue 27, kept for comparison.
    Youra,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a set of tree rules: use reference or youra")]
pub struct UnknownRules(pub String);

impl FromStr for TreeRules {
    type Err = UnknownRules;
    fn from_str(s: &str) -> Result<TreeRules, UnknownRules> {
        match s.trim().to_ascii_lowercase().as_str() {
            "reference" => Ok(TreeRules::Reference),
            "youra" => Ok(TreeRules::Youra),
            _ => Err(UnknownRules(s.to_string())),
        }
    }
}

impl fmt::Display for TreeRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TreeRules::Reference => "reference",
            TreeRules::Youra => "youra",
        })
    }
}

impl TryFrom<String> for TreeRules {
    type Error = UnknownRules;
    fn try_from(s: String) -> Result<TreeRules, UnknownRules> {
        s.parse()
    }
}

impl From<TreeRules> for String {
    fn from(r: TreeRules) -> String {
        r.to_string()
    }
}
