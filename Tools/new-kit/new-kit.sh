#!/usr/bin/env bash
# Creates Packages/<Name>Kit from the template beside this script: a feature kit that builds and passes its
# tests as generated. Usage: Tools/new-kit/new-kit.sh Notes   (then: swift test --package-path Packages/NotesKit)
# Walk-through: docs/writing-a-kit.md.
set -euo pipefail
name="${1:?usage: new-kit.sh <Name> (letters only, e.g. Notes)}"
[[ "$name" =~ ^[A-Z][A-Za-z]+$ ]] || { echo "the name must be letters, starting with a capital: $name" >&2; exit 1; }
lower="$(echo "$name" | tr '[:upper:]' '[:lower:]')"
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="$root/Packages/${name}Kit"
[[ -e "$target" ]] && { echo "$target exists already" >&2; exit 1; }
mkdir -p "$target"
(cd "$(dirname "$0")/template" && find . -type f) | while read -r file; do
  out="$target/${file//__Name__/$name}"
  mkdir -p "$(dirname "$out")"
  sed -e "s/__Name__/$name/g" -e "s/__name__/$lower/g" "$(dirname "$0")/template/$file" > "$out"
done
echo "Created $target. Next: swift test --package-path Packages/${name}Kit; then register it with the root"
echo "(add ${name}Kit to KITS in Tools/kit-manifests.py and run Tools/kit-manifests.py write) and add it to"
echo "the app's Composition (docs/writing-a-kit.md, sections 7 and 8)."
