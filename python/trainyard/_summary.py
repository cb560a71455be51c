"""run.summary: a run's figures of merit, one value per name (W&B's ``run.summary``)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Callable, Dict, Iterator


class Summary(MutableMapping):
    """A dict of numbers that reports every change as a ``summary`` line.

    ``run.summary["best_acc"] = 0.93`` writes
    ``{"type":"summary","best_acc":0.93,"wall":…}``; ``update()`` writes one
    line for all its values. Trainyard keeps the last value of each name and
    shows it in the runs table as a ``summary.<name>`` column. Values are
    numbers as :meth:`Run.log` takes them (NaN and infinities are written as
    null); a value cannot be removed, only replaced. Holds what this process
    set: a resumed run starts with an empty one, while Trainyard keeps the
    values of the lines already in metrics.jsonl.
    """

    def __init__(self, write: Callable[[Dict[Any, Any]], Dict[str, Any]]) -> None:
        self._write = write
        self._values: Dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def __delitem__(self, key: str) -> None:
        raise TypeError("trainyard: a summary value cannot be removed, only replaced (key %r)" % (key,))

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def update(self, *others: Any, **values: Any) -> None:  # type: ignore[override]
        """Sets every value given (a mapping, pairs, keywords) in one line;
        nothing is set when one of them is refused."""
        if len(others) > 1:
            raise TypeError("trainyard: update expected at most 1 positional argument, got %d" % len(others))
        merged: Dict[Any, Any] = dict(others[0]) if others else {}
        merged.update(values)
        if merged:
            self._values.update(self._write(merged))

    def __repr__(self) -> str:
        return "<trainyard.Summary %r>" % (self._values,)
