#!/usr/bin/env python3
"""A class that grows past LIMIT lines across all its files does more than one
job: split the class, not the file.

A class's lines are its declaration in headers plus the bodies of its member
functions wherever they are defined, plus the code of the .cpp files it owns
that belongs to no class (file-local helpers): a file belongs to the class that
has the most lines in it. A nested class counts with its outer class (its
members' bodies, `Outer::Inner::f`, are the outer class's lines too).
Comments and blank lines do not count.

Usage: check-class-size.py [TOP]   (exit 0 clean, 1 with the offenders)
"""
import collections
import os
import re
import subprocess
import sys

LIMIT = 500
# Classes still over the limit, each with the most lines it may have until it
# is split; one may shrink, never grow, and the list only gets shorter.
KNOWN = {}
# `ns::function(` at the start of a line names a namespace, not a class.
NAMESPACES = {'std', 'Qt', 'nlohmann', 'torch', 'trainyard', 'protocol', 'detail'}


def strip(text):
    """Comments and string literals out, newlines kept (so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]):
            delim = ')' + re.match(r'R"([^(\s]*)\(', text[i:]).group(1) + '"'
            j = text.find(delim, i)
            j = n if j < 0 else j + len(delim)
            out.append('""' + '\n' * text.count('\n', i, j))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def matching(text, start, open_, close):
    depth = 0
    for j in range(start, len(text)):
        if text[j] == open_:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def measure(files):
    lines = collections.defaultdict(set)  # class -> {(file, line)}
    owned = collections.defaultdict(set)  # file -> lines inside some class's code
    for f in files:
        text = strip(open(f, encoding='utf-8').read())
        def take(name, a, b):
            first = text.count('\n', 0, a)
            last = text.count('\n', 0, b)
            rows = text.split('\n')
            for k in range(first, last + 1):
                if rows[k].strip():
                    lines[name].add((f, k))
                    owned[f].add(k)
        if f.endswith('.h'):
            for m in re.finditer(r'^\s*(?:class|struct)\s+(?:[A-Z_]+_EXPORT\s+)?(\w+)\b[^;{()]*\{', text, re.M):
                take(m.group(1), m.start(), matching(text, m.end() - 1, '{', '}'))
        for m in re.finditer(r'^[^\s#][^;{}]*?\b((?:\w+::)+)~?\w+\s*\(', text, re.M):
            close = matching(text, m.end() - 1, '(', ')')
            body = re.match(r'[^;{]*\{', text[close + 1:close + 2000], re.S)
            # A nested class's members count with its outer class.
            scopes = [c for c in m.group(1).split('::') if c and c not in NAMESPACES]
            if body and scopes:
                brace = close + body.end()
                take(scopes[0], m.start(), matching(text, brace, '{', '}'))
    # A .cpp file's code outside any class goes to the class that owns the file.
    for f in files:
        if not f.endswith('.cpp'):
            continue
        here = collections.Counter({c: sum(1 for (g, _) in v if g == f) for c, v in lines.items()})
        if not here or here.most_common(1)[0][1] == 0:
            continue
        owner = here.most_common(1)[0][0]
        rows = strip(open(f, encoding='utf-8').read()).split('\n')
        for k, row in enumerate(rows):
            s = row.strip()
            if not s or k in owned[f] or s.startswith(('#include', 'namespace', '} // namespace', 'using ')):
                continue
            if s in ('{', '}', '};') and not lines[owner]:
                continue
            lines[owner].add((f, k))
    return lines


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
    os.chdir(top)
    # Files not yet added count too: a class is measured as it is in the tree.
    listed = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard', 'core/*.cpp', 'core/*.h',
                             'ui/*.cpp', 'ui/*.h'], capture_output=True, text=True, check=True).stdout.split()
    files = [f for f in listed if os.path.isfile(f)]
    status = 0
    for name, where in sorted(measure(files).items(), key=lambda kv: -len(kv[1])):
        n = len(where)
        ceiling = KNOWN.get(name, LIMIT)
        if n > ceiling:
            status = 1
            paths = ' '.join(sorted({f for f, _ in where}))
            allowed = f'at most {ceiling} until it is split' if name in KNOWN else f'at most {LIMIT}'
            print(f'check-class-size: {name} has {n} lines ({allowed}): {paths}', file=sys.stderr)
    return status


if __name__ == '__main__':
    sys.exit(main())
