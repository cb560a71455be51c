"""What a script hands to log(), eval() and summary, made into the numbers a line holds.

Numbers come as Python ints and floats, and as what training code has at
hand: a one-element ``torch.Tensor``, a NumPy scalar or 0-d array, a
``Decimal``, a ``Fraction``: anything with ``.item()`` or ``__float__``.
Neither torch nor NumPy is imported: their values are asked, not recognised.
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any, Dict, Optional, Tuple


def number(key: str, value: Any) -> Any:
    """``value`` as an int or a float; TypeError naming ``key`` otherwise.

    bool (and anything whose ``.item()`` is a bool) is refused: a flag is not
    a curve. A float may be NaN or infinite; the caller decides what that means.
    """
    cls = value.__class__
    if cls is float or cls is int:
        return value
    if isinstance(value, bool):
        raise TypeError("trainyard: %s must be a number, got bool" % key)
    if isinstance(value, numbers.Integral):  # NumPy's integers register here
        return int(value)
    if isinstance(value, numbers.Real):  # NumPy's floats, Fraction
        return float(value)
    item = getattr(value, "item", None)
    if callable(item):  # a tensor or an array of one element
        try:
            inner = item()
        except Exception as error:  # more than one element, or not a number
            raise TypeError("trainyard: %s must be a number or hold exactly one, got %s (%s)"
                            % (key, type(value).__name__, _first_line(error))) from None
        if isinstance(inner, bool) or not isinstance(inner, (int, float)):
            raise TypeError("trainyard: %s must be a number, got %s holding %s"
                            % (key, type(value).__name__, type(inner).__name__))
        return int(inner) if isinstance(inner, int) else float(inner)
    if hasattr(value, "__float__") and not isinstance(value, (str, bytes)):
        try:
            return float(value)
        except Exception as error:
            raise TypeError("trainyard: %s must be a number, got %s (%s)"
                            % (key, type(value).__name__, _first_line(error))) from None
    raise TypeError("trainyard: %s must be a number, got %s" % (key, type(value).__name__))


def count(key: str, value: Any) -> int:
    """``value`` as an int >= 0: an int, or a number that is a whole one
    (``2.0``, a tensor holding 2). TypeError for what is no number,
    ValueError for a fraction or a negative number."""
    if value.__class__ is int:
        if value < 0:
            raise ValueError("trainyard: %s must be >= 0, got %d" % (key, value))
        return value
    converted = number(key, value)
    if isinstance(converted, float):
        if not converted.is_integer():  # also NaN and infinities
            raise ValueError("trainyard: %s must be a whole number, got %r" % (key, value))
        converted = int(converted)
    if converted < 0:
        raise ValueError("trainyard: %s must be >= 0, got %d" % (key, converted))
    return converted


def finite(value: Any) -> bool:
    """False for a float that is NaN or infinite; ints are finite, however large."""
    return value.__class__ is int or math.isfinite(value)


class KeyTexts:
    """The JSON text ``,"name":`` of each metric name seen, checked once:
    a name must be a non-empty string and not one of the line's own keys."""

    #: Names of a script that makes new ones without end are not all kept.
    MAX_KEPT = 4096

    def __init__(self, reserved: Tuple[str, ...]) -> None:
        self._reserved = frozenset(reserved)
        self._texts: Dict[str, str] = {}

    def get(self, key: Any) -> Optional[str]:
        """The text of a name already checked (the fast path), else None."""
        return self._texts.get(key) if key.__class__ is str else None

    def check(self, key: Any) -> str:
        """Checks ``key`` and returns its text; TypeError or ValueError naming it."""
        if not isinstance(key, str):
            raise TypeError("trainyard: a metric name must be a string, got %s %r" % (type(key).__name__, key))
        if not key:
            raise ValueError("trainyard: a metric name must not be empty")
        if key in self._reserved:
            raise ValueError("trainyard: %r is a reserved key of the line" % key)
        text = "," + json.dumps(key, ensure_ascii=False) + ":"
        if len(self._texts) < self.MAX_KEPT:
            self._texts[key] = text
        return text


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
