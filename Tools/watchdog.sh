#!/usr/bin/env bash
# Runs a test command under a deadline for the whole run: `Tools/watchdog.sh SECONDS swift test [ARGS…]`.
# Its output goes through as it comes (and into a log). When the deadline passes, the run is stopped, and the
# tests it started and never finished are named (Tools/mutants/results.py), so a hang says where it is
# instead of holding CI for its whole budget. Exits with the command's status, or 124 on the deadline.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
seconds=$1; shift
log=$(mktemp)
timeout --kill-after=20 "$seconds" "$@" > >(tee "$log") 2>&1 &
pid=$!
wait "$pid"; status=$?
sleep 1  # the tee's last lines
if [[ $status -eq 124 || $status -eq 137 ]]; then
  echo "watchdog: '$*' did not end within ${seconds} s; started and not finished:"
  python3 Tools/mutants/results.py unfinished "$log" | sed 's/^/  /'
  status=124
fi
rm -f "$log"
exit "$status"
