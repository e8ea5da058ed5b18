#!/usr/bin/env bash
# glsem's performance figures (issue 7, docs/performance.md): builds the layer and the
# benchmark binary in release mode, then prints one line `name: value` per figure, each
# followed by a `#` line saying how it was measured (medians, how many runs, target).
#
#   scripts/bench.sh                 every figure (about 2 minutes of measuring)
#   scripts/bench.sh --quick         10% of the runs: a smoke run, not for the figures
#   scripts/bench.sh --only A,B      only the figures whose name contains A or B
#
# Needs lavapipe (or another Vulkan driver), glslangValidator, spirv-val and spirv-opt.
# `zink_piglit_ratio` also needs piglit's shader_runner (`apt-get install piglit
# libegl-mesa0 libgl1-mesa-dri`; GLSEM_SHADER_RUNNER=<path> to use another) and runs the
# tests through zink with the layer manifest in layer-manifest/, which points at the
# library this script builds; without piglit that line reads `n/a`.
# `process_startup_ms` runs the bench binary itself as the child process.
set -euo pipefail
cd "$(dirname "$0")/.."

# The layer and the bench binary come from one build, so the library the loader loads is
# the one the bench's SPIR-V figures link. The do-nothing layer of benches/empty_layer (the
# anchor of the `*_over_empty_*` figures, not shipped) is built beside it; the bench writes
# its manifest.
cargo build --release -p glsem -p glsem-bench-empty-layer --lib --quiet
GLSEM_LAYER_LIB="$PWD/target/release/libVkLayer_glsem.so" \
    exec cargo bench -p glsem --bench glsem --quiet -- "$@"
