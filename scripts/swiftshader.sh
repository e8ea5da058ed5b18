#!/usr/bin/env bash
# The scene suite on SwiftShader (docs/drivers.md), checked against
# scripts/swiftshader-known-failures.txt exactly (scripts/check-known-failures.py):
#   whole         every scene through the layer, whole pipelines (glsem-run's default)
#   libraries     every scene through the layer, four linked pipeline libraries
#   runner-plain  the runner's own scenes (runner_*) on plain Vulkan, without the layer
# A scene may SKIP only naming a GL feature SwiftShader lacks; a FAIL must be listed, with
# its text, and a listed scene must still FAIL. Needs the release build of glsem-run and
# the layer (cargo build --release). Then the layer's test binaries that drive a device
# (cargo test's debug builds), which must pass, a test needing what SwiftShader lacks
# SKIPping by name. Reports go to target/swiftshader-results/ (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."

icd=$PWD/target/swiftshader/vk_swiftshader_icd.json
[[ -f $icd ]] || scripts/setup.sh
export VK_DRIVER_FILES=$icd
# The loader must find SwiftShader: nothing else, no fallback to another driver.
if ! vulkaninfo --summary 2>/dev/null | grep -q 'driverID *= DRIVER_ID_GOOGLE_SWIFTSHADER'; then
    echo "swiftshader: the Vulkan loader does not find SwiftShader through $icd" >&2
    vulkaninfo --summary >&2 || true
    exit 1
fi

out=${1:-target/swiftshader-results}
mkdir -p "$out"
start=$SECONDS
run() {
    local mode=$1
    shift
    local rc=0
    target/release/glsem-run --validation "$@" >"$out/$mode.txt" 2>"$out/$mode.err" || rc=$?
    # 1 is "a scene failed", which the list decides; anything else is the runner's own.
    if ((rc > 1)); then
        echo "swiftshader: glsem-run $* exited $rc" >&2
        tail -n 20 "$out/$mode.err" >&2
        exit 1
    fi
}
run whole tests/scenes/*.shader_test
run libraries --pipelines libraries tests/scenes/*.shader_test
run dynamic --pipelines dynamic-state tests/scenes/*.shader_test
run runner-plain --no-layer tests/scenes/runner_*.shader_test
python3 scripts/check-known-failures.py scripts/swiftshader-known-failures.txt \
    whole="$out/whole.txt" libraries="$out/libraries.txt" dynamic="$out/dynamic.txt" \
    runner-plain="$out/runner-plain.txt"
# Where a rule's route is missing, the layer says so once per device: the line rule's
# stipple, which shader objects do not get there.
for said in "lacks stippledBresenhamLines"; do
    if ! grep -q "$said" "$out/libraries.err"; then
        echo "swiftshader: the layer did not say that the driver $said" >&2
        exit 1
    fi
done
echo "swiftshader: scene suite checked in $((SECONDS - start)) s (reports in $out/)"

# The layer's test binaries that drive a device, on SwiftShader: the debug builds of the
# lavapipe run (`cargo test --workspace`, so the same features: nothing is rebuilt). A test
# needing a feature SwiftShader lacks prints `SKIP: <test> needs <feature>` and returns
# (tests/support/features.rs; it would fail on lavapipe). Not run here: the unit tests,
# passes, docs and fuzz_regressions (no driver), runner/tests/scenes.rs (lavapipe's
# results; the scene runs above are its counterpart) and runner/tests/window.rs
# (VK_KHR_xlib_surface, which Chromium's SwiftShader lacks).
start=$SECONDS
if ! cargo test -q --workspace --test 'layer*' --test 'reliability*' --test c_api \
    -- --show-output >"$out/tests.txt" 2>&1; then
    grep -E '^(test .*FAILED|failures:|---- )|panicked' "$out/tests.txt" >&2 || true
    echo "swiftshader: a test binary failed (all of it in $out/tests.txt)" >&2
    exit 1
fi
grep '^SKIP: ' "$out/tests.txt" | sort >"$out/tests-skips.txt" || true
echo "swiftshader: test binaries passed in $((SECONDS - start)) s," \
    "$(wc -l <"$out/tests-skips.txt") SKIPs naming what SwiftShader lacks ($out/tests-skips.txt)"
