"""A PEP 517 build backend for the trainyard-client distribution (the
`trainyard` package), standard library only.

`pip install ./python` must work in a fresh virtual environment without a
network: setuptools' backend needs setuptools from PyPI (build isolation) or
the `wheel` package (--no-build-isolation), and a venv has neither. The
package is pure Python, so its wheel is a zip of python/trainyard plus three
metadata files; this writes it. Also an sdist and an editable wheel
(`pip install -e ./python`). Python 3.9+.

pyproject.toml's [project] table is read line by line: its values here stay
plain one-line strings.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The import package; the distribution is pyproject.toml's name, trainyard-client.
PACKAGE = "trainyard"
# What an sdist holds besides the package: what building it again needs.
SDIST_FILES = ("pyproject.toml", os.path.join("backend", "trainyard_build.py"))
WHEEL_TAG = "py3-none-any"


def _project() -> Dict[str, str]:
    """The [project] table's string values."""
    values: Dict[str, str] = {}
    table = ""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            header = re.fullmatch(r"\[([^\]]+)\]", line)
            if header:
                table = header.group(1).strip()
                continue
            pair = re.fullmatch(r'([A-Za-z0-9_-]+)\s*=\s*"([^"\\]*)"', line)
            if table == "project" and pair:
                values[pair.group(1)] = pair.group(2)
    for key in ("name", "version"):
        if not values.get(key):
            raise RuntimeError("pyproject.toml: [project] has no %s" % key)
    # The module says its version in every run's first log line: one number.
    with open(os.path.join(ROOT, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        found = re.search(r'^__version__ = "([^"]*)"', f.read(), re.M)
    if not found or found.group(1) != values["version"]:
        raise RuntimeError("trainyard/__init__.py's __version__ is not pyproject.toml's %s" % values["version"])
    return values


def _metadata(project: Dict[str, str]) -> str:
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"]]
    if project.get("description"):
        lines.append("Summary: " + project["description"])
    if project.get("requires-python"):
        lines.append("Requires-Python: " + project["requires-python"])
    return "\n".join(lines) + "\n"


def _package_files() -> List[Tuple[str, str]]:
    """(path in the archive, path on disk) of every file of the package, sorted."""
    out = []
    top = os.path.join(ROOT, PACKAGE)
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                path = os.path.join(folder, name)
                out.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), path))
    return out


def _epoch() -> int:
    """SOURCE_DATE_EPOCH, else 1980-01-01 (zip's earliest): the same input, the same archive."""
    text = os.environ.get("SOURCE_DATE_EPOCH", "")
    return max(int(text), 315532800) if text.isdigit() else 315532800


def _file_name(project: Dict[str, str]) -> str:
    """The distribution's name as file names spell it (PEP 427, PEP 625):
    trainyard-client -> trainyard_client."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _dist_info(project: Dict[str, str]) -> str:
    return "%s-%s.dist-info" % (_file_name(project), project["version"])


def _wheel(wheel_directory: str, extra: List[Tuple[str, bytes]]) -> str:
    """Writes the wheel of `extra` (path in the archive, content) plus the metadata; returns its file name."""
    project = _project()
    info = _dist_info(project)
    entries = extra + [
        (info + "/METADATA", _metadata(project).encode("utf-8")),
        (info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: trainyard_build\nRoot-Is-Purelib: true\nTag: %s\n"
                           % WHEEL_TAG).encode("utf-8")),
    ]
    record = io.StringIO()
    for path, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write("%s,sha256=%s,%d\n" % (path, digest, len(data)))
    record.write("%s/RECORD,,\n" % info)
    entries.append((info + "/RECORD", record.getvalue().encode("utf-8")))
    name = "%s-%s-%s.whl" % (_file_name(project), project["version"], WHEEL_TAG)
    os.makedirs(wheel_directory, exist_ok=True)
    stamp = time.gmtime(_epoch())[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            member = zipfile.ZipInfo(path, stamp)
            member.external_attr = 0o644 << 16
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, data)
    return name


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# -- PEP 517 and PEP 660 hooks ------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    info = _dist_info(project)
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(project))
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, [(path, _read(disk)) for path, disk in _package_files()])


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    # A .pth line puts this folder on sys.path: `import trainyard` finds the source tree.
    return _wheel(wheel_directory, [(_file_name(_project()) + ".pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    base = "%s-%s" % (_file_name(project), project["version"])
    files = [(p.replace(os.sep, "/"), os.path.join(ROOT, p)) for p in SDIST_FILES] + _package_files()
    entries = [(base + "/PKG-INFO", _metadata(project).encode("utf-8"))]
    entries += [(base + "/" + path, _read(disk)) for path, disk in files]
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = _epoch()
    with open(os.path.join(sdist_directory, name), "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as zipped:
            with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive:
                for path, data in entries:
                    member = tarfile.TarInfo(path)
                    member.size = len(data)
                    member.mtime = mtime
                    member.mode = 0o644
                    archive.addfile(member, io.BytesIO(data))
    return name
