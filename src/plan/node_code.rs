//! Code per plan node (PrimeScientist §3.2: the tree is executable): one git repository per
//! sub-hypothesis, `<run>/.youra/code/<h>.git`, one commit per executed node holding its
//! workspace's `code/` and `results/` (not `results/attempts/`) and `command.json` (the argv
//! that ran it), the commit's parent the plan parent's commit, and a ref `refs/nodes/<id>`
//! beside `commit` in the node's `packet.json`.
//!
//! The repository lives outside the workspace the sandbox binds (`<run>/<h>/`), under the
//! run's private `.youra/`, so an experiment never sees or writes it. Every call runs the
//! `git` binary with the user's configuration, hooks, signing and attributes out of play;
//! commits carry a fixed author, committer and date, so identical code makes the identical
//! commit (a killed and resumed search records the same commits as an uninterrupted one).
//! Nothing is staged in a shared index: each operation uses its own temporary index file.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::id::NodeId;
use super::tree::PlanTree;

/// Under the run: one bare repository per sub-hypothesis, `<h>.git`.
pub const CODE_REPOS: &str = ".youra/code";
/// The key of `packet.json` that names the node's commit.
pub const COMMIT_KEY: &str = "commit";
/// The most characters of a diff the reflector's prompt carries.
pub const DIFF_LIMIT: usize = 4_000;
/// The most characters of a diff a person is shown (`youra plan diff`, the Plan pane).
pub const SHOWN_LIMIT: usize = 2_000_000;
/// What youra commits of a workspace.
pub const CODE_DIR: &str = "code";
pub const RESULTS_DIR: &str = "results";
/// The commit's record of the command that ran the node's code (`{"argv": […], "workdir":
/// "code"}`): with `code/`, what re-runs the node. Not written into the workspace.
pub const COMMAND_FILE: &str = "command.json";
const REF_PREFIX: &str = "refs/nodes/";
/// git's empty tree: the "parent" of a root node.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/// One date for every commit: a commit's hash then depends on its code and its parent only.
const FIXED_DATE: &str = "2000-01-01T00:00:00+0000";
const INSTALL: &str = "apt-get install -y git";

