#!/usr/bin/env bash
# Builds every package's DocC documentation (each library module: its `///` comments and its catalog's
# articles) and fails on any warning, a broken symbol link or an undocumented parameter among them.
#   Tools/docs.sh                      all packages, into .build-kits (CI passes DOCS_SCRATCH=.build, its own)
#   Tools/docs.sh CatalogKit           one package
# The archives land in .build-kits/plugins/Swift-DocC/outputs/<Module>.doccarchive; to read one, see the README.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${DOCS_SCRATCH:-$root/.build-kits}"
packages=("$@")
[[ ${#packages[@]} -gt 0 ]] || packages=(CacheKit APICore SessionKit CatalogKit AccountsKit ChatHistoryKit ContactsKit)
for package in "${packages[@]}"; do
  dir="$root/Packages/$package"
  targets=$(swift package --package-path "$dir" dump-package | python3 -c '
import json, sys
manifest = json.load(sys.stdin)
libraries = [p for p in manifest["products"] if "library" in p["type"]]
print(" ".join(sorted({t for p in libraries for t in p["targets"]})))')
  args=()
  for target in $targets; do args+=(--target "$target"); done
  echo "== documentation of $package: $targets"
  swift package --package-path "$dir" --scratch-path "$scratch" generate-documentation "${args[@]}" --warnings-as-errors
done
