"""The process's one run: init(), which reads the run environment, and the
signal handlers and exit hooks that end the run as the process ends."""

from __future__ import annotations

import atexit
import hashlib
import itertools
import opcode
import os
import signal
import sys
import threading
import time
from collections import abc
from types import FrameType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._config import merge, read_config_file, reportable, write_params
from ._protocol import (ENV_CONFIG, ENV_CONNECT, ENV_DEVICE, ENV_PER_RANK, ENV_RESUME, ENV_RUN_DIR, ENV_RUN_NAME,
                        ENV_SEED, ENV_TOKEN)
from ._run import Run, flags
from ._runfolder import NOTES_FILE, write_json
from ._values import count

#: Where a process's rank is read, global rank first (torchrun, srun, then a node-local rank).
RANK_VARIABLES = ("RANK", "SLURM_PROCID", "LOCAL_RANK")

_init_lock = threading.Lock()
_current: Optional["Run"] = None
_hooks_installed = False
# How the script ends, for the exit hook: the __main__ module's frame (did it
# run to its end?) and the status of the main thread's last sys.exit().
_main_frame: Optional[FrameType] = None
_NO_EXIT = object()
_exit_status: Any = _NO_EXIT


def init(name: Optional[str] = None, run_dir: Optional[str] = None, per_rank: Optional[bool] = None,
         rank: Optional[int] = None, config: Optional[Mapping[str, Any]] = None,
         tags: Optional[Sequence[str]] = None, notes: Optional[str] = None, group: Optional[str] = None) -> "Run":
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
    * ``TRAINYARD_CONFIG``: the path of a JSON object, the run spec's
      ``"config"``. Run.config is ``config`` (the script's own settings,
      a mapping) with these values over it: Trainyard's win; a whole number
      for a float setting becomes a float. A file that cannot be read (not a
      regular file, over 1 MiB, not a JSON object) raises ValueError. The
      reporting rank writes Run.config's numbers, strings, booleans and
      Nones to ``RUN_DIR/params.json``, which the runs table shows as
      ``config.<name>`` columns (other values are left out, with a warning).

    ``tags`` (a list of strings) and ``notes`` (a string) seed the run's
    tags and note as the app keeps them, in ``RUN_DIR/notes.json``, written
    only when that file does not exist yet, so that what the user sets in
    the app wins (tags are trimmed, each once; a comma is refused: the app
    separates tags by commas). W&B's ``group`` is not Trainyard's repeat
    group: ``group="NAME"`` becomes the tag ``group:NAME``.

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
        name = env.get(ENV_RUN_NAME) or name or _script_stem()
        own_folder = False
        if env.get(ENV_RUN_DIR):
            folder = env[ENV_RUN_DIR]
        elif run_dir is not None:
            folder = os.fspath(run_dir)
        else:
            folder, own_folder = "", True
        rank_number, rank_source = (count("rank", rank), "rank=") if rank is not None else _rank_from(env)
        if per_rank is None:
            per_rank = env.get(ENV_PER_RANK, "").strip() == "1"
        quiet = rank_number > 0 and not per_rank
        if own_folder and quiet:
            # Rank 0's folder is its own; another rank cannot know its name: nothing is written.
            folder, own_folder = os.path.abspath("trainyard-runs"), False
        elif own_folder:
            folder = _new_folder(name if rank_number == 0 else "%s-rank%d" % (name, rank_number))
        seed_notes = _notes_from(tags, notes, group)
        config_path = env.get(ENV_CONFIG) or ""
        merged = merge(config, read_config_file(config_path) if config_path else {})
        connect = env.get(ENV_CONNECT) or None
        seed_text = env.get(ENV_SEED, "").strip()
        try:
            seed: Optional[int] = int(seed_text) if seed_text else None
        except ValueError:
            seed = None
        run = Run(
            run_dir=folder,
            name=name,
            connect=connect,
            token=env.get(ENV_TOKEN, ""),
            resume=env.get(ENV_RESUME, "") == "1",
            seed=seed,
            device=env.get(ENV_DEVICE) or "cpu",
            rank=rank_number,
            rank_source=rank_source,
            quiet=quiet,
            control_key=_control_key(env),
            config=merged,
            standalone=not env.get(ENV_RUN_DIR),
        )
        if own_folder:
            print("trainyard: not started by Trainyard; writing %s" % run.metrics_path, file=sys.stderr, flush=True)
        if seed_text and seed is None:
            run.text("%s is not an integer: %r" % (ENV_SEED, seed_text), level="warning")
        if run.reporting:
            if merged or config is not None:
                _write_config(run, run.config, set())
            warned: set = set()
            object.__setattr__(run.config, "_changed", lambda values: _write_config(run, values, warned))
            if seed_notes is not None:
                _seed_notes(run, seed_notes)
        _install_hooks()
        _current = run
        return run


