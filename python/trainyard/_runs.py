"""trainyard.runs(PATH): run folders read back (W&B's ``Api().runs()``).

Reads what the app reads (docs/experiment-format.md, run folders): status.json,
params.json, spec.json, notes.json and metrics.jsonl, each only when it is a
regular file (opened with O_NONBLOCK|O_NOFOLLOW, then checked with fstat: a
link, FIFO or device is refused with a warning, never followed or waited
on); metrics.jsonl's lines with the rules of the app's reader
(docs/protocol.md)."""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import stat
import warnings
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ._config import PARAMS_FILE
from ._protocol import MAX_LINE_BYTES
from ._runfolder import STATE_OF_STATUS, STATUS_FILE

METRICS_FILE = "metrics.jsonl"
SPEC_FILE = "spec.json"
NOTES_FILE = "notes.json"
#: The most a run folder's JSON file may hold (metrics.jsonl excepted).
MAX_JSON_BYTES = 1 << 20
MAX_DEPTH = 16
_RUN_NAME = re.compile(r"[A-Za-z0-9_+@.-]{1,100}\Z")
_ATTEMPT = re.compile(r"(.+)\.attempt-([1-9][0-9]*)\Z")
_MARKERS = (METRICS_FILE, SPEC_FILE, STATUS_FILE)
_NOT_MEASUREMENTS = ("type", "wall", "step", "epoch", "total_steps")


def _open_regular(path: str) -> Optional[Any]:
    """A binary file object of ``path`` when it is a regular file; None
    when there is none; a warning and None when it is something else."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        kind = "not a regular file"
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                kind = "a link"
        except OSError:
            pass
        warnings.warn("trainyard: %s is %s (%s); trainyard does not follow links in run folders" % (path, kind, e),
                      RuntimeWarning, stacklevel=4)
        return None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        warnings.warn("trainyard: %s is not a regular file (%s); skipped" % (path, kind), RuntimeWarning, stacklevel=4)
        return None
    return os.fdopen(fd, "rb")


def _refuse_constant(token: str) -> Any:
    raise ValueError("%s is not JSON" % token)


def _depth(value: Any, depth: int = 1) -> int:
    if isinstance(value, dict):
        return max([_depth(v, depth + 1) for v in value.values()] or [depth])
    if isinstance(value, list):
        return max([_depth(v, depth + 1) for v in value] or [depth])
    return depth - 1


def _read_json(path: str) -> Optional[Dict[str, Any]]:
    f = _open_regular(path)
    if f is None:
        return None
    with f:
        data = f.read(MAX_JSON_BYTES + 1)
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        value = None
    if len(data) > MAX_JSON_BYTES or not isinstance(value, dict):
        warnings.warn("trainyard: %s is not a JSON object of at most 1 MiB; skipped" % path, RuntimeWarning,
                      stacklevel=3)
        return None
    return value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _measurement(value: Any) -> Any:
    """A line's value as a reader keeps it: null is NaN."""
    return math.nan if value is None else value


def _messages(path: str) -> Tuple[List[Dict[str, Any]], int]:
    """metrics.jsonl's valid messages and the number of lines skipped: over
    64 KiB, invalid UTF-8, not JSON (a bare NaN too), not an object, nested
    deeper than 16, no string ``type``, or a ``step``, ``epoch`` or ``wall``
    that is no number. A torn last line (no newline) is not read yet."""
    f = _open_regular(path)
    if f is None:
        return [], 0
    messages, skipped = [], 0
    with f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break
            if len(raw) > MAX_LINE_BYTES + 1:
                skipped += 1
                continue
            try:
                message = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
            except (ValueError, RecursionError):
                skipped += 1
                continue
            if (not isinstance(message, dict) or not isinstance(message.get("type"), str)
                    or _depth(message) > MAX_DEPTH
                    or any(key in message and not _number(message[key]) for key in ("step", "epoch", "wall"))
                    or (message["type"] == "metric"
                        and (not isinstance(message.get("step"), int) or isinstance(message["step"], bool)))):
                skipped += 1
                continue
            messages.append(message)
    return messages, skipped


