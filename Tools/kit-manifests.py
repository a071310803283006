#!/usr/bin/env python3
"""The root Package.swift declares every kit's targets itself, so that an app can depend on this repository
by URL (SwiftPM refuses path dependencies in a package fetched by URL). Each Packages/<Kit>/Package.swift stays
the source for building and testing that kit alone; this keeps the two in step.

    Tools/kit-manifests.py write    rewrite the root's kit section from the kits' manifests
    Tools/kit-manifests.py check    fail when the root and a kit's manifest disagree (CI)

`check` reads both through `swift package dump-package`: the same targets, types, paths, dependencies, settings,
resources and excluded files, and each kit library a root product.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITS = ["CacheKit", "APICore", "SessionKit", "CatalogKit", "AccountsKit", "ChatHistoryKit", "ContactsKit"]
BEGIN = "// BEGIN kit targets: generated from Packages/*/Package.swift by `Tools/kit-manifests.py write`."
END = "// END kit targets"


def dump(path):
    out = subprocess.run(["swift", "package", "--package-path", path, "dump-package"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"kit-manifests: cannot read {path}/Package.swift:\n{out.stderr}")
    return json.loads(out.stdout)


def target_path(target, kit):
    folder = "Tests" if target["type"] == "test" else "Sources"
    own = target.get("path") or f"{folder}/{target['name']}"
    return f"Packages/{kit}/{own}" if kit else own


def dependency(dep, kit_packages):
    """('target', name) for a target of the monorepo, ('product', name, package) for an outside product."""
    if "byName" in dep:
        return ("target", dep["byName"][0])
    if "target" in dep:
        return ("target", dep["target"][0])
    name, package = dep["product"][0], dep["product"][1]
    if package in kit_packages:
        return ("target", name)
    return ("product", name, package)


def settings(target):
    return sorted(json.dumps(s, sort_keys=True) for s in target.get("settings") or [])


def resources(target):
    return sorted(json.dumps(r, sort_keys=True) for r in target.get("resources") or [])


def shape(target, kit, kit_packages):
    return {
        "type": target["type"],
        "path": target_path(target, kit),
        "dependencies": sorted(tuple(part.lower() for part in dependency(d, kit_packages)) for d in target["dependencies"]),
        "settings": settings(target),
        "resources": resources(target),
        "exclude": sorted(target.get("exclude") or []),
    }


def check():
    kit_packages = set(KITS)
    root = dump(ROOT)
    root_targets = {t["name"]: t for t in root["targets"]}
    root_products = {p["name"]: p for p in root["products"]}
    problems = []
    for kit in KITS:
        manifest = dump(os.path.join(ROOT, "Packages", kit))
        for target in manifest["targets"]:
            name = target["name"]
            if name not in root_targets:
                problems.append(f"{kit}: target {name} is not declared in the root Package.swift")
                continue
            want, have = shape(target, kit, kit_packages), shape(root_targets[name], None, kit_packages)
            for field in want:
                if want[field] != have[field]:
                    problems.append(f"{kit}: target {name}: {field} differs\n  kit:  {want[field]}\n  root: {have[field]}")
        for product in manifest["products"]:
            if "library" not in product["type"]:
                continue
            root_product = root_products.get(product["name"])
            if root_product is None or sorted(root_product["targets"]) != sorted(product["targets"]):
                problems.append(f"{kit}: library {product['name']} is not a root product of targets {product['targets']}")
        declared = {t["name"] for t in manifest["targets"]}
        for name, target in root_targets.items():
            if target_path(target, None).startswith(f"Packages/{kit}/") and name not in declared:
                problems.append(f"root: target {name} lives in Packages/{kit} but its manifest does not declare it")
    if root.get("dependencies") and any(d.get("fileSystem") for d in root["dependencies"]):
        problems.append("root: a path dependency (.package(path:)) makes the repository unusable by URL")
    if problems:
        print("kit-manifests: the root Package.swift and the kits' manifests disagree "
              "(run Tools/kit-manifests.py write):")
        print("\n".join(problems))
        sys.exit(1)
    print(f"kit-manifests: the root declares all {len(KITS)} kits' targets and products as their manifests do")


def swift_dependency(dep):
    if dep[0] == "target":
        return f'"{dep[1]}"'
    return f'.product(name: "{dep[1]}", package: "{dep[2]}")'


def write():
    kit_packages = set(KITS)
    targets, products = [], []
    for kit in KITS:
        manifest = dump(os.path.join(ROOT, "Packages", kit))
        for target in manifest["targets"]:
            if target.get("resources") or target.get("exclude"):
                sys.exit(f"kit-manifests: {target['name']} has resources or exclusions; declare them in the root by hand")
            kind = {"regular": "target", "test": "testTarget"}[target["type"]]
            deps = [swift_dependency(dependency(d, kit_packages)) for d in target["dependencies"]]
            targets.append(
                f'    .{kind}(\n        name: "{target["name"]}",\n        dependencies: [\n'
                + "".join(f"            {d},\n" for d in deps)
                + f'        ],\n        path: "{target_path(target, kit)}"\n    ),\n')
        for product in manifest["products"]:
            if "library" in product["type"]:
                names = ", ".join(f'"{t}"' for t in product["targets"])
                products.append(f'    .library(name: "{product["name"]}", targets: [{names}]),\n')
    block = (f"{BEGIN}\n// Each kit builds and tests alone from its own manifest; CI checks that this section agrees with them.\n"
             "let kitProducts: [Product] = [\n" + "".join(products) + "]\n\n"
             "let kitTargets: [Target] = [\n" + "".join(targets) + "]\n" + END)
    path = os.path.join(ROOT, "Package.swift")
    text = open(path).read()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        sys.exit("kit-manifests: the root Package.swift has no kit section between the BEGIN and END lines")
    open(path, "w").write(pattern.sub(lambda _: block, text))
    print("kit-manifests: the root's kit section is written")


if __name__ == "__main__":
    {"check": check, "write": write}.get(sys.argv[1] if len(sys.argv) > 1 else "", lambda: sys.exit(__doc__))()
