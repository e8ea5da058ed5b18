#!/usr/bin/env bash
# Builds of the layer compared on the pass-through figures (issue 45,
# docs/performance.md): `bench --only passthrough_pipeline` run with each build in turn,
# round after round, then the median, lowest and highest `glsem_over_empty_ratio` and
# `glsem_over_empty_ratio_new_code` of each build. One machine's spell moves these figures
# by a few thousandths; builds compared in one alternated loop share it.
#
#   scripts/bench-ab.sh --save DIR             build this tree's layer (release) into DIR
#   scripts/bench-ab.sh [--rounds N] [--pin CPU] [--bench FILE] DIR_A DIR_B ...
#                                              N rounds (default 9) of every DIR in turn,
#                                              pinned to one CPU with taskset if asked
#
# A DIR holds libVkLayer_glsem.so and the do-nothing layer beside it
# (libVkLayer_glsem_bench_empty.so), as `--save` leaves them. The bench binary is this
# tree's, or FILE, one built here for a machine without cargo (`cargo bench --bench glsem
# --no-run` prints its path). Needs what scripts/bench.sh needs; python3 for the medians.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

rounds=9
pin=()
bench=
dirs=()
while (($#)); do
    case $1 in
    --save)
        [[ $# -ge 2 ]] || usage
        cargo build --release -p glsem -p glsem-bench-empty-layer --lib --quiet
        mkdir -p "$2"
        cp target/release/libVkLayer_glsem.so target/release/libVkLayer_glsem_bench_empty.so "$2/"
        echo "bench-ab: the layer of $(git rev-parse --short HEAD) in $2"
        exit 0
        ;;
    --rounds)
        [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage
        rounds=$2
        shift 2
        ;;
    --pin)
        [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage
        pin=(taskset -c "$2")
        shift 2
        ;;
    --bench)
        [[ $# -ge 2 && -x $2 ]] || usage
        bench=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
        shift 2
        ;;
    -*) usage ;;
    *)
        [[ -f $1/libVkLayer_glsem.so && -f $1/libVkLayer_glsem_bench_empty.so ]] || {
            echo "bench-ab: $1 has no libVkLayer_glsem.so and libVkLayer_glsem_bench_empty.so (make it with --save)" >&2
            exit 2
        }
        dirs+=("$(cd "$1" && pwd)")
        shift
        ;;
    esac
done
((${#dirs[@]} >= 1)) || usage

[[ -n $bench ]] || bench=$(cargo bench -p glsem --bench glsem --no-run --message-format=json --quiet 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "glsem":
        print(m["executable"])')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((round = 1; round <= rounds; round++)); do
    for dir in "${dirs[@]}"; do
        echo "== $dir" >>"$log"
        GLSEM_LAYER_LIB="$dir/libVkLayer_glsem.so" "${pin[@]}" "$bench" --bench \
            --only passthrough_pipeline 2>&1 | grep -E '^[a-z_]+:' >>"$log"
    done
    echo "bench-ab: round $round of $rounds" >&2
done
python3 - "$log" "${dirs[@]}" <<'EOF'
import re, statistics, sys
runs = {}
for block in open(sys.argv[1]).read().split("== ")[1:]:
    dir, _, text = block.partition("\n")
    for name in ("glsem_over_empty_ratio", "glsem_over_empty_ratio_new_code"):
        m = re.search(rf"^{name}: ([0-9.]+)$", text, re.M)
        if m:
            runs.setdefault((dir, name), []).append(float(m.group(1)))
for dir in sys.argv[2:]:
    for name in ("glsem_over_empty_ratio", "glsem_over_empty_ratio_new_code"):
        v = runs.get((dir, name), [])
        if v:
            print(f"{dir}: {name} median {statistics.median(v):.4f} "
                  f"({min(v):.4f}-{max(v):.4f}, {len(v)} runs): "
                  + " ".join(f"{x:.4f}" for x in v))
EOF
