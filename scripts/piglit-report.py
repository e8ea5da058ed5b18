#!/usr/bin/env python3
"""Writes docs/piglit.md from scripts/piglit.sh's results (COLUMN.tsv: STATUS, test, reason).

Usage: piglit-report.py OUT_DIR docs/piglit.md scripts/piglit-causes.txt
"""
import fnmatch
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict

COLUMNS = [("gl", "GL (llvmpipe)"), ("zink", "zink (lavapipe)"),
           ("vk", "plain Vulkan (glsem-run --no-layer)"), ("glsem", "Vulkan + glsem (glsem-run)")]
# The other pipeline paths (`glsem-run --pipelines PATH`), shown where the run has them.
PATHS = [("libraries", "graphics pipeline libraries"), ("shader-objects", "shader objects"),
         ("dynamic-state", "whole pipelines, every dynamic state")]
GROUPS = OrderedDict([
    ("layer", "Layer bugs (pass on plain Vulkan, fail with glsem)"),
    ("semantic", "GL semantics glsem does not cover yet"),
    ("runner", "Runner gaps (glsem-run does not implement what the test uses)"),
    ("glslang", "glslang (rejects or miscompiles GLSL that GL accepts)"),
    ("driver", "Driver limits and bugs (lavapipe, validation accounting)"),
    ("scope", "Out of scope"),
    ("unknown", "Not yet classified"),
])

# What the layer fixed in a test that passes only with it, from the reason it fails on plain
# Vulkan (the causes file's `fixed` lines name the rest): (regex on that reason, semantic).
FIXED_RULES = [
    (r"tessellation evaluation shader without control shader",
     "a tessellation evaluation shader without a control shader: the generated passthrough TCS with "
     "GL's default levels"),
    (r"VUID-VkGraphicsPipelineCreateInfo-Vertex-07722",
     "points from a vertex shader that never writes gl_PointSize: GL's point size"),
    (r"Vertex shader consumes input at location \d+ but not provided",
     "a vertex shader input no array feeds: GL's current attribute value (the current colour "
     "`gl_Color`, and the fixed-function vertex stage's, through vkCmdSetVertexAttribGLSEM)"),
    (r"GL point size / clip-distance state not applied",
     "GL's clip-distance enables (`glEnable(GL_CLIP_DISTANCEi)`, VK_GLSEM_gl_state)"),
]

# The heading of docs/piglit.md's hand-written section, which a rewrite keeps.
SAMPLE_SECTION = "## Outside the corpus: a sample"

RULES = [  # (regex on the reason, group, cause)
    (r"GL COMPAT", "scope", "compatibility profile (fixed-function GL, gl_ModelViewProjectionMatrix, ...)"),
    (r"GLSL 1[0-3]\d is below", "scope", "GLSL 1.10-1.30 (glslang cannot target Vulkan from it)"),
    (r"SPIRV ONLY", "runner", "SPIRV ONLY: no GLSL to compile; SPIR-V assembly sections are not assembled"),
    (r"link-time errors", "runner", "`link error`: GL's link-time checks are not reproduced"),
    (r"GL program introspection", "runner",
     "`verify program_query` / `program_interface_query`: GL's program introspection is not reproduced"),
    (r"block binding|ssbo|atomic counter|GL_ARB_shader_atomic_counters|GL_ARB_shader_storage_buffer_object", "runner",
     "shader storage blocks, atomic counters and `block …` uniform placement (piglit's SPIR-V uniform commands) are not implemented"),
    (r"VUID-RuntimeSpirv-Location-06272", "driver",
     "interface exceeds the device's component limits (GL packs varyings; Vulkan counts locations and the validation layer counts built-ins)"),
    (r"crashed", "driver", "the process crashed"),
    (r"compatibility-profile built-in .* is not emulated", "runner",
     "compatibility-profile state not emulated (lighting, normal matrix)"),
    (r"samplers inside structures|structure mixing samplers|unexpected SAMPLER", "runner",
     "samplers inside structures (glslang for Vulkan takes no sampler member; `sampler` is a Vulkan GLSL type)"),
    (r"only constructors of literals", "runner",
     "uniform initializers beyond constructors of literals (a macro, FLT_MAX)"),
    (r"ARB assembly", "scope", "ARB assembly programs (`[vertex program]`, `[fragment program]`)"),
    (r"glslang \(12\) rejects", "glslang", None),
    (r"GLSL error", "glslang", None),
    (r"unknown command|unsupported requirement|not mapped|unknown section|unsupported|only loose uniforms|not supported", "runner", None),
    (r"validation error", "unknown", None),
    (r"probe|expected", "unknown", None),
]


