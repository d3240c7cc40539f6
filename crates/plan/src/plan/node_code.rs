//! Code per plan node (PrimeScientist §3.2: the tree is executable): one git repository per
//! sub-hypothesis, `<run>/.youra/code/<h>.git`, one commit per executed node holding the
//! `code/` youra wrote for it (taken before its experiment ran), the `results/` the run left
//! (not `results/attempts/`) and `command.json` (the argv that ran it), the commit's parent
//! the plan parent's commit, and a ref `refs/nodes/<id>` beside `commit` in the node's
//! `packet.json`.
//!
//! What ran is what is recorded: [`Repo::snapshot_code`] takes `code/` after youra (or the
//! coding agent) wrote it and before anything ran; [`Repo::after_run`] then names every file
//! the experiment added to, changed in or removed from `code/` as a sandbox violation and
//! puts `code/` back as it was, so neither the node's commit nor a child (which starts from
//! the commit) ever holds what the experiment planted (a `statistics.py` shadowing the
//! standard library, a rewritten script, a nested `.git`).
//!
//! The repository lives outside the workspace the sandbox binds (`<run>/<h>/`), under the
//! run's private `.youra/`, so an experiment never sees or writes it. It may still come from
//! a handed run folder: it is read as data (`git_run.rs`, `code_tree.rs`), every revision is
//! an [`ObjectId`]. Commits carry a fixed author, committer and date, so identical code makes
//! the identical commit (a killed and resumed search records the same commits as an
//! uninterrupted one).

use std::io;
use std::path::{Path, PathBuf};

pub use super::code_error::{CODE_DIR, CODE_REPOS, CodeError, RESULTS_DIR};
use super::code_snapshot::CodeSnapshot;
use super::code_tree::{self, Entry};
use super::git_run::{self, EMPTY_TREE, Io, git};
use super::id::NodeId;
pub use super::object_id::ObjectId;
use super::tree::PlanTree;

/// The key of `packet.json` that names the node's commit.
pub const COMMIT_KEY: &str = "commit";
/// The most characters of a diff the reflector's prompt carries.
pub const DIFF_LIMIT: usize = 4_000;
/// The most characters of a diff a person is shown (`youra plan diff`, the Plan pane).
pub const SHOWN_LIMIT: usize = 2_000_000;
/// The commit's record of the command that ran the node's code (`{"argv": […], "workdir":
/// "code"}`): with `code/`, what re-runs the node. Not written into the workspace.
pub const COMMAND_FILE: &str = "command.json";
const REF_PREFIX: &str = "refs/nodes/";
/// One date for every commit: a commit's hash then depends on its code and its parent only.
const FIXED_DATE: &str = "2000-01-01T00:00:00+0000";

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CodeError + '_ {
    move |source| CodeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A node's commit as recorded, and what the commit left out of the workspace (links,
/// special files, nested `.git`, past the file cap), each named.
#[derive(Debug, Clone)]
pub struct Committed {
    pub commit: ObjectId,
    pub left_out: Vec<String>,
}

/// The repository of sub-hypothesis `h` of `run` (its workspace is `<run>/<h>/`).
#[derive(Debug, Clone)]
pub struct Repo {
    git_dir: PathBuf,
    workspace: PathBuf,
}

impl Repo {
    /// The repository of `h`, created the first time. Fails closed when git is missing.
    pub fn open(run: &Path, h: &str) -> Result<Repo, CodeError> {
        let repo = Repo::at(run, h)?;
        if !repo.git_dir.join("HEAD").is_file() {
            std::fs::create_dir_all(&repo.git_dir).map_err(io_err(&repo.git_dir))?;
            git_run::init(&repo.git_dir)?;
        }
        repo.checked()
    }

    /// `self`, unless it holds what youra's repositories never do ([`git_run::refused`]).
    fn checked(self) -> Result<Repo, CodeError> {
        match git_run::refused(&self.git_dir) {
            None => Ok(self),
            Some(why) => Err(CodeError::Refused(format!(
                "youra does not read {}: {why}; it was not made by youra (remove it to start the node code afresh)",
                self.git_dir.display()
            ))),
        }
    }

    /// The repository of `h` if it exists (readers create nothing).
    pub fn existing(run: &Path, h: &str) -> Result<Repo, CodeError> {
        let repo = Repo::at(run, h)?;
        if !repo.git_dir.join("HEAD").is_file() {
            return Err(CodeError::Refused(format!(
                "{h} has no node code yet ({} does not exist): nodes get code when they are executed with git installed",
                repo.git_dir.display()
            )));
        }
        repo.checked()
    }

