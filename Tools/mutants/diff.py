#!/usr/bin/env python3
"""Mutants for every line a change adds: `Tools/mutants/diff.sh BASE [--list] [--max N] [--only PATH]`.

For each Swift source line added since BASE (tests excluded), makes one-line mutants by operator:
  compare   a comparison flipped or loosened (== !=, < <=, > >=)
  logic     && and || swapped
  negate    an `if`/`guard`/`while` condition negated
  bool      a boolean constant flipped
  remove    a statement removed (a call or an assignment on a line of its own)
Then, for each: applies it, builds, runs first the tests that killed the file's hand-written mutants
(Tools/mutants/killers.txt), then those that name the file's types and, when none fails, the whole suite; reports each
mutant killed, stillborn (does not build), SURVIVED or HUNG (a test run past its deadline: 15 minutes for a
file's tests, 40 for the whole suite, then killed with the test process) with its line, and restores the file.
A survivor is a test to write or a line to delete; a hang, a test that does not end when the product breaks.
Exit status 1 when a mutant survived or hung. `--list` only prints the mutants.
A mutant Tools/mutants/equivalent.txt names (its file, operator, line and mutated line, with why no program can
tell it from the original) is reported EQUIVALENT and not run.
"""
import os
import re
import signal
import subprocess
import sys

ROOT = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
COMPARE = [("==", "!="), ("!=", "=="), ("<=", "<"), (">=", ">"), (" < ", " <= "), (" > ", " >= ")]
KEYWORDS = ("let ", "var ", "return", "guard ", "if ", "case ", "func ", "import ", "//", "}", "{", "@", "#", "default",
            "else", "throw", "switch ", "for ", "while ", "do ", "catch", "public ", "private ", "static ", "init",
            "struct ", "class ", "enum ", "extension ", "protocol ", "typealias ", "try ", "await ")


