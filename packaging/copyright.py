#!/usr/bin/env python3
"""Writes the package's copyright file (DEP-5) to stdout.

usage: cargo metadata --format-version 1 ... | copyright.py TEMPLATE YEAR

TEMPLATE is packaging/copyright.in; @YEAR@ becomes YEAR and @CRATES@ the crates linked
into the layer and glsem-run ("name version: licence", one per line): the normal (not
dev, not build) dependencies reachable from the workspace's packages in the metadata.
"""
import json
import sys

template, year = sys.argv[1:]
meta = json.load(sys.stdin)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
stack = [p["id"] for p in meta["packages"] if p["source"] is None]
seen = set()
while stack:
    pkg = stack.pop()
    if pkg in seen:
        continue
    seen.add(pkg)
    for dep in nodes[pkg]["deps"]:
        if any(kind["kind"] is None for kind in dep["dep_kinds"]):
            stack.append(dep["pkg"])
crates = sorted((packages[i] for i in seen if packages[i]["source"]), key=lambda p: (p["name"], p["version"]))
lines = "\n".join(f' {p["name"]} {p["version"]}: {p["license"] or "see the crate"}' for p in crates)
with open(template, encoding="utf-8") as f:
    sys.stdout.write(f.read().replace("@YEAR@", year).replace("@CRATES@", lines))
