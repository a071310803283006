#!/usr/bin/env bash
# CI: the toolchain's swift-format, with the root .swift-format, finds nothing to change in the kits,
# the apps and the tests. To fix what it reports: Tools/format-lint.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Packages/*/Sources Packages/*/Tests Apps Tests)
if [[ "${1:-}" == "--fix" ]]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
echo "format-lint: clean"
