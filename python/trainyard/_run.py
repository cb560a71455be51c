"""The Run: what a training script reports through, and the controls it follows."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

from ._config import Config
from ._inputs import Inputs, read_inputs
from ._link import Link, parse_connect
from ._metricsfile import open_append, scan_metrics
from ._protocol import (EVAL_KEYS, EXIT_CODES, LEVELS, MAX_SUMMARY_VALUES, METRIC_KEYS, PROTOCOL_VERSION, SUMMARY_KEYS,
                        encode)
from ._runfolder import STATUS_FILE, write_status
from ._summary import Summary
from ._values import KeyTexts, count, finite, number

_monotonic = time.monotonic
_os_write = os.write

HEARTBEAT_SECONDS = 1.0
#: How long finish() waits for queued lines (the done line) to reach the socket.
FLUSH_SECONDS = 2.0
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


flags = _ProcessFlags()


class Run:
    """One training run reporting to Trainyard; create it with :func:`init`.

    Attributes: ``name``, ``run_dir``, ``metrics_path``, ``checkpoint_dir``
    (RUN_DIR/checkpoints, created), ``resuming`` (bool), ``resume_step`` and
    ``resume_path`` (the last checkpoint line of the existing metrics.jsonl
    when resuming, else None), ``seed`` (int or None), ``device`` (str),
    ``rank`` (int), ``config`` (a dict, :class:`Config`, also
    read and set as ``config.lr``: init's ``config`` with Trainyard's values
    over it, see :func:`init`), ``summary`` (a dict of the run's
    figures of merit, each change reported: :class:`Summary`) and
    ``reporting`` (False for a rank > 0 that only follows rank 0's stop and
    pause: its reporting methods do nothing).

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
        config: Optional[Dict[str, Any]] = None,
        standalone: bool = False,
    ) -> None:
        self.rank = rank
        self.reporting = not quiet
        # The socket is rank 0's: one connection per run.
        address = parse_connect(connect) if connect and rank == 0 else None
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
        self.config = Config(config)
        self.resume_step: Optional[int] = None
        self.resume_path: Optional[str] = None
        self.exit_code: Optional[int] = None  # set by finish()
        # Outside Trainyard nobody else writes status.json: the run folder gets one at the end.
        self._standalone = standalone
        self._started = time.time()

        self._token = token
        self._lock = threading.Lock()  # file order, the socket queue, _finished
        self._finish_lock = threading.Lock()
        # log(commit=False)'s values: (step, epoch, total_steps, metrics) or None.
        self._pending: Optional[Tuple[int, Any, Any, Dict[str, Any]]] = None
        self._pending_lock = threading.Lock()
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
            _, self.resume_step, self.resume_path = scan_metrics(shared_metrics)
            last_wall = scan_metrics(self.metrics_path)[0]
        self._last_step = self.resume_step or 0
        # log() without a step takes the next one.
        self._last_logged = self.resume_step if self.resume_step is not None else -1
        self._metric_keys = KeyTexts(METRIC_KEYS)
        self._summary_keys = KeyTexts(SUMMARY_KEYS)
        self.summary = Summary(self._write_summary)
        self._t0 = time.monotonic()
        self._wall_offset = last_wall  # the clock never runs backwards in the file
        if rank == 0 and self._has_ranks:
            try:  # a previous attempt's stop must not stop this one
                os.unlink(self._control_path)
            except OSError:
                pass
        self._fd: Optional[int] = open_append(self.metrics_path) if self.reporting else None

        self._link = Link(address, self._hello, self._on_control) if address else None
        from . import __version__  # here: the package imports this module before it sets it
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

    def log(self, step: Any = None, loss: Any = None, /, epoch: Any = None, total_steps: Any = None,
            *, commit: bool = True, **metrics: Any) -> None:
        """Write a ``metric`` line: ``log(step, loss=…, acc=…)``, or W&B's
        ``log({"loss": …, "acc": …}, step=…)``.

        ``step`` (an int >= 0, or a whole float such as ``2.0``) may be left
        out: it is then one more than the previous log()'s (0 for the first,
        ``resume_step + 1`` on a resumed run). Every keyword is a metric,
        ``loss`` included, which is optional (``log(11, acc=0.9)``); a dict
        as the first argument gives metrics too, and its ``"step"``,
        ``"epoch"`` and ``"total_steps"`` are the line's own. A value is an
        int, a float, or anything with ``.item()`` or ``__float__`` (a
        one-element torch tensor, a NumPy scalar); bool is refused. TypeError
        names the key. ``epoch`` (1-based) defaults to the last one given,
        else 1; ``total_steps`` is the planned number of steps (both whole
        numbers). A value that is NaN or infinite is written as ``null``
        (JSON has no NaN; Trainyard plots a gap, pandas reads NaN), with a
        warning line the first time for each key; the line's other values
        are kept. A run whose last loss is not finite ends "diverged".

        ``commit=False`` (W&B's) writes nothing yet: the values wait for the
        next log() of the same step, whose line they join (its own values
        win); a log() of another step, or finish(), first writes them as a
        line of their own. Without ``step`` they belong to the step the next
        log() takes.
        """
        if loss is not None or "step" in metrics or (step is not None and step.__class__ is not int):
            step, epoch, total_steps, metrics = _log_arguments(step, loss, epoch, total_steps, metrics)
        if self._finished:
            raise RuntimeError("trainyard: the run is finished")
        if commit is not True or self._pending is not None:
            if commit is not False and commit is not True:
                raise TypeError("trainyard: commit must be True or False, not %r" % (commit,))
            if not self._hold(step, epoch, total_steps, metrics, commit):
                return
            with self._pending_lock:
                pending, self._pending = self._pending, None
            if pending is not None:  # this line's own values win
                step, pending_epoch, pending_total, held = pending
                epoch = pending_epoch if epoch is None else epoch
                total_steps = pending_total if total_steps is None else total_steps
                held.update(metrics)
                metrics = held
        if step is None:
            step = self._last_logged + 1
        elif step < 0:
            raise ValueError("trainyard: step must be >= 0, got %d" % step)
        if epoch is None:
            epoch = self._epoch
        elif epoch.__class__ is not int or epoch < 0:
            epoch = count("epoch", epoch)
        # The line is made here as text, with no dict and no json.dumps: log()
        # may cost at most 1.5x a script's own json.dumps + os.write of it
        # (bench/python). Floats are written as json.dumps writes them (repr).
        line = '{"type":"metric","step":%d,"epoch":%d' % (step, epoch)
        if total_steps is not None:
            line += ',"total_steps":%d' % count("total_steps", total_steps)
        texts = self._metric_keys
        not_finite = None
        for key, value in metrics.items():
            text = texts.get(key) or texts.check(key)
            cls = value.__class__
            if cls is not float and cls is not int:
                value = number(key, value)
                cls = value.__class__
            if cls is int or value - value == 0.0:  # NaN - NaN and inf - inf are NaN
                line += text + repr(value)
            else:
                line += text + "null"
                not_finite = (not_finite or []) + [(key, value)]
        if not_finite:
            for key, value in not_finite:
                self._not_finite(key, value, step)
        if "loss" in metrics:
            self._last_loss_finite = not not_finite or "loss" not in dict(not_finite)
        self._epoch = epoch
        self._last_step = self._last_logged = step
        with self._lock:
            if self._finished or self._fd is None:
                return  # finished meanwhile, or a rank that does not report
            data = (line + ',"wall":%.6f}\n' % (self._wall_offset + _monotonic() - self._t0)).encode("utf-8",
                                                                                                    "replace")
            try:
                written = _os_write(self._fd, data)
            except OSError:
                written = 0
            if written != len(data):
                self._write(data[written:])
            if self._link is not None:
                self._link.put(data)

    def _hold(self, step: Optional[int], epoch: Any, total_steps: Any, metrics: Dict[str, Any],
              commit: bool) -> bool:
        """log(commit=False)'s buffer: keeps the values of ``commit=False``
        (False is returned: nothing to write now) and writes a held step
        that another step follows as its own line first."""
        for key, value in metrics.items():  # refused now, not when the line is written
            self._metric_keys.get(key) or self._metric_keys.check(key)
            metrics[key] = number(key, value)
        with self._pending_lock:
            pending = self._pending
            if pending is not None and step is not None and step != pending[0]:
                self._pending = None
            else:
                pending = None
        if pending is not None:
            self.log(pending[0], epoch=pending[1], total_steps=pending[2], **pending[3])
        if commit:
            return True
        if step is None:
            step = self._last_logged + 1
        elif step < 0:
            raise ValueError("trainyard: step must be >= 0, got %d" % step)
        with self._pending_lock:
            if self._pending is None:
                self._pending = (step, epoch, total_steps, dict(metrics))
            else:
                held_step, held_epoch, held_total, held = self._pending
                held.update(metrics)
                self._pending = (held_step, held_epoch if epoch is None else epoch,
                                 held_total if total_steps is None else total_steps, held)
        return False

    def _flush_pending(self) -> None:
        """Writes what log(commit=False) holds (finish() calls it)."""
        with self._pending_lock:
            pending, self._pending = self._pending, None
        if pending is not None and not self._finished:
            self.log(pending[0], epoch=pending[1], total_steps=pending[2], **pending[3])

    def eval(self, split: str, step: int, epoch: Optional[int] = None, **metrics: float) -> None:
        """Write an ``eval`` line: ``split`` ("valid", "test", ...), ``step``,
        the metrics as keyword arguments (numbers, as for :meth:`log`; use
        ``**{"hits@10": x}`` for names that are not identifiers) and ``epoch``
        (epochs completed) when given."""
        self._check_open()
        if not isinstance(split, str) or not split:
            raise TypeError("trainyard: split must be a non-empty string")
        message: Dict[str, Any] = {"type": "eval", "step": count("step", step), "split": split}
        if epoch is not None:
            message["epoch"] = count("epoch", epoch)
        message.update(self._extras(metrics, EVAL_KEYS, message["step"]))
        self._emit(message)

    def text(self, message: str, level: str = "info") -> None:
        """Write a ``log`` line; ``level`` is "info", "warning" or "error"."""
        self._check_open()
        if level not in LEVELS:
            raise ValueError("trainyard: level must be one of %s, got %r" % (", ".join(LEVELS), level))
        self._emit({"type": "log", "level": level, "text": self._scrub(str(message))})

    @property
    def inputs(self) -> Inputs:
        """What the runs this run runs after left it (:class:`Inputs`, from
        TRAINYARD_INPUTS; empty for a run that runs after nothing)."""
        return read_inputs()

    def checkpoint(self, step: int, path: str) -> None:
        """Write a ``checkpoint`` line once the script has saved the checkpoint
        of ``step`` at ``path`` (made absolute). A resumed run finds the last
        one in :attr:`resume_step` / :attr:`resume_path`."""
        self._check_open()
        self._emit({"type": "checkpoint", "step": count("step", step),
                    "path": self._scrub(os.path.abspath(os.fspath(path)))})

    # -- controls ----------------------------------------------------------

    def should_stop(self) -> bool:
        """True once a ``stop`` control arrived, or SIGTERM, SIGINT or SIGUSR2
        was received (on a rank > 0: or rank 0 was asked to stop): save a
        checkpoint, then return (or finish())."""
        if self._stop or flags.stop:
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
        "finished". Called at exit when the script did not: there also
        "failed" after a ``sys.exit()`` with a failure code, and "stopped"
        after a KeyboardInterrupt. The process's own
        exit status stays the script's: ``sys.exit(run.finish())`` makes them
        agree.
        """
        if status is not None and status not in EXIT_CODES:
            raise ValueError("trainyard: status must be one of %s, got %r" % (", ".join(EXIT_CODES), status))
        with self._finish_lock:
            if self.exit_code is not None:
                return self.exit_code
            try:
                self._flush_pending()
            except (TypeError, ValueError, RuntimeError):
                pass
            if status is None:
                status = self._default_status()
            code = EXIT_CODES[status]
            self._closed.set()
            wrote = self._emit({"type": "done", "status": status, "exit_code": code}, final=True)
            self._finished = True
            self.exit_code = code
            if wrote and self._standalone and self.rank == 0:
                try:
                    write_status(self.run_dir, status, code, self.device, self._started, self._last_step)
                except OSError as error:
                    print("trainyard: %s not written: %s" % (os.path.join(self.run_dir, STATUS_FILE), error),
                          file=sys.stderr, flush=True)
            self._close()
            return code

    def _close(self) -> None:
        """Send what is queued (up to FLUSH_SECONDS), stop the heartbeat, close the file."""
        with self._lock:
            link, self._link = self._link, None
        if link is not None:
            link.flush(FLUSH_SECONDS)
            link.close()
        if self._heart.is_alive():
            self._heart.join(1.0)
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _end_unseen(self, reason: str, level: str = "warning") -> None:
        """End without a done line: the process ends in a way whose outcome the
        module cannot see, so Trainyard takes the program's exit status instead
        (docs/python.md, "What the program gets")."""
        with self._finish_lock:
            if self.exit_code is not None or self._finished:
                return
            try:
                self._flush_pending()
            except (TypeError, ValueError, RuntimeError):
                pass
            self._try_text(reason, level=level)
            self._closed.set()
            with self._lock:
                self._finished = True
            self._close()

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        """Finish the run: "failed" on an exception (a SystemExit with code 0,
        or any SystemExit after a stop request, counts as a normal end;
        a KeyboardInterrupt is a stop: "stopped")."""
        normal = exc_type is None or (issubclass(exc_type, SystemExit)
                                      and (exc.code in (None, 0) or self.should_stop()))
        if normal:
            self.finish()
        elif issubclass(exc_type, KeyboardInterrupt):
            self._interrupted()
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
            line = encode(message)
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
            value = number(key, value)
            out[key] = value if finite(value) else self._not_finite(key, value, step)
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
                 "requeue": flags.requeue}
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
            flags.requeue = True
        self._stop = self._stop or state.get("stop") is True
        self._pause = state.get("pause") is True and not self._stop

    def _hello(self) -> bytes:
        message = {"type": "hello", "run": self.name, "token": self._token, "pid": os.getpid(),
                   "device": self.device, "version": PROTOCOL_VERSION, "wall": self._wall()}
        return encode(message)

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
        if flags.uncaught:
            return "failed"
        if self.should_stop():
            return "requeue" if flags.requeue else "stopped"
        return "finished" if self._last_loss_finite else "diverged"

    def _write_summary(self, values: Dict[Any, Any]) -> Dict[str, Any]:
        """Summary's writer: checks every value, then writes them in ``summary``
        lines of at most MAX_SUMMARY_VALUES each; returns them as numbers."""
        self._check_open()
        checked: Dict[str, Any] = {}
        for key, value in values.items():
            self._summary_keys.get(key) or self._summary_keys.check(key)
            checked[key] = number(key, value)
        names = list(checked)
        for start in range(0, len(names), MAX_SUMMARY_VALUES):
            message: Dict[str, Any] = {"type": "summary"}
            for key in names[start:start + MAX_SUMMARY_VALUES]:
                value = checked[key]
                message[key] = value if finite(value) else None
            self._emit(message)
        return checked

    def _interrupted(self) -> None:
        """A KeyboardInterrupt (Ctrl+C; with init()'s handler, the second
        one) is the user's stop, as the first Ctrl+C is: "stopped"."""
        if not self._finished:
            self._try_text("interrupted (KeyboardInterrupt)", level="warning")
        self.finish("requeue" if flags.requeue else "stopped")

    def _fail(self, exc: Optional[BaseException]) -> None:
        if exc is not None and not self._finished:
            self._try_text(describe_exception(exc), level="error")
        self.finish("failed")


