"""The run folder's JSON files the module writes beside metrics.jsonl:
params.json (_config) and, for a run outside Trainyard, status.json, as
Trainyard writes it for the runs it starts (RunStore::writeStatus), so that
such a folder is a run folder like any other (the runs table, ``trainyard
export``)."""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from typing import Any, Mapping

STATUS_FILE = "status.json"
#: The user's tags and note (RunStore::writeNotes); init(tags=, notes=) seeds it.
NOTES_FILE = "notes.json"
#: A done line's status as a run's state (runStateName): a requeue without a queue is a stop.
STATE_OF_STATUS = {"finished": "finished", "failed": "failed", "diverged": "diverged", "stopped": "stopped",
                   "requeue": "stopped"}


def write_json(run_dir: str, name: str, values: Mapping[str, Any]) -> None:
    """Writes ``values`` as RUN_DIR/NAME, whole or not at all (a new
    temporary file renamed over it: a link there is replaced, never followed,
    and nothing planted at a temporary name is opened)."""
    path = os.path.join(run_dir, name)
    data = json.dumps(dict(values), indent=1, sort_keys=True, allow_nan=False).encode("utf-8")
    fd, tmp = tempfile.mkstemp(dir=run_dir, prefix=name + ".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)  # the whole of it, or an exception
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def iso_time(seconds: float) -> str:
    """A time as Qt's ISODateWithMs writes a UTC one: 2026-12-02T10:04:05.123Z."""
    whole = int(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % int((seconds - whole) * 1000)


def write_status(run_dir: str, status: str, exit_code: int, device: str, started: float, step: int) -> None:
    """RUN_DIR/status.json of a run that ended with the done line ``status``."""
    values = {
        "state": STATE_OF_STATUS.get(status, "failed"),
        "exit_code": exit_code,
        "signal": None,
        "pid": os.getpid(),
        "device": device,
        "host": socket.gethostname(),
        "command": [sys.executable] + list(sys.argv),
        "started": iso_time(started),
        "ended": iso_time(time.time()),
        "message": "ran outside Trainyard; reported %s in its done line" % status,
        "step": step,
    }
    write_json(run_dir, STATUS_FILE, values)
