#!/usr/bin/env bash
# Installs what building and testing glsem needs, only when something is missing.
set -euo pipefail

packages=(
    mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-tools vulkan-validationlayers
    glslang-tools spirv-tools gcc xvfb x11-apps x11-utils imagemagick xdotool
    libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0
)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -q
    "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ! command -v cargo >/dev/null; then
    echo "setup: cargo not found; install Rust (https://rustup.rs)" >&2
    exit 1
fi
