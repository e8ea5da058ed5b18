#!/usr/bin/env python3
"""Prints the import graph of every module directory of a Rust crate and fails when one has
a cycle.

usage: scripts/module-cycles.py [SRC_DIR]   (default runner/src)

Every directory that holds modules is checked on its own: SRC_DIR itself (whose parent file
is lib.rs or main.rs) and each directory below it (whose parent file is its mod.rs, or the
`NAME.rs` beside it). Its nodes are the modules in it (a file or a directory) and the parent
file, shown as `(parent)`. An edge A -> B is a path written in A (in a `use` or inline,
tests and inline modules included; comments are ignored) that names B:
`crate::dir::B`, `super::B`, `self::B` or a child path `B::` in the parent. A path to an
item the parent file defines (not a module) is an edge to `(parent)`: a child that uses
what its parent defines while the parent uses the child is a cycle.
"""
import re
import sys
from pathlib import Path

src = Path(sys.argv[1] if len(sys.argv) > 1 else "runner/src")
ROOTS = {"lib.rs", "main.rs"}
PARENT = "(parent)"


def module_path(path):
    """The module path of a file: src/a/b.rs and src/a/b/mod.rs are ["a", "b"]."""
    parts = list(path.relative_to(src).parts)
    if parts[-1] in ROOTS or parts[-1] == "mod.rs":
        return parts[:-1]
    return parts[:-1] + [parts[-1][:-3]]


def children(dir_path):
    """The modules directly in a directory: its files (but the parent) and subdirectories
    that hold Rust files."""
    names = set()
    for p in dir_path.iterdir():
        if p.suffix == ".rs" and p.name not in ROOTS | {"mod.rs"}:
            names.add(p.stem)
        elif p.is_dir() and any(p.rglob("*.rs")):
            names.add(p.name)
    return names


def parent_file(mod):
    d = src.joinpath(*mod)
    if not mod:
        return next((d / r for r in sorted(ROOTS) if (d / r).exists()), None)
    for candidate in (d / "mod.rs", d.with_suffix(".rs")):
        if candidate.exists():
            return candidate
    return None


def strip(text):
    """Comments, strings and chars out, so that only code is read."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return text


def inline_modules(text, path):
    """(module path, code) pieces of a file: its own code and every inline `mod x { }`."""
    pieces = []
    stack = [(path, [], 0)]  # (module path, chunks, depth at which it closes)
    depth = 0
    pos = 0
    opener = re.compile(r"\bmod\s+(\w+)\s*\{|[{}]")
    for m in opener.finditer(text):
        stack[-1][1].append(text[pos:m.start()])
        pos = m.end()
        if m.group(1):
            depth += 1
            stack.append((stack[-1][0] + [m.group(1)], [], depth))
        elif m.group(0) == "{":
            depth += 1
            stack[-1][1].append("{")
        else:
            if len(stack) > 1 and stack[-1][2] == depth:
                mod, chunks, _ = stack.pop()
                pieces.append((mod, "".join(chunks)))
            else:
                stack[-1][1].append("}")
            depth -= 1
    stack[-1][1].append(text[pos:])
    while stack:
        mod, chunks, _ = stack.pop()
        pieces.append((mod, "".join(chunks)))
    return pieces


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [["a","b"], ["a","c","d"], ["a","c","e"]]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        if "{" not in s:
            for item in split_top(s):
                segs = [x for x in item.split("::") if x]
                segs = [re.sub(r"\bas\w+$", "", x) for x in segs]
                out.append(prefix + segs)
            return
        for item in split_top(s):
            if "{" in item:
                head, body = item.split("{", 1)
                walk(prefix + [x for x in head.split("::") if x], body[:-1])
            else:
                walk(prefix, item)

    walk([], tree)
    return out


def split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return [p for p in parts if p]


def resolve(segs, here, local_children):
    """An absolute module path for a path written in module `here`, or None (extern)."""
    if not segs:
        return None
    head = segs[0]
    if head in ("crate", "$crate"):
        return segs[1:]
    if head == "self":
        return here + segs[1:]
    if head == "super":
        base = list(here)
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
        return base + segs
    if head in local_children:
        return here + segs
    return None


def paths_in(code, here, local_children):
    found = []
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        found += [resolve(s, here, local_children) for s in expand_use(m.group(1))]
    code = re.sub(r"\buse\s+[^;]*;", "", code)
    for m in re.finditer(r"(?<![\w:])((?:\$?\w+::)+\w+)", code):
        segs = m.group(1).split("::")
        found.append(resolve(segs, here, local_children))
    return [p for p in found if p]


# Every module directory: its children, and who names whom.
dirs = {}
for path in [src / r for r in ROOTS] + sorted(src.rglob("*")):
    if path.is_dir() or path.name in ROOTS | {"mod.rs"}:
        d = path if path.is_dir() else path.parent
        if not d.exists():
            continue
        mod = list(d.relative_to(src).parts)
        if d.exists() and children(d) and tuple(mod) not in dirs:
            dirs[tuple(mod)] = {c: set() for c in children(d)} | {PARENT: set()}

declared = {}  # module path -> its child modules (declared by `mod x;` or found on disk)
for mod in dirs:
    declared[mod] = set(dirs[mod]) - {PARENT}

for path in sorted(src.rglob("*.rs")):
    for here, code in inline_modules(strip(path.read_text()), module_path(path)):
        local = declared.get(tuple(here), set()) | set(re.findall(r"\bmod\s+(\w+)\s*;", code))
        for target in paths_in(code, here, local):
            for mod, edges in dirs.items():
                n = len(mod)
                if here[:n] != list(mod) or target[:n] != list(mod) or len(target) <= n:
                    continue
                # An inline module of the parent file (its tests) is the parent.
                source = here[n] if len(here) > n and here[n] in edges else PARENT
                dest = target[n] if target[n] in edges else PARENT
                if len(target) == n + 1 and dest == PARENT and source != PARENT:
                    # `use super::{self}` or a glob names nothing in particular.
                    if target[n] in ("self", "*"):
                        continue
                if dest != source:
                    edges[source].add(dest)


def cycles(edges):
    """The strongly connected parts of more than one module (Tarjan), each closed into a
    printed cycle."""
    index, low, on, stack, found = {}, {}, set(), [], []

    def visit(m):
        index[m] = low[m] = len(index)
        stack.append(m)
        on.add(m)
        for n in sorted(edges[m]):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            part = []
            while True:
                n = stack.pop()
                on.discard(n)
                part.append(n)
                if n == m:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return found


failed = False
for mod in sorted(dirs):
    edges = dirs[mod]
    where = src.joinpath(*mod)
    print(f"{where}/ (parent {parent_file(list(mod)).name if parent_file(list(mod)) else '?'}):")
    for m in sorted(edges):
        print(f"  {m} -> {', '.join(sorted(edges[m])) or '(nothing)'}")
    for part in cycles(edges):
        failed = True
        print(f"  cycle in {where}/: {', '.join(part)} import each other")

if failed:
    sys.exit(1)
print("no cycles")
