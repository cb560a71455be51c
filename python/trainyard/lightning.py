"""PyTorch Lightning reporting to Trainyard (docs/python.md)::

    from trainyard.lightning import TrainyardCallback, TrainyardLogger
    trainer = Trainer(logger=TrainyardLogger(), callbacks=[TrainyardCallback()])

:class:`TrainyardLogger` is a Lightning logger: ``self.log("val_acc", …)``
becomes an ``eval`` line (``valid/acc``), other values ``metric`` lines, the
module's hyperparameters ``run.config``. :class:`TrainyardCallback` adds
Trainyard's Stop and Pause and the progress bar.

``import trainyard`` never imports this module nor Lightning. This one needs
``lightning`` (``lightning.pytorch``) or the older ``pytorch_lightning``;
without either it raises ImportError saying what to install.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Dict, Mapping, Optional, Sequence

from ._frameworks import flat_config, import_framework, split_of
from ._run import Run
from ._session import init

_loggers, _callbacks = import_framework(
    "trainyard.lightning", (("lightning.pytorch.loggers", "lightning.pytorch.callbacks"),
                            ("pytorch_lightning.loggers", "pytorch_lightning.callbacks")),
    "PyTorch Lightning: pip install lightning (or pytorch-lightning)")

__all__ = ["TrainyardCallback", "TrainyardLogger"]

#: Lightning's training loss names that become the run's ``loss`` curve (divergence, the runs table).
LOSS_NAMES = ("train_loss", "train/loss")


class TrainyardLogger(_loggers.Logger):
    """A Lightning logger writing the run of :func:`trainyard.init`.

    The run starts when Lightning first asks for :attr:`experiment` (at
    ``fit()``'s setup), with this logger's arguments (those of
    :func:`trainyard.init`); inside Trainyard the environment wins, as for
    ``init()``. Every rank may use it: only rank 0 reports.

    * :meth:`log_metrics`: ``val_*``, ``val/*``, ``valid_*``,
      ``validation_*`` and ``eval_*`` values become an ``eval`` line of split
      ``valid``, ``test_*`` of split ``test`` (curves ``valid/acc``,
      ``test/acc``); the others a ``metric`` line at Lightning's step,
      ``train_loss`` (or ``train/loss``) as ``loss``. Lightning's 0-based
      ``epoch`` becomes the line's 1-based epoch.
    * :meth:`log_hyperparams`: into ``run.config`` (params.json), nested
      mappings flattened with ``/``.
    * :meth:`finalize`: ``"failed"`` (an exception in ``fit()`` or
      ``test()``) ends the run "failed" ("stopped" for a KeyboardInterrupt).
      ``"success"`` leaves the run open: Lightning finalizes after each of
      ``fit()``, ``validate()`` and ``test()``, and a ``test()`` after
      ``fit()`` belongs to the same run. The done line comes at exit, or
      with ``trainyard.finish()``.
    """

    def __init__(self, name: Optional[str] = None, run_dir: Optional[str] = None,
                 config: Optional[Mapping[str, Any]] = None, tags: Optional[Sequence[str]] = None,
                 notes: Optional[str] = None, group: Optional[str] = None) -> None:
        super().__init__()
        self._init_args: Dict[str, Any] = dict(name=name, run_dir=run_dir, config=config, tags=tags, notes=notes,
                                               group=group)
        self._run: Optional[Run] = None
        #: The planned number of steps (TrainyardCallback sets it from the Trainer), for the progress bar.
        self.total_steps: Optional[int] = None

    @property
    def experiment(self) -> Run:
        """The :class:`trainyard.Run` (started at first use)."""
        if self._run is None:
            self._run = init(**self._init_args)
        return self._run

    @property
    def name(self) -> str:
        """The run's name."""
        return self.experiment.name

    @property
    def version(self) -> str:
        """The run folder's name."""
        return os.path.basename(self.experiment.run_dir)

    @property
    def log_dir(self) -> str:
        """The run folder."""
        return self.experiment.run_dir

    def log_metrics(self, metrics: Mapping[str, Any], step: Optional[int] = None) -> None:
        run = self.experiment
        if run.finished:
            return  # finished by the script (trainyard.finish()) or by a failure: nothing more to say
        values = dict(metrics)
        epoch = values.pop("epoch", None)
        epoch = int(float(epoch)) + 1 if epoch is not None else None
        plain: Dict[str, Any] = {}
        splits: Dict[str, Dict[str, Any]] = {}
        for key, value in values.items():
            split = split_of(key)
            if split is not None:
                splits.setdefault(split[0], {})[split[1]] = value
            else:
                plain["loss" if key in LOSS_NAMES and "loss" not in values else key] = value
        if plain:
            run.log(step, epoch=epoch, total_steps=self.total_steps, **plain)
        for split, named in splits.items():
            at = step if step is not None else max(run._last_logged, 0)
            run.eval(split, at, epoch=epoch, **named)

    def log_hyperparams(self, params: Any, *args: Any, **kwargs: Any) -> None:
        run = self.experiment
        if not run.finished:
            run.config.update(flat_config(params))

    def finalize(self, status: str) -> None:
        run = self._run
        if status != "failed" or run is None or run.finished:
            return
        error = sys.exc_info()[1]  # Lightning finalizes from its except block
        if isinstance(error, KeyboardInterrupt):
            run._interrupted()
        elif isinstance(error, SystemExit) and (error.code in (None, 0) or run.should_stop()):
            run.finish()  # a normal end, as for Run.__exit__
        elif error is not None:
            run._fail(error)
        else:
            run.finish("failed")


class TrainyardCallback(_callbacks.Callback):
    """Trainyard's Stop and Pause for a Lightning Trainer, the planned
    number of steps for the card's progress bar and ETA, and the run's
    checkpoints folder for Lightning's checkpoints.

    After each training batch it asks :meth:`trainyard.Run.wait_while_paused`:
    while the run is paused it waits there; once Stop was pressed (or SIGTERM,
    SIGINT, SIGUSR2 arrived) it sets ``trainer.should_stop``, so ``fit()``
    returns after that step and the run ends "stopped". A ModelCheckpoint
    without a ``dirpath`` (Lightning's default one too) saves into
    ``run.checkpoint_dir``, where Trainyard looks when it resumes a stopped
    run. It reports through the Trainer's :class:`TrainyardLogger` (else
    through :func:`trainyard.init`)."""

    def __init__(self) -> None:
        super().__init__()
        self._run: Optional[Run] = None

    def _run_of(self, trainer: Any) -> Run:
        if self._run is None:
            loggers = getattr(trainer, "loggers", None) or []
            ours = [logger for logger in loggers if isinstance(logger, TrainyardLogger)]
            self._run = ours[0].experiment if ours else init()
        return self._run

    def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
        # Lightning sets up checkpoint callbacks after the others: this comes first.
        checkpoint = getattr(_callbacks, "ModelCheckpoint", None)
        for callback in getattr(trainer, "callbacks", None) or []:
            if checkpoint is not None and isinstance(callback, checkpoint) and callback.dirpath is None:
                callback.dirpath = self._run_of(trainer).checkpoint_dir

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        self._run_of(trainer)
        planned = getattr(trainer, "estimated_stepping_batches", None)
        try:
            total = int(planned) if planned is not None and math.isfinite(planned) and planned > 0 else None
        except (TypeError, ValueError):
            total = None
        for logger in getattr(trainer, "loggers", None) or []:
            if isinstance(logger, TrainyardLogger):
                logger.total_steps = total

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        run = self._run_of(trainer)
        if not run.finished and run.wait_while_paused():
            trainer.should_stop = True
