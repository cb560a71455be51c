#!/usr/bin/env python3
"""What a newcomer reads holds together: the README stays short, every
relative link and image in README.md, CHANGELOG.md, CONTRIBUTING.md and
docs/*.md points to a file that exists (and, for a `#anchor` into a Markdown
page, to one of its headings, spelt as GitHub spells them), and neither
those pages nor the strings the programs show name internal issue numbers.

Usage: check-docs.py [TOP]   (exit 0 clean, 1 with each problem on its line)
"""
import os
import re
import sys

README_LIMIT = 12 * 1024  # bytes: a README read top to bottom, not a manual
ISSUE = re.compile(r"\bissues? ?#?[0-9]+|(?<![\w&/])#[0-9]{2}\b", re.IGNORECASE)
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(text):
    """GitHub's anchor for a heading: markup dropped, lower case, anything
    but letters, digits, '_', '-' and spaces removed, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path):
    """(line number, line) outside fenced code blocks, inline code removed."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            if stripped.startswith("```") or stripped.startswith("~~~"):
                mark = stripped[:3]
                fence = None if fence == mark else (fence or mark)
                continue
            if fence is None:
                yield number, re.sub(r"`[^`]*`", "", line)


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        for _, line in prose_lines(path):
            m = HEADING.match(line.rstrip("\n"))
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
        # Inline code is dropped from prose_lines; headings keep its words.
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = HEADING.match(line.rstrip("\n"))
                if m:
                    found.add(slug(m.group(2)))
        cache[path] = found
    return cache[path]


def pages(top):
    names = [n for n in ("README.md", "CHANGELOG.md", "CONTRIBUTING.md") if os.path.exists(os.path.join(top, n))]
    docs = os.path.join(top, "docs")
    names += sorted(os.path.join("docs", n) for n in os.listdir(docs) if n.endswith(".md"))
    return names


def check_links(top, name, problems):
    page = os.path.join(top, name)
    for number, line in prose_lines(page):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                problems.append("%s:%d: link to %s: no such file" % (name, number, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append("%s:%d: link to %s: no such heading in %s" % (name, number, target, os.path.relpath(dest, top)))


def check_issue_numbers(top, name, problems):
    with open(os.path.join(top, name), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = ISSUE.search(line)
            if m:
                problems.append("%s:%d: an issue number in what users read: %r" % (name, number, m.group(0)))


def check_program_strings(top, problems):
    """String literals of the programs and the Python module."""
    literal = re.compile(r'"(?:[^"\\\n]|\\.)*"')
    for folder in ("app", "ui", "core", "python"):
        for root, _, files in os.walk(os.path.join(top, folder)):
            for file in files:
                if not file.endswith((".cpp", ".h", ".py")):
                    continue
                path = os.path.join(root, file)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        for text in literal.findall(line):
                            m = ISSUE.search(text)
                            if m:
                                problems.append("%s:%d: an issue number in a message: %r"
                                                % (os.path.relpath(path, top), number, m.group(0)))


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    size = os.path.getsize(os.path.join(top, "README.md"))
    if size >= README_LIMIT:
        problems.append("README.md: %d bytes, keep it under %d (reference goes to docs/)" % (size, README_LIMIT))
    for name in pages(top):
        check_links(top, name, problems)
        check_issue_numbers(top, name, problems)
    check_program_strings(top, problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
