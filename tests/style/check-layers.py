#!/usr/bin/env python3
"""core/'s folders hold in layers: a file includes headers of its own folder
and of the folders below it, never of one above (docs/architecture.md,
"Layers").

The order is read from one place, the diagram in docs/architecture.md between
the `<!-- layers -->` and `<!-- /layers -->` markers: one line per layer, the
top layer first, each line's first words the folders of that layer
(`name/`). Folders on the same line are of one layer and include none of each
other. The checked files are those of core/protocol, core/metrics and every
folder of core/orchestration; a folder or an included folder that the diagram
does not name is an error, so a new folder gets its place before its first
include. Files at core/orchestration's root (logcategories.h) are below all.

Usage: check-layers.py [TOP]   (exit 0 clean, 1 with the offending includes)
"""
import os
import re
import sys

# Includes still going up, each (file, header): why it is not fixed yet. The
# list only gets shorter: an entry that no longer occurs is an error too.
KNOWN = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LAYER_LINE = re.compile(r'^\s*((?:[a-z][a-z0-9_]*(?:/[a-z][a-z0-9_]*)?/\s+)+)')


def read_layers(top):
    """{folder: layer index, 0 the bottom}, from the architecture page."""
    path = os.path.join(top, 'docs', 'architecture.md')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'<!-- layers -->(.*?)<!-- /layers -->', text, re.S)
    if not m:
        sys.exit(f'{path}: no <!-- layers --> ... <!-- /layers --> diagram')
    rows = []
    for line in m.group(1).splitlines():
        if line.strip().startswith('```'):
            continue
        words = LAYER_LINE.match(line + ' ')
        if words:
            rows.append([w.rstrip('/') for w in words.group(1).split()])
    layers = {}
    for index, row in enumerate(reversed(rows)):
        for folder in row:
            if folder in layers:
                sys.exit(f'{path}: {folder}/ is in the layer diagram twice')
            layers[folder] = index
    return layers


def folder_of_file(rel):
    """The diagram's name for the folder of `rel` (a path from the top)."""
    parts = rel.split('/')
    if parts[1] == 'orchestration':
        return parts[2] if len(parts) > 3 else None
    return parts[1]


def folder_of_include(header):
    """The folder an include names from the one include root core/:
    "orchestration/dispatch/x.h" is dispatch/, "metrics/x.h" metrics/; None
    for a header without one (beside its includer, or at orchestration's root)."""
    parts = header.split('/')
    if parts[0] == 'orchestration':
        parts = parts[1:]
    return parts[0] if len(parts) > 1 else None


def sources(top):
    for base in ('core/protocol', 'core/metrics', 'core/orchestration'):
        for root, dirs, files in os.walk(os.path.join(top, base)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.h', '.cpp')):
                    yield os.path.relpath(os.path.join(root, name), top)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
    layers = read_layers(top)
    problems, seen = [], set()
    for rel in sources(top):
        own = folder_of_file(rel)
        if own is None:
            continue
        if own not in layers:
            problems.append(f'{rel}: its folder {own}/ is not in the layer diagram of docs/architecture.md')
            continue
        with open(os.path.join(top, rel), encoding='utf-8') as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = m.group(1)
                other = folder_of_include(header)
                if other is None or other == own:
                    continue
                if other not in layers:
                    problems.append(f'{rel}:{number}: includes {header}, whose folder {other}/ is not in the '
                                    f'layer diagram of docs/architecture.md')
                elif layers[other] >= layers[own]:
                    if (rel, header) in KNOWN:
                        seen.add((rel, header))
                        continue
                    where = 'the same layer as' if layers[other] == layers[own] else 'a layer above'
                    problems.append(f'{rel}:{number}: includes {header}: {other}/ is {where} {own}/')
    for rel, header in sorted(set(KNOWN) - seen):
        problems.append(f'{rel}: no longer includes {header}: remove it from KNOWN in {__file__}')
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} include(s) against the layers (docs/architecture.md, "Layers")')
        return 1
    print(f'layers: {len(layers)} folders, every include goes down ({len(KNOWN)} known exceptions)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
