"""``fox_envs.jax.keys``: the written-out Threefry gives ``jax.random``'s own numbers for every
key kind it handles, jitted and vmapped, and hands other keys to ``jax.random`` (integration:
needs the jax extra)."""
from __future__ import annotations

import numpy as np
import pytest

integration = pytest.mark.integration


def sample_keys():
    import jax

    raw = list(jax.random.split(jax.random.PRNGKey(2026), 12)) + [jax.random.PRNGKey(0)]
    typed = [jax.random.key(seed) for seed in (0, 1, 12345)]
    return raw + typed


def same(a, b) -> None:
    import jax

    if jax.numpy.issubdtype(a.dtype, jax.dtypes.prng_key):
        assert jax.numpy.issubdtype(b.dtype, jax.dtypes.prng_key)
        a, b = jax.random.key_data(a), jax.random.key_data(b)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@integration
def test_split_bits_uniform_fold_in_equal_jax_random():
    import jax
    import jax.numpy as jnp

    from fox_envs.jax import keys

    for key in sample_keys():
        for num in (1, 2, 3, 8):
            same(keys.split(key, num), jax.random.split(key, num))
        for shape in ((1,), (8,), (2, 5)):
            same(keys.bits(key, shape), jax.random.bits(key, shape, jnp.uint32))
            same(keys.uniform(key, shape), jax.random.uniform(key, shape))
        same(keys.uniform(key), jax.random.uniform(key))
        for data in (0, 7, (1 << 20) + 3, 2 ** 31 - 1):
            same(keys.fold_in(key, data), jax.random.fold_in(key, data))


@integration
def test_equal_under_jit_and_vmap():
    import jax
    import jax.numpy as jnp

    from fox_envs.jax import keys

    batch = jax.random.split(jax.random.PRNGKey(5), 64)
    ours = jax.jit(jax.vmap(lambda k, d: (keys.split(k), keys.bits(k, (8,)), keys.uniform(k),
                                          keys.fold_in(k, d))))
    theirs = jax.jit(jax.vmap(lambda k, d: (jax.random.split(k), jax.random.bits(k, (8,), jnp.uint32),
                                            jax.random.uniform(k), jax.random.fold_in(k, d))))
    data = jnp.arange(64, dtype=jnp.int32) * 1000
    for a, b in zip(ours(batch, data), theirs(batch, data)):
        same(a, b)


@integration
def test_written_out_rounds_compile_without_a_loop():
    """The reason for the module: no while loop in the compiled draw (jax's CPU lowering of
    Threefry, as of jax 0.10, has one of 5 iterations)."""
    import jax

    from fox_envs.jax import keys

    batch = jax.random.split(jax.random.PRNGKey(1), 16)
    ours = jax.jit(jax.vmap(lambda k: (keys.bits(k, (8,)), keys.split(k)))).lower(batch).compile().as_text()
    assert " while(" not in ours


@integration
def test_other_key_kinds_go_to_jax_random():
    import jax
    import jax.numpy as jnp

    from fox_envs.jax import keys

    key = jax.random.key(3, impl="rbg")
    same(keys.split(key), jax.random.split(key))
    same(keys.bits(key, (4,)), jax.random.bits(key, (4,), jnp.uint32))
    same(keys.uniform(key, (3,)), jax.random.uniform(key, (3,)))
    same(keys.fold_in(key, 9), jax.random.fold_in(key, 9))
