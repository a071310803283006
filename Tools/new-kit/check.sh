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
# The scratch folder CI's kit builds use (NEW_KIT_SCRATCH), so the core is not built again; the previous
# package's build plan is dropped first, as CI does between kits.
scratch="${NEW_KIT_SCRATCH:-$kit/.build}"
rm -f "$scratch/debug.yaml" "$scratch/debug/description.json"
swift test --package-path "$kit" --scratch-path "$scratch" 2>&1 | tee "$log"
"$root/Tools/check-warnings.sh" "$log"
DOCS_SCRATCH="$scratch" "$root/Tools/docs.sh" TemplateCheckKit
