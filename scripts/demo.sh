#!/usr/bin/env bash
# The main job on a fresh machine, in one command: installs bubblewrap when it is missing
# (the experiments run in its sandbox, which youra requires), builds youra and runs the
# offline demo in the TUI. Arguments go to `youra demo` (e.g. `--step`, `--headless`).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v bwrap >/dev/null; then
    echo "installing bubblewrap (the experiment sandbox)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq bubblewrap
    else
        sudo apt-get update -qq && sudo apt-get install -y -qq bubblewrap
    fi
fi
exec cargo run --release --locked -- demo "$@"