class Run:
    """One run folder, read when :func:`runs` was called (read-only).

    ``name`` (the run's: spec.json's ``name``, else the folder's; a kept
    attempt goes by its folder's name), ``path``, ``attempt`` (N of a
    ``NAME.attempt-N`` folder, else None), ``state`` (status.json's, else
    the ``done`` line's, else ``"queued"`` as the app says of a folder
    without an ending), ``status`` (status.json as a dict), ``spec``
    (spec.json), ``config`` (params.json, else spec.json), ``summary``
    (the last value of each name of the ``summary`` lines), ``tags`` and
    ``note`` (notes.json), ``skipped_lines`` (metrics.jsonl's lines that
    are no valid message)."""

    __slots__ = ("name", "path", "attempt", "state", "status", "spec", "config", "summary", "tags", "note",
                 "skipped_lines", "_rows")

    def __init__(self, path: str, attempt: Optional[int]) -> None:
        folder = os.path.basename(os.path.normpath(path))
        status = _read_json(os.path.join(path, STATUS_FILE))
        spec = _read_json(os.path.join(path, SPEC_FILE))
        params = _read_json(os.path.join(path, PARAMS_FILE))
        notes = _read_json(os.path.join(path, NOTES_FILE)) or {}
        messages, skipped = _messages(os.path.join(path, METRICS_FILE))
        spec_name = spec.get("name") if spec else None
        set_ = object.__setattr__
        set_(self, "name", spec_name if isinstance(spec_name, str) and spec_name and attempt is None else folder)
        set_(self, "path", os.path.abspath(path))
        set_(self, "attempt", attempt)
        set_(self, "status", dict(status or {}))
        set_(self, "spec", dict(spec or {}))
        set_(self, "config", dict(params if params is not None else spec or {}))
        tags = notes.get("tags")
        set_(self, "tags", [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [])
        set_(self, "note", notes.get("note") if isinstance(notes.get("note"), str) else "")
        set_(self, "skipped_lines", skipped)
        summary: Dict[str, Any] = {}
        rows: List[Dict[str, Any]] = []
        done = None
        for message in messages:
            kind = message["type"]
            if kind == "summary":
                summary.update((k, _measurement(v)) for k, v in message.items() if k not in ("type", "wall", "step"))
            elif kind == "done" and isinstance(message.get("status"), str):
                done = message["status"]
            elif kind == "metric":
                _add_point(rows, message)
            elif kind == "eval" and isinstance(message.get("split"), str) and isinstance(message.get("step"), int):
                _add_eval(rows, message)
        set_(self, "summary", summary)
        set_(self, "_rows", rows)
        state = self.status.get("state")
        if not isinstance(state, str) or not state:
            state = STATE_OF_STATUS.get(done, "failed") if done is not None else "queued"
        set_(self, "state", state)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("trainyard: a Run read back is read-only (%s)" % key)

    def history(self, keys: Optional[Iterable[str]] = None, pandas: bool = False) -> Any:
        """The metric lines, one dict per step in step order: ``step``,
        ``wall``, ``epoch`` and every measurement of the step's lines (a
        later line's value wins; null is NaN), and the eval lines' values
        as ``split/name`` (``valid/accuracy``) in the row of their step. ``keys`` keeps only those
        measurements (and the rows that have one of them). A step reported
        at or before an earlier one (a resume) drops the rows from that step
        on, as the app's plots do. ``pandas=True``: a pandas DataFrame."""
        wanted = None if keys is None else [keys] if isinstance(keys, str) else list(keys)
        rows = []
        for row in self._rows:
            if wanted is not None:
                picked = {k: row[k] for k in wanted if k in row}
                if not picked:
                    continue
                row = dict({k: row[k] for k in ("step", "wall", "epoch") if k in row}, **picked)
            rows.append(dict(row))
        if not pandas:
            return rows
        try:
            pd = importlib.import_module("pandas")
        except ImportError:
            raise ImportError("trainyard: history(pandas=True) needs pandas (pip install pandas); "
                              "history() returns a list of dicts without it") from None
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return "<trainyard run %r %s at %s>" % (self.name, self.state, self.path)


def _add_point(rows: List[Dict[str, Any]], message: Dict[str, Any]) -> None:
    step = message["step"]
    if rows and step < rows[-1]["step"]:
        # A resume: the curve continues from that step (resumePosition).
        while rows and rows[-1]["step"] >= step:
            rows.pop()
    if not rows or step > rows[-1]["step"]:
        rows.append({"step": step})
    row = rows[-1]
    for key in ("wall", "epoch"):
        if key in message:
            row[key] = message[key]
    for key, value in message.items():
        if key not in _NOT_MEASUREMENTS:
            row[key] = _measurement(value)


def _add_eval(rows: List[Dict[str, Any]], message: Dict[str, Any]) -> None:
    """An eval line's values as ``split/name`` in the row of its step (a
    new one, in step order, when no metric line has that step)."""
    step, at = message["step"], len(rows)
    while at > 0 and rows[at - 1]["step"] > step:
        at -= 1
    if at == 0 or rows[at - 1]["step"] != step:
        rows.insert(at, {"step": step})
        at += 1
    row = rows[at - 1]
    for key in ("wall", "epoch"):
        if key in message and key not in row:
            row[key] = message[key]
    for key, value in message.items():
        if key not in _NOT_MEASUREMENTS and key != "split" and (value is None or _number(value)):
            row["%s/%s" % (message["split"], key)] = _measurement(value)


def _attempt_of(folder: str) -> Optional[int]:
    match = _ATTEMPT.match(folder)
    return int(match.group(2)) if match else None


def _is_run_folder(path: str) -> bool:
    for name in _MARKERS:
        try:
            os.lstat(os.path.join(path, name))
            return True
        except OSError:
            pass
    return False


def _runs_root_of(experiment: str) -> str:
    """The runs root of an experiment file, as the app finds it
    (Experiment::effectiveRunsRoot)."""
    values = _read_json(experiment)
    if values is None:
        raise ValueError("trainyard: %s is not an experiment file (not a JSON object)" % experiment)
    name = values.get("name")
    root = values.get("runs_root")
    if isinstance(root, str) and root:
        if root.startswith("~/"):
            root = os.path.expanduser("~") + root[1:]
        return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(experiment)), root))
    if not isinstance(name, str) or not _RUN_NAME.match(name) or name.startswith("."):
        raise ValueError("trainyard: %s has no valid \"name\" to find its runs root by" % experiment)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.normpath(os.path.join(base, "trainyard", name))


