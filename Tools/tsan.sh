#!/usr/bin/env bash
# Runs the tests under ThreadSanitizer and fails on any report:
#   Tools/tsan.sh         the whole suite (its own build folder, .build-tsan; the first run builds everything,
#                         ~12 min on 2 cores, and the tests take ~8 more)
#   Tools/tsan.sh core    CacheKit's package alone (.build-tsan-core): the locks, the stores, the in-flight
#                         loads, the sync runner and the observations every kit builds on. CI runs this one; its
#                         minutes are what the suite under load and the end-to-end run at their real size cost.
# Known false positives from dependencies, each with why, are in Tools/tsan-suppressions.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
export TSAN_OPTIONS="suppressions=$PWD/Tools/tsan-suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# Reports, if any, fail the run: `reports LOG STATUS`.
reports() {
  local count
  count=$(grep -c "WARNING: ThreadSanitizer" "$1" || true)
  echo "ThreadSanitizer reports: $count"
  if [ "$count" != "0" ]; then
    grep -A12 "WARNING: ThreadSanitizer" "$1" | head -200
    exit 1
  fi
  exit "$2"
}
# Every file that starts kill -9 children must hold its trials in a suite named *CrashTests, or they would run
# in the crowded first pass.
misnamed=$(grep -rl "CrashChild.start" Packages/*/Tests Tests | xargs grep -L "struct [A-Za-z]*CrashTests" || true)
if [ -n "$misnamed" ]; then echo "kill -9 trials outside a *CrashTests suite: $misnamed"; exit 1; fi
if [ "${1:-}" = "core" ]; then
  # The kill -9 trials test what a killed process leaves on disk, and the 20 MB of images a size: neither threads.
  status=0
  Tools/watchdog.sh 1800 swift test --package-path Packages/CacheKit --scratch-path .build-tsan-core --sanitize=thread \
    --skip 'CrashTests|ImageCacheDiskSizeTests' 2>&1 | tee "$log" || status=$?
  reports "$log" "$status"
fi
# Two passes: the kill -9 trials alone, after the rest. Their children are the whole sanitized test binary, and
# on two cores they took the CPU from everything running beside them: tests that end in milliseconds then
# exceeded their time limits and local requests their 30 s timeouts (CI failed twice that way).
crash_trials='CrashTests'
# The whole journeys (every e2e scenario, over HTTPS through the pinned transport too; the catalog walked a
# funnel a page; 20 MB through the image cache) run ten times slower here: in the crowded first pass they
# passed their three minutes (CI failed a fourth time that way). They run in a pass of their own, after the crash trials.
long_runs='PinningTests|EndToEndTests|CatalogContractTests|ImageCacheDiskSizeTests'
# And at most 16 tests at once: with all ~490 started together, a test's task waited over 30 s for one of
# the two threads (CI failed a third time that way); fewer at once end sooner each and no later in all.
width=(--experimental-maximum-parallelization-width 16)
# The randomized sync schedules: 40 under the sanitizer (each runs about ten times slower there), 200 in `swift test`.
export MIB_SYNC_SCHEDULES="${MIB_SYNC_SCHEDULES:-40}"
status=0
# Each pass under a watchdog: a hang is stopped and the tests it started and never finished are named.
Tools/watchdog.sh 2400 swift test --sanitize=thread --scratch-path .build-tsan --skip "$crash_trials|$long_runs" "${width[@]}" 2>&1 | tee "$log" || status=$?
# The kill -9 trials test what a killed process leaves on disk, not threads: CI runs them in `swift test` only
# (they took minutes here, of CI's budget); MIB_TSAN_CRASH_TRIALS=1 runs them under the sanitizer too.
if [ "${MIB_TSAN_CRASH_TRIALS:-0}" = "1" ]; then
  Tools/watchdog.sh 1200 swift test --sanitize=thread --scratch-path .build-tsan --skip-build --filter "$crash_trials" 2>&1 | tee -a "$log" || status=$?
fi
# Of the long runs, CI runs the end-to-end scenarios of every kit (the widest); the pinned journeys repeat them over
# HTTPS, and with the catalog's walk and the image cache's 20 MB they run on demand (MIB_TSAN_LONG_RUNS=1): minutes
# more minutes of CI's budget, whose 50 the suite under load and e2e at its real size now share.
long_in_ci='EndToEndTests'
[ "${MIB_TSAN_LONG_RUNS:-0}" = "1" ] && long_in_ci="$long_runs"
Tools/watchdog.sh 1200 swift test --sanitize=thread --scratch-path .build-tsan --skip-build --filter "$long_in_ci" 2>&1 | tee -a "$log" || status=$?
reports "$log" "$status"
