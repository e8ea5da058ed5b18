#!/usr/bin/env python3
"""How close the layer's lines come to GL's diamond-exit rule on a driver: 512 random
GL_LINES segments (8 scenes of 96x96, one segment per 12x12 cell, seed 42), drawn by
glsem-run --png, compared pixel by pixel with the exact rule (a pixel is GL's where the
segment's least L1 distance to its centre is below 1/2, the end's own diamond excluded:
GL 4.6 14.5.1).

usage: scripts/line-coverage.py [--icd JSON] [--glsem-run PATH] [--no-layer] [--keep DIR]

Prints the GL pixels, those missing, those GL does not light, and the segments drawn
exactly (docs/lines-fragment-route.md). SwiftShader: --icd target/swiftshader/vk_swiftshader_icd.json.
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

SIZE, CELL, SCENES = 96, 12, 8


def segments():
    rng = random.Random(42)
    scenes = []
    for _ in range(SCENES):
        segs = []
        for cy in range(SIZE // CELL):
            for cx in range(SIZE // CELL):
                while True:
                    a = (cx * CELL + rng.uniform(0.5, CELL - 0.5), cy * CELL + rng.uniform(0.5, CELL - 0.5))
                    b = (cx * CELL + rng.uniform(0.5, CELL - 0.5), cy * CELL + rng.uniform(0.5, CELL - 0.5))
                    if math.hypot(b[0] - a[0], b[1] - a[1]) > 1.5:
                        break
                segs.append((a, b))
        scenes.append(segs)
    return scenes


def gl_pixels(a, b):
    """The pixels GL lights for segment a -> b (window coordinates, y up)."""
    def l1(t, xc, yc):
        return abs(a[0] + (b[0] - a[0]) * t - xc) + abs(a[1] + (b[1] - a[1]) * t - yc)
    lit = set()
    for x in range(int(min(a[0], b[0])) - 1, int(max(a[0], b[0])) + 2):
        for y in range(int(min(a[1], b[1])) - 1, int(max(a[1], b[1])) + 2):
            xc, yc = x + 0.5, y + 0.5
            if abs(b[0] - xc) + abs(b[1] - yc) < 0.5:
                continue
            # The L1 distance along the segment is piecewise linear: its least value is at
            # an end or where a coordinate meets the centre's.
            ts = [0.0, 1.0]
            ts += [(xc - a[0]) / (b[0] - a[0])] if b[0] != a[0] else []
            ts += [(yc - a[1]) / (b[1] - a[1])] if b[1] != a[1] else []
            if min(l1(t, xc, yc) for t in ts if 0 <= t <= 1) < 0.5:
                lit.add((x, y))
    return lit


def scene_text(segs):
    verts = "\n".join(f"{2 * p[0] / SIZE - 1!r} {2 * p[1] / SIZE - 1!r}" for s in segs for p in s)
    return f"""[require]
GLSL >= 1.40
SIZE {SIZE} {SIZE}

[vertex shader]
in vec4 piglit_vertex;
void main() {{ gl_Position = piglit_vertex; }}

[fragment shader]
out vec4 frag;
void main() {{ frag = vec4(1.0); }}

[vertex data]
piglit_vertex/float/2
{verts}

[test]
clear color 0 0 0 1
clear
draw arrays GL_LINES 0 {2 * len(segs)}
"""


def read_png(path):
    """The lit pixels of an 8-bit RGB(A) PNG, rows top first."""
    data = open(path, "rb").read()
    at, idat = 8, b""
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + n]
        at += 12 + n
        if kind == b"IHDR":
            w, h, _, colour = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
    raw, bpp = zlib.decompress(idat), {6: 4, 2: 3}[colour]
    stride, rows, prev, o = w * bpp, [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[o], bytearray(raw[o + 1:o + 1 + stride])
        o += 1 + stride
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up, ul = prev[x], (prev[x - bpp] if x >= bpp else 0)
            if f == 1:
                line[x] = (line[x] + left) & 255
            elif f == 2:
                line[x] = (line[x] + up) & 255
            elif f == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(up - ul), abs(left - ul), abs(left + up - 2 * ul)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        rows.append(line)
        prev = line
    return {(x, y) for y in range(h) for x in range(w) if rows[y][x * bpp] > 127}, h


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--icd", help="VK_DRIVER_FILES for the run (default: the loader's)")
    p.add_argument("--glsem-run", default="target/release/glsem-run")
    p.add_argument("--no-layer", action="store_true", help="plain Vulkan, the driver's lines")
    p.add_argument("--keep", help="write the scenes and PNGs here")
    args = p.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="glsem-line-coverage-")
    os.makedirs(work, exist_ok=True)
    scenes = segments()
    files = []
    for i, segs in enumerate(scenes):
        files.append(os.path.join(work, f"lines{i}.shader_test"))
        open(files[-1], "w").write(scene_text(segs))
    env = dict(os.environ, **({"VK_DRIVER_FILES": args.icd} if args.icd else {}))
    cmd = [args.glsem_run, "--png", work] + (["--no-layer"] if args.no_layer else []) + files
    if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("line-coverage: glsem-run failed")
    gl_total = missing = extra = exact = 0
    for i, segs in enumerate(scenes):
        drawn, h = read_png(os.path.join(work, f"lines{i}-att0.png"))
        # The PNG's rows are top first; GL's window y is up.
        drawn = {(x, h - 1 - y) for x, y in drawn}
        for a, b in segs:
            gl = gl_pixels(a, b)
            cell = (int(a[0] // CELL), int(a[1] // CELL))
            here = {q for q in drawn if (q[0] // CELL, q[1] // CELL) == cell}
            gl_total += len(gl)
            missing += len(gl - here)
            extra += len(here - gl)
            exact += gl == here
    n = sum(len(s) for s in scenes)
    print(f"GL pixels {gl_total}, missing {missing}, not GL's {extra}, segments exact {exact}/{n}")


if __name__ == "__main__":
    main()
