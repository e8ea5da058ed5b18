#!/usr/bin/env bash
# Fuzzing glsem's SPIR-V code (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS]      seeds + build + run every target SECONDS (default 60) each
#   scripts/fuzz.sh seeds          build the seed corpora under fuzz/corpus/<target>/
#   scripts/fuzz.sh build          cargo fuzz build (release, ASan) of every target
#   scripts/fuzz.sh run SECONDS    run the built binaries, no cargo needed; JOBS=N runs N
#                                  targets at once, FORK=M gives each target M
#                                  processes, TARGETS="a b" picks targets, FUZZ_BIN_DIR
#                                  points at binaries built elsewhere
#   scripts/fuzz.sh pack           fuzz/target/glsem-fuzz.tar.gz: binaries, corpora and this
#                                  script, to run on another x86-64 machine without cargo
#   scripts/fuzz.sh triage         group the findings in fuzz/artifacts/ by cause
#   scripts/fuzz.sh sample [N]     spirv-val the pass outputs of N inputs of each corpus
#   scripts/fuzz.sh committed      regenerate the committed seeds (tests/fuzz/seeds/) and
#                                  the malformed modules (tests/fuzz/malformed/*.spv)
#
# Findings land in fuzz/artifacts/<target>/ (crash-*, timeout-*, oom-*); keep each one as
# tests/fuzz/<target>/crash-<name>.bin so tests/fuzz_regressions.rs checks it forever.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
ALL_TARGETS="scan module_parse fragcolor xfb_split passthrough_tcs planner_chain"
TARGETS="${TARGETS:-$ALL_TARGETS}"
FUZZ_BIN_DIR="${FUZZ_BIN_DIR:-$ROOT/fuzz/target/x86_64-unknown-linux-gnu/release}"
JOBS="${JOBS:-1}"
FORK="${FORK:-}"

