#!/usr/bin/env bash
# Fails when a build log holds a compiler warning in the project's own sources (dependencies' warnings,
# under .build*/, are theirs). CI builds from a clean clone, so every file is compiled and every warning
# printed: `swift build --build-tests 2>&1 | tee build.log; Tools/check-warnings.sh build.log`.
set -euo pipefail
log="${1:?usage: check-warnings.sh <build log>}"
root="$(cd "$(dirname "$0")/.." && pwd)"
# The documentation's examples (Tools/DocExamples) show values a reader goes on to use: "never used" is theirs to keep.
own=$(grep -E '^/[^:]+\.swift:[0-9]+:[0-9]+: warning:' "$log" | grep -F "$root/" | grep -vE "$root/(\.build[^/]*|Tools/[^/]+/\.build[^/]*)/" \
  | grep -vE "$root/Tools/DocExamples/[^ ]*/Generated/.*(was never used|is unused)" | sort -u || true)
if [[ -n "$own" ]]; then
  echo "check-warnings: the project's own code has warnings (fix them; CI fails on any):"
  echo "$own"
  exit 1
fi
echo "check-warnings: no warning in the project's own code"