    fn at(run: &Path, h: &str) -> Result<Repo, CodeError> {
        crate::ids::check_id("sub-hypothesis", h).map_err(|e| CodeError::Refused(e.to_string()))?;
        Ok(Repo {
            git_dir: run.join(CODE_REPOS).join(format!("{h}.git")),
            workspace: run.join(h),
        })
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>, CodeError> {
        git(&self.git_dir, args, Io::default())
    }

    fn id(&self, what: &str, out: Vec<u8>) -> Result<ObjectId, CodeError> {
        ObjectId::from_output(&out).map_err(|e| CodeError::Git {
            what: what.to_string(),
            repo: self.git_dir.clone(),
            stderr: format!("git answered with {e}"),
        })
    }

    /// Commit `code` (what youra wrote, taken before the run; `None`: `code/` as it is now),
    /// the workspace's `results/` (without `results/attempts/`) and the command that ran them
    /// as node `node`, child of `parent` (`None` for a root); the ref `refs/nodes/<node>`
    /// points at it. Every file is hashed as data (`code_tree.rs`): no filter runs.
    pub fn commit_node(
        &self,
        node: &NodeId,
        parent: Option<&ObjectId>,
        code: Option<&CodeSnapshot>,
        summary: &str,
        command: Option<&[String]>,
    ) -> Result<Committed, CodeError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut left_out = Vec::new();
        match code {
            Some(snapshot) => {
                for (rel, bytes, exec) in snapshot.files() {
                    entries.push(Entry {
                        path: format!("{CODE_DIR}/{rel}"),
                        mode: if exec { "100755" } else { "100644" }.into(),
                        oid: code_tree::hash_bytes(&self.git_dir, bytes.to_vec())?,
                    });
                }
            }
            None => {
                let walked = code_tree::walk(&self.workspace.join(CODE_DIR), "code/", &|_| false);
                entries.extend(code_tree::hash_walked(&self.git_dir, &walked, "code/")?);
                left_out.extend(walked.left_out);
            }
        }
        let attempts = crate::exec::ATTEMPTS_DIR;
        // The run card names the machine and the moment (durations, probe times): a node's
        // commit records what ran and what it measured, so a resumed run commits the same
        // node byte for byte; the card stays in the attempt's collection record.
        let skip = |rel: &str| {
            rel == attempts || rel.ends_with(".pyc") || rel == crate::exec::RUN_CARD_FILE
        };
        let results = code_tree::walk(&self.workspace.join(RESULTS_DIR), "results/", &skip);
        entries.extend(code_tree::hash_walked(&self.git_dir, &results, "results/")?);
        if let Some(argv) = command {
            let json = serde_json::json!({"argv": argv, "workdir": CODE_DIR});
            entries.push(Entry {
                path: COMMAND_FILE.into(),
                mode: "100644".into(),
                oid: code_tree::hash_bytes(&self.git_dir, format!("{json:#}\n").into_bytes())?,
            });
        }
        let tree = code_tree::write_tree(&self.git_dir, &entries, "commit")?;
        let message = format!("{node}: {}\n\nPlan-Node: {node}\n", one_line(summary));
        let mut args = vec!["commit-tree", "-m", message.as_str()];
        if let Some(p) = parent {
            args.extend(["-p", p.as_str()]);
        }
        args.extend(["--end-of-options", tree.as_str()]);
        let dates = [
            ("GIT_AUTHOR_DATE", FIXED_DATE),
            ("GIT_COMMITTER_DATE", FIXED_DATE),
        ];
        let io = Io {
            env: &dates,
            ..Io::default()
        };
        let commit = self.id("commit-tree", git(&self.git_dir, &args, io)?)?;
        let name = format!("{REF_PREFIX}{node}");
        self.git(&["update-ref", "--end-of-options", &name, commit.as_str()])?;
        left_out.extend(results.left_out);
        Ok(Committed { commit, left_out })
    }

    /// The commit `refs/nodes/<node>` names, if any.
    pub fn node_ref(&self, node: &NodeId) -> Option<ObjectId> {
        let name = format!("{REF_PREFIX}{node}^{{commit}}");
        let out = self
            .git(&["rev-parse", "-q", "--verify", "--end-of-options", &name])
            .ok()?;
        ObjectId::from_output(&out).ok()
    }

    /// `commit`, checked to be a commit of this repository.
    fn commit(&self, commit: &ObjectId) -> Result<(), CodeError> {
        let spec = format!("{commit}^{{commit}}");
        self.git(&["rev-parse", "-q", "--verify", "--end-of-options", &spec])
            .map(|_| ())
    }

