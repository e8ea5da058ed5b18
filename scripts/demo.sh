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

echo
printf '%-40s | %-12s | %-12s\n' "scene" "plain Vulkan" "with glsem"
printf '%-40s-+-%-12s-+-%-12s\n' "$(printf -- '-%.0s' {1..40})" "------------" "------------"
for scene in "${scenes[@]}"; do
	printf '%-40s | %-12s | %-12s\n' "$(basename "$scene" .shader_test)" \
		"$(result out/plain.txt "$scene")" "$(result out/glsem.txt "$scene")"
done
echo
echo "Why plain Vulkan fails:"
grep '^FAIL' out/plain.txt | sed 's/^/  /' || echo "  (it does not)"
echo
echo "PNGs (one per colour attachment): out/plain/ and out/glsem/"
ls out/plain out/glsem | sed 's/^/  /'
