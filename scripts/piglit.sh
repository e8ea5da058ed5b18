#!/usr/bin/env bash
# Runs piglit's GLSL execution corpus (GLSL >= 1.40, and GLSL 1.10-1.30 beside it) and
# writes docs/piglit.md:
#   gl     piglit's shader_runner on GL, Mesa llvmpipe (the oracle)
#   zink   piglit's shader_runner on GL, Mesa zink over lavapipe
#   vk     glsem-run --no-layer: the scene on plain Vulkan (lavapipe), whole pipelines
#   glsem  glsem-run: the scene on Vulkan with the glsem layer (lavapipe), whole pipelines
#   vk-libraries, glsem-libraries            the same through graphics pipeline libraries
#   vk-shader-objects, glsem-shader-objects  the same through VK_EXT_shader_object
#   vk-dynamic-state, glsem-dynamic-state    the same through whole pipelines with every
#                                            dynamic state the driver has
#                                            (glsem-run --pipelines PATH; a path the driver
#                                            lacks is left out)
# (and zink-glsem: zink with glsem beneath it, compared with zink: must be identical)
#
#   scripts/piglit.sh            the whole corpus (1457 tests; a glsem-run column takes
#                                about 8 minutes on 2 cores)
#   scripts/piglit.sh --smoke    ~150 GLSL >= 1.40 and ~100 GLSL 1.10-1.30 tests through
#                                glsem-run (whole pipelines and, every other one, libraries
#                                and dynamic state)
#                                and ~80 through zink with
#                                and without glsem beneath it (the two must agree), and a
#                                fixed slice of the generated tests (~80) through glsem-run,
#                                against scripts/piglit-smoke.txt; exits 1 on a regression
#   scripts/piglit.sh --smoke --update   rewrites scripts/piglit-smoke.txt
#   scripts/piglit.sh --sample   a fixed sample of what the corpus leaves out: every 56th
#                                shader_test of tests/spec and generated_tests/spec not in
#                                the corpus (~600) through glsem-run, results in
#                                $OUT/sample/glsem.tsv and its misses tallied by reason
#                                (scripts/piglit-tally.py)
#   scripts/piglit.sh --all      every shader_test piglit ships (tests/ and generated_tests/,
#                                35 078): GL first, then glsem-run on each test, then plain
#                                Vulkan (--no-layer) on each test glsem-run misses; results
#                                in $OUT/all/COLUMN.tsv, tallied into docs/piglit-all.md.
#                                Resumable: a test with a result is not run again (stop it
#                                any time; delete a column's lines to run them again). In a
#                                fixed shuffled order, so a part run is a random sample.
#                                About 90 minutes for GL and 2.5 hours for glsem-run on 2
#                                cores. ALL_COLUMNS picks the columns (default "gl glsem
#                                vk"; add zink for shader_runner on zink over lavapipe).
#
# Environment: JOBS (parallel runs, default: the number of cores), PIGLIT_DIR (piglit's
# install, default /usr/lib/x86_64-linux-gnu/piglit), OUT (results, default
# target/piglit), COLUMNS (which of the columns above to rerun; default all;
# zink-glsem is zink with the glsem layer beneath it, which must change nothing),
# GLSEM_RUN (default target/release/glsem-run). Installs piglit and Mesa's EGL/GL drivers
# when missing.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
PIGLIT_DIR="${PIGLIT_DIR:-/usr/lib/x86_64-linux-gnu/piglit}"
OUT="${OUT:-$REPO/target/piglit}"
JOBS="${JOBS:-$(nproc)}"
LVP_ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
# glsem-run (it loads the layer library next to itself).
GLSEM_RUN="${GLSEM_RUN:-$REPO/target/release/glsem-run}"
SMOKE=0
UPDATE=0
SAMPLE=0
ALL_TESTS=0
for arg in "$@"; do
    case "$arg" in
        --smoke) SMOKE=1 ;;
        --update) UPDATE=1 ;;
        --sample) SAMPLE=1 ;;
        --all) ALL_TESTS=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "unknown argument $arg" >&2; exit 2 ;;
    esac
