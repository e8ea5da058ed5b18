#!/usr/bin/env python3
"""Checks glsem-run reports against a known-failures list, exactly.

    check-known-failures.py LIST MODE=REPORT...

LIST is scripts/swiftshader-known-failures.txt's format (`MODE | SCENE | TEXT | CAUSE`).
Each REPORT is glsem-run's output for one MODE. The check fails when
  - a scene FAILs that LIST does not name for that mode (a regression),
  - a scene LIST names does not FAIL, or FAILs without TEXT (remove or update its line),
  - a scene SKIPs for another reason than a GL feature the driver lacks and the scene uses
    (ALLOWED_LACKS, wideLines, more vertex attributes than maxVertexInputAttributes),
  - a report is not one PASS/FAIL/SKIP line per scene and a summary that adds up.
"""

import re
import sys
from pathlib import Path

# What SwiftShader lacks that GL itself needs for the scene: the scene SKIPs naming it, and
# its text must show the need (so that a scene cannot start skipping for a feature it does
# not use and hide a regression that way).
ALLOWED_LACKS = {
    "tessellationShader": r"^\[tessellation (control|evaluation) shader|GL_ARB_tessellation_shader",
    # A geometry shader of the scene's own; Vulkan also ties a fragment shader's
    # gl_PrimitiveID to geometryShader, where GL does not.
    "geometryShader": r"^\[geometry shader|gl_PrimitiveID",
    "shaderFloat64": r"\b(double|[di]?dvec[234]|dmat[234](x[234])?)\b",
    "VK_EXT_transform_feedback": r"xfb_|transform_feedback|\bxfb\b",
    "geometryStreams": r"\bstream\s*=",
}
LACKS = re.compile(r"no Vulkan device has what the scene needs: .*? lacks (.+)$")
WIDE_LINES = re.compile(r"`line width [0-9.]+` needs wideLines, which .* lacks$")
# GL fails to link past GL_MAX_VERTEX_ATTRIBS: the scene's vertex data must show the need.
VERTEX_ATTRIBUTES = re.compile(
    r"has maxVertexInputAttributes \d+, the vertex shader reads (\d+) attribute Locations$"
)
LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+?)(?:: (.*))?$")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")


def read_list(path):
    known = {}
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 4 or not all(fields):
            sys.exit(f"{path}:{n}: want `MODE | SCENE | TEXT | CAUSE`: {raw}")
        mode, scene, text, cause = fields
        if (mode, scene) in known:
            sys.exit(f"{path}:{n}: {mode} {scene} listed twice")
        if not Path(f"tests/scenes/{scene}.shader_test").is_file():
            sys.exit(f"{path}:{n}: no tests/scenes/{scene}.shader_test")
        known[(mode, scene)] = (text, cause)
    return known


def vertex_data_columns(text):
    lines = text.splitlines()
    if "[vertex data]" not in lines:
        return 0
    after = lines[lines.index("[vertex data]") + 1 :]
    header = next((l for l in after if l.strip() and not l.startswith("#")), "")
    return len(header.split())


def skip_allowed(reason, text):
    if WIDE_LINES.search(reason):
        return re.search(r"^\s*line width ", text, re.M) is not None
    m = VERTEX_ATTRIBUTES.search(reason)
    if m:
        return vertex_data_columns(text) >= int(m.group(1))
    m = LACKS.search(reason)
    if not m:
        return False
    lacks = [w.strip() for w in m.group(1).split(",")]
    return all(
        w in ALLOWED_LACKS and re.search(ALLOWED_LACKS[w], text, re.M) is not None
        for w in lacks
    )


def check(mode, report, known, problems):
    lines = Path(report).read_text().splitlines()
    if not lines or not SUMMARY.match(lines[-1]):
        problems.append(f"{mode}: {report} does not end with glsem-run's summary")
        return
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    failed = {}
    for line in lines[:-1]:
        m = LINE.match(line)
        if not m:
            problems.append(f"{mode}: not a PASS/FAIL/SKIP line: {line}")
            continue
        verdict, path, reason = m.group(1), m.group(2), m.group(3) or ""
        counts[verdict] += 1
        scene = Path(path).name.removesuffix(".shader_test")
        if verdict == "FAIL":
            failed[scene] = reason
        elif verdict == "SKIP" and not skip_allowed(reason, Path(path).read_text()):
            problems.append(f"{mode}: {scene} SKIPs for a reason not allowed here: {reason}")
    p, f, s = (int(x) for x in SUMMARY.match(lines[-1]).groups())
    if (p, f, s) != (counts["PASS"], counts["FAIL"], counts["SKIP"]):
        problems.append(f"{mode}: the summary `{lines[-1]}` does not add up")
    for scene, reason in sorted(failed.items()):
        if (mode, scene) not in known:
            problems.append(f"{mode}: {scene} FAILs and is not a known failure: {reason}")
        elif known[(mode, scene)][0] not in reason:
            problems.append(
                f"{mode}: {scene} FAILs otherwise than listed: want `{known[(mode, scene)][0]}`"
                f", got: {reason}"
            )
    for (m, scene), (_, cause) in sorted(known.items()):
        if m == mode and scene not in failed:
            problems.append(
                f"{mode}: {scene} is listed ({cause}) but does not FAIL any more: "
                "remove its line from the known failures"
            )
    print(f"{mode}: {p} passed, {f} failed (all known), {s} skipped (missing GL features)"
          if not any(x.startswith(f"{mode}:") for x in problems)
          else f"{mode}: {p} passed, {f} failed, {s} skipped")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    known = read_list(sys.argv[1])
    problems = []
    modes = []
    for arg in sys.argv[2:]:
        mode, _, report = arg.partition("=")
        modes.append(mode)
        check(mode, report, known, problems)
    for (mode, scene) in sorted(known):
        if mode not in modes:
            problems.append(f"{sys.argv[1]}: {scene} is listed for mode {mode}, which was not run")
    for problem in problems:
        print(f"known-failures: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
