#!/usr/bin/env bash
# Builds glsem's Debian package: target/debian/glsem_<version>-1_<arch>.deb, holding
#
#   /usr/lib/<multiarch>/libVkLayer_glsem.so                the layer (debug info stripped)
#   /usr/share/vulkan/explicit_layer.d/VkLayer_glsem.json   enabled by name
#   /usr/share/vulkan/implicit_layer.d/VkLayer_glsem.json   on with VK_GLSEM_ENABLE=1
#   /usr/include/vulkan/vk_glsem.h                          the layer's device extensions
#   /usr/bin/glsem-run -> /usr/lib/glsem/glsem-run          the scene runner, next to
#   /usr/lib/glsem/libVkLayer_glsem.so -> the layer above   (a link to) the layer it loads
#   /usr/share/doc/glsem/{README.md.gz,copyright,changelog.Debian.gz}
#   /usr/share/man/man1/glsem-run.1.gz, /usr/share/lintian/overrides/glsem
#
# Both manifests come from layer-manifest/VkLayer_glsem.json through
# packaging/manifests.py (the logic scripts/install-layer.sh uses too), with `library_path`
# the bare library name: the loader dlopen()s it from the multiarch library directory.
#
# Why a script around dpkg-deb and not cargo-deb: dpkg-deb is part of dpkg, on every
# Debian machine, while cargo-deb must be compiled first (`cargo install cargo-deb`: 3.8.0,
# 69 crates, 1 min 33 s wall and 108 s CPU on the shared 2-core development machine) on
# a CI machine whose whole budget is 90 minutes; and the installed manifests must be
# generated (library_path rewritten, the implicit one's environment added) by a script
# before cargo-deb could pack them anyway. What is left is the few lines below.
#
# Usage: scripts/package.sh [--no-build]     --no-build packages the release build as it is
# Reproducible: file times are the last commit's (SOURCE_DATE_EPOCH), owners root, so two
# runs on one tree give the same bytes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1
case "${1:-}" in
"") ;;
--no-build) build=0 ;;
*)
	sed -n '2,/^set -euo pipefail/{/^set/d;p}' "$0" >&2
	exit 2
	;;
esac

if ! command -v python3 >/dev/null; then
	echo "package: installing python3 (writes the manifests)"
	sudo_cmd=()
	if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends python3
fi

if ((build)); then
	cargo build --release --workspace
fi

name=glsem
upstream=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
version="$upstream-1"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
maintainer="${DEBFULLNAME:-glsem developers} <${DEBEMAIL:-glsem@example.org}>"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

out=target/debian
stage="$out/$name"
deb="$out/${name}_${version}_${arch}.deb"
rm -rf "$stage"
umask 022

# The layer (a shared library: 0644, symbols not needed for linking dropped, as dh_strip
# does) and the runner (an executable: every symbol dropped).
lib="$stage/usr/lib/$multiarch"
mkdir -p "$lib" "$stage/usr/bin" "$stage/usr/lib/$name" "$stage/usr/include/vulkan" "$stage/usr/share/doc/$name"
strip --strip-unneeded --remove-section=.comment -o "$lib/libVkLayer_glsem.so" \
	target/release/libVkLayer_glsem.so
chmod 0644 "$lib/libVkLayer_glsem.so"
# glsem-run enables the layer "next to its executable" (runner/src/layer.rs): it lives in
# /usr/lib/glsem beside a link to the installed layer, so /usr/bin/glsem-run works as is.
strip --remove-section=.comment -o "$stage/usr/lib/$name/glsem-run" target/release/glsem-run
chmod 0755 "$stage/usr/lib/$name/glsem-run"
ln -s "../$multiarch/libVkLayer_glsem.so" "$stage/usr/lib/$name/libVkLayer_glsem.so"
ln -s "../lib/$name/glsem-run" "$stage/usr/bin/glsem-run"
install -m 0644 include/vk_glsem.h "$stage/usr/include/vulkan/vk_glsem.h"

python3 packaging/manifests.py layer-manifest/VkLayer_glsem.json libVkLayer_glsem.so \
	"$stage/usr/share/vulkan/explicit_layer.d/VkLayer_glsem.json" \
	"$stage/usr/share/vulkan/implicit_layer.d/VkLayer_glsem.json"

doc="$stage/usr/share/doc/$name"
gzip -9nc README.md >"$doc/README.md.gz"
year=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
cargo metadata --format-version 1 --locked --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" |
	python3 packaging/copyright.py packaging/copyright.in "$year" >"$doc/copyright"
{
	echo "$name ($version) unstable; urgency=medium"
	echo
	echo "  * Built by scripts/package.sh from commit $commit."
	echo
	echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.Debian.gz"
mkdir -p "$stage/usr/share/man/man1" "$stage/usr/share/lintian/overrides"
gzip -9nc packaging/glsem-run.1 >"$stage/usr/share/man/man1/glsem-run.1.gz"
# A Vulkan layer is a plugin: the loader dlopen()s it by the name in its manifest and
# nothing links against it, so it has no SONAME (nor needs the ldconfig trigger), like
# libVkLayer_khronos_validation.so.
echo "$name: sharedobject-in-library-directory-missing-soname [usr/lib/$multiarch/libVkLayer_glsem.so]" \
	>"$stage/usr/share/lintian/overrides/$name"

mkdir -p "$stage/DEBIAN"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOF
Package: $name
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: libc6 (>= 2.34), libgcc-s1, libvulkan1
Recommends: glslang-tools, mesa-vulkan-drivers | vulkan-icd
Suggests: vulkan-validationlayers, libvulkan-dev, libx11-xcb1, libxcursor1, libxi6, libxrandr2, libxkbcommon-x11-0
Section: libs
Priority: optional
Description: Vulkan layer giving Vulkan pipelines OpenGL semantics
 glsem (VK_LAYER_GLSEM_gl_semantics) fixes, at the Vulkan API boundary and
 for any driver, the places where Vulkan silently differs from OpenGL:
 gl_FragColor written to every colour attachment, transform-feedback structs
 captured member by member as GL packs them, and tessellation evaluation
 shaders without a control shader (with GL's default levels, through the
 device extension VK_GLSEM_tessellation_default_levels).
 .
 The layer is installed both as an explicit layer (enable it by name) and as
 an implicit one that stays off until VK_GLSEM_ENABLE=1 (VK_GLSEM_DISABLE=1
 turns it off again). glsem-run runs GL shader tests (piglit shader_test
 files) on Vulkan; it needs glslangValidator.
EOF
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

rm -f "$out/${name}"_*.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB; installed $installed_size KiB)"