def describe_exception(exc: BaseException) -> str:
    """An exception and the ones it was raised from or during, without their
    frames, as Python's traceback joins them (the first cause first)."""
    chain: List[Tuple[BaseException, str]] = []
    seen = set()
    link = ""
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append((current, link))
        if current.__cause__ is not None:
            current, link = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, _CONTEXT
        else:
            current = None
    parts = []
    for error, joined_by in reversed(chain):
        text = str(error)
        parts.append("%s: %s" % (type(error).__name__, text) if text else type(error).__name__)
        if joined_by:
            parts.append("\n%s\n" % joined_by)
    return "\n".join(parts)


_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def _log_arguments(step: Any, loss: Any, epoch: Any, total_steps: Any,
                   metrics: Dict[str, Any]) -> Tuple[Optional[int], Any, Any, Dict[str, Any]]:
    """log()'s other forms as its plain one: (step or None, epoch, total_steps, metrics).

    ``log({"loss": …}, step=…)`` (a dict of metrics, whose "step", "epoch"
    and "total_steps" are the line's own), ``log(step, loss)`` (the loss as
    a second positional argument) and ``log(step=…)`` (``step`` is
    positional-only, so that a dict can come first: given as a keyword it
    arrives among the metrics)."""
    given = metrics.pop("step", None)
    if isinstance(step, Mapping):
        if loss is not None:
            raise TypeError("trainyard: log(dict, …) takes the step as step=, not as a second argument")
        data, metrics = metrics, {}
        own = {"step": given, "epoch": epoch, "total_steps": total_steps}
        for key, value in step.items():
            if key in own:
                if own[key] is not None:
                    raise TypeError("trainyard: %s given twice (in the dict and as a keyword)" % key)
                own[key] = value
            elif key in data:
                raise TypeError("trainyard: %r given twice (in the dict and as a keyword)" % (key,))
            else:
                metrics[key] = value
        metrics.update(data)
        step, epoch, total_steps = own["step"], own["epoch"], own["total_steps"]
    else:
        if given is not None:
            if step is not None:
                raise TypeError("trainyard: step given twice (as the first argument and as step=)")
            step = given
        if loss is not None:
            if "loss" in metrics:
                raise TypeError("trainyard: loss given twice (as the second argument and as loss=)")
            metrics = dict(loss=loss, **metrics)
    return (None if step is None else count("step", step)), epoch, total_steps, metrics
