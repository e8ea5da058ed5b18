#!/usr/bin/env bash
# Whether a change kept the layer's behaviour: every scene through two builds of
# glsem-run and the layer (each tree's target/release), with VK_GLSEM_LOG_LEVEL=info so
# that each pipeline's notes, warnings and errors are in the log, through whole pipelines,
# libraries and dynamic state, each also with the fragment line route and the index route
# forced, on lavapipe and (where scripts/setup.sh unpacked it) SwiftShader; the logs are
# compared with object handles masked. A reshaping that changes nothing prints no
# difference.
#
#   scripts/compare-logs.sh OLD_TREE NEW_TREE [OUT]
#
# OLD_TREE and NEW_TREE are checkouts with `cargo build --release --workspace` done (for
# instance a `git worktree` of the commit before the change, and this tree). OUT (default
# target/compare-logs) gets old/ and new/ with a log per run. Exits 1 when a log differs.
set -uo pipefail
old=$(cd "${1:?usage: scripts/compare-logs.sh OLD_TREE NEW_TREE [OUT]}" && pwd)
new=$(cd "${2:?usage: scripts/compare-logs.sh OLD_TREE NEW_TREE [OUT]}" && pwd)
out=${3:-target/compare-logs}
mkdir -p "$out/old" "$out/new"
out=$(cd "$out" && pwd)
swiftshader="$new/target/swiftshader/vk_swiftshader_icd.json"
cd "$new"
scenes=(tests/scenes/*.shader_test examples/*.shader_test)

run_all() { # tree, side
	local run="$1/target/release/glsem-run" dir="$out/$2" path args
	for path in whole libraries dynamic-state; do
		args=(--validation)
		[ "$path" != whole ] && args+=(--pipelines "$path")
		VK_GLSEM_LOG_LEVEL=info "$run" "${args[@]}" "${scenes[@]}" >"$dir/lavapipe-$path.txt" 2>&1
		VK_GLSEM_LOG_LEVEL=info VK_GLSEM_LINE_ROUTE=fragment "$run" "${args[@]}" "${scenes[@]}" \
			>"$dir/lavapipe-fragment-route-$path.txt" 2>&1
		VK_GLSEM_LOG_LEVEL=info VK_GLSEM_PRIMITIVE_MODE_ROUTE=indices "$run" "${args[@]}" "${scenes[@]}" \
			>"$dir/lavapipe-index-route-$path.txt" 2>&1
		if [ -f "$swiftshader" ]; then
			VK_DRIVER_FILES="$swiftshader" VK_GLSEM_LOG_LEVEL=info "$run" "${args[@]}" "${scenes[@]}" \
				>"$dir/swiftshader-$path.txt" 2>&1
		fi
	done
}
run_all "$old" old
run_all "$new" new

status=0
for log in "$out"/new/*.txt; do
	name=$(basename "$log")
	lines=$(diff <(sed -E 's/0x[0-9a-f]+/0x/g' "$out/old/$name") <(sed -E 's/0x[0-9a-f]+/0x/g' "$log") | wc -l)
	echo "$name: $(wc -l <"$log") lines, $lines differing"
	[ "$lines" = 0 ] || status=1
done
exit $status
