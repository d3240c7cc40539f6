//! `review approve|reject|branch|edit <path>`: the researcher's answer to an experiment that
//! waits for review (`workflow.pending_review`, decision 0040). Pure planning: the request
//! and the run → the mutation that writes `workflow.pending_review.decision`; an edit's text
//! travels as a file (`reviews/<id>.edit`, saved by `apply` under the store's lock, as a plan
//! edit's does) because the VSA's writer has no block scalars. The engine applies the answer.

use std::path::{Component, Path};

use super::error::SteerError;
use super::request::{Approval, Outcome, Plan, Request, mutation, s, time};
use crate::vsa::Snapshot;
use crate::vsa::mutation::Change;
use crate::vsa::review::{Answer, DECISION_PATH, RECORDS_DIR};
use crate::yaml::NewNode;

/// The largest edited file accepted: code, not data.
pub const MAX_EDIT_BYTES: u64 = 1024 * 1024;

/// The run-relative file that holds review `id`'s edited text.
pub fn edit_file(id: &str) -> String {
    format!("{RECORDS_DIR}/{id}.edit")
}

/// Save review `id`'s edited text where the answer names it (`reviews/<id>.edit`); an id
/// that is not a plain name (a hand-edited VSA) is refused rather than made a path.
pub(super) fn save(run: &Path, id: &str, text: &str) -> Result<(), SteerError> {
    if let Some(why) = crate::plan::unsafe_reason(id) {
        return Err(SteerError::Review(format!(
            "the waiting review's id `{id}` is not usable as a file name: {why}"
        )));
    }
    let path = run.join(edit_file(id));
    let fail = |e: std::io::Error| SteerError::EditFile(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(fail)
}

/// The researcher's version of a file: UTF-8, at most [`MAX_EDIT_BYTES`], read with no
/// link followed.
pub fn read_edit_file(path: &Path) -> Result<String, SteerError> {
    let fail = |why: String| {
        SteerError::Review(format!("cannot use {} as the edit: {why}", path.display()))
    };
    let bytes =
        crate::fsutil::read_capped(path, MAX_EDIT_BYTES + 1).map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_EDIT_BYTES {
        return Err(fail(format!(
            "it is over {MAX_EDIT_BYTES} bytes; code, not data"
        )));
    }
    String::from_utf8(bytes).map_err(|_| fail("it is not UTF-8 text".into()))
}

/// `approve`, `reject`, `branch` or `edit <path>` → the answer and, for `edit`, the path
/// under `code/` (relative, plain components, never `.git`).
pub(crate) fn parse_target(target: Option<&str>) -> Result<(Answer, Option<String>), SteerError> {
    let t = target.map(str::trim).unwrap_or_default();
    let (word, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let answer = Answer::parse(word).ok_or_else(|| {
        SteerError::Review(format!(
            "`review {t}`: answer with approve, reject, branch or edit <file under code/>"
        ))
    })?;
    let rest = rest.trim();
    match (answer, rest.is_empty()) {
        (Answer::Edit, true) => Err(SteerError::Review(
            "`review edit` needs the file it replaces: review edit <path under code/> --file <your version>".into(),
        )),
        (Answer::Edit, false) => Ok((answer, Some(code_path(rest)?))),
        (_, true) => Ok((answer, None)),
        (_, false) => Err(SteerError::Review(format!(
            "`review {}` takes no more words (`{rest}` given)",
            answer.word()
        ))),
    }
}

/// A path under `code/`: relative, made of plain names, no `.git` anywhere.
pub fn code_path(raw: &str) -> Result<String, SteerError> {
    let raw = raw.trim().trim_start_matches("code/");
    let p = Path::new(raw);
    let plain = !raw.is_empty()
        && p.components().all(|c| match c {
            Component::Normal(n) => n != ".git" && !n.to_string_lossy().contains('\n'),
            _ => false,
        });
    if !plain {
        return Err(SteerError::Review(format!(
            "`{raw}` is not a file under code/: give a relative path of plain names (main.py, src/model.py)"
        )));
    }
    Ok(raw.to_string())
}

/// The mutation that answers the waiting review, or why it cannot.
pub fn plan(req: &Request, snap: &Snapshot) -> Result<Plan, SteerError> {
    let (answer, path) = parse_target(req.target.as_deref())?;
    if answer != Answer::Edit && req.plan.is_some() {
        return Err(SteerError::Review(format!(
            "--file goes with `review edit <path>`, not with `review {}`",
            answer.word()
        )));
    }
    let review = snap.vsa.workflow.review.as_ref().ok_or_else(|| {
        SteerError::Review(
            "no experiment waits for review (workflow.pending_review is empty)".into(),
        )
    })?;
    let id = review.id.clone().unwrap_or_else(|| "rv".into());
    if let Some(d) = &review.decision {
        return Err(SteerError::Review(format!(
            "review {id} was already answered ({}) by {}; the engine applies it",
            d.verdict_text.as_deref().unwrap_or("?"),
            d.by.as_deref().unwrap_or("someone")
        )));
    }
    let mut fields = vec![
        ("verdict".to_string(), s(answer.as_str())),
        ("by".into(), s(req.actor.trim())),
        ("at".into(), time(&req.at)),
        ("reason".into(), s(req.reason.trim())),
    ];
    if answer == Answer::Edit {
        if req.plan.as_deref().is_none_or(|t| t.is_empty()) {
            return Err(SteerError::Review(
                "`review edit` needs your version of the file: --file <path>".into(),
            ));
        }
        fields.push(("path".into(), s(path.as_deref().unwrap_or_default())));
        fields.push(("file".into(), s(&edit_file(&id))));
    }
    let change = Change::Put {
        path: DECISION_PATH.into(),
        value: NewNode::Map(fields),
    };
    let target = format!("{id} {}", answer.word());
    Ok(Plan {
        mutation: mutation(req, change, Some(&target)),
        outcome: Outcome::Review { review: id, answer },
        approval: Approval::One,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_edited_review_id_never_becomes_a_path() {
        let run = tempfile::tempdir().unwrap();
        for id in ["../../outside", "a/b", ".."] {
            let e = save(run.path(), id, "text").unwrap_err().to_string();
            assert!(e.contains("not usable as a file name"), "{id}: {e}");
        }
        assert!(!run.path().join("outside").exists());
        save(run.path(), "rv-3", "mine").unwrap();
        assert_eq!(
            std::fs::read_to_string(run.path().join("reviews/rv-3.edit")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn targets_name_an_answer_and_edits_a_plain_path() {
        // (target, answer, path) or the refusal's words
        let ok = [
            ("approve", Answer::Approve, None),
            ("REJECT", Answer::Reject, None),
            ("branch", Answer::Branch, None),
            ("edit main.py", Answer::Edit, Some("main.py")),
            ("edit code/src/m.py", Answer::Edit, Some("src/m.py")),
        ];
        for (t, a, p) in ok {
            assert_eq!(
                parse_target(Some(t)).unwrap(),
                (a, p.map(str::to_string)),
                "{t}"
            );
        }
        let refused = [
            ("", "approve, reject, branch or edit"),
            ("maybe", "approve, reject, branch or edit"),
            ("edit", "needs the file"),
            ("edit ../escape.py", "not a file under code/"),
            ("edit /etc/passwd", "not a file under code/"),
            ("edit .git/config", "not a file under code/"),
            ("edit a/../../b", "not a file under code/"),
            ("approve now", "takes no more words"),
        ];
        for (t, want) in refused {
            let e = parse_target(Some(t)).unwrap_err().to_string();
            assert!(e.contains(want), "{t}: {e}");
        }
    }
}
