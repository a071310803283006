#!/usr/bin/env bash
# Builds the fuzz targets (Tools/Fuzz) with libFuzzer and AddressSanitizer and runs each on its
# corpus with the header dictionary: `Tools/fuzz.sh [seconds per target] [target ...]`.
# New inputs that raise coverage go to Tools/Fuzz/.build/corpus/<target> (the committed seed corpus,
# Tools/Fuzz/Corpus/<target>, is only read); a crash is written as
# Tools/Fuzz/crash-* (copy it into Tools/Fuzz/Regressions/<target> once fixed, so `swift test`
# replays it). Each target's output goes to Tools/Fuzz/last-run-<target>.log; the executions and coverage
# are printed. Every target runs even when one finds a crash; the exit status says whether any did.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("${@:-FuzzJSON FuzzSettings FuzzEnvelope FuzzREST FuzzGraphQL}")
# lld links the fuzzer runtime (the default gold linker fails); -parse-as-library because libFuzzer
# owns main (Tools/Fuzz/Sources/FuzzDriver).
swift build --package-path Tools/Fuzz -c release -Xswiftc -sanitize=fuzzer,address \
  -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
# A crashing Swift process would otherwise be held for minutes producing a backtrace.
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer stays on (it found a real leak in the in-flight requests); the one report set aside is
# explained in the suppressions file.
export LSAN_OPTIONS="suppressions=$PWD/Tools/Fuzz/lsan-suppressions.txt ${LSAN_OPTIONS:-}"
for target in ${targets[@]}; do
  mkdir -p "Tools/Fuzz/.build/corpus/$target"
  status=0
  (cd Tools/Fuzz && ".build/release/$target" ".build/corpus/$target" "Corpus/$target" -dict=fuzz.dict \
     -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 > "last-run-$target.log" 2>&1) || status=$?
  echo "== $target (exit $status)"
  grep -E "DONE|ERROR|SUMMARY|stat::number_of_executed_units|stat::peak_rss_mb" "Tools/Fuzz/last-run-$target.log" | tail -6
  grep -E "#[0-9]+.*cov:" "Tools/Fuzz/last-run-$target.log" | tail -1
  [ "$status" = 0 ] || failed=1
done
exit "${failed:-0}"
