#!/usr/bin/env python3
"""Regenerates the fault table of docs/reliability.md from the tests.

Every fault-injection or hostile-input test function in tests/faults/ has,
right above it, one comment line

    // Fault: WHAT IS DONE | User sees: WHAT THE USER SEES | Kept: WHAT IS KEPT

and data-driven tests list their rows with QTest::newRow("tag"). This script
collects them into the table between the GENERATED markers of
docs/reliability.md, so the table names exactly the tests that prove it.

    python3 tests/faults/collect-reliability.py [--check]

--check exits 1 when docs/reliability.md is out of date (or a test function
in tests/faults lacks its comment).
"""
import pathlib
import re
import sys

top = pathlib.Path(__file__).resolve().parents[2]
doc = top / "docs" / "reliability.md"
begin, end = "<!-- BEGIN GENERATED: tests/faults/collect-reliability.py -->", "<!-- END GENERATED -->"

comment = re.compile(r"^\s*// Fault: (.*?) \| User sees: (.*?) \| Kept: (.*)$")
function = re.compile(r"^\s*void (\w+)\(\)\s*$")
newrow = re.compile(r'QTest::newRow\("([^"]+)"\)')


def rows():
    out, missing = [], []
    for path in sorted((top / "tests" / "faults").glob("tst_*.cpp")):
        lines = path.read_text(encoding="utf-8").splitlines()
        test = path.stem
        for i, line in enumerate(lines):
            m = function.match(line)
            if not m or m.group(1) in ("initTestCase", "cleanupTestCase", "init", "cleanup") or m.group(1).endswith("_data"):
                continue
            c = comment.match(lines[i - 1]) if i > 0 else None
            for j, l in enumerate(lines):  # or above its NAME_data()
                if not c and j > 0 and re.match(rf"^\s*void {m.group(1)}_data\(\)", l):
                    c = comment.match(lines[j - 1])
            if not c:
                missing.append(f"{path.name}: {m.group(1)}")
                continue
            name = m.group(1)
            # Data tags of NAME_data, if any.
            tags = []
            for j, l in enumerate(lines):
                if re.match(rf"^\s*void {name}_data\(\)", l):
                    for k in range(j + 1, len(lines)):
                        if function.match(lines[k]) and k != j:
                            break
                        tags += newrow.findall(lines[k])
            fault, sees, kept = (s.strip() for s in c.groups())
            if tags:
                fault += " (cases: " + ", ".join(f"`{t}`" for t in tags) + ")"
            out.append((fault, sees, kept, f"`{test}::{name}`"))
    return out, missing


def table():
    found, missing = rows()
    lines = ["| Fault or bad input | What the user sees | What is kept | Test |", "|---|---|---|---|"]
    for fault, sees, kept, test in found:
        esc = lambda s: s.replace("|", "\\|")
        lines.append(f"| {esc(fault)} | {esc(sees)} | {esc(kept)} | {test} |")
    return "\n".join(lines) + "\n", missing


def main():
    generated, missing = table()
    text = doc.read_text(encoding="utf-8") if doc.exists() else f"{begin}\n{end}\n"
    if begin not in text or end not in text:
        sys.exit(f"{doc}: markers missing")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    new = head + begin + "\n" + generated + end + tail
    if "--check" in sys.argv:
        if missing:
            print("test functions without a 'Fault: | User sees: | Kept:' comment:\n  " + "\n  ".join(missing))
        if new != text:
            print(f"{doc} is out of date: run python3 tests/faults/collect-reliability.py")
        sys.exit(1 if missing or new != text else 0)
    doc.write_text(new, encoding="utf-8")
    for m in missing:
        print("warning: no Fault comment:", m)


if __name__ == "__main__":
    main()
