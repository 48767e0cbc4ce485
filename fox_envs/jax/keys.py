"""``split``, ``bits``, ``uniform`` and ``fold_in``: the values ``jax.random`` gives for a
threefry key, computed with the 20 rounds of Threefry-2x32 written out.

On a CPU, jax lowers Threefry as a loop of 5 iterations, and XLA runs each iteration's
operations as separate kernels: about 160 kernel launches per draw, whatever its size, which
for a game step over a batch costs more than the draw itself. Written out, the rounds are one
chain of elementwise operations on uint32, which XLA fuses into one kernel. The numbers are
the same as ``jax.random``'s for the same key (tested), so a key gives the same games either
way. Each result is materialized (``fusion.materialize``): XLA would otherwise fuse the 20
rounds into every element of each consumer and compute them there again. Keys of another
implementation (``rbg``, ...), or with ``jax_threefry_partitionable`` off, go to
``jax.random`` itself.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.jax.fusion import materialize

ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # Threefry-2x32's rotation schedule
PARITY = np.uint32(0x1BD11BDA)  # the key schedule's third word: k0 ^ k1 ^ PARITY
THREEFRY = "threefry2x32"


def threefry2x32(k1: jax.Array, k2: jax.Array, x1: jax.Array, x2: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Threefry-2x32 (20 rounds) of the counter ``(x1, x2)`` under the key ``(k1, k2)``, all
    uint32 and broadcast together: the block cipher of Salmon et al. (2011), as jax computes it."""
    schedule = (k1, k2, k1 ^ k2 ^ PARITY)
    x1, x2 = x1 + schedule[0], x2 + schedule[1]
    for group in range(5):
        for rotation in ROTATIONS[group % 2]:
            x1 = x1 + x2
            x2 = (x2 << np.uint32(rotation)) | (x2 >> np.uint32(32 - rotation))
            x2 = x1 ^ x2
        x1 = x1 + schedule[(group + 1) % 3]
        x2 = x2 + schedule[(group + 2) % 3] + np.uint32(group + 1)
    return x1, x2


def _threefry_words(key: jax.Array) -> tuple[jax.Array, jax.Array] | None:
    """The two key words of a threefry key (typed or raw uint32), or None for keys this module
    leaves to ``jax.random``."""
    if not jax.config.jax_threefry_partitionable:
        return None
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if THREEFRY not in str(jax.random.key_impl(key)) or key.ndim:  # its name, or PRNGSpec('name')
            return None
        data = jax.random.key_data(key)
    else:
        if jax.config.jax_default_prng_impl != THREEFRY or key.shape != (2,) or key.dtype != jnp.uint32:
            return None
        data = key
    return data[0], data[1]


def _counters(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The counters jax uses for values of ``shape``: the high and low words of 0, 1, ... in
    row-major order."""
    count = int(np.prod(shape, dtype=np.int64))
    return np.zeros(shape, np.uint32), np.arange(count, dtype=np.uint32).reshape(shape)


def split(key: jax.Array, num: int = 2) -> jax.Array:
    """``jax.random.split(key, num)`` for one key."""
    words = _threefry_words(key)
    if words is None:
        return jax.random.split(key, num)
    high, low = threefry2x32(*words, *_counters((num,)))
    data = materialize(jnp.stack([high, low], axis=1))
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(data, impl=THREEFRY)
    return data


def fold_in(key: jax.Array, data: int | jax.Array) -> jax.Array:
    """``jax.random.fold_in(key, data)`` for one key and an integer in 0 .. 2**31 - 1."""
    words = _threefry_words(key)
    if words is None:
        return jax.random.fold_in(key, data)
    high, low = threefry2x32(*words, np.uint32(0), jnp.asarray(data).astype(jnp.uint32))
    folded = materialize(jnp.stack([high, low]))
    return jax.random.wrap_key_data(folded, impl=THREEFRY) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else folded


def bits(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """``jax.random.bits(key, shape, jnp.uint32)`` for one key."""
    words = _threefry_words(key)
    if words is None:
        return jax.random.bits(key, shape, jnp.uint32)
    high, low = threefry2x32(*words, *_counters(tuple(shape)))
    return materialize(high ^ low)


def uniform(key: jax.Array, shape: tuple[int, ...] = ()) -> jax.Array:
    """``jax.random.uniform(key, shape)`` (float32 in [0, 1)) for one key: the top 23 bits of
    each word as the mantissa of a number in [1, 2), minus 1."""
    words = _threefry_words(key)
    if words is None:
        return jax.random.uniform(key, shape)
    mantissa = (bits(key, shape) >> np.uint32(9)) | np.uint32(0x3F800000)
    return jnp.maximum(jnp.float32(0.0), jax.lax.bitcast_convert_type(mantissa, jnp.float32) - jnp.float32(1.0))
