//! The integration tests, one binary (`cargo test --test it`; one file's tests:
//! `cargo test --test it exec::`). Each module was a test binary of its own, and each linked
//! the whole crate. Shared helpers are in `common/`; insta's snapshots in `snapshots/`, named
//! `it__<module>__<name>.snap`.
//!
//! These stay binaries of their own (`tests/*.rs`), since each needs a process to itself:
//! - `tests/kill_sweep.rs`: minutes of SIGKILLs at every write step, an outside killer racing
//!   the file's revision: timing-driven and the suite's longest, so it runs alone.
//! - `tests/llm_http.rs`: it sets the provider's key with std::env::set_var: every other test,
//!   and every child it spawns, would see the key, and set_var races the other threads' reads.
//! - `tests/local_model.rs`: a llama.cpp server and minutes of generation under a 10-minute
//!   cap; beside the other tests it would compete for the CPUs it is timed on.
//! - `tests/paper_offline.rs`: it sets YOURA_OPENALEX_URL with std::env::set_var (the same leak
//!   and race).
//! - `tests/reader_caps.rs`: its counting #[global_allocator] measures the process's peak heap,
//!   which the other tests' allocations would swell (and every test would pay for the counter).
//! - `tests/slurm.rs`: it starts the Slurm daemons once per process and stops them from a
//!   libc::atexit hook.
//! - `tests/tui_engine_e2e.rs`: a timed pseudo-terminal run of the whole demo (the engine
//!   resumes within 3 s), kept off the machine while the other terminal tests run.

mod common;

mod allocation_bench;
mod audit;
mod audit_corpus;
mod audit_paper;
mod audit_tui;
mod breakpoints;
mod chart_downsample;
mod cli;
mod controller_next;
mod controller_routing;
mod data_fetch;
mod debate;
mod demo;
mod demo_post_hoc;
mod engine_loops;
mod engine_steering;
mod engine_tools;
mod engine_transactions;
mod evidence_check;
mod evidence_confirm;
mod evidence_gates;
mod evidence_kills;
mod evidence_paper;
mod evidence_stats;
mod exec;
mod experiment_index;
mod experiment_review;
mod experiment_review_attacks;
mod gate_evidence_shown;
mod gateway;
mod handed_run;
mod hypothesis_loop;
mod incremental_read;
mod init_data;
mod init_endpoint;
mod layers;
mod lifecycle;
mod memory_compat;
mod memory_import;
mod msrv;
mod newcomer;
mod notify;
mod outage;
mod paper_bib;
mod paper_numbers;
mod paper_pdf;
mod paper_refs;
mod paper_tui;
mod paper_typst;
mod parallel;
mod plan_budget;
mod plan_budget_per_h;
mod plan_code;
mod plan_ledger;
mod plan_reflector_evidence;
mod plan_steering;
mod plan_tree;
mod planned_criteria;
mod readme_own_study;
mod recovery;
mod recovery_bounds;
mod reflect;
mod replay_commands;
mod replay_compare;
mod report;
mod report_claims;
mod report_html;
mod reset_end_to_end;
mod review_tui;
mod routers_part;
mod routing_bench;
mod routing_youra;
mod run_card;
mod run_reads;
mod run_trust;
mod sandbox_privileges;
mod sandbox_root;
mod signals;
mod start_errors;
mod steering;
mod study_sex;
mod terminal_safety;
mod tools;
mod tui_compare;
mod tui_copy_e2e;
mod tui_demo_snapshots;
mod tui_e2e;
mod tui_gate_evidence;
mod tui_hostile_text;
mod tui_keep;
mod tui_keys;
mod tui_lessons;
mod tui_overlays;
mod tui_runs;
mod tui_snapshots;
mod vsa_compat;
mod vsa_concurrency;
mod vsa_crash;
mod vsa_drift;
mod vsa_edit;
mod vsa_hostile;
mod vsa_ids;
mod vsa_journal;
mod vsa_mutations;
mod vsa_props;
mod vsa_transactions;
mod what_ran;
mod who_decided;
mod workspace_trust;
