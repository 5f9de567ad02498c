#!/usr/bin/env bash
# Runs the libFuzzer targets, each for SECONDS (default 10), over a copy of its seed corpus
# (tests/fuzz/corpus/<target>; what libFuzzer adds stays in the copy), and prints one line per
# target. Exits non-zero if any target crashed; the reproducer is kept under
# <bin dir>/artifacts/<target>/ and the sanitizer's report is printed.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      (default: every target with a corpus folder)
# The targets are built by `cmake --build --preset asan --target ks_fuzzers`; KS_FUZZ_BIN_DIR
# names their folder (default build/asan/tests/fuzz).
set -euo pipefail
# A request may nest JSON 10,000 levels deep, and tests and fuzz targets run request code on their
# main thread, whose sanitizer frames need more than the usual 8 MiB there (the server binary sizes
# its own threads' stacks).
ulimit -s 65536 2>/dev/null || true
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-10}
shift || true
bin_dir=${KS_FUZZ_BIN_DIR:-$here/../../build/asan/tests/fuzz}
if [[ ! $seconds =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [SECONDS] [TARGET...]" >&2
  exit 2
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for dir in "$here"/corpus/*/; do
    targets+=("$(basename "$dir")")
  done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ks-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The last value of `key: N` in a libFuzzer log.
last_stat() {
  grep -o "$1: [0-9]*" "$2" | tail -n 1 | cut -d' ' -f2
}
# A final-stats value (stat::NAME: N).
final_stat() {
  sed -n "s/^stat::$1: *\\([0-9]*\\).*/\\1/p" "$2" | tail -n 1
}

failed=0
for target in "${targets[@]}"; do
  binary=$bin_dir/fuzz_$target
  if [[ ! -x $binary || ! -d $here/corpus/$target ]]; then
    echo "$target: no binary ($binary) or no corpus folder" >&2
    failed=1
    continue
  fi
  corpus=$work/$target
  cp -r "$here/corpus/$target" "$corpus"
  artifacts=$bin_dir/artifacts/$target
  mkdir -p "$artifacts"
  log=$work/$target.log
  # -timeout: seconds one input may take; -rss_limit_mb: the whole process; -max_len: room for
  # inputs nested deeper than the parsers' limits.
  status=0
  "$binary" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?
  crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  line=$(printf '%-16s runs %s  exec/s %s  cov %s  ft %s  corpus %s' "$target" \
    "$(final_stat number_of_executed_units "$log")" "$(final_stat average_exec_per_sec "$log")" \
    "$(last_stat cov "$log")" "$(last_stat ft "$log")" "$(ls "$corpus" | wc -l)")
  if [[ $status -eq 0 ]]; then
    echo "$line  crashes 0"
  else
    failed=1
    echo "$line  crashes 1: ${crash:-exit status $status}"
    # The report: from the sanitizer's (or libFuzzer's) first error line on.
    awk '/^==[0-9]+==|^terminate called|runtime error:|^ERROR: libFuzzer|^ALARM:/ { on = 1 }
         on && !/^stat::/' "$log" | head -n 120 >&2
  fi
done
exit $failed