    /// The workspace's `code/` as `commit` has it (a child starts from its parent's code);
    /// `None`: an empty `code/` (a root starts from nothing).
    pub fn start_from(&self, commit: Option<&ObjectId>) -> Result<(), CodeError> {
        let code = self.workspace.join(CODE_DIR);
        clear(&code)?;
        std::fs::create_dir_all(&code).map_err(io_err(&code))?;
        if let Some(c) = commit {
            self.commit(c)?;
            let entries = code_tree::list(&self.git_dir, c)?;
            code_tree::write_out(&self.git_dir, &entries, "code/", &code)?;
        }
        Ok(())
    }

    /// The workspace's `code/` and `results/` (its `attempts/` kept) as `commit` has them:
    /// the settled search's best node.
    pub fn restore(&self, commit: &ObjectId) -> Result<(), CodeError> {
        self.commit(commit)?;
        let code = self.workspace.join(CODE_DIR);
        clear(&code)?;
        let results = self.workspace.join(RESULTS_DIR);
        if std::fs::symlink_metadata(&results).is_ok_and(|m| m.is_dir()) {
            for e in std::fs::read_dir(&results).map_err(io_err(&results))? {
                let e = e.map_err(io_err(&results))?;
                if e.file_name() != crate::exec::ATTEMPTS_DIR {
                    clear(&e.path())?;
                }
            }
        } else {
            clear(&results)?;
        }
        let attempts = format!("{RESULTS_DIR}/{}/", crate::exec::ATTEMPTS_DIR);
        let entries: Vec<Entry> = code_tree::list(&self.git_dir, commit)?
            .into_iter()
            .filter(|e| e.path.starts_with("code/") || e.path.starts_with("results/"))
            .filter(|e| !e.path.starts_with(&attempts))
            .collect();
        std::fs::create_dir_all(&code).map_err(io_err(&code))?;
        code_tree::write_out(&self.git_dir, &entries, "", &self.workspace)?;
        Ok(())
    }

    /// Every file of `commit` under `into`, which must be empty or absent. Returns the
    /// entries refused (paths that would leave `into` or name `.git`).
    pub fn checkout_into(&self, commit: &ObjectId, into: &Path) -> Result<Vec<String>, CodeError> {
        self.commit(commit)?;
        match std::fs::symlink_metadata(into) {
            Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
                return Err(CodeError::Refused(format!(
                    "{} exists and is not a folder: give a new or empty folder",
                    into.display()
                )));
            }
            Ok(_) => {
                let mut entries = std::fs::read_dir(into).map_err(io_err(into))?;
                if entries.next().is_some() {
                    return Err(CodeError::Refused(format!(
                        "{} is not empty: youra writes a node's files only into a new or empty folder",
                        into.display()
                    )));
                }
            }
            Err(_) => std::fs::create_dir_all(into).map_err(io_err(into))?,
        }
        let entries = code_tree::list(&self.git_dir, commit)?;
        code_tree::write_out(&self.git_dir, &entries, "", into)
    }

    /// `git diff` of `code/` and the command from `parent` (a commit, or the empty tree) to
    /// `commit`: no external diff, no textconv, no attributes, no order file.
    pub fn diff(&self, parent: Option<&ObjectId>, commit: &ObjectId) -> Result<String, CodeError> {
        let from = parent.map_or(EMPTY_TREE, ObjectId::as_str);
        let out = self.git(&[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-O/dev/null",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--end-of-options",
            from,
            commit.as_str(),
            "--",
            COMMAND_FILE,
            CODE_DIR,
        ])?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Paths and blob bytes of `commit`'s tree (for byte-for-byte comparisons).
    pub fn files(&self, commit: &ObjectId) -> Result<Vec<(String, Vec<u8>)>, CodeError> {
        code_tree::list(&self.git_dir, commit)?
            .into_iter()
            .map(|e| Ok((e.path, code_tree::blob(&self.git_dir, &e.oid)?)))
            .collect()
    }
}

