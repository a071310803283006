#!/usr/bin/env bash
# The mutant check (docs/testing.md): applies each one-line break of Tools/mutants/mutants.txt to a scratch
# copy of the repository, rebuilds it incrementally, runs the suite under a deadline, and compares the run
# with the unmutated suite's (the baseline). A mutant is KILLED when a test that passed in the baseline fails
# (the suite stops there) or when the suite crashes twice, SURVIVED when none does (a promise no test holds),
# STILLBORN when it does not build (it proves nothing), HUNG when the deadline passed, NO LONGER APPLIES when its text is gone. The scratch copy is
# restored after each mutant, and on interruption. The run succeeds only when every mutant was killed.
# Exit status: 0 every mutant killed; 1 a mutant not killed (survived, stillborn, hung or no longer applies);
# 2 no mutant could be judged (another run holds the copy, the baseline does not build, hangs, fails or
# names no passing test); 130 interrupted.
#   Tools/mutants/run.sh            every mutant
#   Tools/mutants/run.sh ID [ID…]   those
# Environment: MUTANT_DEADLINE (seconds, default 600) for one suite run; MUTANT_ALLOW_RED_BASELINE=1 goes
# on when the unmutated suite fails, judging each mutant only by the tests that passed there.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
scratch="$root/.build-mutants"
tree="$scratch/tree"
logs="$scratch/logs"
deadline=${MUTANT_DEADLINE:-600}
run_started=$(date +%s)
mkdir -p "$logs"
# One run at a time: two would apply their mutants to the same copy (flock is util-linux's, not a Mac's).
if command -v flock > /dev/null; then
  exec 9> "$scratch/lock"
  flock -n 9 || { echo "another mutant run is using $scratch; stop it first"; exit 2; }
fi

# Last time's killers as committed (Tools/mutants/killers.txt, `id: test()|test()`), for a machine with no run
# of its own yet; a run's own record (.build-mutants/logs/<id>.killers) comes first.
if [[ -f Tools/mutants/killers.txt ]]; then
  while IFS= read -r line; do
    known=${line%%: *}
    [[ -s "$logs/$known.killers" ]] || tr '|' '\n' <<< "${line#*: }" > "$logs/$known.killers"
  done < Tools/mutants/killers.txt
fi

# A copy of the working tree (sources only: no build folder at any depth), refreshed on each run; its build
# folder is kept, so only what a mutant touches is rebuilt.
rm -rf "$tree" && mkdir -p "$tree"
tar -C "$root" --exclude='.build*' --exclude='./.git' -cf - . | tar -C "$tree" -xf -