done

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x "$PIGLIT_DIR/bin/shader_runner" ]; then
    echo "installing piglit..."
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q piglit libegl-mesa0 libgl1-mesa-dri
fi
for pkg in libegl-mesa0 libgl1-mesa-dri; do
    dpkg -s "$pkg" >/dev/null 2>&1 || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg"
done

if [ ! -x "$GLSEM_RUN" ] || [ ! -f target/release/libVkLayer_glsem.so ]; then
    echo "building the layer and glsem-run..."
    cargo build --release
    cargo build --release -p glsem-run
fi

SPEC="$PIGLIT_DIR/tests/spec"
CATEGORIES="glsl-1.40 glsl-1.50 glsl-3.30 arb_tessellation_shader arb_gpu_shader_fp64 arb_enhanced_layouts arb_gl_spirv"
# The wider corpus: only its tests whose [require] asks for GLSL >= 1.40 (core GLSL that
# glslang can target Vulkan from). arb_fragment_layer_viewport keeps its tests outside
# `execution`: all of them.
# GL's compatibility-profile languages, which glsem-run translates (docs/scene-format.md).
GLSL1="glsl-1.10 glsl-1.20 glsl-1.30"
WIDER="arb_separate_shader_objects arb_gpu_shader5 arb_arrays_of_arrays arb_shader_storage_buffer_object arb_compute_shader arb_shading_language_420pack glsl-4.00 glsl-4.10 glsl-4.20 glsl-4.30 glsl-4.40 glsl-4.50 glsl-4.60"
mkdir -p "$OUT"
CORPUS="$OUT/corpus.txt"
glsl_140_or_later() {
    while IFS= read -r t; do
        awk '/^\[require\]/{r=1; next} /^\[/{r=0} r && $1=="GLSL" && $2==">=" {v=$3+0; exit} END{exit !(v>=1.40)}' "$t" && printf '%s\n' "$t"
    done
}
( cd "$SPEC" && {
    for c in $CATEGORIES $GLSL1; do find "$c" -path '*execution*' -name '*.shader_test'; done
    { for c in $WIDER; do [ -d "$c" ] && find "$c" -path '*execution*' -name '*.shader_test'; done
      find arb_fragment_layer_viewport -name '*.shader_test'; } | glsl_140_or_later
} ) | sort > "$CORPUS"

export REPO SPEC LVP_ICD PIGLIT_DIR GLSEM_RUN
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$OUT/xdg}"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

