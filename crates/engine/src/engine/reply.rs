//! Reading what a model replied, for the stages: the JSON object finder lives with the LLM
//! layer (`llm::reply`, which `youra doctor` also uses); this keeps the stages' short paths.

pub use crate::llm::reply::{json_object, str_field};
