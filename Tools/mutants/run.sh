#!/usr/bin/env bash
# The mutant check (docs/testing.md): applies each one-line break of Tools/mutants/mutants.txt to a scratch
# copy of the repository, rebuilds it incrementally, runs the whole suite under a deadline, and reports
# killed (a test failed), survived (every test passed: a promise no test holds), hung (the deadline
# passed) or no longer applies. The scratch copy is restored after each mutant, and on interruption.
#   Tools/mutants/run.sh            every mutant
#   Tools/mutants/run.sh ID [ID…]   those
# Environment: MUTANT_DEADLINE (seconds, default 600) for one suite run.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
scratch="$root/.build-mutants"
tree="$scratch/tree"
deadline=${MUTANT_DEADLINE:-600}
mkdir -p "$scratch/logs"

# A copy of the working tree (sources only), refreshed on each run; its build folder is kept, so only what
# a mutant touches is rebuilt.
rm -rf "$tree" && mkdir -p "$tree"
tar -C "$root" --exclude='./.build*' --exclude='./.git' -cf - . | tar -C "$tree" -xf -

ids=("$@")
if [[ ${#ids[@]} -eq 0 ]]; then mapfile -t ids < <(python3 Tools/mutants/apply.py list | awk '{print $1}'); fi

# A mutated file is restored from the copy taken when the run started, never from the working tree, which
# may have changed since (a file edited meanwhile would otherwise break every later mutant's build).
pristine="$scratch/pristine"
rm -rf "$pristine" && cp -a "$tree" "$pristine"
restore() { [[ -n "${current:-}" ]] && cp "$pristine/$current" "$tree/$current"; current=""; }
trap 'restore; echo "interrupted: the scratch copy was restored"; exit 130' INT TERM

echo "building the scratch copy once (cold: ~8 min)"
swift build --build-tests --package-path "$tree" --scratch-path "$scratch/build" > "$scratch/logs/baseline-build.log" 2>&1 \
  || { echo "the unmutated copy does not build: $scratch/logs/baseline-build.log"; exit 1; }

killed=0; survived=0; hung=0; stale=0
for id in "${ids[@]}"; do
  current=$(python3 Tools/mutants/apply.py apply "$tree" "$id") || { echo "NO LONGER APPLIES  $id"; stale=$((stale + 1)); current=""; continue; }
  log="$scratch/logs/$id.log"
  started=$(date +%s)
  if ! swift build --build-tests --package-path "$tree" --scratch-path "$scratch/build" > "$log" 2>&1; then
    echo "KILLED (does not build)  $id"; killed=$((killed + 1)); restore; continue
  fi
  timeout --kill-after=10 "$deadline" swift test --skip-build --package-path "$tree" --scratch-path "$scratch/build" >> "$log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - started ))
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    echo "HUNG  $id (${seconds} s)"; hung=$((hung + 1))
  elif [[ $status -ne 0 ]]; then
    failing=$(grep -oE '✘ Test [^ ]+' "$log" | sed 's/✘ Test //' | grep -vx 'run' | sort -u | head -3 | paste -sd, -)
    echo "KILLED  $id (${seconds} s) by ${failing:-a failing test}"; killed=$((killed + 1))
  else
    echo "SURVIVED  $id (${seconds} s)"; survived=$((survived + 1))
  fi
  restore
done
echo "mutants: ${#ids[@]} run, $killed killed, $survived survived, $hung hung, $stale no longer apply"
[[ $survived -eq 0 && $hung -eq 0 && $stale -eq 0 ]]
