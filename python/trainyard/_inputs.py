"""What a run gets from the runs it runs after (docs/python.md, "Inputs").

Trainyard starts a run that has an ``"after"`` once every run it names has
finished, and writes what they left into ``RUN_DIR/inputs.json``, named by
TRAINYARD_INPUTS (RunInputs, core/orchestration/dependencies/runinputs.h)::

    {"inputs": [{"after": "fed-r1-aggregate", "name": "fed-r1-aggregate",
                 "dir": "/runs/fed-r1-aggregate",
                 "checkpoint": "/runs/fed-r1-aggregate/checkpoints/model.pt",
                 "summary": {"state": "finished", "step": 100, "test/accuracy": 0.81, ...}}]}

:attr:`Run.inputs` reads it as :class:`Inputs`.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union, overload

from ._protocol import ENV_INPUTS
#: Far above what any number of runs writes there.
MAX_INPUTS_BYTES = 16 * 1024 * 1024


class Input:
    """One run this run runs after: ``name``, ``after`` (the name in the
    spec's "after" that brought it: the run's own, or its repeat group's,
    rounds' or sweep's), ``dir`` (its run folder), ``checkpoint`` (the path
    of the last checkpoint it reported, or None) and ``summary`` (its state,
    last ``step``, ``epoch``, ``loss``, ``wall``, last evaluations such as
    ``"test/accuracy"`` and what it put in its own ``run.summary``)."""

    __slots__ = ("name", "after", "dir", "checkpoint", "summary")

    def __init__(self, entry: Dict[str, Any]) -> None:
        self.name: str = str(entry.get("name", ""))
        self.after: str = str(entry.get("after", self.name))
        self.dir: str = str(entry.get("dir", ""))
        checkpoint = entry.get("checkpoint")
        self.checkpoint: Optional[str] = checkpoint if isinstance(checkpoint, str) and checkpoint else None
        summary = entry.get("summary")
        self.summary: Dict[str, Any] = dict(summary) if isinstance(summary, dict) else {}

    def __repr__(self) -> str:
        return "Input(%r, checkpoint=%r)" % (self.name, self.checkpoint)


class Inputs(Sequence[Input]):
    """The runs this run runs after, in the order of its "after"; indexed by
    position or by name (a run's name, or a name of its "after" that stands
    for one run). Empty for a run that runs after nothing."""

    def __init__(self, entries: Sequence[Input] = ()) -> None:
        self._entries: List[Input] = list(entries)

    @overload
    def __getitem__(self, key: int) -> Input: ...

    @overload
    def __getitem__(self, key: slice) -> Sequence[Input]: ...

    @overload
    def __getitem__(self, key: str) -> Input: ...

    def __getitem__(self, key: Union[int, slice, str]) -> Any:
        if not isinstance(key, str):
            return self._entries[key]
        for entry in self._entries:
            if entry.name == key:
                return entry
        named = [entry for entry in self._entries if entry.after == key]
        if len(named) == 1:
            return named[0]
        raise KeyError(key if not named else "%s stands for %d runs; name one of them" % (key, len(named)))

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Input]:
        return iter(self._entries)

    def __repr__(self) -> str:
        return "Inputs(%r)" % self._entries


def read_inputs(path: Optional[str] = None) -> Inputs:
    """The inputs in ``path`` (default: TRAINYARD_INPUTS; none: empty),
    opened as Trainyard opens run files: a regular file, no link followed, at
    most MAX_INPUTS_BYTES. ValueError when it is there but not such a file."""
    path = os.environ.get(ENV_INPUTS, "") if path is None else path
    if not path:
        return Inputs()
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ValueError("%s %s cannot be read: %s" % (ENV_INPUTS, path, exc.strerror or exc)) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INPUTS_BYTES:
            raise ValueError("%s %s is not a regular file of at most %d bytes" % (ENV_INPUTS, path, MAX_INPUTS_BYTES))
        data = f.read(MAX_INPUTS_BYTES + 1)
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError("%s %s is not JSON: %s" % (ENV_INPUTS, path, exc)) from None
    entries = document.get("inputs") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError("%s %s has no \"inputs\" list" % (ENV_INPUTS, path))
    return Inputs([Input(e) for e in entries if isinstance(e, dict)])
