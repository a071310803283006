#!/usr/bin/env bash
# Mutants for every line a change adds, run against the tests: `Tools/mutants/diff.sh BASE [--list] [--max N]
# [--only PATH]` (docs/testing.md). A survivor is a test to write or a line to delete.
set -euo pipefail
exec python3 "$(dirname "$0")/diff.py" "$@"