# One test, one process (a crash or hang loses one result). Prints
# "STATUS<TAB>test<TAB>reason" with STATUS PASS, FAIL or SKIP.
run_one() {
    local column="$1" test="$2" file="$SPEC/$2" out rc line
    case "$column" in
        gl|zink|zink-glsem)
            local env=(PIGLIT_PLATFORM=surfaceless_egl LIBGL_ALWAYS_SOFTWARE=1)
            [ "$column" != gl ] && env+=(GALLIUM_DRIVER=zink VK_DRIVER_FILES="$LVP_ICD")
            [ "$column" = zink-glsem ] && env+=(VK_ADD_LAYER_PATH="$REPO/layer-manifest" VK_INSTANCE_LAYERS=VK_LAYER_GLSEM_gl_semantics)
            # GL ES tests run on GL ES, as piglit runs them (shader_runner_gles2 below 3.0).
            local runner=shader_runner es
            es=$(awk '/^\[require\]/{r=1; next} /^\[/{r=0} r && $1=="GL" && $2=="ES" {print $4; exit}' "$file")
            case "$es" in "") ;; 2*|1*) runner=shader_runner_gles2 ;; *) runner=shader_runner_gles3 ;; esac
            set +e
            out=$(cd "$(dirname "$file")" && env "${env[@]}" timeout 60 "$PIGLIT_DIR/bin/$runner" "$file" -auto -fbo 2>&1)
            rc=$?
            set -e
            local result
            result=$(printf '%s\n' "$out" | sed -n 's/^PIGLIT: {"result": "\([a-z]*\)".*/\1/p' | tail -1)
            local why
            why=$(printf '%s\n' "$out" | grep -v '^PIGLIT:' | grep -v -i 'XDG_RUNTIME_DIR\|^libEGL warning' | head -3 | tr '\n\t' '  ' | cut -c1-300)
            case "$result" in
                pass) printf 'PASS\t%s\t\n' "$test" ;;
                skip) printf 'SKIP\t%s\t%s\n' "$test" "$why" ;;
                fail|warn) printf 'FAIL\t%s\t%s\n' "$test" "$why" ;;
                *) printf 'FAIL\t%s\t%s\n' "$test" "$( [ $rc = 124 ] && echo timeout || echo "exit $rc: $why")" ;;
            esac
            ;;
        glsem*|vk*)
            local args=(--validation --piglit)
            case "$column" in vk*) args+=(--no-layer) ;; esac
            case "$column" in *-libraries) args+=(--pipelines libraries) ;; *-shader-objects) args+=(--pipelines shader-objects) ;; *-dynamic-state) args+=(--pipelines dynamic-state) ;; esac
            set +e
            out=$(VK_DRIVER_FILES="$LVP_ICD" timeout 60 "$GLSEM_RUN" "${args[@]}" "$file" 2>/dev/null)
            rc=$?
            set -e
            line=$(printf '%s\n' "$out" | head -1)
            case "$line" in
                PASS\ *) printf 'PASS\t%s\t\n' "$test" ;;
                FAIL\ *|SKIP\ *)
                    local why="${line#* "$file"}"; why="${why#: }"
                    printf '%s\t%s\t%s\n' "${line%% *}" "$test" "$(printf '%s' "$why" | tr '\t' ' ' | cut -c1-400)" ;;
                *) printf 'FAIL\t%s\t%s\n' "$test" "$( [ $rc = 124 ] && echo timeout || echo "crashed (exit status $rc)")" ;;
            esac
            ;;
    esac
}
export -f run_one

# run_column COLUMN LIST: results into $OUT/COLUMN.tsv, one progress line per test. With
# RESUME=1 the results already there stay and only the tests without one run.
run_column() {
    local column="$1" list="$2" total done=0
    if [ "${RESUME:-0}" = 1 ]; then
        touch "$OUT/$column.tsv"
        grep -vxFf <(cut -f2 "$OUT/$column.tsv") "$list" > "$OUT/$column.todo" || true
        list="$OUT/$column.todo"
    else
        : > "$OUT/$column.tsv"
    fi
    total=$(wc -l < "$list")
    while IFS= read -r result; do
        done=$((done + 1))
        printf '%s\n' "$result" >> "$OUT/$column.tsv"
        printf '\r[%-10s] %3d/%d %-4s %-90.90s' "$column" "$done" "$total" "${result%%	*}" "$(printf '%s' "$result" | cut -f2)" >&2
    done < <(xargs -a "$list" -d '\n' -P "$JOBS" -I{} bash -c 'run_one "$0" "$1"' "$column" {})
    printf '\n' >&2
    sort -t "$(printf '\t')" -k2,2 -o "$OUT/$column.tsv" "$OUT/$column.tsv"
    printf '%-10s %s passed, %s failed, %s skipped\n' "$column" \
        "$(grep -c '^PASS' "$OUT/$column.tsv" || true)" "$(grep -c '^FAIL' "$OUT/$column.tsv" || true)" \
        "$(grep -c '^SKIP' "$OUT/$column.tsv" || true)" >&2
}

if [ "$SAMPLE" = 1 ]; then
    OUT="$OUT/sample"
    mkdir -p "$OUT"
    # Paths under piglit's install (the sample spans tests/ and generated_tests/).
    ( cd "$PIGLIT_DIR" && find tests/spec generated_tests/spec -name '*.shader_test' ) | sort \
        | grep -vxFf <(sed 's|^|tests/spec/|' "$CORPUS") | awk 'NR % 56 == 1' > "$OUT/sample.txt"
    export SPEC="$PIGLIT_DIR"
    run_column glsem "$OUT/sample.txt"
    python3 "$REPO/scripts/piglit-tally.py" "$OUT"
    exit 0
