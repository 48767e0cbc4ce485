"""Keyword-parameter declaration and validation shared by every game.

A game declares ``PARAMS = {"name": Param(default, check, allowed)}``; ``check`` returns the
normalised value or raises ``ValueError``/``TypeError``; ``allowed`` is the human-readable
description used in the error message.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from fox_envs.core.errors import InvalidParameterError


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters; never fails (an error message must
    not raise: huge integers, broken ``__repr__``)."""
    try:
        if isinstance(value, int) and value.bit_length() > 4 * limit:  # repr may exceed int limits
            text = f"<{type(value).__name__} of about {int(value.bit_length() * 0.30103) + 1} digits>"
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Param:
    default: Any
    check: Callable[[Any], Any]
    allowed: str


def boolean(value: Any) -> bool:
    """Accept only real booleans (and numpy bools); 0/1 or strings are rejected."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ValueError(value)


def one_of(*choices: Any) -> Callable[[Any], Any]:
    """Accept exactly one of ``choices`` (integers must be real integers, not floats or bools)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool) or isinstance(value, float):
            raise ValueError(value)
        for choice in choices:
            if value == choice and type(value) is not bool:
                return choice
        raise ValueError(value)

    return check


def int_range(low: int, high: int | None = None) -> Callable[[Any], int]:
    """Accept an integer with ``low <= value`` (and ``value <= high`` when given)."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise ValueError(value)
        value = int(value.__index__())
        if value < low or (high is not None and value > high):
            raise ValueError(value)
        return value

    return check


def validate_params(game_name: str, declared: Mapping[str, Param], given: Mapping[str, Any]) -> dict:
    """Return the full, normalised parameter dict; unknown names and bad values raise."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        raise InvalidParameterError(
            f"{game_name}: unknown parameter(s) {', '.join(short_repr(name) if not isinstance(name, str) else name[:80] for name in unknown)}; allowed parameters: {allowed}"
        )
    result = {}
    for name, param in declared.items():
        value = given.get(name, param.default)
        try:
            result[name] = param.check(value)
        except Exception:  # noqa: BLE001  (whatever a bad value does in a check, e.g. a failing __eq__)
            raise InvalidParameterError(
                f"{game_name}: bad value {short_repr(value)} for parameter {name!r}; allowed: {param.allowed}"
            ) from None
    return result
