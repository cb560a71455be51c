"""Report a Python training script's progress to Trainyard.

    import trainyard
    run = trainyard.init()
    run.log(step, loss=loss.item())

Trainyard starts the script as a *program run* and describes it in
environment variables (TRAINYARD_RUN_DIR, TRAINYARD_RUN_NAME,
TRAINYARD_CONNECT, TRAINYARD_TOKEN, TRAINYARD_RESUME, TRAINYARD_SEED,
TRAINYARD_DEVICE; see :func:`init`). This module speaks the same protocol as
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
request, "failed" after an uncaught exception, "diverged" when its last loss
was NaN or infinite). Outside Trainyard, ``init()`` writes metrics.jsonl into
a folder of its own under ``./trainyard-runs``.

In a multi-process job (``RANK``, ``SLURM_PROCID`` or ``LOCAL_RANK`` set) only
rank 0 reports; the other ranks get a Run whose reporting methods do nothing
and whose :meth:`Run.should_stop` and :meth:`Run.paused` follow rank 0's
(through ``RUN_DIR/.trainyard-control.json``). ``init(per_rank=True)`` or
``TRAINYARD_PER_RANK=1`` makes every rank report, rank N > 0 into
``metrics.rankN.jsonl`` (docs/python.md).

Standard library only; Python 3.9+; POSIX.
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import itertools
import json
import math
import numbers
import os
import select
import signal
import socket
import sys
import threading
import time
from typing import Any, Callable, Deque, Dict, Optional, Tuple

__version__ = "1.0"
PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION", "Run", "init", "__version__"]

#: Lines longer than this from the orchestrator are skipped (docs/protocol.md).
MAX_LINE_BYTES = 64 * 1024
#: Lines queued for the socket while it is slow or disconnected; the oldest go.
MAX_QUEUED_LINES = 10000
HEARTBEAT_SECONDS = 1.0
#: How long finish() waits for queued lines (the done line) to reach the socket.
FLUSH_SECONDS = 2.0
#: The done statuses and the exit codes they stand for (docs/protocol.md).
EXIT_CODES = {"finished": 0, "failed": 1, "diverged": 3, "stopped": 4, "requeue": 5}

_CONTROLS = ("stop", "pause", "resume", "checkpoint-now")
_LEVELS = ("info", "warning", "error")
_METRIC_KEYS = ("type", "wall", "step", "epoch", "loss", "total_steps")
_EVAL_KEYS = ("type", "wall", "step", "epoch", "split")
_MSG_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)
#: Where a process's rank is read, global rank first (torchrun, srun, then a node-local rank).
RANK_VARIABLES = ("RANK", "SLURM_PROCID", "LOCAL_RANK")
#: Rank 0 writes its stop and pause state here for the other ranks.
CONTROL_FILE = ".trainyard-control.json"
#: How often another rank's should_stop() reads that file, at most.
CONTROL_POLL_SECONDS = 0.2


class _ProcessFlags:
    """Process-wide state set by signal handlers and the excepthook (no locks)."""

    stop = False
    requeue = False
    sigints = 0
    uncaught = False


_flags = _ProcessFlags()
_init_lock = threading.Lock()
_current: Optional["Run"] = None
_hooks_installed = False


def init(name: Optional[str] = None, run_dir: Optional[str] = None, per_rank: Optional[bool] = None,
         rank: Optional[int] = None) -> "Run":
    """Start reporting (or return the run already started) and return its Run.

    Inside Trainyard the environment decides, and wins over the arguments:

    * ``TRAINYARD_RUN_DIR``: the run folder; metrics.jsonl and checkpoints/
      go there. When it is absent or empty the run is *outside Trainyard*: it
      writes into ``run_dir`` when given, else into a new folder
      ``./trainyard-runs/<name or script stem>-YYYYmmdd-HHMMSS`` (one line on
      stderr says where).
    * ``TRAINYARD_RUN_NAME``: the run's name (else ``name``, else the
      script's stem); sent in the hello.
    * ``TRAINYARD_CONNECT``: ``unix:PATH`` or ``tcp:HOST:PORT``; absent or
      empty: no socket, the file only. A malformed value raises ValueError.
    * ``TRAINYARD_TOKEN``: sent in the hello only; never written anywhere.
    * ``TRAINYARD_RESUME``: ``"1"`` for a resumed run (see Run.resume_step).
    * ``TRAINYARD_SEED``: an integer (Run.seed; None when absent or invalid).
    * ``TRAINYARD_DEVICE``: ``cpu`` (default) or ``cuda:N`` (Run.device).

    The process's rank is ``rank`` when given, else the first of ``RANK``,
    ``SLURM_PROCID``, ``LOCAL_RANK`` that holds an integer, else
    ``torch.distributed.get_rank()`` when torch.distributed is initialised,
    else 0. Only rank 0 reports, unless ``per_rank`` (default: environment
    ``TRAINYARD_PER_RANK=1``): then rank N > 0 writes ``metrics.rankN.jsonl``
    beside metrics.jsonl, which Trainyard does not read, without a socket.
    Either way every rank's should_stop() and paused() follow rank 0's.

    Called again while the run is not finished, it returns the same Run and
    ignores its arguments. When called from the main thread it also installs
    handlers for SIGTERM, SIGINT and SIGUSR2 (only where the current handler
    is Python's default) that make Run.should_stop() true; a second SIGINT
    raises KeyboardInterrupt.
    """
    global _current
    with _init_lock:
        if _current is not None and not _current.finished:
            return _current
        env = os.environ
        name = env.get("TRAINYARD_RUN_NAME") or name or _script_stem()
        own_folder = False
        if env.get("TRAINYARD_RUN_DIR"):
            folder = env["TRAINYARD_RUN_DIR"]
        elif run_dir is not None:
            folder = os.fspath(run_dir)
        else:
            folder, own_folder = "", True
        rank_number, rank_source = (_count("rank", rank), "rank=") if rank is not None else _rank_from(env)
        if per_rank is None:
            per_rank = env.get("TRAINYARD_PER_RANK", "").strip() == "1"
        quiet = rank_number > 0 and not per_rank
        if own_folder and quiet:
            # Rank 0's folder is its own; another rank cannot know its name: nothing is written.
            folder, own_folder = os.path.abspath("trainyard-runs"), False
        elif own_folder:
            folder = _new_folder(name if rank_number == 0 else "%s-rank%d" % (name, rank_number))
        connect = env.get("TRAINYARD_CONNECT") or None
        seed_text = env.get("TRAINYARD_SEED", "").strip()
        try:
            seed: Optional[int] = int(seed_text) if seed_text else None
        except ValueError:
            seed = None
        run = Run(
            run_dir=folder,
            name=name,
            connect=connect,
            token=env.get("TRAINYARD_TOKEN", ""),
            resume=env.get("TRAINYARD_RESUME", "") == "1",
            seed=seed,
            device=env.get("TRAINYARD_DEVICE") or "cpu",
            rank=rank_number,
            rank_source=rank_source,
            quiet=quiet,
            control_key=_control_key(env),
        )
        if own_folder:
            print("trainyard: not started by Trainyard; writing %s" % run.metrics_path, file=sys.stderr, flush=True)
        if seed_text and seed is None:
            run.text("TRAINYARD_SEED is not an integer: %r" % seed_text, level="warning")
        _install_hooks()
        _current = run
        return run


class Run:
    """One training run reporting to Trainyard; create it with :func:`init`.

    Attributes: ``name``, ``run_dir``, ``metrics_path``, ``checkpoint_dir``
    (RUN_DIR/checkpoints, created), ``resuming`` (bool), ``resume_step`` and
    ``resume_path`` (the last checkpoint line of the existing metrics.jsonl
    when resuming, else None), ``seed`` (int or None), ``device`` (str),
    ``rank`` (int) and ``reporting`` (False for a rank > 0 that only follows
    rank 0's stop and pause: its reporting methods do nothing).

    All methods may be called from any thread. The reporting methods raise
    RuntimeError once the run is finished.
    """

    def __init__(
        self,
        run_dir: str,
        name: str,
        connect: Optional[str] = None,
        token: str = "",
        resume: bool = False,
        seed: Optional[int] = None,
        device: str = "cpu",
        rank: int = 0,
        rank_source: str = "",
        quiet: bool = False,
        control_key: str = "",
    ) -> None:
        self.rank = rank
        self.reporting = not quiet
        # The socket is rank 0's: one connection per run.
        address = _parse_connect(connect) if connect and rank == 0 else None
        self.name = name
        self.run_dir = os.path.abspath(run_dir)
        shared_metrics = os.path.join(self.run_dir, "metrics.jsonl")
        self.metrics_path = shared_metrics if rank == 0 or quiet else os.path.join(
            self.run_dir, "metrics.rank%d.jsonl" % rank)
        self.checkpoint_dir = os.path.join(self.run_dir, "checkpoints")
        if self.reporting:  # rank 0 makes the run's folder; the others only read it
            os.makedirs(self.checkpoint_dir, exist_ok=True)
        self.resuming = bool(resume)
        self.seed = seed
        self.device = device
        self.resume_step: Optional[int] = None
        self.resume_path: Optional[str] = None
        self.exit_code: Optional[int] = None  # set by finish()

        self._token = token
        self._lock = threading.Lock()  # file order, the socket queue, _finished
        self._finish_lock = threading.Lock()
        self._finished = False
        self._write_failed = False
        self._epoch = 1
        self._warned_keys: set = set()
        self._last_loss_finite = True
        self._stop = False
        self._pause = False
        self._pause_seen = False
        self._checkpoint_now = False
        self._control_event = threading.Event()
        self._closed = threading.Event()
        # Rank 0 publishes its stop and pause for the other ranks, which read them.
        self._control_path = os.path.join(self.run_dir, CONTROL_FILE)
        self._control_key = control_key
        self._control_read = 0.0
        self._has_ranks = bool(rank_source)  # a single process writes no control file

        last_wall = 0.0
        if self.resuming:
            # The checkpoint lines are rank 0's, in metrics.jsonl; the clock is this file's.
            _, self.resume_step, self.resume_path = _scan_metrics(shared_metrics)
            last_wall = _scan_metrics(self.metrics_path)[0]
        self._last_step = self.resume_step or 0
        self._t0 = time.monotonic()
        self._wall_offset = last_wall  # the clock never runs backwards in the file
        if rank == 0 and self._has_ranks:
            try:  # a previous attempt's stop must not stop this one
                os.unlink(self._control_path)
            except OSError:
                pass
        self._fd: Optional[int] = _open_append(self.metrics_path) if self.reporting else None

        self._link = _Link(address, self._hello, self._on_control) if address else None
        where = ", rank %d (%s)" % (rank, rank_source) if rank_source else ""
        self.text("trainyard %s (Python, protocol %d): pid %d, device %s%s"
                  % (__version__, PROTOCOL_VERSION, os.getpid(), self.device, where))
        if self.resuming:
            if self.resume_step is not None:
                self.text("resumed from step %d" % self.resume_step)
            else:
                self.text("TRAINYARD_RESUME=1 but metrics.jsonl has no checkpoint line; starting afresh",
                          level="warning")
        self._heart = threading.Thread(target=self._beat, name="trainyard-heartbeat", daemon=True)
        if self.reporting:
            self._heart.start()

    # -- reporting ---------------------------------------------------------

    def log(self, step: int, loss: float, epoch: Optional[int] = None, total_steps: Optional[int] = None,
            **metrics: float) -> None:
        """Write a ``metric`` line for ``step`` (an int >= 0).

        ``loss`` is required (a number). ``epoch`` (1-based) defaults to the
        last one given, else 1; ``total_steps`` is the planned number of
        steps. Extra keyword arguments (``lr=...``, ``samples_per_s=...``, or
        ``**{"hits@1": x}``) must be int or float (bool is refused): TypeError
        names the key. A loss or extra that is NaN or infinite is written as
        ``null`` (JSON has no NaN; Trainyard plots a gap, pandas reads NaN),
        with a warning line the first time for each key; the line's other
        values are kept. A run whose last loss is not finite ends "diverged".
        """
        self._check_open()
        step = _count("step", step)
        loss = _number("loss", loss, as_float=True)
        epoch = self._epoch if epoch is None else _count("epoch", epoch)
        message: Dict[str, Any] = {"type": "metric", "step": step, "epoch": epoch, "loss": loss}
        if total_steps is not None:
            message["total_steps"] = _count("total_steps", total_steps)
        extras = self._extras(metrics, _METRIC_KEYS, step)
        self._epoch = epoch
        self._last_step = step
        self._last_loss_finite = math.isfinite(loss)
        if not self._last_loss_finite:
            message["loss"] = self._not_finite("loss", loss, step)
        message.update(extras)
        self._emit(message)

    def eval(self, split: str, step: int, epoch: Optional[int] = None, **metrics: float) -> None:
        """Write an ``eval`` line: ``split`` ("valid", "test", ...), ``step``,
        the metrics as keyword arguments (numbers, as for :meth:`log`; use
        ``**{"hits@10": x}`` for names that are not identifiers) and ``epoch``
        (epochs completed) when given."""
        self._check_open()
        if not isinstance(split, str) or not split:
            raise TypeError("trainyard: split must be a non-empty string")
        message: Dict[str, Any] = {"type": "eval", "step": _count("step", step), "split": split}
        if epoch is not None:
            message["epoch"] = _count("epoch", epoch)
        message.update(self._extras(metrics, _EVAL_KEYS, message["step"]))
        self._emit(message)

    def text(self, message: str, level: str = "info") -> None:
        """Write a ``log`` line; ``level`` is "info", "warning" or "error"."""
        self._check_open()
        if level not in _LEVELS:
            raise ValueError("trainyard: level must be one of %s, got %r" % (", ".join(_LEVELS), level))
        self._emit({"type": "log", "level": level, "text": self._scrub(str(message))})

    def checkpoint(self, step: int, path: str) -> None:
        """Write a ``checkpoint`` line once the script has saved the checkpoint
        of ``step`` at ``path`` (made absolute). A resumed run finds the last
        one in :attr:`resume_step` / :attr:`resume_path`."""
        self._check_open()
        self._emit({"type": "checkpoint", "step": _count("step", step),
                    "path": self._scrub(os.path.abspath(os.fspath(path)))})

    # -- controls ----------------------------------------------------------

    def should_stop(self) -> bool:
        """True once a ``stop`` control arrived, or SIGTERM, SIGINT or SIGUSR2
        was received (on a rank > 0: or rank 0 was asked to stop): save a
        checkpoint, then return (or finish())."""
        if self._stop or _flags.stop:
            return True
        if self.rank > 0:
            self._follow_rank0()
        return self._stop

    def paused(self) -> bool:
        """True between a ``pause`` and a ``resume`` control (a stop ends a
        pause). Writes "paused at step N" / "resumed at step N" the first time
        it sees the change (N = the last step given to log())."""
        stopping = self.should_stop()  # on a rank > 0 this also reads rank 0's pause
        now = self._pause and not stopping
        if now != self._pause_seen:
            self._pause_seen = now
            if now or not self.should_stop():
                self._try_text("%s at step %d" % ("paused" if now else "resumed", self._last_step))
        return now

    def wait_while_paused(self, poll: float = 0.2) -> bool:
        """Block while paused (heartbeats go on), then return should_stop()."""
        while self.paused():
            self._control_event.wait(poll)
            self._control_event.clear()
        return self.should_stop()

    def checkpoint_requested(self) -> bool:
        """True once for each ``checkpoint-now`` control received."""
        with self._lock:
            requested, self._checkpoint_now = self._checkpoint_now, False
        return requested

    # -- the end -----------------------------------------------------------

    @property
    def finished(self) -> bool:
        """True once finish() has written the done line."""
        return self._finished

    def finish(self, status: Optional[str] = None) -> int:
        """Write the final ``done`` line, send what is queued (up to 2 s),
        close, and return the exit code of the status (also in
        :attr:`exit_code`). Idempotent: later calls return the first code.

        ``status`` is one of "finished", "failed", "diverged", "stopped",
        "requeue"; by default "stopped" (or "requeue" after SIGUSR2) once
        should_stop() is true, "failed" after an uncaught exception, else
        "finished". Called at exit when the script did not. The process's own
        exit status stays the script's: ``sys.exit(run.finish())`` makes them
        agree.
        """
        if status is not None and status not in EXIT_CODES:
            raise ValueError("trainyard: status must be one of %s, got %r" % (", ".join(EXIT_CODES), status))
        with self._finish_lock:
            if self.exit_code is not None:
                return self.exit_code
            if status is None:
                status = self._default_status()
            code = EXIT_CODES[status]
            self._closed.set()
            self._emit({"type": "done", "status": status, "exit_code": code}, final=True)
            self._finished = True
            self.exit_code = code
            if self._link is not None:
                self._link.flush(FLUSH_SECONDS)
                self._link.close()
            if self._heart.is_alive():
                self._heart.join(1.0)
            with self._lock:
                if self._fd is not None:
                    os.close(self._fd)
            return code

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        """Finish the run: "failed" on an exception (a SystemExit with code 0,
        or any SystemExit after a stop request, counts as a normal end)."""
        normal = exc_type is None or (issubclass(exc_type, SystemExit)
                                      and (exc.code in (None, 0) or self.should_stop()))
        if normal:
            self.finish()
        else:
            self._fail(exc)
        return False

    def __repr__(self) -> str:
        return "<trainyard.Run %r in %r>" % (self.name, self.run_dir)

    # -- internals ---------------------------------------------------------

    def _wall(self) -> float:
        return round(self._wall_offset + (time.monotonic() - self._t0), 6)

    def _emit(self, message: Dict[str, Any], final: bool = False) -> bool:
        """Append one line to metrics.jsonl (one write) and queue it for the socket."""
        with self._lock:
            if self._finished or self._fd is None:
                return False  # finished, or a rank that does not report
            message["wall"] = self._wall()
            line = (json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
                    + "\n").encode("utf-8", "replace")
            if final:
                self._finished = True
            self._write(line)
            if self._link is not None:
                self._link.put(line)
        return True

    def _write(self, line: bytes) -> None:
        view = memoryview(line)
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as error:
            if not self._write_failed:
                self._write_failed = True
                print("trainyard: %s: write failed (%s); metrics lines are being lost"
                      % (self.metrics_path, error.strerror), file=sys.stderr, flush=True)

    def _check_open(self) -> None:
        if self._finished:
            raise RuntimeError("trainyard: the run is finished")

    def _try_text(self, message: str, level: str = "info") -> None:
        if not self._finished:
            self._emit({"type": "log", "level": level, "text": self._scrub(message)})

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "[token]") if self._token and len(self._token) >= 4 else text

    def _extras(self, metrics: Dict[str, Any], reserved: Tuple[str, ...], step: int) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for key, value in metrics.items():
            if key in reserved:
                raise ValueError("trainyard: %r is a reserved key of the line" % key)
            value = _number(key, value)
            finite = not isinstance(value, float) or math.isfinite(value)  # ints are finite (and may be huge)
            out[key] = value if finite else self._not_finite(key, value, step)
        return out

    def _not_finite(self, key: str, value: float, step: int) -> None:
        """A NaN or infinity goes into the line as null; a warning the first time for each key."""
        if key not in self._warned_keys:
            self._warned_keys.add(key)
            self._try_text("%s is %s at step %d; written as null (a gap in the curve)" % (key, value, step),
                           "warning")
        return None

    def _publish_control(self) -> None:
        """Rank 0: write its stop and pause state for the other ranks (atomically)."""
        if self.rank != 0 or not self._has_ranks:
            return
        state = {"key": self._control_key, "stop": self.should_stop(), "pause": self._pause,
                 "requeue": _flags.requeue}
        temporary = "%s.%d.tmp" % (self._control_path, os.getpid())
        try:
            with open(temporary, "w") as f:
                json.dump(state, f)
            os.replace(temporary, self._control_path)
        except OSError:
            pass

    def _follow_rank0(self) -> None:
        """A rank > 0: take rank 0's stop and pause from its control file (at most every 0.2 s)."""
        now = time.monotonic()
        if now - self._control_read < CONTROL_POLL_SECONDS:
            return
        self._control_read = now
        try:
            with open(self._control_path) as f:
                state = json.load(f)
        except (OSError, ValueError):
            return
        if not isinstance(state, dict) or state.get("key") != self._control_key:
            return  # another launch's
        if state.get("requeue") is True:
            _flags.requeue = True
        self._stop = self._stop or state.get("stop") is True
        self._pause = state.get("pause") is True and not self._stop

    def _hello(self) -> bytes:
        message = {"type": "hello", "run": self.name, "token": self._token, "pid": os.getpid(),
                   "device": self.device, "version": PROTOCOL_VERSION, "wall": self._wall()}
        return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8", "replace")

    def _on_control(self, kind: str) -> None:
        """Called by the socket thread for each control line."""
        if kind == "stop":
            self._stop = True
            self._pause = False
        elif kind == "pause":
            self._pause = not self._stop
        elif kind == "resume":
            self._pause = False
        elif kind == "checkpoint-now":
            with self._lock:
                self._checkpoint_now = True
        if kind != "checkpoint-now":
            self._publish_control()
        self._control_event.set()

    def _beat(self) -> None:
        while not self._closed.wait(HEARTBEAT_SECONDS):
            self._emit({"type": "heartbeat", "step": self._last_step})

    def _default_status(self) -> str:
        if _flags.uncaught:
            return "failed"
        if self.should_stop():
            return "requeue" if _flags.requeue else "stopped"
        return "finished" if self._last_loss_finite else "diverged"

    def _fail(self, exc: Optional[BaseException]) -> None:
        if exc is not None and not self._finished:
            text = "%s: %s" % (type(exc).__name__, exc) if str(exc) else type(exc).__name__
            self._try_text(text, level="error")
        self.finish("failed")


class _Link:
    """The socket to the orchestrator, owned by a daemon thread.

    Connects (hello first on every connection), sends queued lines, reads
    control lines, and reconnects with backoff (100 ms doubling to 5 s, reset
    after a successful connection). put() never blocks on the socket.
    """

    def __init__(self, address: Tuple, hello: Callable[[], bytes], on_control: Callable[[str], None]) -> None:
        self._address = address
        self._hello = hello
        self._on_control = on_control
        self._cond = threading.Condition()
        self._outbox: Deque[bytes] = collections.deque(maxlen=MAX_QUEUED_LINES)
        self._inflight = 0  # lines taken from the outbox, not yet fully sent
        self._closing = False
        self.connected = False
        self._down = False  # a connection attempt failed, or the connection was lost
        self._rbuf = bytearray()
        self._discarding = False
        self._thread = threading.Thread(target=self._main, name="trainyard-socket", daemon=True)
        self._thread.start()

    def put(self, line: bytes) -> None:
        with self._cond:
            self._outbox.append(line)  # a full deque drops the oldest line
            self._cond.notify()

    def flush(self, timeout: float) -> bool:
        """Wait until everything queued is sent, the socket is down, or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (not self._outbox and self._inflight == 0):
                left = deadline - time.monotonic()
                if left <= 0 or (self._down and not self.connected):
                    return False
                self._cond.wait(min(left, 0.01))
        return True

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(1.0)

    def _sleep(self, seconds: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._closing, seconds)

    def _main(self) -> None:
        delay = 0.1
        while not self._closing:
            try:
                sock = self._connect()
            except Exception:
                with self._cond:
                    self._down = True
                    self._cond.notify_all()
                self._sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            delay = 0.1
            try:
                self._serve(sock)
            except Exception:
                pass
            finally:
                with self._cond:
                    self.connected = False
                    self._down = True
                    self._inflight = 0
                    self._cond.notify_all()
                _close_quietly(sock)
            self._sleep(delay)

    def _connect(self) -> socket.socket:
        if self._address[0] == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(5.0)
                sock.connect(self._address[1])
            except BaseException:
                sock.close()
                raise
        else:
            sock = socket.create_connection(self._address[1:], timeout=5.0)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        return sock

    def _serve(self, sock: socket.socket) -> None:
        hello = self._hello()
        pending: Deque[bytes] = collections.deque([hello])
        offset = 0  # bytes of pending[0] already sent
        self._rbuf.clear()
        self._discarding = False
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        with self._cond:
            self.connected = True
            self._down = False
        try:
            while True:
                with self._cond:
                    if self._closing:
                        return
                    if not pending and not self._outbox:
                        self._cond.wait(0.05)
                    while self._outbox and len(pending) < 256:
                        pending.append(self._outbox.popleft())
                    self._inflight = len(pending)
                poller.modify(sock, select.POLLIN | (select.POLLOUT if pending else 0))
                events = poller.poll(50 if pending else 0)
                mask = events[0][1] if events else 0
                if mask & (select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    self._receive(sock)
                if mask & select.POLLOUT and pending:
                    offset = self._send(sock, pending, offset)
                    with self._cond:
                        self._inflight = len(pending)
                        self._cond.notify_all()
        except Exception:
            # A line cut by the disconnection is lost on the socket (the file
            # has it); the complete lines not yet sent go back to the queue.
            if pending and (offset > 0 or pending[0] is hello):
                pending.popleft()
            with self._cond:
                room = MAX_QUEUED_LINES - len(self._outbox)
                keep = list(pending)[max(0, len(pending) - room):] if room > 0 else []
                self._outbox.extendleft(reversed(keep))
            raise
        finally:
            try:  # read what the peer sent, so that closing TCP sends no RST
                while sock.recv(65536):
                    pass
            except OSError:
                pass

    @staticmethod
    def _send(sock: socket.socket, pending: Deque[bytes], offset: int) -> int:
        parts = [memoryview(pending[0])[offset:]]
        size = len(parts[0])
        for line in itertools.islice(pending, 1, None):
            if size >= 65536:
                break
            parts.append(line)
            size += len(line)
        try:
            sent = sock.send(b"".join(parts), _MSG_NOSIGNAL)
        except BlockingIOError:
            return offset
        while sent:
            rest = len(pending[0]) - offset
            if sent < rest:
                return offset + sent
            sent -= rest
            pending.popleft()
            offset = 0
        return offset

    def _receive(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        if not data:
            raise ConnectionError("the orchestrator closed the connection")
        self._rbuf += data
        while True:
            end = self._rbuf.find(b"\n")
            if end < 0:
                if len(self._rbuf) > MAX_LINE_BYTES:  # skip the rest of an overlong line
                    self._discarding = True
                    self._rbuf.clear()
                return
            line = bytes(self._rbuf[:end])
            del self._rbuf[:end + 1]
            if self._discarding:
                self._discarding = False
            elif len(line) <= MAX_LINE_BYTES:
                self._control(line)

    def _control(self, line: bytes) -> None:
        try:
            message = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            return
        if isinstance(message, dict) and message.get("type") in _CONTROLS:
            try:
                self._on_control(message["type"])
            except Exception:
                pass


# -- helpers ---------------------------------------------------------------


def _count(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("trainyard: %s must be an int, got %s" % (key, type(value).__name__))
    if value < 0:
        raise ValueError("trainyard: %s must be >= 0, got %d" % (key, value))
    return int(value)


def _number(key: str, value: Any, as_float: bool = False) -> Any:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("trainyard: %s must be an int or a float, got %s" % (key, type(value).__name__))
    if isinstance(value, numbers.Integral) and not as_float:
        return int(value)
    return float(value)


def _rank_from(env: Any) -> Tuple[int, str]:
    """(rank, where it was read): RANK_VARIABLES in order, then torch.distributed; (0, "") otherwise."""
    for variable in RANK_VARIABLES:
        text = env.get(variable, "").strip()
        if text.isdigit():
            return int(text), variable
    dist = sys.modules.get("torch.distributed")  # never imported here: only asked when the script did
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank()), "torch.distributed"
    except Exception:
        pass
    return 0, ""


def _control_key(env: Any) -> str:
    """What tells this launch's control file from a previous attempt's: a digest
    of the launch's token (never the token itself), else of the Slurm job."""
    token = env.get("TRAINYARD_TOKEN", "")
    job = env.get("SLURM_JOB_ID", "")
    if not token and not job:
        return ""
    seed = ("token:" + token) if token else "job:%s:%s" % (job, env.get("SLURM_RESTART_COUNT", "0"))
    return hashlib.sha256(seed.encode("utf-8", "replace")).hexdigest()[:16]


def _parse_connect(text: str) -> Tuple:
    """"unix:PATH" -> ("unix", PATH); "tcp:HOST:PORT" -> ("tcp", HOST, PORT)."""
    if text.startswith("unix:") and len(text) > 5:
        return ("unix", text[5:])
    if text.startswith("tcp:"):
        host, _, port = text[4:].rpartition(":")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if host and port.isdigit() and 1 <= int(port) <= 65535:
            return ("tcp", host, int(port))
    raise ValueError("TRAINYARD_CONNECT: expected unix:PATH or tcp:HOST:PORT, got %r" % text)


def _open_append(path: str) -> int:
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


def _scan_metrics(path: str) -> Tuple[float, Optional[int], Optional[str]]:
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


def _script_stem() -> str:
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    return os.path.splitext(os.path.basename(argv0))[0] or "python"


def _new_folder(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name) or "run"
    base = os.path.abspath(os.path.join("trainyard-runs", "%s-%s" % (safe, time.strftime("%Y%m%d-%H%M%S"))))
    os.makedirs(os.path.dirname(base), exist_ok=True)
    for n in itertools.count(1):
        folder = base if n == 1 else "%s-%d" % (base, n)
        try:
            os.mkdir(folder)
            return folder
        except FileExistsError:
            continue
    raise AssertionError("unreachable")


def _close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass


def _on_signal(signum: int, frame: Any) -> None:
    run = _current
    if signum == signal.SIGTERM and (_flags.stop or (run is not None and run._stop)):
        # Asked already and still going: Trainyard's stop escalation (socket,
        # then SIGTERM, then SIGKILL) means "now", so end as SIGTERM would
        # have without the module. The app records the run as stopped.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    _flags.stop = True
    if signum == getattr(signal, "SIGUSR2", None):
        _flags.requeue = True
    if run is not None:
        run._publish_control()
    if signum == signal.SIGINT:
        _flags.sigints += 1
        if _flags.sigints > 1:
            raise KeyboardInterrupt


def _install_hooks() -> None:
    """atexit, sys.excepthook and (from the main thread) signal handlers; once."""
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    atexit.register(_at_exit)
    previous = sys.excepthook

    def excepthook(exc_type, exc, tb):
        _flags.uncaught = True
        try:
            previous(exc_type, exc, tb)
        finally:
            run = _current
            if run is not None and not run.finished:
                run._fail(exc)

    sys.excepthook = excepthook
    if threading.current_thread() is threading.main_thread():
        defaults = {signal.SIGTERM: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler}
        if hasattr(signal, "SIGUSR2"):
            defaults[signal.SIGUSR2] = signal.SIG_DFL
        # A Slurm batch script ignores USR2 until its program can take it
        # (SlurmJob::script): inside Trainyard, ignored is ours to take too.
        inside = bool(os.environ.get("TRAINYARD_RUN_DIR"))
        for signum, default in defaults.items():
            current = signal.getsignal(signum)
            if current is default or (inside and signum != signal.SIGINT and current is signal.SIG_IGN):
                signal.signal(signum, _on_signal)


def _at_exit() -> None:
    run = _current
    if run is not None and not run.finished:
        run.finish()
