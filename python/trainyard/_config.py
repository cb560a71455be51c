"""A run's parameters: the config file Trainyard passes (TRAINYARD_CONFIG),
merged over the script's own defaults, and RUN_DIR/params.json, which tells
Trainyard what the run used (its runs table shows them as ``config.<name>``)."""

from __future__ import annotations

import json
import math
import os
import stat
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ._runfolder import write_json

#: RUN_DIR/params.json: what the run used, written by rank 0 (runconfigfile.h).
PARAMS_FILE = "params.json"
#: Trainyard's config files are small; anything larger is not one of them.
MAX_CONFIG_BYTES = 1024 * 1024


def read_config_file(path: str) -> Dict[str, Any]:
    """The object in the config file at ``path``, opened as Trainyard opens a
    run folder's files: a regular file (a link is refused, never followed;
    a FIFO never blocks), at most MAX_CONFIG_BYTES. ValueError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ValueError("TRAINYARD_CONFIG %s cannot be read: %s" % (path, exc.strerror or exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("TRAINYARD_CONFIG %s is not a regular file" % path)
        if st.st_size > MAX_CONFIG_BYTES:
            raise ValueError("TRAINYARD_CONFIG %s is larger than %d bytes" % (path, MAX_CONFIG_BYTES))
        data = b""
        while len(data) <= MAX_CONFIG_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError("TRAINYARD_CONFIG %s is not JSON: %s" % (path, exc)) from None
    if not isinstance(value, dict):
        raise ValueError("TRAINYARD_CONFIG %s holds no JSON object" % path)
    return value


def merge(defaults: Optional[Mapping[str, Any]], given: Mapping[str, Any]) -> Dict[str, Any]:
    """``given`` (Trainyard's values) over ``defaults`` (the script's). A whole
    number given for a float default becomes a float (JSON writes 1.0 as 1)."""
    if defaults is not None and not isinstance(defaults, Mapping):
        raise TypeError("config must be a mapping of names to values, not %s" % type(defaults).__name__)
    merged: Dict[str, Any] = {}
    for key, value in (defaults or {}).items():
        if not isinstance(key, str):
            raise TypeError("config keys must be strings, not %r" % (key,))
        merged[key] = value
    for key, value in given.items():
        old = merged.get(key)
        if isinstance(old, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        merged[key] = value
    return merged


def reportable(config: Mapping[str, Any]) -> Tuple[Dict[str, Any], List[str]]:
    """The values params.json can hold (numbers, strings, booleans, None) and
    the keys left out (any other value, a NaN or infinity)."""
    out: Dict[str, Any] = {}
    skipped: List[str] = []
    for key, value in config.items():
        ok = value is None or isinstance(value, (str, bool, int)) or (
            isinstance(value, float) and math.isfinite(value))
        if ok:
            out[key] = value
        else:
            skipped.append(key)
    return out, skipped


def write_params(run_dir: str, values: Mapping[str, Any]) -> None:
    """Writes ``values`` as RUN_DIR/params.json, whole or not at all."""
    write_json(run_dir, PARAMS_FILE, values)


class Config(dict):
    """run.config: a dict of the run's parameters that also takes W&B's
    habits: ``config.lr`` as ``config["lr"]``, ``config.lr = 0.1`` and
    ``update()``/``setdefault()`` as item assignment. Every change (by a
    reporting rank) rewrites RUN_DIR/params.json, as init() writes it."""

    def __init__(self, values: Optional[Mapping[str, Any]] = None,
                 changed: Optional[Callable[["Config"], None]] = None) -> None:
        super().__init__(values or {})
        object.__setattr__(self, "_changed", changed)

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError("trainyard: config has no key %r" % (key,)) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        try:
            del self[key]
        except KeyError:
            raise AttributeError("trainyard: config has no key %r" % (key,)) from None

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError("config keys must be strings, not %r" % (key,))
        super().__setitem__(key, value)
        self._report()

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._report()

    def update(self, *others: Any, **values: Any) -> None:  # type: ignore[override]
        """Sets every value given (a mapping, pairs, keywords); params.json is written once."""
        if len(others) > 1:
            raise TypeError("trainyard: update expected at most 1 positional argument, got %d" % len(others))
        merged: Dict[Any, Any] = dict(others[0]) if others else {}
        merged.update(values)
        for key in merged:
            if not isinstance(key, str):
                raise TypeError("config keys must be strings, not %r" % (key,))
        if merged:
            super().update(merged)
            self._report()

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str, *default: Any) -> Any:
        had = key in self
        value = super().pop(key, *default)
        if had:
            self._report()
        return value

    def popitem(self) -> Tuple[str, Any]:
        item = super().popitem()
        self._report()
        return item

    def clear(self) -> None:
        super().clear()
        self._report()

    def __ior__(self, other: Any) -> "Config":  # type: ignore[override,misc]
        self.update(other)
        return self

    def __reduce__(self) -> Any:  # pickled or copied: a plain dict of the values
        return (dict, (dict(self),))

    def _report(self) -> None:
        changed = self._changed
        if changed is not None:
            changed(self)