def runs(path: Any = "trainyard-runs") -> List[Run]:
    """The runs under ``path``, read now, as :class:`Run` objects.

    ``path`` is told apart as ``trainyard export`` does: a file is an
    experiment file (the run folders of its runs root: ``runs_root``, else
    ``$XDG_DATA_HOME/trainyard/NAME``); a folder holding metrics.jsonl,
    spec.json or status.json is one run folder; any other folder is a runs
    root, whose run folders (kept attempts ``NAME.attempt-N`` too; not
    links) are read in name order. A missing path raises FileNotFoundError."""
    path = os.fspath(path)
    if os.path.isfile(path):
        path = _runs_root_of(path)
        if not os.path.isdir(path):
            return []
    elif not os.path.isdir(path):
        raise FileNotFoundError("trainyard: %s is neither an experiment file, a runs root nor a run folder" % path)
    elif _is_run_folder(path):
        return [Run(path, _attempt_of(os.path.basename(os.path.normpath(path))))]
    found = []
    for folder in sorted(os.listdir(path)):
        attempt = _attempt_of(folder)
        if folder.startswith(".") or (attempt is None and not _RUN_NAME.match(folder)):
            continue
        full = os.path.join(path, folder)
        try:
            if not stat.S_ISDIR(os.lstat(full).st_mode):
                continue
        except OSError:
            continue
        if _is_run_folder(full):
            found.append(Run(full, attempt))
    return found
