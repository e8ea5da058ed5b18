#!/usr/bin/env bash
# Builds everything and runs every test on lavapipe, then the scene suite on SwiftShader.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

# CI always runs on lavapipe (Mesa's CPU Vulkan driver), whatever else is installed.
for icd in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
    if [[ -f $icd ]]; then
        export VK_DRIVER_FILES=$icd
        break
    fi
done

# Style first: it is cheap and fails fast.
cargo fmt --all -- --check
cargo clippy --workspace --tests --benches -- -D warnings
# No import circle in any module directory of any crate.
for crate_src in src crates/*/src runner/src; do
    python3 scripts/module-cycles.py "$crate_src" >/dev/null || python3 scripts/module-cycles.py "$crate_src"
done

cargo build --workspace --release
cargo build --workspace
cargo test --workspace

# The scene suite on SwiftShader too (docs/drivers.md), against the exact list of scenes
# that fail there, scripts/swiftshader-known-failures.txt: 45–70 s on two cores; then the
# layer's test binaries there, built above (29–43 s). scripts/swiftshader.sh says how long
# each took.
scripts/swiftshader.sh

# The Debian package: built, installed with dpkg -i, two scenes through the installed
# implicit layer (VK_GLSEM_ENABLE=1), removed with dpkg -r (scripts/test-package.sh).
scripts/test-package.sh

# piglit's GLSL corpus, a smoke set (scripts/piglit.sh installs piglit when missing): about
# 250 tests through glsem-run and a slice of 82 generated tests against
# scripts/piglit-smoke.txt, and 85 through zink with and without glsem beneath it, which
# must agree.
scripts/piglit.sh --smoke
