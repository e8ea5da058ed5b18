#!/usr/bin/env bash
# Runs the whole suite on another x86-64 machine's Vulkan driver, without cargo there
# (docs/nvidia.md: how the NVIDIA figures were taken).
#
#   scripts/suite-elsewhere.sh pack      here: release build of every test binary, the
#                                        layer and glsem-run into target/suite.tar.xz
#   scripts/suite-elsewhere.sh run OUT   there, from a copy of this tree holding
#                                        target/suite.tar.xz: every test binary one thread
#                                        at a time, the threads test three more times, and
#                                        every scene with and without the layer (both
#                                        viewports); logs and a summary under OUT
#   scripts/suite-elsewhere.sh pack-corpus   here, after scripts/piglit.sh wrote
#                                        target/piglit/corpus.txt: piglit's corpus files
#                                        into target/corpus.tar.xz
#   scripts/suite-elsewhere.sh corpus OUT    there: the corpus through glsem-run, with and
#                                        without the layer, through every pipeline path the
#                                        driver has; OUT/COLUMN.tsv as scripts/piglit.sh
#                                        writes them, and OUT/corpus-summary.txt
#                                        (CORPUS_COLUMNS="glsem vk …" picks columns)
#
# The machine needs what scripts/setup.sh installs (the Vulkan loader, the validation
# layer, glslang, spirv-tools), unpacked or installed; point VK_DRIVER_FILES at its
# driver. The test binaries look for the tree at the path they were built in: link that
# path to the copy (`ln -sfn "$PWD" /that/path`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
ARCHIVE=target/suite.tar.xz

