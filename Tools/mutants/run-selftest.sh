#!/usr/bin/env bash
# Checks Tools/mutants/run.sh without Swift (seconds, no build): a fake `swift` first on PATH builds and
# tests a tiny repository whose one file names the scenario each mutant plays (does not build, fails some
# tests, passes, hangs, crashes), and each verdict the runner prints is compared with the one expected.
#   Tools/mutants/run-selftest.sh   exits non-zero when one expectation fails, printing it and the output
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$work/bin" "$repo/Tools/mutants" "$repo/Sources"
cp "$here/run.sh" "$here/apply.py" "$here/results.py" "$repo/Tools/mutants/"
echo "scenario: none" > "$repo/Sources/scenario.txt"
for scenario in stillborn killed killed-slow killed-elsewhere survived flaky-only hang crash crash-once; do
  printf 'id: %s\nreq: TEST-1\nfile: Sources/scenario.txt\nfrom: scenario: none\nto: scenario: %s\n\n' "$scenario" "$scenario"
done > "$repo/Tools/mutants/mutants.txt"
printf 'id: gone\nreq: TEST-1\nfile: Sources/scenario.txt\nfrom: text that is not there\nto: anything\n' >> "$repo/Tools/mutants/mutants.txt"

# The fake swift. FAKE_RED_BASELINE=1: flakyUnderCI() fails in every run, the unmutated one included.
cat > "$work/bin/swift" <<'FAKE'
#!/usr/bin/env bash
set -uo pipefail
command=$1; package=""; filter=""
while [[ $# -gt 0 ]]; do
  [[ $1 == --package-path ]] && package=$2
  [[ $1 == --filter ]] && { filter=$2; echo "$2" >> "$FAKE_STATE/filters.txt"; }
  shift
done
scenario=$(sed -n 's/^scenario: //p' "$package/Sources/scenario.txt")
if [[ $command == build ]]; then
  echo "[1/2] Compiling Promise Promise.swift"
  [[ ${FAKE_BASELINE_BROKEN:-} == 1 && $scenario == none ]] && { echo "error: the unmutated copy is broken"; exit 1; }
  [[ $scenario == stillborn ]] || exit 0
  echo "$package/Sources/Promise.swift:12:9: error: cannot find 'promise' in scope"
  echo "$package/Sources/Promise.swift:20:1: error: a second error"
  exit 1
fi
xctest=("PromiseTests.testHeld" "PromiseTests.testOther")
testing=('zetaPromiseIsKept()' '"A display name with spaces"' 'alphaFourth()' 'crashingTest()' 'flakyUnderCI()')
case $scenario in
  # Killed by the whole suite only: the tests that killed it last time pass now.
  killed-elsewhere) [[ -n $filter ]] && failing=() || failing=('crashingTest()') ;;
  killed) failing=("PromiseTests.testHeld" 'zetaPromiseIsKept()' '"A display name with spaces"' 'alphaFourth()') ;;
  hang) echo $$ > "$FAKE_STATE/hang.pid"; exec sleep 60 ;;
  killed-slow) echo "✘ Test zetaPromiseIsKept() failed after 0.002 seconds with 1 issue."
    echo $$ > "$FAKE_STATE/slow.pid"; exec sleep 60 ;;
  *) failing=() ;;
esac
[[ ${FAKE_RED_BASELINE:-} == 1 || $scenario == flaky-only ]] && failing=('flakyUnderCI()' "${failing[@]}")
# FAKE_ALONE_FAILS=1: alphaFourth() fails whenever it runs apart (a filter), mutated or not.
[[ ${FAKE_ALONE_FAILS:-} == 1 && -n $filter ]] && failing=('alphaFourth()' "${failing[@]}")
for name in "${testing[@]}"; do echo "◇ Test $name started."; done
# crash-once: the suite's own crash, which a second run does not repeat.
if [[ $scenario == crash || ( $scenario == crash-once && ! -e "$FAKE_STATE/crashed-once" ) ]]; then
  [[ $scenario == crash-once ]] && touch "$FAKE_STATE/crashed-once"
  echo "✔ Test zetaPromiseIsKept() passed after 0.001 seconds."
  echo "error: Exited with unexpected signal code 4"; exit 1