def classify(test, reason, vk_status, causes):
    """(group, cause) of a test glsem-run misses: the layer's where plain Vulkan passes it,
    else the causes file's by the test's path under spec/, else RULES' by the reason."""
    if vk_status == "PASS":
        return "layer", "passes on plain Vulkan, fails with the layer"
    for pattern, group, cause in causes:
        if group != "fixed" and fnmatch.fnmatch(test, pattern):
            return group, cause
    for rx, group, cause in RULES:
        if re.search(rx, reason):
            return group, cause or short(reason)
    return "unknown", short(reason)


def cause_sections(grouped, item_lines):
    """A `###` section per group of `grouped` (group -> cause -> items) in GROUPS' order,
    each cause with its count, the largest first, and `item_lines(items)` under it."""
    lines = []
    for group, title in GROUPS.items():
        if group not in grouped:
            continue
        n = sum(len(v) for v in grouped[group].values())
        lines += [f"### {title} ({n})", ""]
        for cause, items in sorted(grouped[group].items(), key=lambda kv: -len(kv[1])):
            lines.append(f"- **{cause}** ({len(items)})")
            lines += item_lines(items)
        lines.append("")
    return lines


def read(path):
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    rows[parts[1]] = (parts[0], parts[2] if len(parts) > 2 else "")
    except FileNotFoundError:
        pass
    return rows


def short(reason):
    r = re.sub(r"^line \d+: ", "", reason)
    r = re.sub(r"\(its section starts at line \d+\)", "", r)
    r = re.sub(r"handle = 0x[0-9a-f]+", "handle", r)
    r = re.sub(r"/tmp/\S+ \| ", "", r)
    m = re.search(r"(unknown command|unsupported requirement|requirement not mapped to Vulkan|unknown section|limit not mapped to Vulkan): `([^`]*)`", r)
    if m:
        words = re.sub(r"[-0-9.]+", "N", m.group(2)).split()
        return f"{m.group(1)}: `{' '.join(words[:3])}`"
    m = re.search(r"ERROR: \w+:\d+: (.*?)(\||$)", r)
    if "GLSL error" in r and m:
        return "glslang: " + re.sub(r"\d+", "N", m.group(1)).strip()
    return r[:140]


def versions():
    out = []
    for pkg in ["piglit", "mesa-vulkan-drivers", "libgl1-mesa-dri", "vulkan-validationlayers", "glslang-tools"]:
        try:
            v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True,
                               text=True, check=False).stdout.strip()
        except OSError:
            v = ""
        out.append(f"{pkg} {v or '?'}")
    return ", ".join(out)


