"""The Hugging Face Trainer reporting to Trainyard (docs/python.md)::

    from trainyard.huggingface import TrainyardCallback
    trainer = Trainer(model=model, args=args, train_dataset=train, callbacks=[TrainyardCallback()])

``import trainyard`` never imports this module nor transformers. This one
needs ``transformers``; without it it raises ImportError saying what to
install.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Sequence

from ._frameworks import flat_config, import_framework, is_number, split_of
from ._run import Run
from ._session import init

(_transformers,) = import_framework("trainyard.huggingface", (("transformers",),),
                                    "Hugging Face transformers: pip install transformers")

__all__ = ["TrainyardCallback"]

#: What the Trainer logs once at the end of training: the run's summary, not a curve (as W&B's callback does).
SUMMARY_KEYS = ("train_runtime", "train_samples_per_second", "train_steps_per_second", "total_flos", "train_loss")


class TrainyardCallback(_transformers.TrainerCallback):
    """A Trainer callback writing the run of :func:`trainyard.init`.

    * ``on_train_begin``: starts the run (:func:`trainyard.init` with this
      callback's arguments; inside Trainyard the environment wins) with the
      TrainingArguments and the model's config as ``run.config`` (their
      numbers, strings and booleans; Trainyard's own ``config`` values win,
      as for ``init()``). A run the script started already is used as it is,
      the values it lacks added.
    * ``on_log``: ``eval_*`` values (``trainer.evaluate()``, evaluation
      during training) become an ``eval`` line of split ``valid`` (curves
      ``valid/loss``, ``valid/accuracy``), ``test_*`` of split ``test``; the
      end-of-training figures (``train_runtime``, ``train_loss``, …) go to
      ``run.summary``; the others (``loss``, ``learning_rate``,
      ``grad_norm``…) a ``metric`` line at ``state.global_step``, with
      ``state.max_steps`` as its ``total_steps`` (the progress bar) and the
      Trainer's fractional epoch as the 1-based epoch in progress.
    * ``on_step_end``: Trainyard's Stop and Pause: it waits while the run is
      paused and sets ``control.should_training_stop`` once Stop was pressed
      (or SIGTERM, SIGINT, SIGUSR2 arrived); the run then ends "stopped".
    * The end of training leaves the run open, so that a
      ``trainer.evaluate()`` after ``train()`` is in it: the done line comes
      at exit (or with ``trainyard.finish()``); an exception out of
      ``train()`` fails the run as any uncaught exception does.
    """

    def __init__(self, name: Optional[str] = None, run_dir: Optional[str] = None,
                 config: Optional[Mapping[str, Any]] = None, tags: Optional[Sequence[str]] = None,
                 notes: Optional[str] = None, group: Optional[str] = None) -> None:
        super().__init__()
        self._init_args: Dict[str, Any] = dict(name=name, run_dir=run_dir, tags=tags, notes=notes, group=group)
        self._config = dict(config or {})
        self._run: Optional[Run] = None

    @property
    def run(self) -> Optional[Run]:
        """The :class:`trainyard.Run` (None before training began)."""
        return self._run

    def _start(self, args: Any, model: Any) -> Run:
        if self._run is not None:
            return self._run
        values: Dict[str, Any] = {}
        model_config = getattr(model, "config", None)
        for source in (model_config, args):
            if source is not None and callable(getattr(source, "to_dict", None)):
                values.update(flat_config(source.to_dict()))
        values.update(self._config)  # the callback's own win over the Trainer's
        values = {k: v for k, v in values.items() if v is None or isinstance(v, (str, bool, int, float))}
        run = init(config=values, **self._init_args)
        missing = {k: v for k, v in values.items() if k not in run.config}
        if missing and run.reporting and not run.finished:  # a run the script started before
            run.config.update(missing)
        self._run = run
        return run

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        self._start(args, model)

    def on_log(self, args: Any, state: Any, control: Any, logs: Optional[Mapping[str, Any]] = None,
               **kwargs: Any) -> None:
        run = self._start(args, kwargs.get("model"))
        if run.finished:
            return  # finished by the script (trainyard.finish()): nothing more to say
        values = {k: v for k, v in (logs or {}).items() if isinstance(k, str) and is_number(v)}
        fraction = values.pop("epoch", None)
        step = int(getattr(state, "global_step", 0) or 0)
        summary = {k: values.pop(k) for k in SUMMARY_KEYS if k in values}
        splits: Dict[str, Dict[str, Any]] = {}
        plain: Dict[str, Any] = {}
        for key, value in values.items():
            split = split_of(key)
            if split is not None and split[0] in ("valid", "test") and key.startswith(("eval_", "test_")):
                splits.setdefault(split[0], {})[split[1]] = value
            else:
                plain[key] = value
        epoch = done = None
        if fraction is not None:
            fraction = float(fraction)
            epoch, done = max(1, math.ceil(fraction)), int(fraction)
        if plain:
            total = getattr(state, "max_steps", None)
            run.log(step, epoch=epoch, total_steps=total if isinstance(total, int) and total > 0 else None, **plain)
        for split, named in splits.items():
            run.eval(split, step, epoch=done, **named)
        if summary:
            run.summary.update(summary)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        run = self._start(args, kwargs.get("model"))
        if not run.finished and run.wait_while_paused():
            control.should_training_stop = True
