#!/usr/bin/env bash
# CI: an app in another repository can depend on this one by URL and link every kit. A clone of this
# repository is tagged 1.0.0 and served as a file:// URL; the package in Tools/consumer/App depends on it,
# first by branch (main), then by version tag, and builds an executable that uses CacheKit, each APICore
# module and every feature kit; Tools/consumer/AliasApp renames our CacheKit beside a CacheKit of its own
# (moduleAliases). SwiftPM refuses path dependencies in a package fetched by URL, which is why
# the root declares the kits' targets itself (Tools/kit-manifests.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scratch="${CONSUMER_SCRATCH:-$root/.build-consumer}"

git clone -q "$root" "$work/mib-data-layer"
git -C "$work/mib-data-layer" checkout -q -B main
git -C "$work/mib-data-layer" -c user.name=ci -c user.email=ci@localhost tag -a 1.0.0 -m "consumer check"

build() {  # build() <package folder> <requirement> <executable>
  rm -rf "$work/app"
  cp -R "$root/Tools/consumer/$1" "$work/app"
  sed -i.bak -e "s|__URL__|file://$work/mib-data-layer|" -e "s|__REQUIREMENT__|$2|" "$work/app/Package.swift"
  echo "== $1, depending on this repository by URL, $2"
  (cd "$work/app" && swift package --scratch-path "$scratch" resolve && swift build --scratch-path "$scratch" \
    && "$scratch/debug/$3")
}
build App 'branch: "main"' ConsumerApp
build App 'from: "1.0.0"' ConsumerApp
build AliasApp 'branch: "main"' AliasedApp