def current() -> "Run":
    """The run init() started last (finished or not); RuntimeError before init()."""
    run = _current
    if run is None:
        raise RuntimeError("trainyard: no run yet; call trainyard.init() first")
    return run


def _write_config(run: "Run", values: Mapping[str, Any], warned: set) -> None:
    """RUN_DIR/params.json from ``values``; a warning line for each key it cannot hold (once)."""
    reported, skipped = reportable(values)
    try:
        write_params(run.run_dir, reported)
    except OSError as exc:
        run._try_text("%s not written: %s" % (os.path.join(run.run_dir, "params.json"), exc), level="warning")
    new = sorted(set(skipped) - warned)
    if new:
        warned.update(new)
        run._try_text("config keys not shown in Trainyard (not a number, string or boolean): %s"
                      % ", ".join(new), level="warning")


def _notes_from(tags: Any, notes: Any, group: Any) -> Optional[Dict[str, Any]]:
    """init()'s tags, notes and group as notes.json holds them; None for none."""
    if isinstance(tags, (str, bytes)) or (tags is not None and not isinstance(tags, abc.Iterable)):
        raise TypeError("trainyard: tags must be a list of strings, not %s" % type(tags).__name__)
    given = list(tags or [])
    if group is not None:
        if not isinstance(group, str):
            raise TypeError("trainyard: group must be a string, not %s" % type(group).__name__)
        given.append("group:" + group)
    seeded: List[str] = []
    for tag in given:
        if not isinstance(tag, str):
            raise TypeError("trainyard: tags must be strings, not %r" % (tag,))
        if "," in tag:
            raise ValueError("trainyard: a tag cannot hold a comma (Trainyard separates tags by commas): %r" % tag)
        tag = " ".join(tag.split())
        if tag and tag not in seeded:
            seeded.append(tag)
    if notes is not None and not isinstance(notes, str):
        raise TypeError("trainyard: notes must be a string, not %s" % type(notes).__name__)
    note = notes or ""
    if not seeded and not note.strip():
        return None  # the app keeps no notes.json for no tags and no note
    return {"tags": seeded, "note": note}


def _seed_notes(run: "Run", values: Dict[str, Any]) -> None:
    """RUN_DIR/notes.json as the app writes it, only when there is none: the
    user's later edits in the app win."""
    if os.path.lexists(os.path.join(run.run_dir, NOTES_FILE)):
        return
    try:
        write_json(run.run_dir, NOTES_FILE, values)
    except OSError as exc:
        run._try_text("%s not written: %s" % (os.path.join(run.run_dir, NOTES_FILE), exc), level="warning")


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
    token = env.get(ENV_TOKEN, "")
    job = env.get("SLURM_JOB_ID", "")
    if not token and not job:
        return ""
    seed = ("token:" + token) if token else "job:%s:%s" % (job, env.get("SLURM_RESTART_COUNT", "0"))
    return hashlib.sha256(seed.encode("utf-8", "replace")).hexdigest()[:16]


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


