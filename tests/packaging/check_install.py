"""What `cmake --install` puts where, and what the Debian package says of itself.

    python3 tests/packaging/check_install.py PREFIX BUILD_DIR

PREFIX is a tree `cmake --install BUILD_DIR --component trainyard --prefix
PREFIX` filled (the python_package_tree fixture); BUILD_DIR holds CPackConfig.cmake. Checks the
licence file (Debian's machine-readable format, naming what the programs link),
the man pages, the shell completions, the desktop entry's MIME types, the
AppStream licence, and the package's relations and paths in the .deb CPack
makes of the tree.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def fail(text):
    FAILURES.append(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def paragraphs(text):
    """Debian control-style paragraphs: [{field: value}], continuation lines joined."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields, last = {}, None
        for line in block.splitlines():
            if line.startswith((" ", "\t")) and last:
                fields[last] += "\n" + line.strip()
            else:
                name, sep, value = line.partition(":")
                if not sep or not re.fullmatch(r"[A-Za-z-]+", name):
                    fail("copyright: not a field: %r" % line)
                    continue
                last = name
                fields[name] = value.strip()
        out.append(fields)
    return out


def check_copyright(path):
    if not os.path.isfile(path):
        fail("%s is missing" % path)
        return
    paras = paragraphs(read(path))
    header, rest = paras[0], paras[1:]
    if header.get("Format") != "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/":
        fail("copyright: the first paragraph has no DEP-5 Format field")
    defined = {p["License"].split("\n")[0] for p in rest if "Files" not in p and "License" in p
               and "\n" in p["License"]}
    used = set()
    files = [p for p in rest if "Files" in p]
    if not any(p["Files"] == "*" for p in files):
        fail("copyright: no Files: * paragraph")
    for p in files:
        if "Copyright" not in p or "License" not in p:
            fail("copyright: Files: %s lacks Copyright or License" % p["Files"])
    for p in [header] + files:
        if "License" in p:
            used.update(re.split(r"\s+(?:and|or)\s+", p["License"].split("\n")[0]))
    if used - defined:
        fail("copyright: no License paragraph for %s" % sorted(used - defined))
    star = next((p for p in files if p["Files"] == "*"), {})
    if star.get("License") != "MIT" or "The Trainyard authors" not in star.get("Copyright", ""):
        fail("copyright: Files: * is not MIT by The Trainyard authors: %s" % star)
    comment = header.get("Comment", "")
    # What the programs link, by licence: the reader learns why the app is GPL.
    for needed in ("Qt 6", "LGPL-3", "QCustomPlot", "GPL-3+", "LibTorch", "BSD-3-Clause", "nlohmann_json",
                   "/usr/bin/trainyard,", "/usr/bin/trainyard-worker"):
        if needed not in comment:
            fail("copyright: the header's Comment does not name %r" % needed)
    if header.get("License") != "GPL-3+ and MIT":
        fail("copyright: the package as a whole is %r, not 'GPL-3+ and MIT'" % header.get("License"))