fi

if [ "$ALL_TESTS" = 1 ]; then
    OUT="$OUT/all"
    mkdir -p "$OUT"
    # Paths under piglit's install, shuffled by a fixed seed: a part run is a random sample.
    ( cd "$PIGLIT_DIR" && find tests/spec generated_tests/spec -name '*.shader_test' ) | sort \
        | shuf --random-source=<(yes 20261130) > "$OUT/all.txt"
    export SPEC="$PIGLIT_DIR"
    for column in ${ALL_COLUMNS:-gl glsem vk}; do
        case "$column" in
            # --no-layer only where glsem-run misses: does a test pass without the layer only?
            vk) grep -v '^PASS' "$OUT/glsem.tsv" | cut -f2 > "$OUT/glsem-misses.txt" || true
                RESUME=1 run_column vk "$OUT/glsem-misses.txt" ;;
            *) RESUME=1 run_column "$column" "$OUT/all.txt" ;;
        esac
    done
    python3 "$REPO/scripts/piglit-tally.py" "$OUT" --markdown "$REPO/docs/piglit-all.md" \
        --causes "$REPO/scripts/piglit-causes.txt"
    exit 0
fi

if [ "$SMOKE" = 1 ]; then
    EXPECT="$REPO/scripts/piglit-smoke.txt"
    # Its own folder: the whole corpus's results (and docs/piglit.md's source) stay.
    OUT="$OUT/smoke"
    mkdir -p "$OUT"
    # A fixed sample: every 4th GLSL >= 1.40 test outside the compatibility profile (~150)
    # and every 8th GLSL 1.10-1.30 one (~100) through glsem-run, every 10th GLSL >= 1.40
    # test and every 40th GLSL 1.10-1.30 one (~85) through zink.
    glsl1='^glsl-1\.[123]0/'
    { grep -v /compatibility/ "$CORPUS" | grep -Ev "$glsl1" | awk 'NR % 4 == 1'
      grep -E "$glsl1" "$CORPUS" | awk 'NR % 8 == 1'; } > "$OUT/smoke-glsem.txt"
    awk 'NR % 2 == 1' "$OUT/smoke-glsem.txt" > "$OUT/smoke-glsem-libraries.txt"
    { grep -Ev "$glsl1" "$CORPUS" | awk 'NR % 10 == 3'
      grep -E "$glsl1" "$CORPUS" | awk 'NR % 40 == 3'; } > "$OUT/smoke-zink.txt"
    run_column glsem "$OUT/smoke-glsem.txt"
    run_column glsem-libraries "$OUT/smoke-glsem-libraries.txt"
    run_column glsem-dynamic-state "$OUT/smoke-glsem-libraries.txt"
    run_column zink "$OUT/smoke-zink.txt"
    run_column zink-glsem "$OUT/smoke-zink.txt"
    # A fixed slice of piglit's generated tests, which the corpus leaves out (every 400th,
    # ~80; paths under piglit's install).
    ( cd "$PIGLIT_DIR" && find generated_tests/spec -name '*.shader_test' ) | sort \
        | awk 'NR % 400 == 7' > "$OUT/smoke-generated.txt"
    SPEC="$PIGLIT_DIR" run_column glsem-generated "$OUT/smoke-generated.txt"
    status=0
    # glsem beneath zink must change nothing: zink only uses Vulkan's own semantics.
    if ! diff <(cut -f1,2 "$OUT/zink.tsv") <(cut -f1,2 "$OUT/zink-glsem.tsv") > "$OUT/zink-diff.txt"; then
        echo "zink with glsem beneath it differs from zink alone:" >&2
        cat "$OUT/zink-diff.txt" >&2
        status=1
    fi
    # A test that passes through whole pipelines passes through libraries and with every
    # dynamic state too (else a layer or runner bug on that path).
    # scripts/piglit-path-limits.txt names the layer's documented limits of a path (PATH TEST,
    # each with the docs that say why): those may fail there, and only those.
    for path in libraries dynamic-state; do
        worse=$(join -t "$(printf '\t')" <(awk -F'\t' '$1=="PASS"{print $2}' "$OUT/glsem.tsv" | sort) \
            <(awk -F'\t' '$1!="PASS"{print $2"\t"$1}' "$OUT/glsem-$path.tsv" | sort) |
            grep -v -F -f <(grep -v '^#' "$REPO/scripts/piglit-path-limits.txt" | awk -F'\t' -v p="$path" '$1==p{print $2}') || true)
        if [ -n "$worse" ]; then
            printf 'passes through whole pipelines, not through %s:\n%s\n' "$path" "$worse" >&2
            status=1
        fi
    done
    current=$( (sed 's/^/glsem\t/' "$OUT/glsem.tsv"; sed 's/^/glsem-libraries\t/' "$OUT/glsem-libraries.tsv"
                sed 's/^/glsem-dynamic-state\t/' "$OUT/glsem-dynamic-state.tsv"
                sed 's/^/glsem-generated\t/' "$OUT/glsem-generated.tsv"
                sed 's/^/zink\t/' "$OUT/zink.tsv") | cut -f1-3 | sort)
    if [ "$UPDATE" = 1 ]; then
        { echo "# scripts/piglit.sh --smoke expectations: COLUMN STATUS TEST (tab-separated)."
          echo "# Regenerate with scripts/piglit.sh --smoke --update after a real improvement."
          printf '%s\n' "$current"; } > "$EXPECT"
        echo "wrote $EXPECT" >&2
        exit $status
    fi
    regressions=$(join -t "$(printf '\t')" <(grep -v '^#' "$EXPECT" | awk -F'\t' '$2=="PASS"{print $1"|"$3"\t"$2}' | sort) \
        <(printf '%s\n' "$current" | awk -F'\t' '{print $1"|"$3"\t"$2}' | sort) | awk -F'\t' '$3!="PASS"{print $1" now "$3}')
    improvements=$(join -t "$(printf '\t')" <(grep -v '^#' "$EXPECT" | awk -F'\t' '$2!="PASS"{print $1"|"$3"\t"$2}' | sort) \
        <(printf '%s\n' "$current" | awk -F'\t' '{print $1"|"$3"\t"$2}' | sort) | awk -F'\t' '$3=="PASS"{print $1" now passes"}')
    [ -n "$improvements" ] && printf 'improved (update the expectations):\n%s\n' "$improvements" >&2
    if [ -n "$regressions" ]; then
        printf 'REGRESSIONS:\n%s\n' "$regressions" >&2
        status=1
    fi
    [ $status = 0 ] && echo "smoke: no regressions" >&2
    exit $status