def _on_signal(signum: int, frame: Any) -> None:
    run = _current
    if signum == signal.SIGTERM and (flags.stop or (run is not None and run._stop)):
        # Asked already and still going: Trainyard's stop escalation (socket,
        # then SIGTERM, then SIGKILL) means "now", so end as SIGTERM would
        # have without the module. The app records the run as stopped.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    flags.stop = True
    if signum == getattr(signal, "SIGUSR2", None):
        flags.requeue = True
    if run is not None:
        run._publish_control()
    if signum == signal.SIGINT:
        flags.sigints += 1
        if flags.sigints > 1:
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
        interrupted = issubclass(exc_type, KeyboardInterrupt)
        if not interrupted:
            flags.uncaught = True
        try:
            previous(exc_type, exc, tb)
        finally:
            run = _current
            if run is not None and not run.finished:
                if interrupted:
                    run._interrupted()
                else:
                    run._fail(exc)

    sys.excepthook = excepthook
    _watch_exit()
    if threading.current_thread() is threading.main_thread():
        defaults = {signal.SIGTERM: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler}
        if hasattr(signal, "SIGUSR2"):
            defaults[signal.SIGUSR2] = signal.SIG_DFL
        # A Slurm batch script ignores USR2 until its program can take it
        # (SlurmJob::script): inside Trainyard, ignored is ours to take too.
        inside = bool(os.environ.get(ENV_RUN_DIR))
        for signum, default in defaults.items():
            current = signal.getsignal(signum)
            if current is default or (inside and signum != signal.SIGINT and current is signal.SIG_IGN):
                signal.signal(signum, _on_signal)


def _watch_exit() -> None:
    """Keeps what the exit hook needs to tell how the script ended: a
    SystemExit never reaches sys.excepthook, and Python has handled it, its
    status gone, before atexit runs. So sys.exit() notes the main thread's
    status (as W&B's exit hook does) and the __main__ module's frame tells
    whether the script ran to its end or was ended by an exception."""
    global _main_frame
    frame = sys._current_frames().get(threading.main_thread().ident)
    main_globals = getattr(sys.modules.get("__main__"), "__dict__", None)
    while frame is not None:  # the outermost: `python -m` runs it under runpy's
        if frame.f_code.co_name == "<module>" and frame.f_globals is main_globals:
            _main_frame = frame
        frame = frame.f_back
    previous = sys.exit

    def exit(status: Any = None) -> None:
        global _exit_status
        if threading.current_thread() is threading.main_thread():
            _exit_status = status
        previous(status)

    exit.__doc__ = previous.__doc__
    sys.exit = exit


def _script_ending() -> str:
    """How the main script ended: "returned" (ran to its end, or the module
    cannot tell), "exit" (by the sys.exit() noted in _exit_status) or
    "unseen" (by an exception the module did not see: a ``raise SystemExit``,
    ``exit()``, or any exception after the script replaced sys.excepthook)."""
    frame = _main_frame
    if frame is not None:
        code = frame.f_code.co_code
        last = frame.f_lasti
        if 0 <= last < len(code) and opcode.opname[code[last]].startswith("RETURN_"):
            return "returned"  # a sys.exit() it noted was caught
    if _exit_status is not _NO_EXIT:
        return "exit"
    return "returned" if frame is None else "unseen"


def _at_exit() -> None:
    run = _current
    if run is None or run.finished:
        return
    ending = _script_ending()
    if ending == "exit" and _exit_status not in (None, 0) and not run.should_stop():
        # As Python's exit status: 1 for a message (printed), else the number.
        run._fail(SystemExit(_exit_status))
    elif ending == "unseen" and not run._standalone and not run.should_stop():
        run._end_unseen("the script ended by an exception or a SystemExit the trainyard module did not see; "
                        "its exit status tells how the run ended", level="info")
    else:
        # Ran to its end, sys.exit(0), any SystemExit after a stop request
        # (as Run.__exit__ takes them), or outside Trainyard, where no exit
        # status is read: the status the run's evidence gives.
        run.finish()
