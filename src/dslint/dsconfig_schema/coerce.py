"""Reading JSON values the way pydantic's lax mode (and so DeepSpeed) reads them."""

from __future__ import annotations

from typing import Any

_TRUE = ("1", "on", "t", "true", "y", "yes")
_FALSE = ("0", "off", "f", "false", "n", "no")


def lax_bool(value: Any) -> bool | None:
    """True/False as pydantic's lax bool reads value ("yes" -> True, 0 -> False); None if it cannot."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return None


def lax_int(value: Any) -> int | None:
    """An int as pydantic's lax int reads value ("2" -> 2, 5e8 -> 500000000); None if it cannot."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def as_number(value: Any) -> float | None:
    """float(value), or None when it is not a number or numeric string."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
