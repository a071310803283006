#!/usr/bin/env python3
"""Every Swift example of the documentation, compiled: README.md, docs/, each package's README and DocC catalog,
and the `///` comments of every source (what DocC shows of each symbol).

`extract.py write` turns each ```swift block into Swift in Tools/DocExamples/Sources/DocExamples/Generated/ (one
file per page): declarations at the top level (a struct, an extension...), statements in a function of their
own, so the root package's build (`swift build`) compiles every example against the current API. The names an
example takes as given (`api`, `session`, `logger`...) are declared in Sources/DocExamples/Givens.swift.
`extract.py check` fails when the generated files differ from what the pages say (CI runs it before the build).

A block that cannot compile as written says so in an HTML comment on the line before its fence, with why:
`<!-- example: not compiled, a manifest fragment -->` (a Package.swift excerpt, a shell session, an Apple-only
framework such as SwiftUI or BackgroundTasks). Every other block is compiled.
"""
import pathlib, re, sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "Tools/DocExamples/Sources/DocExamples/Generated"
# The testing modules' examples are test code (they use Swift Testing's macros): compiled in a test target.
TEST_OUT = ROOT / "Tools/DocExamples/Tests/DocExampleTests/Generated"
TEST_MODULES = ["APICoreTestServer", "APICoreTesting", "CacheKitTesting", "CatalogKitTesting", "DocExamples", "Hummingbird",
                "HummingbirdCore", "Testing"]
MODULES = ["APICore", "APICoreGraphQL", "APICoreHTTPClient", "APICoreOffline", "APICorePinning", "APICoreREST",
           "AccountsKit", "CacheKit", "CatalogKit", "ChatHistoryKit", "ContactsKit", "Foundation", "GRDB", "HTTPTypes",
           "Logging", "MIBApp", "MIBCore", "ReferenceBackend", "SessionKit"]
SKIP = re.compile(r"<!--\s*example:\s*not compiled")
DECLARATION = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|private\s+|fileprivate\s+|final\s+)*(struct|extension|enum|class|protocol|actor)\b")


def pages():
    found = [ROOT / "README.md", ROOT / "Apps/README.md"]
    found += sorted((ROOT / "docs").glob("*.md"))
    found += sorted((ROOT / "Packages").glob("*/README.md"))
    found += sorted((ROOT / "Packages").glob("*/Sources/*/*.docc/*.md"))
    return [p for p in found if p.exists()]


def sources():
    found = sorted((ROOT / "Packages").glob("*/Sources/**/*.swift")) + sorted((ROOT / "Apps").glob("**/*.swift"))
    return [p for p in found if "/Generated/" not in p.as_posix()]


def comment_lines(source):
    """The source's `///` lines without their prefix (other lines blank), so a doc comment reads as a page."""
    out = []
    for line in source.read_text().splitlines():
        match = re.match(r"^\s*/// ?(.*)$", line)
        out.append(match.group(1) if match else "")
    return out


def blocks(page):
    """(line, code, skipped) for each ```swift block of the page (of a source file's doc comments)."""
    lines = comment_lines(page) if page.suffix == ".swift" else page.read_text().splitlines()
    result, index = [], 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            start = index
            index += 1
            body = []
            while index < len(lines) and lines[index].strip() != "```":
                body.append(lines[index])
                index += 1
            before = lines[start - 1] if start > 0 else ""
            result.append((start + 1, body, bool(SKIP.search(before))))
        index += 1
    return result


def split(body):
    """The block's top-level declarations (with the comments just above them) and its statements."""
    declarations, statements, depth, current, pending = [], [], 0, None, []
    for line in body:
        if current is not None:
            current.append(line)
            depth += line.count("{") - line.count("}")
            if depth <= 0:
                declarations.extend(current)
                current = None
            continue
        if re.match(r"^\s*import\s+\w+", line):
            continue
        if DECLARATION.match(line):
            # A page's own types stay in its file: two pages may each show a kit of the same name.
            if re.match(r"^(struct|enum|class|protocol|actor)\b", line):
                line = "fileprivate " + line
            current = pending + [line]
            pending = []
            depth = line.count("{") - line.count("}")
            if depth <= 0 and "{" in line:
                declarations.extend(current)
                current = None
            continue
        if line.startswith("///") or (line.startswith("//") and not statements):
            pending.append(line)
            continue
        statements.extend(pending)
        pending = []
        statements.append(line)
    if current is not None:
        declarations.extend(current)
    statements.extend(pending)
    return declarations, statements


def name(page):
    relative = page.relative_to(ROOT).as_posix().removesuffix(".md").removesuffix(".swift")
    return re.sub(r"[^A-Za-z0-9]+", "_", relative.replace("/Sources/", "/")).strip("_")


def is_test_code(page):
    return re.search(r"/Sources/(\w+Testing|APICoreTestServer)/", page.as_posix()) is not None


def generated():
    files = {}
    for page in pages() + sources():
        examples = [b for b in blocks(page) if not b[2]]
        if not examples:
            continue
        relative = page.relative_to(ROOT).as_posix()
        modules = sorted(MODULES + TEST_MODULES) if is_test_code(page) else MODULES
        out = [f"// Generated by Tools/DocExamples/extract.py from {relative}: edit the page, then run `extract.py write`.",
               "// swift-format-ignore-file", ""] + [f"import {m}" for m in modules] + [""]
        # Numbered in the page's order, not by line, so editing the prose around an example changes nothing here.
        for number, (_, body, _) in enumerate(examples, start=1):
            declarations, statements = split(body)
            out.append(f"// {relative}, example {number}")
            if declarations:
                out += declarations
            if any(s.strip() and not s.strip().startswith("//") for s in statements):
                # A screen's code runs on the main actor; a test's body does not.
                isolation = "" if is_test_code(page) else "@MainActor "
                out.append(f"{isolation}private func example{number}() async throws {{")
                out += ["    " + s if s.strip() else "" for s in statements]
                out.append("}")
            out.append("")
        files[(TEST_OUT if is_test_code(page) else OUT) / f"{name(page)}.swift"] = "\n".join(out)
    return files


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    files = generated()
    existing = {p: p.read_text() for folder in (OUT, TEST_OUT) for p in folder.glob("*.swift")}
    if command == "write":
        for folder in (OUT, TEST_OUT):
            folder.mkdir(parents=True, exist_ok=True)
        for stale in set(existing) - set(files):
            stale.unlink()
        for file, text in files.items():
            file.write_text(text)
        print(f"doc examples: {len(files)} pages written to {OUT.relative_to(ROOT)} and {TEST_OUT.relative_to(ROOT)}")
        return 0
    stale = sorted(set(existing) ^ set(files)) + sorted(f for f in files if existing.get(f) != files[f])
    if stale:
        names = ", ".join(sorted({p.name for p in stale}))
        print(f"doc examples: out of date with their pages (run python3 Tools/DocExamples/extract.py write): {names}")
        return 1
    count = sum(1 for page in pages() + sources() for b in blocks(page) if not b[2])
    skipped = sum(1 for page in pages() + sources() for b in blocks(page) if b[2])
    print(f"doc examples: {count} compiled from {len(files)} pages, {skipped} marked not compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
