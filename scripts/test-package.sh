#!/usr/bin/env bash
# Tests the Debian package on this machine (root, or sudo): builds it (scripts/package.sh),
# installs it with dpkg -i, checks its files, runs two scenes through the *installed*
# implicit layer and the installed /usr/bin/glsem-run with VK_GLSEM_ENABLE=1 only (no
# VK_ADD_LAYER_PATH, no VK_INSTANCE_LAYERS, no per-user manifests), then removes it with
# dpkg -r and checks that the layer, its files and its fix are gone.
#
#   tests/scenes/fragcolor_3_attachments.shader_test       gl_FragColor to 3 attachments
#   tests/scenes/tess_triangles_default_levels.shader_test  a TES without a TCS
#
# A glsem package installed before the test is removed at its end: the test leaves the
# machine without one, also when it fails (an implicit layer must not stay behind).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
fail() {
	echo "test-package: FAIL: $*" >&2
	exit 1
}

if [[ -z ${VK_DRIVER_FILES:-} ]]; then
	for icd in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
		if [[ -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
	done
fi
echo "test-package: driver ${VK_DRIVER_FILES:-none set, the loader picks}"

start=$SECONDS
scripts/package.sh
echo "test-package: package built in $((SECONDS - start)) s"
deb=$(ls target/debian/glsem_*.deb)
# Debian's package checker, where installed (scripts/setup.sh does not install it).
if command -v lintian >/dev/null; then
	lintian --fail-on error --suppress-tags initial-upload-closes-no-bugs "$deb" ||
		fail "lintian finds errors in $deb"
	echo "test-package: lintian: no errors"
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
lib=/usr/lib/$multiarch/libVkLayer_glsem.so
explicit=/usr/share/vulkan/explicit_layer.d/VkLayer_glsem.json
implicit=/usr/share/vulkan/implicit_layer.d/VkLayer_glsem.json
run=/usr/bin/glsem-run
fragcolor=tests/scenes/fragcolor_3_attachments.shader_test
tes=tests/scenes/tess_triangles_default_levels.shader_test

installed() { dpkg-query -W -f='${db:Status-Status}' glsem 2>/dev/null | grep -qx installed; }
cleanup() {
	if installed; then "${sudo_cmd[@]}" dpkg -r glsem >/dev/null; fi
	rm -rf "$tmp"
}
tmp=$(mktemp -d)
trap cleanup EXIT
if installed; then "${sudo_cmd[@]}" dpkg -r glsem; fi

# What the scenes run in: the loader finds layers only in the system directories.
mkdir -p "$tmp/home"
clean_env=(env -u VK_ADD_LAYER_PATH -u VK_LAYER_PATH -u VK_INSTANCE_LAYERS
	-u VK_LOADER_LAYERS_ENABLE -u VK_LOADER_LAYERS_DISABLE -u VK_GLSEM_ENABLE -u VK_GLSEM_DISABLE
	-u GLSEM_LAYER_LIB -u LD_LIBRARY_PATH -u XDG_DATA_DIRS -u XDG_CONFIG_DIRS
	HOME="$tmp/home" XDG_DATA_HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home")

# Runs glsem-run ($1) on a scene ($3, then runner flags) in clean_env with the implicit
# layer enabled; output in $tmp/$2.log, exit status in $status.
scene() {
	local runner=$1 name=$2 file=$3
	shift 3
	status=0
	"${clean_env[@]}" VK_GLSEM_ENABLE=1 VK_GLSEM_LOG_LEVEL=info \
		"$runner" "$@" "$file" >"$tmp/$name.log" 2>&1 || status=$?
	sed 's/^/    /' "$tmp/$name.log"
}

echo "== dpkg -i $deb"
"${sudo_cmd[@]}" dpkg -i "$deb"
installed || fail "dpkg -i did not install glsem"
mapfile -t files < <(dpkg -L glsem | while read -r f; do [[ -f $f ]] && echo "$f"; done)
for f in "$lib" "$explicit" "$implicit" /usr/include/vulkan/vk_glsem.h "$run" \
	/usr/lib/glsem/glsem-run /usr/lib/glsem/libVkLayer_glsem.so \
	/usr/share/doc/glsem/copyright /usr/share/doc/glsem/README.md.gz; do
	[[ -f $f ]] || fail "$f is not installed"
done
echo "test-package: ${#files[@]} files installed"

# The manifests: the source manifest with only library_path changed (the bare name), and
# the implicit one's environment added; the device extensions are the source's.
python3 - layer-manifest/VkLayer_glsem.json "$explicit" "$implicit" <<'PY' || fail "manifests"
import json, sys
source, explicit, implicit = (json.load(open(p)) for p in sys.argv[1:])
source["layer"]["library_path"] = "libVkLayer_glsem.so"
assert explicit == source, "the explicit manifest is not the source with library_path rewritten"
source["layer"]["enable_environment"] = {"VK_GLSEM_ENABLE": "1"}
source["layer"]["disable_environment"] = {"VK_GLSEM_DISABLE": "1"}
assert implicit == source, "the implicit manifest is not the source plus its environment"
names = [e["name"] for e in implicit["layer"].get("device_extensions", [])]
print("test-package: manifests match layer-manifest/VkLayer_glsem.json; device extensions:",
      ", ".join(names))
PY
if readelf -S "$lib" | grep -q '\.debug_'; then fail "$lib still has debug info"; fi
nm -D --defined-only "$lib" | grep -q ' vkNegotiateLoaderLayerInterfaceVersion$' ||
	fail "$lib does not export vkNegotiateLoaderLayerInterfaceVersion"
echo "test-package: $lib: $(stat -c %s "$lib") bytes, no debug info"
# The header compiles from its installed place (with libvulkan-dev's vulkan.h).
printf '#include <vulkan/vk_glsem.h>\nPFN_vkCmdSetTessellationDefaultLevelsGLSEM f;\n' |
	gcc -fsyntax-only -x c - || fail "#include <vulkan/vk_glsem.h> does not compile"

# The loader lists the installed layer, off until VK_GLSEM_ENABLE=1 turns it on.
"${clean_env[@]}" VK_GLSEM_ENABLE=1 VK_LOADER_DEBUG=layer "$run" --no-layer --no-validation \
	"$fragcolor" >"$tmp/loader.log" 2>&1 || true
grep -q "Manifest: *$implicit" "$tmp/loader.log" ||
	fail "the loader did not load the layer from $implicit (see below)" "$(cat "$tmp/loader.log")"

echo "== $run --no-layer $fragcolor (VK_GLSEM_ENABLE=1: the implicit layer only)"
scene "$run" fragcolor "$fragcolor" --no-layer
[[ $status -eq 0 ]] || fail "$fragcolor fails through the installed layer"
grep -q '^glsem: .*gl_FragColor broadcast to 3 attachments' "$tmp/fragcolor.log" ||
	fail "the layer's log does not show the gl_FragColor broadcast"

# glsem-run --no-layer refuses a TES without a TCS before any driver sees it ("invalid on
# plain Vulkan"); without it, glsem-run enables "the layer next to its executable" by a
# manifest of its own: /usr/bin/glsem-run is a link to /usr/lib/glsem/glsem-run, beside a
# link to the installed library. With VK_GLSEM_ENABLE=1 the loader takes the installed
# implicit manifest all the same (an implicit layer comes first, and the loader skips the
# runner's manifest of the same name): checked in the loader's log. A glsem-run with a
# flag for "the layer is in the system" (--system-layer) gets it instead.
tes_flags=()
if "$run" --help 2>&1 | grep -q -- '--system-layer'; then tes_flags=(--system-layer); fi
echo "== $run ${tes_flags[*]} $tes (VK_GLSEM_ENABLE=1)"
scene "$run" tes "$tes" "${tes_flags[@]}"
[[ $status -eq 0 ]] || fail "$tes fails through the installed layer"
grep -q '^glsem: .*generated passthrough tessellation control shader' "$tmp/tes.log" ||
	fail "the layer's log does not show the generated TCS"
"${clean_env[@]}" VK_GLSEM_ENABLE=1 VK_LOADER_DEBUG=layer "$run" "${tes_flags[@]}" \
	--no-validation "$tes" >"$tmp/loader-tes.log" 2>&1 || true
grep -q "Manifest: *$implicit" "$tmp/loader-tes.log" ||
	fail "the TES scene did not run on the layer of $implicit"
if grep -q "Manifest: */tmp/glsem-run" "$tmp/loader-tes.log"; then
	fail "the TES scene ran on glsem-run's own manifest, not the installed one"
fi

# The implicit layer is off unless enabled, and VK_GLSEM_DISABLE=1 wins over the enable.
for off in "" VK_GLSEM_DISABLE=1; do
	status=0
	"${clean_env[@]}" ${off:+"$off"} ${off:+VK_GLSEM_ENABLE=1} "$run" --no-layer "$fragcolor" \
		>"$tmp/off.log" 2>&1 || status=$?
	[[ $status -eq 1 ]] || fail "the implicit layer is on with ${off:-no VK_GLSEM_ENABLE} (exit $status)"
	if grep -q '^glsem:' "$tmp/off.log"; then fail "the layer logs with ${off:-no VK_GLSEM_ENABLE}"; fi
done
echo "test-package: the implicit layer is off without VK_GLSEM_ENABLE=1 and with VK_GLSEM_DISABLE=1"

echo "== dpkg -r glsem"
"${sudo_cmd[@]}" dpkg -r glsem
if installed; then fail "glsem is still installed"; fi
for f in "${files[@]}"; do
	[[ ! -e $f ]] || fail "$f is left after dpkg -r"
done
echo "test-package: all ${#files[@]} files removed"

# Without the package, the same environment gets no layer and no fix (the build's own
# runner, as /usr/bin/glsem-run is gone).
echo "== target/release/glsem-run --no-layer $fragcolor (VK_GLSEM_ENABLE=1, package removed)"
scene target/release/glsem-run removed "$fragcolor" --no-layer
[[ $status -eq 1 ]] || fail "$fragcolor did not fail without the package (exit $status)"
if grep -q '^glsem:' "$tmp/removed.log"; then fail "the layer still logs after dpkg -r"; fi
"${clean_env[@]}" VK_GLSEM_ENABLE=1 VK_LOADER_DEBUG=layer target/release/glsem-run --no-layer \
	--no-validation "$fragcolor" >"$tmp/loader-removed.log" 2>&1 || true
if grep -q "VkLayer_glsem\|libVkLayer_glsem" "$tmp/loader-removed.log"; then
	fail "the loader still finds a glsem manifest"
fi
echo "test-package: PASS (installed, 2 scenes fixed by the implicit layer, removed cleanly)"
