"""``materialize``: a value computed once per row, where XLA would otherwise recompute it in
every element of each wide consumer."""
from __future__ import annotations

import jax
import jax.numpy as jnp


def materialize(values: jax.Array) -> jax.Array:
    """``values`` unchanged, computed once per row before a wide consumer reads it: a sum with
    zeros is a reduction, which XLA does not fuse into (and so repeat in) each element of the
    consumer, as it does with elementwise work (the CPU pipeline drops
    ``optimization_barrier`` before fusion)."""
    if values.dtype == jnp.bool_:
        return materialize(values.astype(jnp.int8)).astype(jnp.bool_)
    return jnp.sum(jnp.stack([values, jnp.zeros_like(values)]), axis=0).astype(values.dtype)