def added_lines(base):
    """(path, line number, text) of every Swift source line added since `base`, tests and tools excluded."""
    diff = subprocess.run(["git", "diff", "-U0", base, "--", "*.swift"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    path, number, lines = None, 0, []
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[6:] if line.startswith("+++ b/") else None
            path = name if name and "/Tests/" not in name and not name.startswith(("Tests/", "Tools/")) else None
        elif line.startswith("@@"):
            number = int(re.search(r"\+(\d+)", line).group(1))
        elif line.startswith("+") and path:
            lines.append((path, number, line[1:]))
            number += 1
    return lines


def mutants(text):
    """(operator, mutated line) pairs for one line; none for comments and documentation."""
    code = text.split("//")[0]
    if not code.strip() or code.strip().startswith(("///", "*")):
        return []
    found = []
    for old, new in COMPARE:
        if old in code and "->" not in code.replace(old, "", 0):
            found.append(("compare", text.replace(old, new, 1)))
    for old, new in (("&&", "||"), ("||", "&&")):
        if old in code:
            found.append(("logic", text.replace(old, new, 1)))
    match = re.match(r"^(\s*)(if|guard|while) (.+?)( else)? \{\s*$", text)
    if match and "let " not in match.group(3) and "case " not in match.group(3):
        found.append(("negate", f"{match.group(1)}{match.group(2)} !({match.group(3)}){match.group(4) or ''} {{"))
    for old, new in ((r"\btrue\b", "false"), (r"\bfalse\b", "true")):
        if re.search(old, code):
            found.append(("bool", re.sub(old, new, text, count=1)))
    stripped = code.strip()
    if stripped and not stripped.startswith(KEYWORDS) and not stripped.endswith(("{", ",", "(", "[")) \
            and re.match(r"^[\w.?!\[\]\"]+(\(|\s*[+\-*]?=\s)", stripped):
        found.append(("remove", re.match(r"^\s*", text).group(0) + "_ = ()  // removed by diff.sh"))
    return found


def guarding_tests(path):
    """A --filter of the tests that killed the hand-written mutants of `path` (Tools/mutants/killers.txt), or None."""
    ids, current = set(), None
    for line in open(os.path.join(ROOT, "Tools/mutants/mutants.txt"), encoding="utf-8"):
        if line.startswith("id: "):
            current = line[4:].strip()
        elif line.startswith("file: ") and line[6:].strip() == path:
            ids.add(current)
    names = set()
    killers = os.path.join(ROOT, "Tools/mutants/killers.txt")
    for line in open(killers, encoding="utf-8") if os.path.exists(killers) else []:
        mutant, _, tests = line.partition(": ")
        if mutant in ids:
            names.update(m.group(1) for t in tests.split("|") if (m := re.match(r"^([A-Za-z_]\w*)\(", t.strip())))
    return "/(" + "|".join(sorted(names)) + r")\(" if names else None


def covering_tests(path):
    """A --filter of the test suites that name a type the file declares, or None."""
    source = open(os.path.join(ROOT, path), encoding="utf-8").read()
    types = set(re.findall(r"\b(?:struct|class|enum|actor|extension)\s+(\w+)", source))
    suites = set()
    for folder in ["Tests"] + [os.path.join("Packages", p, "Tests") for p in os.listdir(os.path.join(ROOT, "Packages"))]:
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if not name.endswith(".swift"):
                    continue
                test = open(os.path.join(directory, name), encoding="utf-8").read()
                if any(re.search(rf"\b{re.escape(t)}\b", test) for t in types):
                    suites.update(re.findall(r"struct (\w+Tests)\b", test))
    return "|".join(sorted(suites)) or None


def equivalents():
    """{(path, operator, original, mutated): why} from Tools/mutants/equivalent.txt (file/op/line/to/why blocks)."""
    known, block = {}, {}
    path = os.path.join(ROOT, "Tools/mutants/equivalent.txt")
    if not os.path.exists(path):
        return known
    for line in open(path, encoding="utf-8").read().split("\n") + [""]:
        if line.lstrip().startswith("#"):
            continue
        if not line.strip():
            if block and all(k in block for k in ("file", "op", "line", "to", "why")):
                known[(block["file"], block["op"], block["line"], block["to"])] = block["why"]
            elif block:
                print(f"equivalent.txt: a block without file, op, line, to and why is ignored: {block}")
            block = {}
            continue
        key, _, value = line.partition(": ")
        block[key] = value.strip()
    return known


FAILED = []  # the tests the last run named as failed
TESTS_DEADLINE = 900  # seconds for the tests that guard a file: minutes when they pass
SUITE_DEADLINE = 2400


def run(command, timeout):
    """The command's exit status, or None when it ran past `timeout` seconds: then it is killed with everything it
    started (the test process too, which a plain timeout leaves running)."""
    FAILED.clear()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    output = re.sub(r"\x1b\[[0-9;]*m", "", stdout + stderr)
    FAILED.extend(dict.fromkeys(re.findall(r"^\S+ Test (.+?) failed after \d", output, re.MULTILINE)))
    return process.returncode


def by():
    """Who killed it, for the report: the first failing tests the last run named."""
    return f" ({', '.join(FAILED[:3])}{' and more' if len(FAILED) > 3 else ''})" if FAILED else ""


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    base, listing = argv[0], "--list" in argv
    limit = int(argv[argv.index("--max") + 1]) if "--max" in argv else None
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    candidates = [(p, n, op, m, t) for p, n, t in added_lines(base) if not only or p.startswith(only) for op, m in mutants(t)]
    if limit is not None:
        candidates = candidates[:limit]
    print(f"{len(candidates)} mutants on the lines added since {base}")
    survivors, known = [], equivalents()
    for path, number, operator, mutated, original in candidates:
        where = f"{path}:{number} [{operator}]"
        why = known.get((path, operator, original.strip(), mutated.strip()))
        if listing:
            print(f"{where}{' (equivalent)' if why else ''}\n  - {original.strip()}\n  + {mutated.strip()}")
            continue
        if why:
            print(f"{where}: EQUIVALENT ({why})")
            continue
        file = os.path.join(ROOT, path)
        lines = open(file, encoding="utf-8").read().split("\n")
        if lines[number - 1] != original:
            print(f"{where}: the line moved; skipped")
            continue
        lines[number - 1] = mutated
        open(file, "w", encoding="utf-8").write("\n".join(lines))
        try:
            if run(["swift", "build", "--build-tests"], 1800) != 0:
                print(f"{where}: stillborn")
                continue
            stages = [
                ("the tests that killed the file's hand-written mutants", guarding_tests(path) or "", TESTS_DEADLINE),
                ("the tests naming its types", covering_tests(path) or "", TESTS_DEADLINE),
                ("the whole suite", None, SUITE_DEADLINE),
            ]
            verdict = None
            for name, tests, deadline in stages:
                if tests == "":
                    continue
                status = run(["swift", "test", "--skip-build"] + (["--filter", tests] if tests else []), deadline)
                if status is None:
                    # The mutant is seen, but only because a test never ends: a hang is a finding, not a kill.
                    verdict = f"HUNG: {name} ran past {deadline} s\n  - {original.strip()}\n  + {mutated.strip()}"
                    break
                if status != 0:
                    verdict = f"killed by {name}{by()}"
                    break
            if verdict and not verdict.startswith("HUNG"):
                print(f"{where}: {verdict}")
                continue
            print(f"{where}: {verdict or 'SURVIVED'}" + ("" if verdict else f"\n  - {original.strip()}\n  + {mutated.strip()}"))
            survivors.append(where)
        finally:
            lines[number - 1] = original
            open(file, "w", encoding="utf-8").write("\n".join(lines))
    if not listing:
        print(f"{len(survivors)} survived or hung of {len(candidates)}" + "".join(f"\n  {s}" for s in survivors))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
