"""The JAX backend's ``State``: Pgx's field names, plus the position and its history."""
from __future__ import annotations

import dataclasses
from typing import Any

import jax

PUBLIC_FIELDS = ("current_player", "observation", "legal_action_mask", "rewards", "terminated", "truncated")
PRIVATE_FIELDS = ("_step_count", "_history", "_history_len", "_position")


@dataclasses.dataclass(frozen=True)
class State:
    """One game (or, under ``vmap``, a batch of games: every field gains a leading axis).

    * ``current_player`` int32: the seat to move; after the game ends, the seat that moved last.
    * ``observation`` float32: the rules core's ``observation_tensor(current_player)``, in the
      env's layout.
    * ``legal_action_mask`` bool ``[num_actions]``: the rules core's mask; all False once the
      game is over (terminated or truncated).
    * ``rewards`` float32 ``[num_players]``: the env rewards of the step that ended the game
      (the rules core's returns), zero in every other step.
    * ``terminated``: the game is over by its rules (or by an illegal action);
      ``truncated``: ``max_moves`` player decisions were played without an end.
    * ``_step_count``: player decisions so far; ``_history`` / ``_history_len``: every action
      and chance outcome in the rules core's ids; ``_position``: the game's own arrays.
    """

    current_player: jax.Array
    observation: jax.Array
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    _step_count: jax.Array
    _history: jax.Array
    _history_len: jax.Array
    _position: Any

    def replace(self, **changes: Any) -> "State":
        """A copy with ``changes`` (as Pgx's ``State.replace``)."""
        return dataclasses.replace(self, **changes)


jax.tree_util.register_dataclass(State, data_fields=list(PUBLIC_FIELDS + PRIVATE_FIELDS), meta_fields=[])
