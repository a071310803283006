#!/usr/bin/env bash
# Runs a command with busy processes beside it, as a second build or an indexer would load a developer's
# machine: `Tools/under-load.sh N COMMAND [ARGS…]` starts N processes that spin on a core each, runs the
# command, stops them, and exits with the command's status. CI runs the whole suite this way (two on two
# cores): a test that fails only under load would fail someday in CI anyway.
set -uo pipefail
count=$1; shift
hogs=()
for _ in $(seq "$count"); do
  yes > /dev/null &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
echo "under load: $count busy processes beside '$*'"
"$@"
