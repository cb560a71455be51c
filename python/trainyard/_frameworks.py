"""What trainyard.lightning and trainyard.huggingface share: importing their
framework only when asked, and a framework's names turned into the module's."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Mapping
from typing import Any, Dict, Optional, Sequence, Tuple

from ._protocol import EVAL_KEYS

#: Metric name prefixes of evaluation values and the split their eval line gets.
SPLIT_PREFIXES = (("validation", "valid"), ("valid", "valid"), ("val", "valid"), ("eval", "valid"),
                  ("test", "test"))


def import_framework(user: str, candidates: Sequence[Sequence[str]], install: str) -> Tuple[Any, ...]:
    """The modules named by the first of ``candidates`` whose package is
    installed; ImportError naming ``install`` when none is. A package that is
    installed but fails to import raises its own error."""
    for names in candidates:
        package = names[0].split(".")[0]
        try:
            return tuple(importlib.import_module(name) for name in names)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] != package:
                raise
    raise ImportError("%s needs %s" % (user, install))


def split_of(key: str) -> Optional[Tuple[str, str]]:
    """("valid", "loss") for ``val_loss``, ``val/loss``, ``eval_loss``,
    ``validation_loss``…; ("test", "acc") for ``test_acc``; None otherwise."""
    for prefix, split in SPLIT_PREFIXES:
        if len(key) > len(prefix) + 1 and key.startswith(prefix) and key[len(prefix)] in "_/":
            name = key[len(prefix) + 1:]
            return None if name in EVAL_KEYS else (split, name)  # "val_step" stays a metric of that name
    return None


def is_number(value: Any) -> bool:
    """A value a metric line takes: a number (not a bool) or a one-element
    tensor or NumPy scalar (anything with ``item()``); strings and lists are not."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        return False
    return isinstance(value, (int, float)) or callable(getattr(value, "item", None)) or (
        hasattr(value, "__float__") and not hasattr(value, "__len__"))


def flat_config(params: Any, separator: str = "/") -> Dict[str, Any]:
    """Hyperparameters (a mapping, an argparse.Namespace or an object with
    ``to_dict()``) as one flat dict, nested mappings joined by ``separator``."""
    if isinstance(params, argparse.Namespace):
        params = vars(params)
    elif not isinstance(params, Mapping) and callable(getattr(params, "to_dict", None)):
        params = params.to_dict()
    if not isinstance(params, Mapping):
        raise TypeError("trainyard: hyperparameters must be a mapping or a Namespace, not %s" % type(params).__name__)
    flat: Dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, argparse.Namespace):
            value = vars(value)
        if isinstance(value, Mapping) and value:
            for inner, inner_value in flat_config(value, separator).items():
                flat["%s%s%s" % (key, separator, inner)] = inner_value
        else:
            flat[str(key)] = value
    return flat
