#!/usr/bin/env bash
# CI: the kit template still generates a kit that builds and passes its tests on its own
# (`swift test --package-path`, outside the root package), as docs/writing-a-kit.md promises.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kit="$root/Packages/TemplateCheckKit"
trap 'rm -rf "$kit" "${log:-}"' EXIT
rm -rf "$kit"
"$root/Tools/new-kit/new-kit.sh" TemplateCheck
log="$(mktemp)"
swift test --package-path "$kit" 2>&1 | tee "$log"
"$root/Tools/check-warnings.sh" "$log"
DOCS_SCRATCH="$kit/.build" "$root/Tools/docs.sh" TemplateCheckKit
