#!/usr/bin/env python3
"""Reads Tools/mutants/mutants.txt. `apply.py check ROOT`: every mutant's text occurs exactly once.
`apply.py list`: the ids. `apply.py apply ROOT ID`: applies one mutant in ROOT (prints its file)."""
import sys, pathlib

def mutants():
    text = (pathlib.Path(__file__).parent / "mutants.txt").read_text()
    current, found = {}, []
    for line in text.splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if current:
                found.append(current)
            current = {}
            continue
        key, _, value = line.partition(": ")
        current[key] = value
    return found

def main():
    command = sys.argv[1]
    if command == "list":
        for mutant in mutants():
            print(mutant["id"], mutant["req"])
        return 0
    root = pathlib.Path(sys.argv[2])
    if command == "check":
        failures = 0
        for mutant in mutants():
            count = (root / mutant["file"]).read_text().count(mutant["from"]) if (root / mutant["file"]).exists() else 0
            if count != 1:
                print(f"mutant {mutant['id']}: its text occurs {count} times in {mutant['file']} (no longer applies)")
                failures += 1
        print(f"mutants: {len(mutants())} listed, {len(mutants()) - failures} apply")
        return 1 if failures else 0
    if command == "apply":
        mutant = next(m for m in mutants() if m["id"] == sys.argv[3])
        path = root / mutant["file"]
        text = path.read_text()
        if text.count(mutant["from"]) != 1:
            return 3
        path.write_text(text.replace(mutant["from"], mutant["to"]))
        print(mutant["file"])
        return 0
    return 2

sys.exit(main())
