#!/usr/bin/env python3
"""Tallies glsem-run's results on piglit tests outside the corpus (scripts/piglit.sh --sample
and --all) and, where GL's and plain Vulkan's columns are there too, sets them side by side.

Usage: piglit-tally.py DIR [--markdown FILE --causes CAUSES]

DIR holds glsem.tsv (STATUS, test, reason per line) and, from --all, gl.tsv (piglit's
shader_runner on llvmpipe) and vk.tsv (glsem-run --no-layer, on glsem-run's misses). Prints
the counts and the misses by reason; with --markdown, writes them as a page: per folder, the
tests GL passes and how many of those glsem-run passes, and every miss of a test GL passes,
grouped by cause (scripts/piglit-causes.txt, then scripts/piglit-report.py's rules).

A reason's line number, what follows its first `quoted` part, that part where it is a whole
line (but an unknown command's first two words) and its numbers are masked so that tests
failing the same way count together.
"""
import argparse
import importlib.util
import os
import re
from collections import Counter, defaultdict

ASSEMBLY = "ARB assembly programs are out of scope"


def normalize(reason):
    reason = re.sub(r"^line \d+: ", "", reason)
    # (piglit.sh cuts reasons short: the quote may not close.)
    quoted = re.match(r"([^`]*)`([^`]*)(`|$)", reason)
    if quoted:
        head, text, _ = quoted.groups()
        # A quoted line (a command, a vertex data header) differs by test: its first two
        # words tell an unknown command, the rest nothing.
        words = text.split()
        if "command" in head and len(words) > 2:
            text = " ".join(words[:2]) + " …"
        elif len(words) > 4 or "vertex data" in head:
            text = "…"
        reason = "%s`%s`%s" % (head, text, " …" if len(quoted.group(0)) < len(reason) else "")
    reason = re.sub(r"\b0x[0-9a-fA-F]+|\b\d+(\.\d+)?", "N", reason)
    return reason[:150]


def read(path):
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    rows[parts[1]] = (parts[0], parts[2] if len(parts) > 2 else "")
    return rows


def folder(test):
    """`tests/spec/glsl-1.10/...` and `generated_tests/spec/glsl-1.10/...`: `glsl-1.10`."""
    parts = test.split("/")
    return parts[2] if len(parts) > 3 and parts[1] == "spec" else parts[0]


def under_spec(test):
    return test.split("/spec/", 1)[-1]


def report_rules():
    """scripts/piglit-report.py's reason rules, shared so that both pages classify alike."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "piglit-report.py")
    spec = importlib.util.spec_from_file_location("piglit_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def markdown(results, causes_path):
    report = report_rules()
    causes = []
    with open(causes_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                causes.append(tuple(line.rstrip("\n").split("\t")))
    gl, glsem, vk = results["gl"], results["glsem"], results["vk"]
    tests = sorted(set(gl) | set(glsem))
    status = lambda column, t: column.get(t, ("-", ""))[0]
    assembly = {t for t in tests if ASSEMBLY in glsem.get(t, ("", ""))[1]}
    judged = [t for t in tests if t not in assembly and status(gl, t) == "PASS"]
    passed = [t for t in judged if status(glsem, t) == "PASS"]
    only_without = [t for t in tests if status(vk, t) == "PASS" and status(glsem, t) != "PASS"]
    lines = [
        "# All of piglit's shader tests",
        "",
        "Written by `scripts/piglit.sh --all` (do not edit by hand): every `shader_test` under "
        "`tests/spec` and `generated_tests/spec` of the Debian piglit package, run by piglit's "
        "`shader_runner` on Mesa llvmpipe (GL, the oracle) and by `glsem-run --validation --piglit` "
        "with the glsem layer on lavapipe (whole pipelines, under the Khronos validation layer); "
        "each test glsem-run does not pass runs again with `--no-layer` (plain Vulkan). "
        "One test a process, resumable; docs/piglit.md has the chosen corpus with every column.",
        "",
        "Versions: " + report.versions() + ".",
        "",
        f"{len(tests)} tests run by GL, {len(glsem)} by glsem-run; {len(assembly)} are ARB assembly "
        f"programs (`[vertex program]`, `[fragment program]`: out of scope, SKIP). Of the "
        f"{len(judged)} other tests GL passes, **glsem-run passes {len(passed)} "
        f"({100 * len(passed) / max(len(judged), 1):.2f} %)**. Tests that pass with `--no-layer` "
        f"and not with the layer: {len(only_without)}.",
        "",
    ]
    zink = results["zink"]
    lines += [
        "| folder | tests | GL passes | " + ("zink passes | " if zink else "")
        + "glsem-run passes | of GL's passes | misses of GL's passes |",
        "| --- | ---: | ---: | " + ("---: | " if zink else "") + "---: | ---: | ---: |",
    ]
    by_folder = defaultdict(list)
    for t in tests:
        by_folder[folder(t)].append(t)
    for name in sorted(by_folder):
        subset = by_folder[name]
        gl_passes = [t for t in subset if t not in assembly and status(gl, t) == "PASS"]
        both = sum(status(glsem, t) == "PASS" for t in gl_passes)
        share = f"{100 * both / len(gl_passes):.1f} %" if gl_passes else "–"
        zink_cell = f"{sum(status(zink, t) == 'PASS' for t in subset)} | " if zink else ""
        lines.append(f"| `{name}` | {len(subset)} | {len(gl_passes)} | {zink_cell}"
                     f"{sum(status(glsem, t) == 'PASS' for t in subset)} | {share} | "
                     f"{len(gl_passes) - both} |")
    lines.append("")
    if only_without:
        lines += ["## Tests that pass on plain Vulkan and not with the layer", ""]
        lines += [f"- `{t}`: {glsem.get(t, ('-', ''))[1][:200]}" for t in only_without]
        lines.append("")
    grouped = defaultdict(lambda: defaultdict(list))
    for t in judged:
        if status(glsem, t) == "PASS":
            continue
        reason = glsem.get(t, ("-", "no result"))[1]
        group, cause = report.classify(under_spec(t), reason, status(vk, t), causes)
        grouped[group][cause].append(t)
    lines += ["## Misses of tests GL passes, by cause", "",
              "Each with glsem-run's reason for its first test; plain Vulkan's verdict decides "
              "whether the layer is to blame.", ""]
    def item_lines(items):
        shown = items if len(items) <= 12 else items[:10]
        for t in shown:
            reason = glsem.get(t, ("-", ""))[1].replace("|", "\\|")[:200]
            yield f"  - `{t}` — {status(glsem, t)} (plain Vulkan {status(vk, t)}): {reason}"
        if len(shown) < len(items):
            yield f"  - … and {len(items) - len(shown)} more alike"
    lines += report.cause_sections(grouped, item_lines)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--markdown")
    parser.add_argument("--causes")
    args = parser.parse_args()
    results = {c: read(os.path.join(args.dir, f"{c}.tsv")) for c in ("gl", "glsem", "vk", "zink")}
    counts = Counter(s for s, _ in results["glsem"].values())
    reasons = Counter((s, normalize(r)) for s, r in results["glsem"].values() if s != "PASS")
    print("%d tests: %d pass, %d fail, %d skip" % (sum(counts.values()), counts["PASS"],
                                                    counts["FAIL"], counts["SKIP"]))
    for (state, reason), count in reasons.most_common():
        print("%5d %s %s" % (count, state, reason))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(results, args.causes))
        print("wrote " + args.markdown)


if __name__ == "__main__":
    main()
