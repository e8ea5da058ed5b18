#!/usr/bin/env bash
# The glsem demo: builds everything, then runs the gallery (examples/*.shader_test, one
# scene per GL semantic glsem provides) on plain Vulkan and through glsem, prints the
# results side by side and writes every colour attachment as a PNG under out/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -f scripts/setup.sh ]]; then
	echo "== scripts/setup.sh"
	bash scripts/setup.sh
fi

echo "== cargo build --release --workspace"
cargo build --release --workspace

run=target/release/glsem-run
scenes=(examples/*.shader_test)
rm -rf out
mkdir -p out/plain out/glsem

# Exit status 1 means a scene failed (the table shows which); 2 means the run itself could
# not start (its message is shown and every scene is marked ERROR).
echo "== plain Vulkan (--no-layer)"
"$run" --no-layer --png out/plain "${scenes[@]}" | tee out/plain.txt || true
echo "== with glsem (VK_GLSEM_LOG_LEVEL=info: the layer says what it fixed)"
VK_GLSEM_LOG_LEVEL=info "$run" --png out/glsem "${scenes[@]}" 2>&1 | tee out/glsem.txt || true

# "PASS file" / "FAIL file: reason" -> the word for one scene.
result() {
	local line
	line=$(grep -m1 -E "^(PASS|FAIL|SKIP) $2(:|\$)" "$1") || { echo "ERROR"; return; }
	echo "${line%% *}"
}

# GL's quads and an indexed line loop on a device without a geometry shader: SwiftShader
# (scripts/setup.sh unpacks it), where the layer draws quads from its own indices, read from
# the application's on the GPU; and tightly packed vertex data in formats it lacks (three
# unsigned bytes), which the layer reads in formats it has.
swiftshader=target/swiftshader/vk_swiftshader_icd.json
gpu_scenes=(examples/quads_indexed.shader_test examples/line_loop_indexed.shader_test
	examples/vertex_formats_packed.shader_test)
if [[ -f $swiftshader ]]; then
	echo "== with glsem on SwiftShader (no geometry shader)"
	mkdir -p out/swiftshader
	VK_DRIVER_FILES=$PWD/$swiftshader VK_GLSEM_LOG_LEVEL=info "$run" --png out/swiftshader \
		"${gpu_scenes[@]}" 2>&1 | tee out/swiftshader.txt || true
fi

echo
printf '%-40s | %-12s | %-12s\n' "scene" "plain Vulkan" "with glsem"
printf '%-40s-+-%-12s-+-%-12s\n' "$(printf -- '-%.0s' {1..40})" "------------" "------------"
for scene in "${scenes[@]}"; do
	printf '%-40s | %-12s | %-12s\n' "$(basename "$scene" .shader_test)" \
		"$(result out/plain.txt "$scene")" "$(result out/glsem.txt "$scene")"
done
if [[ -f out/swiftshader.txt ]]; then
	echo
	echo "Without a geometry shader (SwiftShader, through glsem; PNGs in out/swiftshader/):"
	grep -E '^(PASS|FAIL|SKIP) ' out/swiftshader.txt | sed 's/^/  /' || true
fi
echo
echo "Why plain Vulkan fails:"
grep '^FAIL' out/plain.txt | sed 's/^/  /' || echo "  (it does not)"
echo
echo "PNGs (one per colour attachment): out/plain/ and out/glsem/"
ls out/plain out/glsem | sed 's/^/  /'

# out/index.html: per scene, every attachment without and with glsem side by side, the
# probe that failed on plain Vulkan, the layer's log and one line on what is fixed.
# Self-contained (relative image paths); open it in a browser.
declare -A explain=(
	[fragcolor_4_attachments]="GL writes gl_FragColor to every draw buffer; plain Vulkan writes it to attachment 0 only and leaves attachments 1-3 undefined; glsem copies it to all four."
	[tess_no_tcs_levels]="GL runs a TES without a TCS at the default levels of glPatchParameterfv; Vulkan forbids that pipeline (drivers crash on it), so glsem-run cannot even draw it; glsem generates a passthrough TCS fed by vkCmdSetTessellationDefaultLevelsGLSEM (4 isolines)."
	[points_gl_point_size]="GL draws points glPointSize pixels wide and GL shaders rarely write gl_PointSize; plain Vulkan rejects the pipeline (PointSize must be written for points); glsem writes GL's size from vkCmdSetPointSizeGLSEM (9x9 squares)."
	[flat_shading_last_vertex]="GL's flat varyings take the last vertex of each triangle; Vulkan's the first (red and green here); glsem gives every pipeline of a VK_GLSEM_gl_state device the last-vertex convention (blue and yellow)."
	[line_loop_indexed]="GL closes each line loop of an indexed draw, restarted ones too; Vulkan has no line loop (an open strip here); glsem reads the application's indices on the GPU and draws every loop closed, with no join across the restart."
	[quads_indexed]="GL draws quads from indices, a restart dropping an unfinished quad; Vulkan has no quads (a triangle strip here); glsem draws them through a generated geometry shader, or, without one (SwiftShader, below), as triangles of indices it writes on the GPU from the application's."
	[xfb_struct_capture]="GL captures a transform-feedback struct member by member, tightly packed; glsem splits it into one output per member (lavapipe happens to capture it right already; NVIDIA garbles it without glsem)."
)
esc() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
# The layer's lines for one scene: those printed after the previous scene's result line.
log_of() {
	awk -v f="$2" '
		/^glsem:/ { buf = buf $0 "\n"; next }
		/^(PASS|FAIL|SKIP) / {
			name = $2; sub(/:$/, "", name)
			if (name == f) { printf "%s", buf; exit }
			buf = ""
		}' "$1"
}
# The images of one scene in one mode, or why there are none.
images() {
	local mode=$1 name=$2 why=$3 png any=0
	for png in out/"$mode"/"$name"-att*.png; do
		[[ -f $png ]] || continue
		any=1
		local att=${png##*-att}
		printf '<figure><img src="%s/%s" alt="%s attachment %s"><figcaption>attachment %s</figcaption></figure>\n' \
			"$mode" "$(basename "$png")" "$mode" "${att%.png}" "${att%.png}"
	done
	if ((!any)); then
		printf '<figure><div class="none">no image: %s</div><figcaption>&nbsp;</figcaption></figure>\n' "$(esc "$why")"
	fi
}
{
	cat <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>glsem gallery</title>
<style>
body { font: 15px/1.4 sans-serif; margin: 16px; background: #fafafa; color: #222; }
h1 { font-size: 22px; margin: 0 0 4px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
h2 { font-size: 18px; margin: 0 0 2px; font-family: monospace; }
.why { margin: 0 0 8px; }
.pair { display: flex; gap: 24px; align-items: flex-start; }
.side { flex: none; }
.side h3 { font-size: 15px; margin: 0 0 4px; }
.imgs { display: grid; grid-template-columns: repeat(2, max-content); gap: 8px; }
figure { margin: 0; }
img, .none { width: 256px; height: 256px; image-rendering: pixelated; border: 1px solid #888; display: block; }
/* A checkerboard behind the images: what a scene leaves transparent (undefined) shows. */
img { background: repeating-conic-gradient(#ccc 0% 25%, #fff 0% 50%) 50% / 16px 16px; }
.none { display: flex; align-items: center; justify-content: center; text-align: center; padding: 16px; box-sizing: border-box; background: #eee; color: #a00; font-size: 13px; }
figcaption { font-size: 12px; color: #666; }
.result { font-weight: bold; }
.PASS { color: #070; } .FAIL, .ERROR { color: #a00; } .SKIP { color: #a60; }
pre { background: #f3f3f3; padding: 4px 8px; margin: 2px 0 6px; white-space: pre-wrap; font-size: 13px; }
.k { margin: 8px 0 0; font-size: 13px; color: #555; }
</style></head><body>
<h1>glsem gallery: plain Vulkan and Vulkan through glsem</h1>
<p>Each scene of <code>examples/</code> run by <code>glsem-run</code> on the same driver, without the layer (<code>--no-layer</code>) and with it (<code>VK_GLSEM_LOG_LEVEL=info</code>); every colour attachment, scaled up without smoothing; a checkerboard shows where an attachment was left transparent.</p>
HTML
	for scene in "${scenes[@]}"; do
		name=$(basename "$scene" .shader_test)
		plain=$(result out/plain.txt "$scene")
		with=$(result out/glsem.txt "$scene")
		probe=$(grep -m1 -E "^FAIL $scene: " out/plain.txt | sed "s|^FAIL $scene: ||") || true
		why=${explain[$name]:-$(sed -n 's/^# *//p' "$scene" | head -1)}
		log=$(log_of out/glsem.txt "$scene")
		echo "<section id=\"$name\">"
		echo "<h2>$(esc "$name")</h2>"
		echo "<p class=\"why\">$(esc "$why")</p>"
		echo '<div class="pair">'
		echo "<div class=\"side\"><h3>plain Vulkan: <span class=\"result $plain\">$plain</span></h3><div class=\"imgs\">"
		images plain "$name" "${probe:-no image written}"
		echo "</div></div>"
		echo "<div class=\"side\"><h3>with glsem: <span class=\"result $with\">$with</span></h3><div class=\"imgs\">"
		images glsem "$name" "no image written"
		echo "</div></div></div>"
		echo "<p class=\"k\">The probe that failed on plain Vulkan:</p><pre>$(esc "${probe:-nothing: plain Vulkan passes this scene on this driver}")</pre>"
		echo "<p class=\"k\">The layer's log (VK_GLSEM_LOG_LEVEL=info):</p><pre>$(esc "${log:-(nothing logged)}")</pre>"
		echo "</section>"
	done
	echo "</body></html>"
} >out/index.html
echo
echo "Gallery page: out/index.html"
