#!/usr/bin/env python3
"""Writes glsem's installed layer manifests from layer-manifest/VkLayer_glsem.json.

usage: manifests.py SOURCE LIBRARY_PATH EXPLICIT_OUT IMPLICIT_OUT

The source manifest is the one source of truth (name, API version, device extensions,
settings for vkconfig); only `library_path` is rewritten. The implicit manifest also gets
`enable_environment` (VK_GLSEM_ENABLE=1) and `disable_environment` (VK_GLSEM_DISABLE=1),
so the layer stays off until asked for. Used by scripts/install-layer.sh (absolute path,
per user) and scripts/package.sh (bare library name, found by the dynamic linker in the
multiarch library directory).
"""
import json
import os
import sys


def write(path, manifest):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=4)
        f.write("\n")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[2])
    source, library, explicit, implicit = sys.argv[1:]
    with open(source, encoding="utf-8") as f:
        manifest = json.load(f)
    layer = manifest["layer"]
    layer["library_path"] = library
    write(explicit, manifest)
    layer["enable_environment"] = {"VK_GLSEM_ENABLE": "1"}
    layer["disable_environment"] = {"VK_GLSEM_DISABLE": "1"}
    write(implicit, manifest)


if __name__ == "__main__":
    main()