def main():
    out, md, causes_path = sys.argv[1:4]
    # A run without the zink column (COLUMNS left it out) shows none.
    columns = [c for c in COLUMNS if c[0] != "zink" or read(f"{out}/zink.tsv")]
    paths = []
    for path, title in PATHS:
        if read(f"{out}/glsem-{path}.tsv"):
            paths.append(path)
            columns += [(f"vk-{path}", f"plain Vulkan, {title}"), (f"glsem-{path}", f"Vulkan + glsem, {title}")]
    results = {c: read(f"{out}/{c}.tsv") for c, _ in columns}
    tests = sorted(set().union(*[set(r) for r in results.values()]))
    causes = []
    with open(causes_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                pattern, group, cause = line.rstrip("\n").split("\t")
                causes.append((pattern, group, cause))

    lines = ["# piglit's GLSL execution corpus", "",
             "Written by `scripts/piglit.sh` (do not edit by hand): every `execution` `shader_test` under "
             "`spec/glsl-1.40`, `glsl-1.50`, `glsl-3.30`, `arb_tessellation_shader`, `arb_gpu_shader_fp64`, "
             "`arb_enhanced_layouts` and `arb_gl_spirv`, and beside them under `glsl-1.10`, `glsl-1.20` and "
             "`glsl-1.30`, of the Debian piglit package, run four ways: piglit's "
             "`shader_runner` on Mesa llvmpipe (GL, the oracle) and on zink over lavapipe, and `glsem-run --piglit` "
             "(shader_runner's defaults) on lavapipe without (`--no-layer`) and with the glsem layer, under "
             "the Khronos validation layer. "
             "GLSL 1.10-1.30 programs and compatibility-profile tests run through glsem-run's emulation "
             "of GL's compatibility profile (docs/scene-format.md): GLSL 1.10-1.30 are its languages.", "",
             "The other pipeline paths the driver has run the same scenes with `glsem-run --pipelines PATH`: "
             "`libraries` (each pipeline from four graphics pipeline libraries, linked) and `shader-objects` "
             "(VK_EXT_shader_object, all state dynamic; lavapipe 22.3 lacks it, so it has no column here) and "
             "`dynamic-state` (whole pipelines listing every state of VK_EXT_extended_dynamic_state 1-3 and "
             "VK_EXT_vertex_input_dynamic_state the driver has, set after each bind). "
             "The wider corpus adds the tests of `arb_separate_shader_objects`, `arb_gpu_shader5`, "
             "`arb_arrays_of_arrays`, `arb_shader_storage_buffer_object`, `arb_compute_shader`, "
             "`arb_shading_language_420pack` and `glsl-4.*` (`execution`) and of `arb_fragment_layer_viewport` "
             "whose `[require]` asks for GLSL >= 1.40.", "",
             "Command: `scripts/piglit.sh` (every test in its own process, `JOBS` in parallel; "
             "`COLUMNS=\"glsem vk\"` reruns only the glsem-run columns). A column the run has no "
             "results for is not shown.", "",
             "Versions: " + versions() + ".", "",
             "Each cell: passed / failed / skipped.", ""]
    cats = sorted(set(t.split("/")[0] for t in tests))
    header = "| category | tests | " + " | ".join(name for _, name in columns) + " |"
    lines += [header, "|" + " --- |" * (2 + len(columns))]

    def cell(c, subset):
        st = [results[c].get(t, ("-", ""))[0] for t in subset]
        return f"{st.count('PASS')} / {st.count('FAIL')} / {st.count('SKIP')}"
    for cat in cats + ["all"]:
        subset = [t for t in tests if cat == "all" or t.split("/")[0] == cat]
        name = "**all**" if cat == "all" else f"`{cat}`"
        lines.append(f"| {name} | {len(subset)} | " + " | ".join(cell(c, subset) for c, _ in columns) + " |")
    lines.append("")
    def glsl1(t):
        return re.match(r"glsl-1\.[123]0/", t) is not None
    for name, part in [("", lambda t: True), (" of GLSL >= 1.40", lambda t: not glsl1(t)),
                       (" of GLSL 1.10-1.30", glsl1)]:
        gl_passes = [t for t in tests if part(t) and results["gl"].get(t, ("?",))[0] == "PASS"]
        if gl_passes:
            also = sum(results["glsem"].get(t, ("?",))[0] == "PASS" for t in gl_passes)
            lines += [f"glsem through whole pipelines passes {also} of the {len(gl_passes)} tests{name} "
                      f"GL passes ({100 * also / len(gl_passes):.1f} %).", ""]
    # Every path must give what whole pipelines give: a test that passes through whole
    # pipelines with the layer and not through another path is a layer (or runner) bug.
    for path in paths:
        worse = [t for t in tests if results["glsem"].get(t, ("?",))[0] == "PASS"
                 and results[f"glsem-{path}"].get(t, ("?",))[0] != "PASS"]
        if worse:
            lines += [f"Tests that pass with glsem through whole pipelines and not through {path} "
                      f"({len(worse)}, layer or runner bugs):", ""]
            lines += [f"- `{t}`: {results[f'glsem-{path}'].get(t, ('?', ''))[0]} "
                      f"{results[f'glsem-{path}'].get(t, ('?', ''))[1][:200]}" for t in worse]
        else:
            lines.append(f"Every test that passes with glsem through whole pipelines passes through {path} too.")
        lines.append("")
    zg = read(f"{out}/zink-glsem.tsv")
    if zg:
        diffs = [t for t in tests if zg.get(t, ("?",))[0] != results.get("zink", {}).get(t, ("?",))[0]]
        if diffs:
            lines += [f"zink with the glsem layer beneath it (`VK_INSTANCE_LAYERS=VK_LAYER_GLSEM_gl_semantics`) "
                      f"differs from zink alone on {len(diffs)} tests (layer bugs):", ""]
            lines += [f"- `{t}`: zink {results.get('zink', {}).get(t, ('?',))[0]}, zink + glsem {zg.get(t, ('?',))[0]}"
                      for t in diffs]
        else:
            lines.append(f"zink with the glsem layer beneath it (`VK_INSTANCE_LAYERS=VK_LAYER_GLSEM_gl_semantics`) "
                         f"gives the same result as zink alone on all {len(zg)} tests.")
        lines.append("")

    # The layer's own evidence: tests that pass with it and not without, by GL semantic.
    fixed = defaultdict(list)
    for t in tests:
        if results["glsem"].get(t, ("?",))[0] != "PASS":
            continue
        vk_status, vk_reason = results["vk"].get(t, ("?", ""))
        if vk_status == "PASS":
            continue
        semantic = next((c for p, g, c in causes if g == "fixed" and fnmatch.fnmatch(t, p)), None)
        semantic = semantic or next((c for rx, c in FIXED_RULES if re.search(rx, vk_reason)), None)
        fixed[semantic or "not attributed (see the plain Vulkan reason)"].append((t, vk_status, vk_reason))
    n_fixed = sum(len(v) for v in fixed.values())
    lines += [f"## Tests that pass only with the layer, by GL semantic ({n_fixed})", "",
              "Each fails on plain Vulkan (`glsem-run --no-layer`, reason given) and passes with glsem.", ""]
    for semantic, items in sorted(fixed.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- **{semantic}** ({len(items)})")
        for t, status, reason in items:
            r = short(reason).replace("|", "\\|")[:160]
            lines.append(f"  - `{t}` — plain Vulkan {status}: {r}")
    lines.append("")

    grouped = defaultdict(lambda: defaultdict(list))
    for t in tests:
        status, reason = results["glsem"].get(t, ("FAIL", "no result"))
        if status == "PASS":
            continue
        vk = results["vk"].get(t, ("?", ""))[0]
        group, cause = classify(t, reason, vk, causes)
        grouped[group][cause].append((t, status, reason))

    lines += ["## Tests glsem-run does not pass, by cause", "",
              "GL's verdict (llvmpipe, and zink where the run has it) is given with each test; the reason is "
              "glsem-run's with the layer.", ""]
    if "layer" not in grouped:
        lines += [f"### {GROUPS['layer']} (0)", "",
                  "None: no test passes on plain Vulkan and fails with the layer.", ""]
    def item_lines(items):
        for t, status, reason in items:
            gl = results["gl"].get(t, ("?", ""))[0]
            zk = f", zink {results['zink'].get(t, ('?', ''))[0]}" if "zink" in results else ""
            vk = results["vk"].get(t, ("?", ""))[0]
            r = reason.replace("|", "\\|")[:220]
            yield f"  - `{t}` — {status} (GL {gl}{zk}, plain Vulkan {vk}): {r}"
    lines += cause_sections(grouped, item_lines)
    # The hand-written section on the tests outside the corpus (scripts/piglit.sh
    # --sample) stays, at the end.
    try:
        with open(md) as f:
            kept = f.read().partition(SAMPLE_SECTION)
    except FileNotFoundError:
        kept = ("", "", "")
    with open(md, "w") as f:
        f.write("\n".join(lines))
        if kept[1]:
            f.write("\n" + kept[1] + kept[2])


if __name__ == "__main__":
    main()