#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    #[error(
        "git was not found on PATH: youra keeps each plan node's code in a git repository per sub-hypothesis ({CODE_REPOS}/<h>.git); install it (`{INSTALL}`) and resume the run"
    )]
    GitMissing,
    #[error("git {what} failed in {}: {stderr}", .repo.display())]
    Git {
        what: String,
        repo: PathBuf,
        stderr: String,
    },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    /// A request youra refuses (an unsafe id, a node without code, a non-empty folder).
    #[error("{0}")]
    Refused(String),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CodeError + '_ {
    move |source| CodeError::Io {
        path: path.to_path_buf(),
        source,
    }
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
            repo.git(&["init", "-q", "--bare"], None)?;
        }
        Ok(repo)
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
        Ok(repo)
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

    /// Run git on this repository; `work`: the work tree and the temporary index, if any.
    /// Returns stdout.
    fn git(&self, args: &[&str], work: Option<(&Path, &Path)>) -> Result<Vec<u8>, CodeError> {
        self.git_env(args, work, &[])
    }

    fn git_env(
        &self,
        args: &[&str],
        work: Option<(&Path, &Path)>,
        env: &[(&str, &str)],
    ) -> Result<Vec<u8>, CodeError> {
        let mut c = Command::new("git");
        // Neither the user's nor the system's configuration: no hooks, no signing, no
        // filters or attributes, no links written (a planted link becomes a text file).
        c.env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "core.symlinks=false",
                "-c",
                "core.autocrlf=false",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "gc.auto=0",
                "-c",
                "user.name=youra",
                "-c",
                "user.email=youra@localhost",
            ])
            .arg("--git-dir")
            .arg(&self.git_dir);
        if let Some((tree, index)) = work {
            c.arg("--work-tree").arg(tree).env("GIT_INDEX_FILE", index);
        }
        c.args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = match c.output() {
            Ok(o) => o,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CodeError::GitMissing),
            Err(e) => return Err(io_err(&self.git_dir)(e)),
        };
        if !out.status.success() {
            return Err(CodeError::Git {
                what: args.first().copied().unwrap_or("").to_string(),
                repo: self.git_dir.clone(),
                stderr: crate::term::escape(String::from_utf8_lossy(&out.stderr).trim())
                    .into_owned(),
            });
        }
        Ok(out.stdout)
    }

    /// A fresh temporary index for one operation (removed by the guard).
    fn index(&self, what: &str) -> TempIndex {
        let path = self
            .git_dir
            .join(format!("index.{what}.{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        TempIndex(path)
    }

    /// Commit the workspace's `code/` and `results/` (without `results/attempts/`) and the
    /// command that ran them as node `node`, child of `parent` (a commit; `None` for a
    /// root); the ref `refs/nodes/<node>` points at it. Returns the commit's hash.
    pub fn commit_node(
        &self,
        node: &NodeId,
        parent: Option<&str>,
        summary: &str,
        command: Option<&[String]>,
    ) -> Result<String, CodeError> {
        let index = self.index("commit");
        let work = Some((self.workspace.as_path(), index.0.as_path()));
        let mut spec: Vec<&str> = vec!["add", "-A", "-f", "--"];
        let before = spec.len();
        let has =
            |d: &str| std::fs::symlink_metadata(self.workspace.join(d)).is_ok_and(|m| m.is_dir());
        if has(CODE_DIR) {
            spec.push(CODE_DIR);
        }
        if has(RESULTS_DIR) {
            spec.extend([RESULTS_DIR, ":(exclude)results/attempts"]);
        }
        if spec.len() > before {
            // Byte code the interpreter leaves beside the sources is not the node's code.
            spec.extend([
                ":(exclude,glob)**/__pycache__/**",
                ":(exclude,glob)**/*.pyc",
            ]);
            self.git(&spec, work)?;
        }
        if let Some(argv) = command {
            // Written beside the index, hashed in, and gone: never in the workspace.
            let json = serde_json::json!({"argv": argv, "workdir": CODE_DIR});
            let file = TempIndex(index.0.with_extension("command"));
            std::fs::write(&file.0, format!("{json:#}\n")).map_err(io_err(&file.0))?;
            let path = file.0.to_string_lossy().into_owned();
            let blob = text(self.git(&["hash-object", "-w", "--", &path], None)?);
            let info = format!("100644,{blob},{COMMAND_FILE}");
            self.git(&["update-index", "--add", "--cacheinfo", &info], work)?;
        }
        let tree = text(self.git(&["write-tree"], work)?);
        let message = format!("{node}: {}\n\nPlan-Node: {node}\n", one_line(summary));
        let mut args = vec!["commit-tree", tree.as_str(), "-m", message.as_str()];
        if let Some(p) = parent {
            args.extend(["-p", p]);
        }
        let dates = [
            ("GIT_AUTHOR_DATE", FIXED_DATE),
            ("GIT_COMMITTER_DATE", FIXED_DATE),
        ];
        let commit = text(self.git_env(&args, None, &dates)?);
        let name = format!("{REF_PREFIX}{node}");
        self.git(&["update-ref", &name, &commit], None)?;
        Ok(commit)
    }

    /// The commit `refs/nodes/<node>` names, if any.
    pub fn node_ref(&self, node: &NodeId) -> Option<String> {
        let name = format!("{REF_PREFIX}{node}^{{commit}}");
        self.git(&["rev-parse", "-q", "--verify", &name], None)
            .ok()
            .map(text)
            .filter(|s| !s.is_empty())
    }

    /// Write the files of `commit` under `dest`: all of them, or into a workspace (`Into::
    /// Workspace`) without the command record, or only `code/`.
    fn materialise(&self, commit: &str, dest: &Path, what: Into) -> Result<(), CodeError> {
        let index = self.index("checkout");
        let work = Some((dest, index.0.as_path()));
        self.git(&["read-tree", commit], work)?;
        let mut drop = vec!["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--"];
        match what {
            Into::Folder => {}
            Into::Workspace => drop.push(COMMAND_FILE),
            Into::Code => drop.extend([COMMAND_FILE, RESULTS_DIR]),
        }
        if drop.len() > 6 {
            self.git(&drop, work)?;
        }
        self.git(&["checkout-index", "-a", "-f"], work)?;
        Ok(())
    }

    /// The workspace's `code/` as `commit` has it (a child starts from its parent's code);
    /// `None`: an empty `code/` (a root starts from nothing).
    pub fn start_from(&self, commit: Option<&str>) -> Result<(), CodeError> {
        let code = self.workspace.join(CODE_DIR);
        clear(&code)?;
        std::fs::create_dir_all(&code).map_err(io_err(&code))?;
        match commit {
            Some(c) => self.materialise(c, &self.workspace, Into::Code),
            None => Ok(()),
        }
    }

    /// The workspace's `code/` and `results/` (its `attempts/` kept) as `commit` has them:
    /// the settled search's best node.
    pub fn restore(&self, commit: &str) -> Result<(), CodeError> {
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
        self.materialise(commit, &self.workspace, Into::Workspace)
    }

    /// Every file of `commit` under `into`, which must be empty or absent.
    pub fn checkout_into(&self, commit: &str, into: &Path) -> Result<(), CodeError> {
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
        self.materialise(commit, into, Into::Folder)
    }

    /// `git diff` of `code/` and the command from `parent` (a commit, or the empty tree) to
    /// `commit`.
    pub fn diff(&self, parent: Option<&str>, commit: &str) -> Result<String, CodeError> {
        let from = parent.unwrap_or(EMPTY_TREE);
        let out = self.git(
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                from,
                commit,
                "--",
                COMMAND_FILE,
                CODE_DIR,
            ],
            None,
        )?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Paths and blob bytes of `commit`'s tree (for byte-for-byte comparisons).
    pub fn files(&self, commit: &str) -> Result<Vec<(String, Vec<u8>)>, CodeError> {
        let list = self.git(&["ls-tree", "-r", "-z", "--full-tree", commit], None)?;
        let mut out = Vec::new();
        for entry in list.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let Some(blob) = meta.split_whitespace().nth(2) else {
                continue;
            };
            out.push((
                path.to_string(),
                self.git(&["cat-file", "blob", blob], None)?,
            ));
        }
        Ok(out)
    }
}