/// Remove `path` (a file, a link, or a folder with everything in it; never a link's target).
fn clear(path: &Path) -> Result<(), CodeError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).map_err(io_err(path)),
        Ok(_) => std::fs::remove_file(path).map_err(io_err(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("plan node");
    line.chars().take(120).collect()
}

/// Where a node's packet is, as a run-relative path (for errors).
fn packet_path(node: &NodeId) -> String {
    format!(
        "{}/{}/{node}/{}",
        super::PLAN_DIR,
        super::NODES_DIR,
        super::PACKET_FILE
    )
}

/// The commit a node's `packet.json` names, if any; a value that is not an object id (a
/// handed run's `"--output=/home/me/.bashrc"`) is refused, naming the file and field.
pub(crate) fn recorded_commit(
    tree: &PlanTree,
    node: &NodeId,
) -> Result<Option<ObjectId>, CodeError> {
    let Some(value) = tree
        .get(node)
        .and_then(|n| n.packet.as_ref())
        .and_then(|p| p.extra.get(COMMIT_KEY))
    else {
        return Ok(None);
    };
    let bad = |why: String| {
        CodeError::Refused(format!(
            "{}: field `{COMMIT_KEY}`: {why}; youra gives git only object ids (fix or remove the field)",
            packet_path(node)
        ))
    };
    match value.as_str() {
        Some(text) => ObjectId::parse(text)
            .map(Some)
            .map_err(|e| bad(e.to_string())),
        None => Err(bad(format!("{value} is not a string"))),
    }
}

/// The sub-hypothesis a node's subtree belongs to (its root's).
pub fn node_hypothesis(tree: &PlanTree, node: &NodeId) -> Option<String> {
    let mut at = tree.get(node)?;
    loop {
        if let Some(h) = &at.hypothesis_id {
            return Some(h.clone());
        }
        at = tree.get(at.parent.as_ref()?)?;
    }
}

/// A node's commit: its packet's `commit`, else its ref (a kill between the commit and the
/// tree's save leaves only the ref). A packet's value that is not an object id is an error.
pub fn node_commit(
    repo: &Repo,
    tree: &PlanTree,
    node: &NodeId,
) -> Result<Option<ObjectId>, CodeError> {
    Ok(recorded_commit(tree, node)?.or_else(|| repo.node_ref(node)))
}

/// The repository and commit of `node`, or why it has none.
pub fn locate(run: &Path, tree: &PlanTree, node: &NodeId) -> Result<(Repo, ObjectId), CodeError> {
    if tree.get(node).is_none() {
        return Err(CodeError::Refused(format!(
            "no plan node {node} in this run's plan/tree.json"
        )));
    }
    let h = node_hypothesis(tree, node)
        .ok_or_else(|| CodeError::Refused(format!("{node} belongs to no sub-hypothesis's plan")))?;
    let repo = Repo::existing(run, &h)?;
    let commit = node_commit(&repo, tree, node)?.ok_or_else(|| {
        CodeError::Refused(format!(
            "{node} has no code: it has not been executed (or ran before youra kept code per node)"
        ))
    })?;
    Ok((repo, commit))
}

/// The diff of `node`'s `code/` from its plan parent's (from nothing for a root), at most
/// `limit` characters (see [`bounded`]). For the reflector's prompt, `youra plan diff` and
/// the Plan pane; the text is the model's and the experiment's: escape it before a terminal.
pub fn diff_to_parent(
    run: &Path,
    tree: &PlanTree,
    node: &NodeId,
    limit: usize,
) -> Result<String, CodeError> {
    let (repo, commit) = locate(run, tree, node)?;
    let parent = match tree.get(node).and_then(|n| n.parent.as_ref()) {
        Some(p) => node_commit(&repo, tree, p)?,
        None => None,
    };
    Ok(bounded(&repo.diff(parent.as_ref(), &commit)?, limit))
}

/// `text` cut to at most `limit` characters (at a line end where one is near), with a last
/// line saying how much was left out.
pub fn bounded(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let cut: String = text.chars().take(limit).collect();
    let (kept, end) = match cut.rfind('\n') {
        Some(i) if i >= cut.len() / 2 => (&cut[..=i], ""),
        _ => (cut.as_str(), "\n"),
    };
    let shown = kept.chars().count();
    format!("{kept}{end}… diff cut: {shown} of {total} characters shown\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_table() {
        let long_lines = "line\n".repeat(10); // 50 chars
        let cases: &[(&str, usize, &str)] = &[
            ("", 10, ""),
            ("short\n", 10, "short\n"),
            ("exactly10!", 10, "exactly10!"),
            (
                &long_lines,
                12,
                "line\nline\n… diff cut: 10 of 50 characters shown\n",
            ),
            (
                "abcdefghijklmnop",
                4,
                "abcd\n… diff cut: 4 of 16 characters shown\n",
            ),
            ("ééééé", 3, "ééé\n… diff cut: 3 of 5 characters shown\n"),
        ];
        for (text, limit, want) in cases {
            assert_eq!(bounded(text, *limit), *want, "{text:?} at {limit}");
        }
    }

    #[test]
    fn one_line_takes_the_first_heading_or_line() {
        assert_eq!(one_line("# Standardize\n\nz-scores"), "Standardize");
        assert_eq!(one_line("\n\n"), "plan node");
        assert_eq!(one_line(&"x".repeat(300)).len(), 120);
    }
}
