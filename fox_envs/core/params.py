"""Keyword-parameter declaration and validation shared by every game.

A game declares ``PARAMS = {"name": Param(default, check, allowed)}``; ``check`` returns the
normalised value or raises ``ValueError``/``TypeError``; ``allowed`` is the human-readable
description used in the error message.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np

from fox_envs.core.errors import InvalidParameterError


Settings = TypeVar("Settings")


def with_options(cls: type[Settings], settings: Settings | None, options: Mapping[str, Any], where: str,
                 refused: Sequence[str] = ()) -> Settings:
    """``settings`` (default: ``cls()``), a frozen dataclass of options, with the fields named in
    ``options`` replaced (and checked again by its ``__post_init__``). A ``settings`` of another
    type raises ``InvalidParameterError``; a keyword that is no field (or is one of ``refused``)
    raises ``TypeError`` naming the allowed ones, as Python does for an unknown keyword of ``where``."""
    if settings is None:
        settings = cls()
    elif not isinstance(settings, cls):
        raise InvalidParameterError(f"{where}: settings must be a {cls.__name__}, got {type(settings).__name__}")
    allowed = [f.name for f in fields(cls) if f.name not in refused]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
                        f"allowed: {', '.join(allowed)} (or settings={cls.__name__}(...))")
    return replace(settings, **options) if options else settings


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters; never fails (an error message must
    not raise: huge integers, alone or inside a container, broken ``__repr__``)."""
    try:
        if isinstance(value, int) and value.bit_length() > 4 * limit:  # repr may exceed int limits
            text = f"<{type(value).__name__} of about {int(value.bit_length() * 0.30103) + 1} digits>"
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001  (e.g. a list holding an int of over 4300 digits)
        text = f"<{type(value).__name__} object>"
        try:
            text = f"<{type(value).__name__} of {len(value)} items>"
        except Exception:  # noqa: BLE001
            pass
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Param:
    default: Any
    check: Callable[[Any], Any]
    allowed: str


def integer_value(value: Any, arrays: bool = False) -> int | None:
    """The one rule for what is an integer (actions, params, ``max_moves``, seats, seeds,
    ``num_envs``...): a Python or numpy integer, or an instance of a subclass of one (e.g. an
    ``IntEnum``), is; with ``arrays=True`` (actions) a 0-d integer array is too. Anything else
    (bool, float and numpy floats even when whole, ``Fraction``, ``Decimal``, complex,
    ``np.timedelta64``, strings, other arrays, objects with ``__index__``) is not: ``None``.
    Returns an exact Python int; never calls the value's own methods, so it never raises."""
    if type(value) is int:
        return value
    if isinstance(value, int):
        return None if isinstance(value, bool) else int.__index__(value)  # the int itself, not a subclass's hook
    if isinstance(value, np.integer):  # np.bool_ is not an np.integer; np.timedelta64 is
        return None if isinstance(value, np.timedelta64) else int(value.item())
    if arrays and isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value.item())
    return None


def integer_in(value: Any, low: int, high: int | None = None) -> int | None:
    """``value`` as an int when it is an integer (``integer_value``) in ``low..high`` (no upper
    bound when ``high`` is None), else ``None``."""
    number = integer_value(value)
    if number is None or number < low or (high is not None and number > high):
        return None
    return number


def seed_value(seed: Any, where: str = "") -> int | None:
    """A ``reset`` seed: ``None``, or an integer >= 0 (``integer_value``) as a Python int;
    anything else raises ``InvalidParameterError``."""
    if seed is None:
        return None
    number = integer_in(seed, 0)
    if number is None:
        raise InvalidParameterError(f"{where}bad seed {short_repr(seed)}; allowed: None or an integer >= 0")
    return number


def boolean(value: Any) -> bool:
    """Accept only real booleans (and numpy bools); 0/1 or strings are rejected."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ValueError(value)


def one_of(*choices: Any) -> Callable[[Any], Any]:
    """Accept exactly one of ``choices``; an integer choice matches only an integer (as
    ``integer_value`` says: not a bool, a float or ``Fraction(16)``)."""

    def check(value: Any) -> Any:
        number = integer_value(value)
        for choice in choices:
            if isinstance(choice, int) and not isinstance(choice, bool):
                if number == choice:
                    return choice
            elif isinstance(value, type(choice)) and value == choice:
                return choice
        raise ValueError(value)

    return check


def int_range(low: int, high: int | None = None) -> Callable[[Any], int]:
    """Accept an integer (``integer_value``) with ``low <= value`` (and ``value <= high`` when
    given)."""

    def check(value: Any) -> int:
        number = integer_in(value, low, high)
        if number is None:
            raise ValueError(value)
        return number

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
