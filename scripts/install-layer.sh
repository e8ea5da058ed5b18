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

# The same generator as the Debian package (scripts/package.sh), with an absolute path.
python3 "$root/packaging/manifests.py" "$root/layer-manifest/VkLayer_glsem.json" "$lib" \
    "$explicit/VkLayer_glsem.json" "$implicit/VkLayer_glsem.json"
echo "installed $explicit/VkLayer_glsem.json and $implicit/VkLayer_glsem.json"
