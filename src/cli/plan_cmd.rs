//! `youra plan …`: a plan node's code. `checkout` writes the files of a node's commit
//! (`code/` and `results/`) into a new or empty folder; `diff` prints the change of its
//! `code/` from its plan parent's. Both read the sub-hypothesis's repository under
//! `<run>/.youra/code/` (`plan::node_code`); neither changes the run. The repository may come
//! from a handed run folder: it is read as data (youra writes the checkout's files itself,
//! no filter or diff driver of the repository's runs, its packets' commits are object ids).

use std::path::{Path, PathBuf};

use clap::Subcommand;
use color_eyre::eyre::Result;

use super::fail;
use crate::plan::node_code::{self, SHOWN_LIMIT};
use crate::plan::{NodeId, PlanTree, Plans};
use crate::rundir::discover;

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Write a plan node's files (its `code/` and `results/` as its commit holds them) into
    /// a new or empty folder.
    Checkout {
        /// Run folder.
        dir: PathBuf,
        /// The sub-hypothesis whose plan the node is in (`h-e1`).
        hypothesis: String,
        /// The plan node (`n-0003`).
        node: String,
        /// Where to write the files; refused unless new or empty.
        #[arg(long, value_name = "DIR")]
        into: PathBuf,
    },
    /// Print the diff of a plan node's `code/` from its parent's (a root: from nothing).
    Diff {
        /// Run folder.
        dir: PathBuf,
        /// The sub-hypothesis whose plan the node is in (`h-e1`).
        hypothesis: String,
        /// The plan node (`n-0003`).
        node: String,
    },
}

pub fn run(cmd: PlanCommand) -> Result<i32> {
    match cmd {
        PlanCommand::Checkout {
            dir,
            hypothesis,
            node,
            into,
        } => {
            let (run, tree, node) = match open(&super::abs(dir), &hypothesis, &node) {
                Ok(x) => x,
                Err(code) => return Ok(code),
            };
            let into = super::abs(into);
            let done = node_code::locate(&run, &tree, &node).and_then(|(repo, commit)| {
                repo.checkout_into(&commit, &into)
                    .map(|refused| (commit, refused))
            });
            match done {
                Ok((commit, refused)) => {
                    println!(
                        "{node} of {hypothesis} (commit {commit:.12}) written to {}",
                        into.display()
                    );
                    // Entries a handed repository may hold that youra does not write.
                    for r in &refused {
                        println!("  not written: {r}");
                    }
                    Ok(0)
                }
                Err(e) => Ok(fail(e, "")),
            }
        }
        PlanCommand::Diff {
            dir,
            hypothesis,
            node,
        } => {
            let (run, tree, node) = match open(&super::abs(dir), &hypothesis, &node) {
                Ok(x) => x,
                Err(code) => return Ok(code),
            };
            match node_code::diff_to_parent(&run, &tree, &node, SHOWN_LIMIT) {
                Ok(diff) if diff.is_empty() => {
                    println!("{node}: no change to code/ from its parent");
                    Ok(0)
                }
                Ok(diff) => {
                    // `print!` escapes (cli/mod.rs): the diff is the model's and the
                    // experiment's text.
                    print!("{diff}");
                    Ok(0)
                }
                Err(e) => Ok(fail(e, "")),
            }
        }
    }
}

/// The run, its tree and the node, checked: safe ids, and the node in `hypothesis`'s plan.
fn open(
    dir: &Path,
    hypothesis: &str,
    node: &str,
) -> std::result::Result<(PathBuf, PlanTree, NodeId), i32> {
    if let Err(e) = crate::ids::check_id("sub-hypothesis", hypothesis) {
        return Err(fail(e, ""));
    }
    let node = NodeId::new(node)
        .map_err(|e| fail(e, "node ids look like `n-0003` (see the Plan pane)"))?;
    let run = discover(dir).map_err(super::no_run)?.root;
    let tree = crate::plan::load(&run, Plans::Skip)
        .map_err(|e| fail(e, "a run has a plan tree when `[plan] budget_tokens` > 0"))?
        .tree;
    match node_code::node_hypothesis(&tree, &node) {
        Some(h) if h == hypothesis => Ok((run, tree, node)),
        Some(h) => Err(fail(
            format!("{node} is in {h}'s plan, not {hypothesis}'s"),
            "",
        )),
        None => Err(fail(
            format!(
                "no plan node {node} in {}",
                run.join("plan/tree.json").display()
            ),
            "",
        )),
    }
}
