#!/usr/bin/env python3
"""Names the tests of a `swift test` log, one a line, each once, in the order the log ends them.
`results.py failed LOG`: the tests that failed. `results.py passed LOG`: those that passed.
`results.py ended LOG`: both. `results.py unfinished LOG`: those that started and never ended (a crash).
Reads Swift Testing's lines (`✘ Test someTest() failed after 0.1 seconds…`, `✔ Test "A display name"
passed after…`) and XCTest's (`Test Case 'Suite.testName' failed (0.01 seconds).`). A suite's lines and
the whole run's (`◇ Test run started.`, `✘ Test run with 12 tests in 3 suites failed after…`) name no test."""
import re, sys

# The symbol before "Test" is left open: it is ✘ or ✔ here, an SF Symbol on a Mac.
ENDED = [re.compile(r"^\S+ Test (.+) (passed|failed) after \d"), re.compile(r"^Test Case '(.+)' (passed|failed) \(")]
STARTED = [re.compile(r"^\S+ Test (.+) (started)\.$"), re.compile(r"^Test Case '(.+)' (started)")]
RUN = re.compile(r"^run( with \d+ tests?\b|$)")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")

def tests(log, patterns):
    """(name, word) for each line that one of the patterns reads, in the log's order."""
    with open(log, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            line = COLOUR.sub("", line).strip()
            match = next((m for m in (p.match(line) for p in patterns) if m), None)
            if match and not RUN.match(match[1]):
                yield match[1], match[2]

def main():
    wanted, log = sys.argv[1], sys.argv[2]
    if wanted == "unfinished":
        ended = {name for name, _ in tests(log, ENDED)}
        names = [name for name, _ in tests(log, STARTED) if name not in ended]
    else:
        names = [name for name, word in tests(log, ENDED) if wanted in (word, "ended")]
    print("\n".join(dict.fromkeys(names)), end="\n" if names else "")
    return 0

sys.exit(main())
