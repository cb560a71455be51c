"""Report a Python training script's progress to Trainyard.

    import trainyard
    run = trainyard.init()
    run.log(step, loss=loss)            # any metrics; a tensor or NumPy scalar as it is
    run.summary["best_acc"] = best_acc  # a column of Trainyard's runs table

W&B's module-level habits work too: after ``trainyard.init()``,
``trainyard.log(...)``, ``trainyard.config``, ``trainyard.summary`` and
``trainyard.finish()`` are those of the run it started (RuntimeError
before it).

Trainyard starts the script as a *program run* and describes it in
environment variables (TRAINYARD_RUN_DIR, TRAINYARD_RUN_NAME,
TRAINYARD_CONNECT, TRAINYARD_TOKEN, TRAINYARD_RESUME, TRAINYARD_SEED,
TRAINYARD_DEVICE, TRAINYARD_CONFIG; see :func:`init`). ``Run.config`` holds
the run's parameters: ``init(config=...)``'s with the spec's ``"config"``
over them, written to ``RUN_DIR/params.json`` for the runs table. This module speaks the same protocol as
trainyard-worker (docs/protocol.md, version :data:`PROTOCOL_VERSION`):

* every message is appended to ``RUN_DIR/metrics.jsonl``, one ``write()`` per
  line, in the caller's thread: the file is the record of truth;
* when TRAINYARD_CONNECT is set, a daemon thread also sends the lines to the
  orchestrator over a stream socket (hello first on every connection,
  reconnecting with backoff, at most 10 000 lines queued) and reads the
  controls ``stop``, ``pause``, ``resume`` and ``checkpoint-now``. Logging
  never waits for the socket;
* a daemon thread writes a ``heartbeat`` line every second.

The script asks :meth:`Run.should_stop`, :meth:`Run.paused` and
:meth:`Run.checkpoint_requested` at its step boundaries. A script that simply
returns gets a ``done`` line at exit ("finished", "stopped" after a stop
request or a KeyboardInterrupt, "failed" after an uncaught exception or a
``sys.exit()`` with a failure status, "diverged" when its last loss was NaN
or infinite). Outside Trainyard, ``init()`` writes metrics.jsonl into
a folder of its own under ``./trainyard-runs``.

In a multi-process job (``RANK``, ``SLURM_PROCID`` or ``LOCAL_RANK`` set) only
rank 0 reports; the other ranks get a Run whose reporting methods do nothing
and whose :meth:`Run.should_stop` and :meth:`Run.paused` follow rank 0's
(through ``RUN_DIR/.trainyard-control.json``). ``init(per_rank=True)`` or
``TRAINYARD_PER_RANK=1`` makes every rank report, rank N > 0 into
``metrics.rankN.jsonl`` (docs/python.md).

Outside Trainyard the run folder also gets ``status.json`` at the end, as
Trainyard writes it for its runs: a run folder like any other.

Standard library only; Python 3.9+; POSIX. ``pip install ./python`` (or
``-e``) installs it, as the distribution ``trainyard-client``, into a
virtual environment or a conda environment, offline; the Debian package
ships that project as
``/usr/share/trainyard/python`` (docs/python.md).

This file is the public surface; the parts live beside it: _protocol (the
wire format's names, limits and framing, and the run environment's
variables), _link (the socket), _metricsfile (metrics.jsonl), _config
(TRAINYARD_CONFIG and params.json), _runfolder (the JSON files beside
metrics.jsonl), _values (a script's values as numbers), _summary
(run.summary), _run (Run), _session (init(), signals, exit hooks) and
_runs (trainyard.runs(): run folders read back). Each
imports only the standard library and these. ``trainyard.lightning`` (a
PyTorch Lightning logger and callback) and ``trainyard.huggingface`` (a
Trainer callback), with what they share in _frameworks, are imported only
by a script that asks for them: each needs its framework.
"""

from __future__ import annotations

from typing import Any, Optional

from ._link import MAX_QUEUED_LINES
from ._protocol import EXIT_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION
from ._run import CONTROL_FILE, CONTROL_POLL_SECONDS, FLUSH_SECONDS, HEARTBEAT_SECONDS, Run
from ._config import Config
from ._runs import runs
from ._session import RANK_VARIABLES, current, init
from ._summary import Summary

#: The distribution's version: python/pyproject.toml's and the C++ project's.
__version__ = "0.1.0"

__all__ = ["PROTOCOL_VERSION", "Config", "Run", "Summary", "finish", "init", "log", "runs", "__version__"]


def log(*args: Any, **kwargs: Any) -> None:
    """W&B's ``wandb.log``: :meth:`Run.log` of the run init() started."""
    current().log(*args, **kwargs)


def finish(status: Optional[str] = None) -> int:
    """W&B's ``wandb.finish``: :meth:`Run.finish` of the run init() started
    (a second call returns the first's exit code). A later init() starts a
    new run."""
    return current().finish(status)


def __getattr__(name: str) -> Any:
    """``trainyard.config`` and ``trainyard.summary``: those of the run init() started."""
    if name in ("config", "summary"):
        return getattr(current(), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# help(), pickle and reprs name them where scripts find them.
Run.__module__ = Summary.__module__ = Config.__module__ = init.__module__ = __name__
