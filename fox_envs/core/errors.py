"""Public error types of fox_envs."""
from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is illegal in the current state, or not an action at all."""


class InvalidParameterError(ValueError):
    """A game or environment parameter with an unknown name or a bad value."""


class InvalidStateError(ValueError):
    """A saved state (JSON) that cannot be loaded: bad JSON, missing keys, unknown game, bad history."""
