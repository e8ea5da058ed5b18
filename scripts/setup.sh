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

# SwiftShader, the second CPU driver CI tests on (docs/drivers.md). Debian ships it only
# inside Chromium: chromium-common has /usr/lib/chromium/libvk_swiftshader.so and its ICD
# manifest. Installing the package costs ~19 s, 66 MB on disk and pulls xdg-utils, and puts
# Chromium's own copy of the validation layer library on the system; the driver needs only
# libc. So only the .deb is fetched (apt-get download, 32 MB, ~2 s) and the two files
# unpacked from it (~3 s) into target/swiftshader/, which nothing outside this tree sees
# (measured on Debian 12, chromium-common 156.0.8078.108-1~deb12u1).
# Use it with VK_DRIVER_FILES=$PWD/target/swiftshader/vk_swiftshader_icd.json.
swiftshader_dir="$(cd "$(dirname "$0")/.." && pwd)/target/swiftshader"
if [[ ! -f $swiftshader_dir/vk_swiftshader_icd.json || ! -f $swiftshader_dir/libvk_swiftshader.so ]]; then
    echo "setup: unpacking SwiftShader from chromium-common into $swiftshader_dir"
    download=$(mktemp -d)
    # apt's download sandbox user cannot write into a root-owned mktemp folder.
    chmod 777 "$download"
    if ! (cd "$download" && apt-get download -q chromium-common >/dev/null); then
        # Stale package lists (nothing above was missing, so no update ran).
        sudo_cmd=()
        if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
        "${sudo_cmd[@]}" apt-get update -q
        (cd "$download" && apt-get download -q chromium-common >/dev/null)
    fi
    mkdir -p "$download/x" "$swiftshader_dir"
    dpkg-deb --fsys-tarfile "$download"/chromium-common_*.deb |
        tar -x -C "$download/x" ./usr/lib/chromium/libvk_swiftshader.so \
            ./usr/lib/chromium/vk_swiftshader_icd.json
    # The manifest names the library relative to itself (./libvk_swiftshader.so).
    mv "$download"/x/usr/lib/chromium/{libvk_swiftshader.so,vk_swiftshader_icd.json} "$swiftshader_dir/"
    dpkg-deb -f "$download"/chromium-common_*.deb Version >"$swiftshader_dir/chromium-common.version"
    rm -rf "$download"
fi