ids=("$@")
if [[ ${#ids[@]} -eq 0 ]]; then mapfile -t ids < <(python3 Tools/mutants/apply.py list | awk '{print $1}'); fi

# A mutated file is restored from the copy taken when the run started, never from the working tree, which
# may have changed since (a file edited meanwhile would otherwise break every later mutant's build).
pristine="$scratch/pristine"
rm -rf "$pristine" && cp -a "$tree" "$pristine"
restore() { [[ -n "${current:-}" ]] && cp "$pristine/$current" "$tree/$current"; current=""; }
# timeout puts the suite in a process group of its own, out of reach of ^C, so an interruption stops it here;
# it says so on the runner's own output (3), since it may come while the output goes to a log.
exec 3>&1
interrupted() {
  [[ -n "${suite_pid:-}" ]] && kill -TERM "$suite_pid" 2>/dev/null
  restore; echo "interrupted: the scratch copy was restored" >&3; exit 130
}
trap interrupted INT TERM

# Swift and the suite get neither the runner's own output (3) nor its lock (9): a process left behind must
# not hold them.
build() { swift build --build-tests --package-path "$tree" --scratch-path "$scratch/build" 3>&- 9>&-; }
# The tests a log names (Tools/mutants/results.py): failed, passed, ended or unfinished.
tests() { python3 Tools/mutants/results.py "$@"; }
# The tests that passed in the baseline (and did not fail there too, a name shared by two suites) and
# failed in the log $1, in the order they failed: a mutant's killers.
killers() { tests failed "$1" | grep -Fx -f "$logs/baseline-passed.txt" | grep -Fxv -f "$logs/baseline-failed.txt"; }
# The filter that runs exactly the Swift Testing functions named in the files given (`name(…)` lines; a
# display name or an XCTest name is left to the whole suite): `/(one|other)\(`, as test ids end.
filter_of() {
  local names; names=$(cat "$@" 2>/dev/null | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)(.*$/\1/p' | sort -u | paste -sd'|')
  [[ -n "$names" ]] && echo "/($names)\\("
}
# The suite runs in the background and is waited for, so that a signal is handled at once, not at its end.
# `suite LOG` (a mutant's run, its output going to LOG) stops at its first killer: the verdict is known, and
# the rest of the suite would only add minutes.
# `suite LOG FILTER` runs only the tests FILTER matches (a regular expression); `suite "" FILTER` runs them
# to the end.
suite() {
  local filter=${2:-${MUTANT_FILTER:-}}
  timeout --kill-after=10 "$deadline" swift test --skip-build --package-path "$tree" --scratch-path "$scratch/build" \
    ${filter:+--filter "$filter"} 3>&- 9>&- &
  suite_pid=$!
  if [[ -n "${1:-}" ]]; then
    while kill -0 "$suite_pid" 2>/dev/null; do
      sleep 1
      if [[ -n "$(killers "$1")" ]]; then kill -TERM "$suite_pid" 2>/dev/null; break; fi
    done
  fi
  wait "$suite_pid"; local status=$?
  # timeout led a process group of its own: whatever the suite started and left (a crash trial's child)
  # goes with it.
  kill -KILL -- -"$suite_pid" 2>/dev/null
  suite_pid=""; return "$status"
}
# The first three lines of standard input, joined by ", ", and how many more there were.
first_three() { awk 'NR <= 3 { printf "%s%s", (NR > 1 ? ", " : ""), $0 } END { if (NR > 3) printf " and %d more", NR - 3 }'; }
timed_out() { [[ $1 -eq 124 || $1 -eq 137 ]]; }

echo "building the scratch copy once (cold: ~8 min)"
build > "$logs/baseline-build.log" 2>&1 || { echo "the unmutated copy does not build: $logs/baseline-build.log"; exit 2; }

# The baseline: a test that already fails (no chromium under CI=true, a flaky one) must not read as a kill.
echo "running the unmutated suite once (the baseline)"
baseline="$logs/baseline-test.log"
suite > "$baseline" 2>&1
status=$?
tests passed "$baseline" > "$logs/baseline-passed.txt"
tests failed "$baseline" > "$logs/baseline-failed.txt"
if timed_out "$status"; then
  echo "the unmutated suite did not end within ${deadline} s, so every mutant would hang: $baseline"; exit 2
elif [[ ! -s "$logs/baseline-passed.txt" ]]; then
  echo "no passing test could be read from the unmutated suite's log, so no mutant could be judged: $baseline"; exit 2
elif [[ $status -ne 0 || -s "$logs/baseline-failed.txt" ]]; then
  failing=$(first_three < "$logs/baseline-failed.txt")
  if [[ "${MUTANT_ALLOW_RED_BASELINE:-}" != 1 ]]; then
    echo "the unmutated suite fails (exit $status: ${failing:-no failing test named}), so no mutant can be judged; see $baseline, or set MUTANT_ALLOW_RED_BASELINE=1 to judge mutants only by the tests that pass there"
    exit 2
  fi
  echo "the unmutated suite fails (exit $status: ${failing:-no failing test named}); going on, as MUTANT_ALLOW_RED_BASELINE=1 asks, with only the $(wc -l < "$logs/baseline-passed.txt") tests that passed"
fi

# The tests that killed these mutants last time run first, alone (below): they get a baseline of their own,
# run alone on the unmutated copy, so that one failing only when run apart never reads as a kill.
if [[ -z "${MUTANT_FILTER:-}" ]]; then
  together=$(cd "$logs" && filter_of $(printf '%s.killers\n' "${ids[@]}"))
  if [[ -n "$together" ]]; then
    echo "running last time's killers once, alone, unmutated (their baseline)"
    suite "" "$together" > "$logs/baseline-first.log" 2>&1
    tests failed "$logs/baseline-first.log" >> "$logs/baseline-failed.txt"
  fi
fi

killed=0; survived=0; stillborn=0; hung=0; stale=0
for id in "${ids[@]}"; do
  # The list of the copy taken at the start, so a mutant matches the sources it is applied to.
  current=$(python3 "$pristine/Tools/mutants/apply.py" apply "$tree" "$id") || { echo "NO LONGER APPLIES  $id"; stale=$((stale + 1)); current=""; continue; }
  log="$logs/$id.log"
  started=$(date +%s)
  # A mutant that does not build was never tested: it is neither killed nor survived.
  if ! build > "$log" 2>&1; then
    echo "STILLBORN  $id: $(grep -m1 'error:' "$log" || echo "no error: line, see $log")"; stillborn=$((stillborn + 1)); restore; continue
  fi
  # The tests that killed it last time run first: when one fails again, the verdict is known in seconds
  # (a kill is a kill whichever tests ran); when none does, the whole suite runs.
  if [[ -s "$logs/$id.killers" && -z "${MUTANT_FILTER:-}" ]]; then
    # Swift Testing's functions, by name (a display name or an XCTest name is left to the whole suite).
    previous=$(filter_of "$logs/$id.killers")
    if [[ -n "$previous" ]]; then
      # A log of its own: what ended here says nothing of the whole suite's run.
      first="$logs/$id.first.log"
      suite "$first" "$previous" > "$first" 2>&1
      killers=$(killers "$first")
      if [[ -n "$killers" ]]; then
        seconds=$(( $(date +%s) - started ))
        echo "KILLED  $id (${seconds} s) by $(first_three <<< "$killers"), again"; killed=$((killed + 1))
        echo "$killers" > "$logs/$id.killers"; restore; continue
      fi
    fi
  fi
  suite "$log" >> "$log" 2>&1
  status=$?
  # A crash ends the run before some tests end.
  killers=$(killers "$log")
  lost=$(tests ended "$log" | grep -cFxv -f - "$logs/baseline-passed.txt")
  crashes=""
  # A crash may be the suite's own, not the mutant's: it counts only when the suite, run again, fails again.
  if ! timed_out "$status" && [[ -z "$killers" && $status -ne 0 && $lost -gt 0 ]]; then
    crashes="$(tests unfinished "$log" | first_three)"; log="$logs/$id.again.log"
    suite "$log" > "$log" 2>&1
    status=$?
    killers=$(killers "$log")
    lost=$(tests ended "$log" | grep -cFxv -f - "$logs/baseline-passed.txt")
  fi
  seconds=$(( $(date +%s) - started ))
  # A killer is a kill even when the deadline or our own stop ended the suite.
  if [[ -n "$killers" ]]; then
    echo "KILLED  $id (${seconds} s) by $(first_three <<< "$killers")"; killed=$((killed + 1))
    echo "$killers" > "$logs/$id.killers"
  elif timed_out "$status"; then
    echo "HUNG  $id (${seconds} s)"; hung=$((hung + 1))
  elif [[ $status -ne 0 && $lost -gt 0 ]]; then
    during=$(tests unfinished "$log" | first_three)
    echo "KILLED  $id (${seconds} s) by a crash, twice (exit $status${during:+ during $during}; $lost tests that passed in the baseline did not end)"
    killed=$((killed + 1))
  else
    note=""; [[ $status -ne 0 ]] && note=": the suite exited $status, but no test that passed in the baseline failed"
    [[ -n "$crashes" ]] && note="$note (its first run crashed during $crashes, the second did not: the crash was not the mutant's)"
    echo "SURVIVED  $id (${seconds} s)$note"
    survived=$((survived + 1))
  fi
  restore
done

# Every mutant's last killers, one line each, to commit as Tools/mutants/killers.txt after a whole run.
for known in $(python3 Tools/mutants/apply.py list | awk '{print $1}'); do
  [[ -s "$logs/$known.killers" ]] && echo "$known: $(paste -sd'|' "$logs/$known.killers")"
done > "$scratch/killers.txt"

elapsed=$(( $(date +%s) - run_started ))
if [[ $elapsed -ge 3600 ]]; then took="$((elapsed / 3600)) h $((elapsed % 3600 / 60)) min"; else took="$((elapsed / 60)) min $((elapsed % 60)) s"; fi
echo "mutants: ${#ids[@]} run, $killed killed, $survived survived, $stillborn stillborn, $hung hung, $stale no longer apply — $(date +%F), $took"
[[ $killed -eq ${#ids[@]} ]]