fi

# The pipeline paths the driver has: glsem-run SKIPs every scene on a path it lacks.
PATHS=""
for path in libraries shader-objects dynamic-state; do
    probe=$(VK_DRIVER_FILES="$LVP_ICD" "$GLSEM_RUN" --no-validation --pipelines "$path" "$SPEC/$(head -1 "$CORPUS")" 2>/dev/null | head -1)
    case "$probe" in
        *"lacks VK_EXT_"*) echo "the driver lacks the $path path: $probe" >&2 ;;
        *) PATHS="$PATHS $path" ;;
    esac
done
ALL="glsem vk"
for path in $PATHS; do ALL="$ALL glsem-$path vk-$path"; done
# COLUMNS: a subset to rerun (the others keep their last results in $OUT).
for column in ${COLUMNS:-$ALL gl zink zink-glsem}; do
    run_column "$column" "$CORPUS"
done
# The report shows the paths this driver has.
for path in libraries shader-objects dynamic-state; do
    case " $PATHS " in *" $path "*) ;; *) rm -f "$OUT/glsem-$path.tsv" "$OUT/vk-$path.tsv" ;; esac
done
python3 "$REPO/scripts/piglit-report.py" "$OUT" "$REPO/docs/piglit.md" "$REPO/scripts/piglit-causes.txt"
echo "wrote docs/piglit.md" >&2
