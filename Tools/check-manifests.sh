#!/usr/bin/env bash
# CI: the kits' manifests stay in step. Every Packages/*/Package.swift must carry the same settings
# block, platform floors, language mode and settings loop as Packages/CacheKit/Package.swift, and every
# manifest of the repository must name each dependency with the same version.
set -euo pipefail
cd "$(dirname "$0")/.."
reference=Packages/CacheKit/Package.swift
failures=0

block() {  # the lines of $1 from the first line matching $2 to the first line matching $3 after it
  awk -v start="$2" -v stop="$3" '$0 ~ start {on=1} on {print} on && $0 ~ stop {exit}' "$1"
}

for manifest in Packages/*/Package.swift Tools/new-kit/template/Package.swift; do
  for part in "let sharedSettings|^]" "platforms:|platforms:" "swiftLanguageModes|swiftLanguageModes" "for target in package.targets|^}"; do
    start="${part%%|*}"; stop="${part##*|}"
    if [[ "$(block "$manifest" "$start" "$stop")" != "$(block "$reference" "$start" "$stop")" ]]; then
      echo "$manifest: '$start' differs from $reference"
      failures=$((failures + 1))
    fi
  done
done

# One version per dependency URL across every manifest.
manifests=(Package.swift Packages/*/Package.swift Tools/new-kit/template/Package.swift Tools/Benchmarks/Package.swift Tools/Fuzz/Package.swift Tools/Soak/Package.swift)
versions=$(grep -ho '\.package(url: "[^"]*", from: "[^"]*"' "${manifests[@]}" | sed -E 's/.*url: "([^"]*)", from: "([^"]*)"/\1 \2/' | sort -u)
for url in $(echo "$versions" | awk '{print $1}' | sort | uniq -d); do
  echo "$url is named with several versions: $(echo "$versions" | awk -v u="$url" '$1 == u {print $2}' | tr '\n' ' ')"
  failures=$((failures + 1))
done

# The app's composition root (Apps/MIBApp) is what an app copies: it links no server code.
if grep -n "^import \(ReferenceBackend\|Hummingbird\|NIO\)" Apps/MIBApp/*.swift; then
  echo "Apps/MIBApp imports server code"
  failures=$((failures + 1))
fi
# The target's own lines (from its `name:` line to its `path:`), not the product's, which names no dependency.
mibapp=$(block Package.swift '^ *name: "MIBApp",$' 'path:')
[[ -n "$mibapp" ]] || { echo "Package.swift: no MIBApp target found"; failures=$((failures + 1)); }
if grep -q '"ReferenceBackend"\|"MIBCore"\|hummingbird\|swift-nio' <<<"$mibapp"; then
  echo "Package.swift: the MIBApp target depends on server code"
  failures=$((failures + 1))
fi

# Small files named after what they hold: no library or app source over 300 lines.
while read -r lines file; do
  [[ "$file" == total ]] && continue
  if [[ $lines -gt 300 ]]; then
    echo "$file has $lines lines (more than 300): split it where a concern separates"
    failures=$((failures + 1))
  fi
done < <(git ls-files -co --exclude-standard 'Packages/*/Sources/*.swift' 'Apps/*.swift' | xargs wc -l)

if [[ $failures -gt 0 ]]; then
  echo "check-manifests: $failures problem(s)"
  exit 1
fi
echo "check-manifests: $(ls Packages/*/Package.swift | wc -l) kit manifests in step, one version per dependency, no source over 300 lines"