def check_deb(prefix, build):
    """The .deb CPack makes of the installed tree: its relations and where its files go.
    dpkg-shlibdeps is left out (slow); `make package` adds the library Depends."""
    if not shutil.which("cpack") or not shutil.which("dpkg-deb"):
        print("check_install: no cpack or dpkg-deb; the .deb itself is not checked")
        return
    out = tempfile.mkdtemp(prefix="trainyard-deb-")
    try:
        made = subprocess.run(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"),
                               "-D", "CPACK_INSTALL_CMAKE_PROJECTS=", "-D",
                               "CPACK_INSTALLED_DIRECTORIES=%s;/usr" % prefix, "-D", "CPACK_PACKAGING_INSTALL_PREFIX=/",
                               "-D", "CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF", "-B", out],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        if made.returncode != 0:
            fail("cpack failed:\n" + made.stdout)
            return
        deb = [os.path.join(out, n) for n in os.listdir(out) if n.endswith(".deb")][0]
        fields = subprocess.run(["dpkg-deb", "-f", deb, "Depends", "Recommends"], check=True,
                                stdout=subprocess.PIPE, universal_newlines=True).stdout
        if "dataset-fashion-mnist" in "".join(re.findall(r"^Depends:(.*)$", fields, re.M)):
            fail(".deb: Depends on dataset-fashion-mnist")
        if "dataset-fashion-mnist" not in "".join(re.findall(r"^Recommends:(.*)$", fields, re.M)):
            fail(".deb: does not recommend dataset-fashion-mnist")
        contents = subprocess.run(["dpkg-deb", "-c", deb], check=True, stdout=subprocess.PIPE,
                                  universal_newlines=True).stdout
        files = {line.split()[-1] for line in contents.splitlines()}
        for path in ("./usr/share/doc/trainyard/copyright", "./usr/share/man/man1/trainyard.1",
                     "./usr/share/man/man1/trainyard-worker.1", "./usr/share/bash-completion/completions/trainyard",
                     "./usr/share/zsh/vendor-completions/_trainyard"):
            if path not in files:
                fail(".deb: no %s" % path)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    prefix, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    share = os.path.join(prefix, "share")

    check_copyright(os.path.join(share, "doc", "trainyard", "copyright"))
    license_path = os.path.join(source, "LICENSE")
    license_text = read(license_path) if os.path.isfile(license_path) else ""
    if not license_text.startswith("MIT License") or "Copyright (c) 2026 The Trainyard authors" not in license_text:
        fail("LICENSE: not the MIT License of The Trainyard authors")
    for needed in ("QCustomPlot", "GPL-3.0-or-later", "trainyard-worker", "LibTorch", "nlohmann_json"):
        if needed not in license_text:
            fail("LICENSE: the note on the built programs does not name %r" % needed)

    # Man pages and completions where man, bash-completion and Debian's zsh look.
    for program in ("trainyard", "trainyard-worker"):
        for path in (os.path.join("man", "man1", program + ".1"),
                     os.path.join("bash-completion", "completions", program),
                     os.path.join("zsh", "vendor-completions", "_" + program)):
            if not os.path.isfile(os.path.join(share, path)):
                fail("share/%s is missing" % path)

    # The experiment file's JSON Schema, for editors (`trainyard schema` at build time).
    schema_path = os.path.join(share, "trainyard", "experiment.schema.json")
    try:
        schema = json.loads(read(schema_path))
        if "lane" not in schema.get("$defs", {}) or "lanes" not in schema.get("properties", {}):
            fail("share/trainyard/experiment.schema.json: not the experiment file's schema")
    except (OSError, ValueError) as e:
        fail("share/trainyard/experiment.schema.json: %s" % e)

    # Trainyard opens its own experiment files, not every JSON file there is:
    # no MIME type it cannot tell from other JSON.
    desktop = read(os.path.join(share, "applications", "io.github.trainyard.Trainyard.desktop"))
    mime = re.search(r"^MimeType=(.*)$", desktop, re.M)
    if mime:
        fail("desktop entry claims MIME types %s" % mime.group(1))
    metainfo = read(os.path.join(share, "metainfo", "io.github.trainyard.Trainyard.metainfo.xml"))
    found = re.search(r"<project_license>([^<]*)</project_license>", metainfo)
    if not found or found.group(1) != "MIT AND GPL-3.0-or-later":
        fail("metainfo: project_license is %s" % (found.group(1) if found else None))

    # The data set is a Recommends: the app and every other lane work without it.
    cpack = read(os.path.join(build, "CPackConfig.cmake"))
    relations = dict(re.findall(r'set\(CPACK_DEBIAN_PACKAGE_(DEPENDS|RECOMMENDS) "([^"]*)"\)', cpack))
    if "dataset-fashion-mnist" in relations.get("DEPENDS", ""):
        fail("the package Depends on dataset-fashion-mnist")
    if "dataset-fashion-mnist" not in relations.get("RECOMMENDS", ""):
        fail("the package does not recommend dataset-fashion-mnist")

    check_deb(prefix, build)

    for text in FAILURES:
        print("check_install: " + text)
    if FAILURES:
        sys.exit(1)
    print("ok: %s" % prefix)


if __name__ == "__main__":
    main()
