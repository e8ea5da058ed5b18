#!/usr/bin/env bash
# Runs, under valgrind memcheck with the layer enabled:
#  1. glsem-run on a few scenes (every rewrite: gl_FragColor broadcast with a render pass and
#     with dynamic rendering, XFB struct splits, generated TCSs with changing levels);
#  2. the threads test (tests/reliability/threads.rs, 8 threads, 8 pipelines each, with
#     the validation layer), for the layer's locks and records under concurrency.
# Fails on any *definite* leak whose stack has a frame in the layer (a `VkLayer_glsem::`
# function or libVkLayer_glsem.so). Definite leaks of lavapipe/LLVM alone are counted and
# shown, not judged: they are not ours.
#
# Usage: scripts/leakcheck.sh [SCENE...]      (default: the scenes below)
# Output: target/leakcheck/{scenes,threads}.log (full reports), target/leakcheck/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

scenes=("$@")
if [[ ${#scenes[@]} -eq 0 ]]; then
    scenes=(
        tests/scenes/fragcolor_3_attachments.shader_test
        tests/scenes/fragcolor_dynamic_rendering.shader_test
        tests/scenes/xfb_struct_fragment_reads.shader_test
        tests/scenes/xfb_struct_double_tes_no_tcs.shader_test
        tests/scenes/tess_levels_change_between_draws.shader_test
        tests/scenes/tess_quads_culled.shader_test
    )
fi

command -v valgrind >/dev/null || { echo "leakcheck: valgrind is not installed" >&2; exit 2; }
cargo build --release -p glsem -p glsem-run
threads_test=$(cargo test -p glsem --test reliability --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)

for icd in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
    if [[ -f $icd ]]; then
        export VK_DRIVER_FILES=$icd
        break
    fi
done

out=target/leakcheck
mkdir -p "$out"
rm -f "$out"/*.log

# --keep-debuginfo: the loader unloads the layer at vkDestroyInstance, before the leak
# check runs; without it the layer's frames would print as "???".
memcheck() {
    local name=$1
    shift
    local status=0
    valgrind --leak-check=full --show-leak-kinds=definite --keep-debuginfo=yes \
        --num-callers=60 --log-file="$out/$name.log" "$@" || status=$?
    if [[ $status -ne 0 ]]; then
        echo "leakcheck: $name failed under valgrind (exit $status); see $out/$name.log" >&2
        exit 1
    fi
}

# No validation layer for the scenes: it is slow under valgrind and not what is checked.
memcheck scenes target/release/glsem-run --no-validation "${scenes[@]}"
GLSEM_STRESS_PIPELINES=8 memcheck threads "$threads_test" --test-threads=1 threads::

# One loss record: from "... definitely lost in loss record ..." to the next empty line.
awk -v summary="$out/summary.txt" '
    /definitely lost in loss record/ {
        inrec = 1; ours = 0; text = $0 "\n"
        line = $0; sub(/^==[0-9]+== /, "", line); gsub(/,/, "", line)
        split(line, w, /[ (]/); bytes = w[1] + 0
        next
    }
    inrec && /^==[0-9]+== $/ {
        inrec = 0; all++; all_bytes += bytes
        if (ours) { glsem++; glsem_bytes += bytes; printf "%s\n", text }
        next
    }
    inrec {
        text = text $0 "\n"
        if ($0 ~ /VkLayer_glsem::|libVkLayer_glsem\.so/) ours = 1
    }
    END {
        s = sprintf("definite leak records: %d (%d bytes); with a glsem frame: %d (%d bytes)",
                    all, all_bytes, glsem, glsem_bytes)
        print s > summary
        print s
        exit glsem > 0
    }
' "$out"/*.log || { echo "leakcheck: definite leaks in the layer (see above and $out/)" >&2; exit 1; }
for log in "$out"/*.log; do
    echo "$(basename "$log" .log):"
    grep -A5 "LEAK SUMMARY" "$log" | sed 's/^==[0-9]*== /  /'
done | tee -a "$out/summary.txt"
echo "leakcheck: no definite leak in the layer (${#scenes[@]} scenes, the threads test)"
