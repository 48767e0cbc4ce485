"""``fox_envs.jax.sparse.only_where``: the same values whichever path computes them (integration:
needs jax). jax is imported inside the tests only."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.integration


def _draw(key, offset):
    """A per-row function with random numbers and two outputs of different shapes."""
    import jax

    return jax.random.randint(key, (3,), 0, 1000) + offset, offset * 2


def _expected(keys, offsets, needed):
    import jax

    values, doubled = jax.vmap(_draw)(keys, offsets)
    needed = np.asarray(needed)
    return np.where(needed[:, None], np.asarray(values), 0), np.where(needed, np.asarray(doubled), 0)


@pytest.mark.parametrize("share", [0.0, 0.05, 0.15, 0.5, 1.0])
def test_batched_rows_get_fn_where_needed_and_zeros_elsewhere(share):
    """None, few (B / 16 slots), more (B / 4) or many rows needed (every row computed): the
    same values."""
    import jax
    import jax.numpy as jnp

    from fox_envs.jax.sparse import only_where

    rows = 64
    keys = jax.random.split(jax.random.PRNGKey(0), rows)
    offsets = jnp.arange(rows, dtype=jnp.int32)
    needed = jax.random.uniform(jax.random.PRNGKey(1), (rows,)) < share
    got = jax.jit(jax.vmap(lambda k, o, n: only_where(_draw, n, k, o)))(keys, offsets, needed)
    for value, expected in zip(got, _expected(keys, offsets, needed)):
        np.testing.assert_array_equal(np.asarray(value), expected)


def test_unbatched_and_nested_vmap_agree_with_the_batched_call():
    import jax
    import jax.numpy as jnp

    from fox_envs.jax.sparse import only_where

    rows = 32
    keys = jax.random.split(jax.random.PRNGKey(2), rows)
    offsets = jnp.arange(rows, dtype=jnp.int32)
    needed = jax.random.uniform(jax.random.PRNGKey(3), (rows,)) < 0.2
    row = jax.jit(lambda k, o, n: only_where(_draw, n, k, o))
    expected = _expected(keys, offsets, needed)
    for i in (0, int(np.flatnonzero(np.asarray(needed))[0])):
        value, doubled = row(keys[i], offsets[i], needed[i])
        np.testing.assert_array_equal(np.asarray(value), expected[0][i])
        assert int(doubled) == expected[1][i]
    # an outer vmap over the inner one, and an argument not batched (the same offset for every row)
    nested = jax.jit(jax.vmap(jax.vmap(lambda k, o, n: only_where(_draw, n, k, o), in_axes=(0, None, 0)),
                              in_axes=(None, None, 0)))
    masks = jax.random.uniform(jax.random.PRNGKey(4), (3, rows)) < 0.1
    values, _ = nested(keys, jnp.int32(7), masks)
    for j in range(3):
        np.testing.assert_array_equal(np.asarray(values[j]), _expected(keys, jnp.full(rows, 7), masks[j])[0])