fi
# An issue recorded early must not put its test before one that ended first.
[[ $scenario == killed ]] && echo '✘ Test "A display name with spaces" recorded an issue at A.swift:3:5: Expectation failed'
for name in "${failing[@]}"; do
  if [[ $name == *.* && $name != *[\(\"]* ]]; then echo "Test Case '$name' failed (0.010 seconds)."
  else echo "✘ Test $name recorded an issue at A.swift:1:1: Expectation failed"; echo "✘ Test $name failed after 0.002 seconds with 1 issue."; fi
done
for name in "${xctest[@]}" "${testing[@]}"; do
  [[ " ${failing[*]} " == *" $name "* ]] && continue
  if [[ $name == *.* && $name != *[\(\"]* ]]; then echo "Test Case '$name' passed (0.001 seconds)."
  else echo "✔ Test $name passed after 0.001 seconds."; fi
done
if [[ ${#failing[@]} -gt 0 ]]; then
  echo "✘ Suite PromiseSuite failed after 0.010 seconds with ${#failing[@]} issues."
  echo "✘ Test run with 5 tests in 1 suite failed after 0.020 seconds with ${#failing[@]} issues."; exit 1
fi
echo "✔ Test run with 5 tests in 1 suite passed after 0.020 seconds."
FAKE
chmod +x "$work/bin/swift"
export PATH="$work/bin:$PATH" FAKE_STATE="$work"

failures=0
# run NAME [VAR=value…] -- [ID…]: runs the runner (never longer than 60 s) into $work/NAME.out.
run() {
  local name=$1; shift; local vars=()
  while [[ $1 != -- ]]; do vars+=("$1"); shift; done; shift
  env MUTANT_DEADLINE=2 "${vars[@]}" timeout 60 bash "$repo/Tools/mutants/run.sh" "$@" > "$work/$name.out" 2>&1
  status=$?; out="$work/$name.out"
}
# saw NAME TEXT: the last run printed a line holding TEXT.
saw() {
  if grep -qF -- "$2" "$out"; then echo "ok    $1"; return; fi
  echo "FAIL  $1: expected a line holding: $2"; echo "      saw:"; sed 's/^/        /' "$out"; failures=$((failures + 1))
}
# exited NAME CODE: the last run's exit status, exactly (the runner's 0, 1, 2 or 130; never the self-test's own
# timeout's 124 or 137, a shell error's 2 from bash itself shows in the output).
exited() {
  if [[ $2 == "$status" ]]; then echo "ok    $1"; return; fi
  echo "FAIL  $1: expected exit $2, saw $status"; sed 's/^/        /' "$out"; failures=$((failures + 1))
}

run green -- stillborn killed survived flaky-only hang crash crash-once gone
saw "stillborn, with its first compiler error" "STILLBORN  stillborn: $repo/.build-mutants/tree/Sources/Promise.swift:12:9: error: cannot find 'promise' in scope"
saw "killed, names whole and in failure order" 'by PromiseTests.testHeld, zetaPromiseIsKept(), "A display name with spaces" and 1 more'
saw "survived" "SURVIVED  survived ("
saw "a test that passed in the baseline kills" "KILLED  flaky-only ("
saw "flaky-only killed by it" "by flakyUnderCI()"
saw "hung past the deadline" "HUNG  hang ("
saw "a crash that comes again kills" "by a crash, twice (exit 1 during"
saw "a crash that does not come again is not a kill" "SURVIVED  crash-once ("
saw "and is named" "its first run crashed during"
saw "no longer applies" "NO LONGER APPLIES  gone"
saw "the summary counts all five" "mutants: 8 run, 3 killed, 2 survived, 1 stillborn, 1 hung, 1 no longer apply — $(date +%F), 0 min"
exited "a run with survivors fails" 1
if cmp -s "$repo/Sources/scenario.txt" "$repo/.build-mutants/tree/Sources/scenario.txt"; then echo "ok    the scratch copy was restored"
else echo "FAIL  the scratch copy was not restored"; failures=$((failures + 1)); fi

# Each way of not being killed fails the run on its own.
for only in survived stillborn hang gone; do
  run "only-$only" -- "$only"
  exited "a run whose one mutant is $only fails" 1
done

# A baseline that does not build judges nothing, and says so.
run broken FAKE_BASELINE_BROKEN=1 -- killed
exited "a baseline that does not build judges nothing" 2
saw "and says so" "the unmutated copy does not build"

# A kill stops the suite: the rest of a slow one is not waited for.
run first-kill MUTANT_DEADLINE=50 -- killed-slow
saw "a kill stops the suite at once" "KILLED  killed-slow"
saw "killed by the test that failed" "by zetaPromiseIsKept()"
if [[ -s "$work/slow.pid" ]] && kill -0 "$(cat "$work/slow.pid")" 2>/dev/null; then
  echo "FAIL  the rest of the suite ran on after the kill"; kill "$(cat "$work/slow.pid")"; failures=$((failures + 1))
else echo "ok    the rest of the suite was stopped"; fi
grep -q "KILLED  killed-slow ([0-9] s)" "$out" && echo "ok    within seconds, not at the deadline" \
  || { echo "FAIL  the kill waited for the deadline"; sed 's/^/        /' "$out"; failures=$((failures + 1)); }

rm -f "$work/filters.txt"
run all-killed -- killed
exited "a run where every mutant is killed succeeds" 0
saw "a mutant killed before is killed again by the same tests, run first" ', again'
expected_filters=$'/(alphaFourth|zetaPromiseIsKept)\\(\n/(alphaFourth|zetaPromiseIsKept)\\('
if [[ "$(cat "$work/filters.txt" 2>/dev/null)" == "$expected_filters" ]]; then echo "ok    only the functions that killed it ran first, unmutated then mutated"
else echo "FAIL  the first runs' filters: expected"; echo "$expected_filters"; echo "      saw:"; cat "$work/filters.txt"; failures=$((failures + 1)); fi

# No record of its own: last time's killers come from the committed list, and a whole run writes it anew.
rm -f "$repo/.build-mutants/logs/killed.killers"
echo 'killed: alphaFourth()' > "$repo/Tools/mutants/killers.txt"
run committed -- killed
saw "the committed killers are run first" 'KILLED  killed ('
saw "and kill it" ', again'
if grep -q '^killed: ' "$repo/.build-mutants/killers.txt"; then echo "ok    the run writes the list anew"
else echo "FAIL  no .build-mutants/killers.txt line for the mutant"; failures=$((failures + 1)); fi
rm -f "$repo/Tools/mutants/killers.txt"

# Last time's killers pass now: the whole suite runs, and its own killer is named.
echo 'alphaFourth()' > "$repo/.build-mutants/logs/killed-elsewhere.killers"
run elsewhere -- killed-elsewhere
saw "when last time's killers pass, the whole suite judges" "KILLED  killed-elsewhere ("
saw "by its own killer" "by crashingTest()"

# A test that fails whenever it runs apart kills nothing there: the first runs have a baseline of their own.
echo 'alphaFourth()' > "$repo/.build-mutants/logs/survived.killers"
run alone FAKE_ALONE_FAILS=1 -- survived
saw "a test failing only apart, unmutated too, kills nothing" "SURVIVED  survived ("

run red FAKE_RED_BASELINE=1 -- killed flaky-only
exited "a red baseline judges nothing" 2
saw "a red baseline is named, with its log" "the unmutated suite fails (exit 1: flakyUnderCI()), so no mutant can be judged; see $repo/.build-mutants/logs/baseline-test.log"
if grep -q '^KILLED\|^SURVIVED' "$out"; then echo "FAIL  a red baseline judged mutants"; failures=$((failures + 1)); else echo "ok    a red baseline judges no mutant"; fi

run red-allowed FAKE_RED_BASELINE=1 MUTANT_ALLOW_RED_BASELINE=1 -- killed flaky-only
saw "a red baseline allowed goes on" "going on, as MUTANT_ALLOW_RED_BASELINE=1 asks"
saw "a test red in the baseline kills nothing" "SURVIVED  flaky-only ("
saw "a mutant is still killed under a red baseline" 'KILLED  killed ('
saw "the killers are only tests green in the baseline" 'by PromiseTests.testHeld, zetaPromiseIsKept(), "A display name with spaces" and 1 more'

# An interruption while the suite hangs: the runner stops it at once and restores the scratch copy.
rm -f "$work/hang.pid"
MUTANT_DEADLINE=60 timeout 60 bash "$repo/Tools/mutants/run.sh" hang > "$work/term.out" 2>&1 &
runner=$!
for _ in $(seq 100); do [[ -s "$work/hang.pid" ]] && break; sleep 0.1; done
# A second run meanwhile is refused: both would mutate the same copy.
run second -- killed
exited "a second run at once is refused" 2
saw "and says why" "another mutant run is using"
kill -TERM "$runner"; wait "$runner"; status=$?; out="$work/term.out"
exited "an interrupted run exits 130" 130
saw "an interrupted run says so" "interrupted: the scratch copy was restored"
sleep 0.5
if [[ -s "$work/hang.pid" ]] && kill -0 "$(cat "$work/hang.pid")" 2>/dev/null; then
  echo "FAIL  the hung suite outlived the interruption"; kill "$(cat "$work/hang.pid")"; failures=$((failures + 1))
else echo "ok    the hung suite was stopped with the run"; fi
if grep -q "scenario: none" "$repo/.build-mutants/tree/Sources/scenario.txt"; then echo "ok    restored after the interruption"
else echo "FAIL  not restored after the interruption"; failures=$((failures + 1)); fi

# The names read from lines the fake does not print: a Mac's XCTest and SF Symbols, colours, arguments.
printf '%s\n' "◇ Test run started." "Test Case '-[Kit.PinTests testPinned]' failed (0.010 seconds)." \
  $'\e[31m✘\e[0m Test search(query:) recorded an issue with 1 argument query → "a" at S.swift:3:4: failed' \
  '􀢄 Test "Two words" failed after 0.2 seconds with 2 issues.' '✘ Suite SearchTests failed after 0.3 seconds.' \
  $'\e[31m✘\e[0m Test search(query:) failed after 1.5 seconds with 1 issue.' \
  '✘ Test run with 3 tests failed after 2 seconds with 3 issues.' > "$work/mac.log"
expected=$'-[Kit.PinTests testPinned]\n"Two words"\nsearch(query:)'
seen=$(timeout 10 python3 "$here/results.py" failed "$work/mac.log")
if [[ "$seen" == "$expected" ]]; then echo "ok    results.py reads a Mac's lines"
else echo "FAIL  results.py failed: expected"; echo "$expected"; echo "      saw:"; echo "$seen"; failures=$((failures + 1)); fi

echo "selftest: $failures failed"
[[ $failures -eq 0 ]]