pack() {
	cargo build --release --workspace
	local stage=target/suite-stage
	rm -rf "$stage"
	mkdir -p "$stage/deps"
	cargo test --release --workspace --no-run --message-format=json 2>/dev/null |
		python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' |
		xargs -I{} cp {} "$stage/deps/"
	cp target/release/libVkLayer_glsem.so target/release/glsem-run "$stage/"
	# Without debug info the archive fits the device tool's 64 MiB carry limit.
	strip --strip-debug "$stage"/deps/* "$stage"/libVkLayer_glsem.so "$stage"/glsem-run
	tar -C "$stage" -cJf "$ARCHIVE" .
	rm -rf "$stage"
	echo "packed $(tar -tJf "$ARCHIVE" | grep -c '^./deps/.') test binaries into $ARCHIVE; they expect the tree at $ROOT"
}

run() {
	local out=${1:?usage: scripts/suite-elsewhere.sh run OUT}
	mkdir -p "$out" target/release
	tar -C target/release -xJf "$ARCHIVE"
	local summary="$out/summary.txt"
	: >"$summary"
	for test in target/release/deps/*; do
		local name
		name=$(basename "$test")
		name=${name%-*}
		local rc=0
		timeout 300 "$test" --test-threads=1 >"$out/$name.txt" 2>&1 || rc=$?
		echo "$name rc=$rc $(grep -h '^test result' "$out/$name.txt" | tr '\n' ' ')" | tee -a "$summary"
	done
	for i in 1 2 3; do
		local rc=0
		timeout 300 target/release/deps/reliability-* --test-threads=1 threads:: >"$out/threads-again-$i.txt" 2>&1 || rc=$?
		echo "threads again $i rc=$rc $(grep -h '^test result' "$out/threads-again-$i.txt")" | tee -a "$summary"
	done
	local scenes=(tests/scenes/*.shader_test examples/*.shader_test)
	for mode in glsem plain glsem-lower-left plain-lower-left glsem-libraries; do
		local flags=(--validation)
		[[ $mode == plain* ]] && flags+=(--no-layer)
		[[ $mode == *-lower-left ]] && flags+=(--lower-left)
		[[ $mode == *-libraries ]] && flags+=(--pipelines libraries)
		local rc=0
		timeout 300 target/release/glsem-run "${flags[@]}" "${scenes[@]}" >"$out/scenes-$mode.txt" 2>&1 || rc=$?
		echo "scenes $mode rc=$rc pass=$(grep -c '^PASS' "$out/scenes-$mode.txt") fail=$(grep -c '^FAIL' "$out/scenes-$mode.txt") skip=$(grep -c '^SKIP' "$out/scenes-$mode.txt")" | tee -a "$summary"
	done
}

pack_corpus() {
	local spec=${PIGLIT_DIR:-/usr/lib/x86_64-linux-gnu/piglit}/tests/spec
	tar -C "$spec" -cJf target/corpus.tar.xz -T target/piglit/corpus.txt
	cp target/piglit/corpus.txt target/corpus.txt
	echo "packed $(wc -l <target/corpus.txt) corpus tests into target/corpus.tar.xz"
}

# One corpus test through glsem-run: "STATUS<TAB>test<TAB>reason", as scripts/piglit.sh.
corpus_one() {
	local column=$1 test=$2 out rc line args=(--piglit --validation)
	case "$column" in *-shader-objects) [ "$SHADER_OBJECT_VALIDATION" = yes ] || args+=(--no-validation) ;; esac
	case "$column" in vk*) args+=(--no-layer) ;; esac
	case "$column" in *-libraries) args+=(--pipelines libraries) ;; *-shader-objects) args+=(--pipelines shader-objects) ;; esac
	out=$(timeout 60 target/release/glsem-run "${args[@]}" "$SPEC/$test" 2>/dev/null)
	rc=$?
	line=$(printf '%s\n' "$out" | head -1)
	case "$line" in
	PASS\ *) printf 'PASS\t%s\t\n' "$test" ;;
	FAIL\ * | SKIP\ *)
		local why="${line#* "$SPEC/$test"}"
		printf '%s\t%s\t%s\n' "${line%% *}" "$test" "$(printf '%s' "${why#: }" | tr '\t' ' ' | cut -c1-400)"
		;;
	*) printf 'FAIL\t%s\t%s\n' "$test" "$([ $rc = 124 ] && echo timeout || echo "crashed (exit status $rc)")" ;;
	esac
}

# Whether the installed validation layer's manifest names an API version of 1.3.246 or later.
validation_knows_shader_objects() {
	local manifest version
	manifest=$(find /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d -name 'VkLayer_khronos_validation.json' 2>/dev/null | head -1)
	[ -n "$manifest" ] || return 1
	version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layer"]["api_version"])' "$manifest")
	[ "$(printf '%s\n1.3.246\n' "$version" | sort -V | head -1)" = 1.3.246 ]
}

corpus() {
	local out=${1:?usage: scripts/suite-elsewhere.sh corpus OUT}
	mkdir -p "$out" target/release target/spec
	[ -x target/release/glsem-run ] || tar -C target/release -xJf "$ARCHIVE"
	tar -C target/spec -xJf target/corpus.tar.xz
	export SPEC="$ROOT/target/spec"
	# A validation layer older than VK_EXT_shader_object (1.3.246) reports false errors on
	# shader objects: those columns then run without it, and the summary says so.
	export SHADER_OBJECT_VALIDATION=yes
	if ! validation_knows_shader_objects; then
		SHADER_OBJECT_VALIDATION=no
		echo "shader-object columns without validation: the validation layer predates VK_EXT_shader_object" |
			tee -a "$out/corpus-summary.txt"
	fi
	export -f corpus_one
	for column in ${CORPUS_COLUMNS:-glsem vk glsem-libraries vk-libraries glsem-shader-objects vk-shader-objects}; do
		xargs -a target/corpus.txt -d '\n' -P "$(nproc)" -I{} bash -c 'corpus_one "$0" "$1"' "$column" {} |
			sort -t "$(printf '\t')" -k2,2 >"$out/$column.tsv"
		echo "$column $(grep -c '^PASS' "$out/$column.tsv") passed, $(grep -c '^FAIL' "$out/$column.tsv") failed, $(grep -c '^SKIP' "$out/$column.tsv") skipped" |
			tee -a "$out/corpus-summary.txt"
	done
}

case "${1:-}" in
pack) pack ;;
run) run "${2:-}" ;;
pack-corpus) pack_corpus ;;
corpus) corpus "${2:-}" ;;
*)
	sed -n '2,24p' "$0"
	exit 2
	;;
esac
