"""``only_where``: work that few rows of a batch need, done for those rows only.

Under ``vmap`` a per-row function has no branches: everything it computes is computed for every
row, then selected. A step that is rarely due (a deal once a round, say) then costs every row
every step. ``only_where(fn, needed, *args)`` gives
``fn(*args)`` where ``needed`` holds and zeros elsewhere; unbatched it is a ``lax.cond``, and
under ``vmap`` its batching rule gathers the rows that need it (into B / 16 slots, or B / 4
when more need it: ``ROWS_PER_SLOT``), applies ``fn`` to them and scatters the results back,
or applies ``fn`` to every row when even more need it. Either way every row gets the same
values: the choice changes only the work.
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

ROWS_PER_SLOT = (16, 4)  # under vmap, fn runs on B / 16 gathered rows, or B / 4, while no more need it


def _zeros_like_output(fn: Callable, *args: Any) -> Any:
    """Zeros of the shapes and dtypes ``fn(*args)`` gives (nothing computed)."""
    return jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(fn, *args))


def only_where(fn: Callable[..., Any], needed: jax.Array, *args: Any) -> Any:
    """``fn(*args)`` if ``needed`` (a bool scalar per row), else zeros of ``fn``'s output. ``fn``
    must be a pure per-row function of arrays (it is ``vmap``-ped over the rows that need it)."""

    @custom_vmap
    def apply(needed: jax.Array, *args: Any) -> Any:
        return jax.lax.cond(needed, lambda: fn(*args), lambda: _zeros_like_output(fn, *args))

    @apply.def_vmap
    def apply_to_rows(axis_size: int, in_batched: list, needed: jax.Array, *args: Any) -> tuple[Any, Any]:
        """The batching rule: ``fn`` on the needed rows gathered into the fewest slots that hold
        them (``ROWS_PER_SLOT``), or on every row when none do; zeros in the other rows."""
        batched = [jax.tree_util.tree_map(lambda x, b: x if b else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))),
                                          arg, flags)
                   for arg, flags in zip((needed, *args), in_batched)]
        needed, args = batched[0], batched[1:]
        tiers = sorted({max(1, axis_size // rows) for rows in ROWS_PER_SLOT})

        def gathered(slots: int) -> Callable[[], Any]:
            def run() -> Any:
                rows = jnp.nonzero(needed, size=slots, fill_value=axis_size)[0]
                picked = jax.tree_util.tree_map(lambda x: x[jnp.minimum(rows, axis_size - 1)], args)
                results = jax.vmap(fn)(*picked)
                return jax.tree_util.tree_map(
                    lambda r: jnp.zeros((axis_size, *r.shape[1:]), r.dtype).at[rows].set(r, mode="drop"), results)
            return run

        def every_row() -> Any:
            results = jax.vmap(fn)(*args)
            return jax.tree_util.tree_map(
                lambda r: jnp.where(needed.reshape((axis_size,) + (1,) * (r.ndim - 1)), r, jnp.zeros_like(r)), results)

        count = jnp.sum(needed, dtype=jnp.int32)
        tier = sum((count > slots).astype(jnp.int32) for slots in tiers)  # the fewest slots that hold them
        out = jax.lax.switch(tier, [gathered(slots) for slots in tiers] + [every_row])
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return apply(needed, *args)
