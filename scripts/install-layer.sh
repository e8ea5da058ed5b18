#!/usr/bin/env bash
# Installs glsem for the current user: an explicit manifest (enable it by name,
# VK_LAYER_GLSEM_gl_semantics) and an implicit one (on with VK_GLSEM_ENABLE=1, forced off
# with VK_GLSEM_DISABLE=1). Both point at this checkout's release build (or at $GLSEM_LIB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$(realpath -m "${GLSEM_LIB:-$root/target/release/libVkLayer_glsem.so}")
if [[ ! -f $lib ]]; then
    echo "install-layer: $lib not found; run cargo build --release first" >&2
    exit 1
fi
data=${XDG_DATA_HOME:-$HOME/.local/share}
explicit="$data/vulkan/explicit_layer.d"
implicit="$data/vulkan/implicit_layer.d"
mkdir -p "$explicit" "$implicit"

python3 - "$root/layer-manifest/VkLayer_glsem.json" "$lib" "$explicit" "$implicit" <<'PY'
import json, sys
source, lib, explicit, implicit = sys.argv[1:]
manifest = json.load(open(source))
manifest["layer"]["library_path"] = lib
json.dump(manifest, open(f"{explicit}/VkLayer_glsem.json", "w"), indent=4)
manifest["layer"]["enable_environment"] = {"VK_GLSEM_ENABLE": "1"}
manifest["layer"]["disable_environment"] = {"VK_GLSEM_DISABLE": "1"}
json.dump(manifest, open(f"{implicit}/VkLayer_glsem.json", "w"), indent=4)
PY
echo "installed $explicit/VkLayer_glsem.json and $implicit/VkLayer_glsem.json"