# Builds seed corpora: every GLSL/spvasm file under the given roots is compiled, then
# combined into each target's input format (fuzz/src/lib.rs, `Container`).
build_seeds() { # OUT_DIR ROOT...
    python3 - "$@" <<'PY'
import os, struct, subprocess, sys, tempfile, hashlib

out_dir, roots = sys.argv[1], sys.argv[2:]
STAGES = {"vert": 0, "tesc": 1, "tese": 2, "geom": 3, "frag": 4, "comp": 5}
MODEL_TO_STAGE = {0: "vert", 1: "tesc", 2: "tese", 3: "geom", 4: "frag", 5: "comp"}

def compile_glsl(path, spv, env):
    # -R (relaxed Vulkan rules) for GL-style sources with default-block uniforms.
    for relaxed in [[], ["-R"]]:
        r = subprocess.run(["glslangValidator", "-V", "--auto-map-locations", "--target-env",
                            env] + relaxed + [path, "-o", spv], capture_output=True)
        if r.returncode == 0:
            return True
    return False

def assemble(path, spv):
    text = open(path).read()
    envs = ["vulkan1.3"] if "vulkan1.3" in text else ["vulkan1.0", "vulkan1.3"]
    for env in envs:
        if subprocess.run(["spirv-as", "--target-env", env, path, "-o", spv],
                          capture_output=True).returncode == 0:
            return True
    return False

def words(data):
    return list(struct.unpack("<%dI" % (len(data) // 4), data[: len(data) // 4 * 4]))

def models(ws):
    """Execution models of the module's entry points (empty when it is not SPIR-V)."""
    found, i = [], 5
    if len(ws) < 5 or ws[0] != 0x07230203:
        return found
    while i < len(ws):
        count, op = ws[i] >> 16, ws[i] & 0xFFFF
        if count == 0:
            break
        if op == 15 and count > 2:  # OpEntryPoint
            found.append(ws[i + 1])
        if op == 54:  # OpFunction
            break
        i += count
    return found

def container(key, modules):
    out = bytes(key)
    for m in modules:
        out += struct.pack("<I", len(m) // 4) + m
    return out

# Collect modules per directory and stage.
tmp = tempfile.mkdtemp()
by_dir = {}
singles = []
for root in roots:
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            ext = f.rsplit(".", 1)[-1]
            spv = os.path.join(tmp, hashlib.sha1(path.encode()).hexdigest() + ".spv")
            # GLSL twice: SPIR-V 1.0, and 1.6 where interfaces list every global.
            if ext in STAGES:
                built = [(path, compile_glsl(path, spv, "vulkan1.0"), spv),
                         (path + "16", compile_glsl(path, spv + "16", "vulkan1.3"), spv + "16")]
            elif ext == "spvasm":
                built = [(path, assemble(path, spv), spv)]
            elif ext == "spv":
                built = [(path, True, path)]
            else:
                continue
            for name, ok, spv in built:
                if not ok:
                    print(f"seeds: skipped {name} (does not compile)", file=sys.stderr)
                    continue
                data = open(spv, "rb").read()
                singles.append((name, data))
                for model in sorted(set(models(words(data)))):
                    stage = MODEL_TO_STAGE.get(model)
                    if stage:
                        by_dir.setdefault(dirpath, {}).setdefault(stage, []).append((name, data))

seeds = {t: {} for t in ["scan", "module_parse", "fragcolor", "xfb_split",
                         "passthrough_tcs", "planner_chain"]}
def add(target, name, data):
    seeds[target][name] = data

def tag(path):
    return os.path.splitext(os.path.basename(path))[0] + "-" + os.path.basename(path).rsplit(".", 1)[-1]

for path, data in singles:
    add("scan", tag(path), data)
    add("module_parse", tag(path), data)

FRAG_KEYS = {  # fuzz/src/lib.rs frag_key: count, then one byte per attachment
    "3float": [3, 0, 0, 0, 0, 0, 0, 0],
    "mixed": [5, 0, 1, 2, 0x80, 0, 0, 0],  # float, sint, uint, unused, float
    "att0": [1, 0, 0, 0, 0, 0, 0, 0],
}
for d, stages in sorted(by_dir.items()):
    for fpath, fs in stages.get("frag", []):
        for kname, key in FRAG_KEYS.items():
            add("fragcolor", f"{tag(fpath)}-{kname}", container(key, [fs]))
    for stage in ["vert", "tese", "geom"]:
        for spath, sm in stages.get(stage, []):
            add("xfb_split", tag(spath), container([0] * 8, [sm]))
            for fpath, fs in stages.get("frag", [])[:4]:
                add("xfb_split", f"{tag(spath)}+{tag(fpath)}", container([0] * 8, [sm, fs]))
    for tpath, tes in stages.get("tese", []):
        # OutputVertices 3 and 4; push-constant offsets 104 and 0.
        add("passthrough_tcs", f"{tag(tpath)}-alone", container([0x40, 2, 26, 0, 0, 0, 0, 0], [tes]))
        for vpath, vs in stages.get("vert", [])[:4]:
            add("passthrough_tcs", f"{tag(tpath)}+{tag(vpath)}",
                container([0, 3, 0, 0, 0, 0, 0, 0], [tes, vs]))
    # Pipelines: VS [+TES] [+GS] [+FS], planner_chain flags (bit1 TES, bit2 GS, bit3 FS).
    # At most 2 x 3 x 2 x 4 per folder, to keep the committed seeds small.
    for vpath, vs in stages.get("vert", [])[:2]:
        for tes in [None] + stages.get("tese", [])[:2]:
            for gs in [None] + stages.get("geom", [])[:1]:
                for fs in [None] + stages.get("frag", [])[:3]:
                    flags = (2 if tes else 0) | (4 if gs else 0) | (8 if fs else 0) | (2 << 4)
                    mods = [vs] + [m[1] for m in (tes, gs, fs) if m]
                    name = "+".join(tag(p) for p in [vpath] + [m[0] for m in (tes, gs, fs) if m])
                    add("planner_chain", name, container([flags, 3, 0, 1, 2, 0, 0, 0], mods))

total = 0
for target, files in seeds.items():
    os.makedirs(os.path.join(out_dir, target), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out_dir, target, "seed-" + name + ".bin"), "wb") as f:
            f.write(data)
    total += len(files)
    print(f"seeds: {target}: {len(files)}")
PY
}

# The binary malformed modules of tests/fuzz/malformed/ (README.md there says what each
# is), derived from a valid gl_FragColor module; the .spvasm ones are assembled.
build_malformed() {
    local dir=tests/fuzz/malformed base
    base="$(mktemp -d)/base.spv"
    glslangValidator -V tests/fuzz/glsl/fragcolor.frag -o "$base" >/dev/null
    for f in "$dir"/*.spvasm; do
        local env=vulkan1.0
        grep -q vulkan1.3 "$f" && env=vulkan1.3
        spirv-as --target-env "$env" "$f" -o "${f%.spvasm}.spv"
    done
    python3 - "$base" "$dir" <<'PY'
import random, struct, sys
base, out = sys.argv[1], sys.argv[2]
data = open(base, "rb").read()
w = list(struct.unpack("<%dI" % (len(data) // 4), data))

def insts(ws):
    i = 5
    while i < len(ws):
        yield i, ws[i] & 0xFFFF, ws[i] >> 16
        i += ws[i] >> 16

def first(op):
    return next(i for i, o, _ in insts(w) if o == op)

def save(name, ws):
    with open(f"{out}/{name}.spv", "wb") as f:
        f.write(struct.pack("<%dI" % len(ws), *ws))

rng = random.Random(8)  # fixed: the files are committed
fn = first(54)  # OpFunction
save("empty", [])
save("short_header", w[:3])
save("header_only", w[:5])
save("bad_magic", [0xDEADBEEF] + w[1:])
save("big_endian", [int.from_bytes(x.to_bytes(4, "little"), "big") for x in w])
save("truncated_in_function", w[: fn + 7])
save("truncated_mid_instruction", w[: first(59) + 2])  # cut inside an OpVariable
save("bound_zero", w[:3] + [0] + w[4:])
save("bound_too_small", w[:3] + [5] + w[4:])
save("bound_huge", w[:3] + [0xFFFFFFFF] + w[4:])
save("zero_word_count", w[:fn] + [0x0000_0000] + w[fn:])
save("word_count_past_end", w + [0xFFFF_0001])
save("unknown_opcodes", w[:fn] + [0x0002_FFF0, 7] + w[fn:fn + 6] + [0x0001_7777] + w[fn + 6:])
save("out_of_layout_order", w[:5] + w[first(14):first(14) + 3] + w[5:first(14)] + w[first(14) + 3:])
save("trailing_garbage", w + [0xDEADBEEF, 0x12345678, 0x0000_0001])
save("random_words", [rng.getrandbits(32) for _ in range(300)])
save("random_after_header", w[:5] + [rng.getrandbits(32) for _ in range(300)])
# Instructions with random opcodes and plausible word counts after the header.
ws = w[:5]
for _ in range(120):
    n = rng.randint(1, 6)
    ws += [(n << 16) | rng.choice([15, 16, 19, 21, 22, 23, 24, 28, 30, 32, 43, 54, 59, 71, 72, 248, 253])]
    ws += [rng.randint(0, 40) for _ in range(n - 1)]
save("random_instructions", ws)
# gl_FragColor's OpName with no nul terminator; OpEntryPoint with no operands.
name = next(i for i, o, n in insts(w) if o == 5 and w[i + 2:i + n] == [0x465F6C67, 0x43676172, 0x726F6C6F, 0])
save("name_unterminated", w[:name] + [(4 << 16) | 5, w[name + 1], 0x465F6C67, 0x43676172] + w[name + 6:])
ep = first(15)
save("entry_point_empty", w[:ep] + [(1 << 16) | 15] + w[ep + (w[ep] >> 16):])
# A function that never ends.
save("function_without_end", [x for i, x in enumerate(w) if i != len(w) - 1])
PY
}

cmd="${1:-}"
case "$cmd" in
seeds)
    rm -rf fuzz/corpus/_seeds
    build_seeds fuzz/corpus/_seeds tests/spirv tests/fuzz/glsl tests/fuzz/malformed
    for t in $ALL_TARGETS; do
        mkdir -p "fuzz/corpus/$t"
        cp fuzz/corpus/_seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
        cp tests/fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
        cp tests/fuzz/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
    done
    cp tests/fuzz/malformed/*.spv fuzz/corpus/scan/
    cp tests/fuzz/malformed/*.spv fuzz/corpus/module_parse/
    rm -rf fuzz/corpus/_seeds
    ;;
committed)
    build_malformed
    rm -rf tests/fuzz/seeds
    build_seeds tests/fuzz/seeds tests/fuzz/glsl
    ;;
build)
    cargo +nightly fuzz build -O
    ;;
run)
    secs="${2:-60}"
    mkdir -p fuzz/logs
    run_one() {
        local t="$1" log="fuzz/logs/$1.log"
        mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
        # -rss_limit_mb: a pass that allocates without bound on a hostile module is a
        # finding, not a reason to swap. -timeout: a module that takes 10 s is one too.
        "$FUZZ_BIN_DIR/$t" "fuzz/corpus/$t" -artifact_prefix="fuzz/artifacts/$t/" \
            -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            ${FORK:+-fork="$FORK" -ignore_crashes=1} >"$log" 2>&1 || true
        local execs findings
        # The last "#N" status line counts executions (in -fork mode too).
        execs="$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)"
        findings="$(find "fuzz/artifacts/$t" -type f | wc -l)"
        echo "$t: ${execs} executions in ${secs} s, ${findings} findings (fuzz/artifacts/$t/, log $log)"
    }
    export -f run_one
    export FUZZ_BIN_DIR FORK secs
    printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
    ;;
pack)
    tar -czf fuzz/target/glsem-fuzz.tar.gz \
        --transform "s|^fuzz/target/x86_64-unknown-linux-gnu/release/|bin/|" \
        scripts/fuzz.sh fuzz/corpus \
        $(for t in $ALL_TARGETS; do echo "fuzz/target/x86_64-unknown-linux-gnu/release/$t"; done)
    ls -l fuzz/target/glsem-fuzz.tar.gz
    ;;
triage)
    # One line per distinct failure: count, first glsem-spirv frame or panic message, example.
    for t in $TARGETS; do
        for f in fuzz/artifacts/"$t"/*; do
            [ -f "$f" ] || continue
            out="$(timeout 120 "$FUZZ_BIN_DIR/$t" -timeout=10 -rss_limit_mb=2048 "$f" 2>&1 || true)"
            why="$(printf '%s\n' "$out" | grep -a -A1 'panicked at' | tail -1 || true)"
            [ -n "$why" ] || why="$(printf '%s\n' "$out" | grep -a -m1 -o 'ERROR: [A-Za-z]*: [a-z -]*' || true)"
            frame="$(printf '%s\n' "$out" | grep -a -m1 -o 'glsem-spirv/src/[a-z_]*\.rs:[0-9]*' || true)"
            echo "$t|$why${frame:+ at $frame}|$f"
        done
    done | sort | awk -F'|' '{k=$1": "$2; n[k]++; if (!(k in ex)) ex[k]=$3} END {for (k in n) print n[k]" x "k"  e.g. "ex[k]}'
    ;;
sample)
    # Pass outputs of up to SAMPLE files per corpus must pass spirv-val when their inputs do.
    GLSEM_FUZZ_SAMPLE_DIR="$ROOT/fuzz/corpus" GLSEM_FUZZ_SAMPLE="${2:-200}" \
        GLSEM_FUZZ_TARGETS="$TARGETS" \
        cargo test --test fuzz_regressions -- --ignored --nocapture spirv_val_sample
    ;;
"" | [0-9]*)
    "$0" seeds
    "$0" build
    "$0" run "${1:-60}"
    ;;
*)
    sed -n '2,19p' "$0"
    exit 2
    ;;
esac
