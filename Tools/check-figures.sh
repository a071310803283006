#!/usr/bin/env bash
# CI: the figures the README quotes are the repository's own. Today one: how many mutants Tools/mutants lists.
# (docs/testing.md keeps dated figures of past runs; those are history, not claims about now.)
set -euo pipefail
cd "$(dirname "$0")/.."
listed=$(grep -c "^id: " Tools/mutants/mutants.txt)
quoted=$(grep -oE 'The mutant check \([0-9]+ mutants' README.md | grep -oE '[0-9]+' || true)
if [ "$quoted" != "$listed" ]; then
  echo "README.md quotes ${quoted:-no} mutants; Tools/mutants/mutants.txt lists $listed"
  exit 1
fi
echo "figures: the README's mutant count ($listed) is the list's"
