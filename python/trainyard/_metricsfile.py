"""RUN_DIR/metrics.jsonl: opened for appending, and read back when a run resumes."""

from __future__ import annotations

import json
import math
import os
from typing import Optional, Tuple

from ._protocol import MAX_LINE_BYTES


def open_append(path: str) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:  # a torn last line (a killed writer) must not swallow our first line
        if os.fstat(fd).st_size > 0:
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    os.write(fd, b"\n")
    except OSError:
        pass
    return fd


def scan_metrics(path: str) -> Tuple[float, Optional[int], Optional[str]]:
    """(last wall, step and path of the last checkpoint line) of a metrics.jsonl.

    The wall is the largest in the last 64 KiB and in the checkpoint lines."""
    wall, step, where = 0.0, None, None
    try:
        f = open(path, "rb")
    except OSError:
        return wall, step, where
    with f:
        tail = os.fstat(f.fileno()).st_size - MAX_LINE_BYTES
        position = 0
        for raw in f:
            start, position = position, position + len(raw)
            if not raw.endswith(b"\n"):
                break  # a torn last line
            is_checkpoint = b'"checkpoint"' in raw
            if start < tail and not is_checkpoint:
                continue
            try:
                message = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if not isinstance(message, dict):
                continue
            value = message.get("wall")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                wall = max(wall, float(value))
            if message.get("type") == "checkpoint" and isinstance(message.get("step"), int):
                step = message["step"]
                where = message.get("path") if isinstance(message.get("path"), str) else None
    return wall, step, where
