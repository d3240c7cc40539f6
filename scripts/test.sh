#!/usr/bin/env bash
# The whole test suite on a fresh machine, in one command: installs what the tests need
# (each step idempotent and cached under target/ where it is heavy), then runs cargo test.
#   bubblewrap        the experiment sandbox (every sandbox test fails without it)
#   poppler-utils     pdftotext, which reads the paper's PDF back in the tests
#   texlive-binaries  bibtex, which reads youra's references.bib in tests/it/paper_bib.rs
#   chromium          headless, it loads `youra report html`'s page in tests/it/report_html.rs
#   the MCP reference server (optional, with Node)   tests/it/tools.rs uses it when present
#   the local model server (llama-cpp-python + SmolLM2-135M, ~7 min once, into target/)
#   a one-node Slurm cluster (slurm-wlm + munge, ~1 min once; the tests start the daemons)
# Extra arguments go to `cargo test` (e.g. `scripts/test.sh --test it exec::`).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)
command -v bibtex >/dev/null || need_apt+=(texlive-binaries)
command -v chromium >/dev/null || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== apt: ${need_apt[*]}"
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi
echo "== the MCP reference server (optional: tests/it/tools.rs skips it when absent)"
(command -v npm >/dev/null && npm install --prefix target/mcp-everything @modelcontextprotocol/server-everything >/dev/null 2>&1) || echo "not installed"
echo "== the local model server (reused from target/ after the first build)"
scripts/local-model.sh install
# tests/local_model.rs and tests/slurm.rs fail instead of skipping when these are missing.
export YOURA_REQUIRE_LOCAL_MODEL=1
echo "== a one-node Slurm cluster for tests/slurm.rs"
scripts/slurm-cluster.sh install
export YOURA_REQUIRE_SLURM=1
echo "== cargo test"
log=$(mktemp)
cargo test --locked "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# One closing line over all test binaries.
awk '/^test result:/ { p += $4; f += $6 } END { printf "%d passed, %d failed\n", p, f }' "$log"
exit "$status"
