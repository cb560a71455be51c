"""The wire format (docs/protocol.md) and the run environment, as the module speaks them.

The values mirror the C++ tables: core/protocol (protocol.h, exitcode.h) and
LaunchSpec's run environment (core/orchestration/launch/launcher.h).
tests/python/check_protocol_tables.py compares them with a build of those.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

#: protocol::kVersion: a peer with another one is rejected at hello.
PROTOCOL_VERSION = 1
#: protocol::kMaxLineBytes: longer lines from the orchestrator are skipped.
MAX_LINE_BYTES = 64 * 1024

#: The controls the orchestrator sends (protocol::typeName of Stop, Pause, Resume, CheckpointNow).
CONTROLS = ("stop", "pause", "resume", "checkpoint-now")
LEVELS = ("info", "warning", "error")
#: A metric line's own keys, which its metrics may not take ("loss" is a metric, optional).
METRIC_KEYS = ("type", "wall", "step", "epoch", "total_steps")
EVAL_KEYS = ("type", "wall", "step", "epoch", "split")
#: A summary line's own keys, which its values may not take.
SUMMARY_KEYS = ("type", "wall", "step")
#: Values in one summary line, at most: what a reader's record holds (MetricRecord::kMaxFields).
MAX_SUMMARY_VALUES = 16
#: The done statuses and the exit codes they stand for (protocol::exitStatusName).
EXIT_CODES = {"finished": 0, "failed": 1, "diverged": 3, "stopped": 4, "requeue": 5}

# The variables Trainyard sets for a program run (LaunchSpec::environment).
ENV_TOKEN = "TRAINYARD_TOKEN"
ENV_RUN_DIR = "TRAINYARD_RUN_DIR"
ENV_RUN_NAME = "TRAINYARD_RUN_NAME"
ENV_CONNECT = "TRAINYARD_CONNECT"
ENV_RESUME = "TRAINYARD_RESUME"
ENV_DEVICE = "TRAINYARD_DEVICE"
ENV_SEED = "TRAINYARD_SEED"
#: RUN_DIR/config.json, the spec's "config" (only for a spec that has one).
ENV_CONFIG = "TRAINYARD_CONFIG"
#: RUN_DIR/inputs.json, what the runs it runs after left (only for a run with an "after": _inputs).
ENV_INPUTS = "TRAINYARD_INPUTS"
#: All of them, as LaunchSpec::runVariableNames lists its TRAINYARD_ ones.
RUN_VARIABLES = (ENV_TOKEN, ENV_RUN_DIR, ENV_RUN_NAME, ENV_CONNECT, ENV_RESUME, ENV_DEVICE, ENV_SEED, ENV_CONFIG,
                 ENV_INPUTS)
#: The user's, never Trainyard's: every rank reports (docs/python.md).
ENV_PER_RANK = "TRAINYARD_PER_RANK"


def encode(message: Dict[str, Any]) -> bytes:
    """One message as one line, newline included (protocol::encode): compact
    JSON, UTF-8 with what cannot be encoded replaced, never NaN."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
            + "\n").encode("utf-8", "replace")


def control_of(line: bytes) -> Optional[str]:
    """The control a line from the orchestrator asks for, or None for anything else."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and message.get("type") in CONTROLS:
        return message["type"]
    return None


class LineSplitter:
    """Cuts a byte stream into lines (without their newline), skipping any
    line longer than MAX_LINE_BYTES without buffering it (protocol::LineDecoder)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False

    def clear(self) -> None:
        self._buffer.clear()
        self._discarding = False

    def feed(self, data: bytes) -> List[bytes]:
        self._buffer += data
        lines: List[bytes] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > MAX_LINE_BYTES:  # skip the rest of an overlong line
                    self._discarding = True
                    self._buffer.clear()
                return lines
            line = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            if self._discarding:
                self._discarding = False
            elif len(line) <= MAX_LINE_BYTES:
                lines.append(line)
