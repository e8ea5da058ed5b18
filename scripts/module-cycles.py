#!/usr/bin/env python3
"""Prints the import graph between the top-level modules of a Rust crate's src/ directory
and fails when it has a cycle.

usage: scripts/module-cycles.py [SRC_DIR]   (default runner/src)

A module is a file or directory directly under SRC_DIR; an edge A -> B is any `crate::B`
path (in a `use` or inline, tests included) written in A. Comments are ignored.
"""
import re
import sys
from pathlib import Path

src = Path(sys.argv[1] if len(sys.argv) > 1 else "runner/src")
modules = {p.stem for p in src.iterdir() if p.suffix == ".rs" or p.is_dir()}
modules -= {"main", "lib"}


def module_of(path):
    top = path.relative_to(src).parts[0]
    return top[:-3] if top.endswith(".rs") else top


edges = {m: set() for m in modules}
for path in src.rglob("*.rs"):
    here = module_of(path)
    if here not in modules:
        continue
    text = re.sub(r"//[^\n]*", "", path.read_text())
    for group in re.findall(r"crate::\{([^}]*)\}", text):
        for name in re.findall(r"(?:^|,)\s*(\w+)", group):
            if name in modules and name != here:
                edges[here].add(name)
    for name in re.findall(r"crate::(\w+)", text):
        if name in modules and name != here:
            edges[here].add(name)

for m in sorted(edges):
    print(f"{m} -> {', '.join(sorted(edges[m])) or '(nothing)'}")

# Depth-first search for a back edge; print the cycle it closes.
state = {}
stack = []


def visit(m):
    state[m] = "open"
    stack.append(m)
    for n in sorted(edges[m]):
        if state.get(n) == "open":
            cycle = stack[stack.index(n):] + [n]
            print("cycle: " + " -> ".join(cycle))
            return True
        if n not in state and visit(n):
            return True
    stack.pop()
    state[m] = "done"
    return False


if any(visit(m) for m in sorted(edges) if m not in state):
    sys.exit(1)
print("no cycles")