/// What [`Repo::materialise`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Into {
    /// Every file of the commit (`youra plan checkout --into`).
    Folder,
    /// `code/` and `results/` (the settled search's best node).
    Workspace,
    /// `code/` only (a child's start from its parent).
    Code,
}

/// Removes the temporary index (or file) when an operation ends.
struct TempIndex(PathBuf);

impl Drop for TempIndex {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
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

fn text(out: Vec<u8>) -> String {
    String::from_utf8_lossy(&out).trim().to_string()
}

fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("plan node");
    line.chars().take(120).collect()
}

/// The commit a node's `packet.json` names, if any.
pub fn recorded_commit(tree: &PlanTree, node: &NodeId) -> Option<String> {
    tree.get(node)?
        .packet
        .as_ref()?
        .extra
        .get(COMMIT_KEY)?
        .as_str()
        .map(str::to_string)
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
/// tree's save leaves only the ref).
pub fn node_commit(repo: &Repo, tree: &PlanTree, node: &NodeId) -> Option<String> {
    recorded_commit(tree, node).or_else(|| repo.node_ref(node))
}

/// The repository and commit of `node`, or why it has none.
pub fn locate(run: &Path, tree: &PlanTree, node: &NodeId) -> Result<(Repo, String), CodeError> {
    if tree.get(node).is_none() {
        return Err(CodeError::Refused(format!(
            "no plan node {node} in this run's plan/tree.json"
        )));
    }
    let h = node_hypothesis(tree, node)
        .ok_or_else(|| CodeError::Refused(format!("{node} belongs to no sub-hypothesis's plan")))?;
    let repo = Repo::existing(run, &h)?;
    let commit = node_commit(&repo, tree, node).ok_or_else(|| {
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
    let parent = tree
        .get(node)
        .and_then(|n| n.parent.as_ref())
        .and_then(|p| node_commit(&repo, tree, p));
    Ok(bounded(&repo.diff(parent.as_deref(), &commit)?, limit))
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
