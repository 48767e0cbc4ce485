"""Random legal actions for large action spaces."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.jax import keys

ROW = 8  # actions per row of the mask as the picker reads it
BLOCK = ROW * ROW  # actions per block: ROW rows


def _prefix_counts(counts: jax.Array, inclusive: bool) -> jax.Array:
    """Prefix sums along the last axis as one small matrix product (float32, exact for counts
    below 2**24): on a CPU ``jnp.cumsum`` over thousands of entries costs far more."""
    n = counts.shape[-1]
    triangle = np.triu(np.ones((n, n), np.float32), 0 if inclusive else 1)
    return counts.astype(jnp.float32) @ jnp.asarray(triangle)


def _take(array: jax.Array, index: jax.Array) -> jax.Array:
    """``array[..., index, :]`` for one index per leading row."""
    return jnp.take_along_axis(array, index[..., None, None], axis=-2)[..., 0, :]


def _nth(counts: jax.Array, rank: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The entry of ``counts`` (last axis) that holds the ``rank``-th unit, and the rank left
    inside it. Over more than 16 entries (Outwit: 127 blocks) the group of 8 entries first, then
    the entry in it: two small products instead of one with a square matrix of the width."""
    width = counts.shape[-1]
    if width > 2 * ROW:
        groups = -(-width // ROW)
        member = (np.arange(width)[:, None] // ROW == np.arange(groups)[None, :]).astype(np.float32)
        group, rank = _nth(counts.astype(jnp.float32) @ jnp.asarray(member), rank)
        index = group[..., None] * ROW + jnp.arange(ROW)
        inside = jnp.where(index < width, jnp.take_along_axis(counts, jnp.minimum(index, width - 1), axis=-1), 0)
        entry, rank = _nth(inside, rank)
        return group * ROW + entry, rank
    before = _prefix_counts(counts, inclusive=False)
    entry = jnp.argmax(before + counts > rank[..., None], axis=-1)
    return entry, rank - jnp.take_along_axis(before, entry[..., None], axis=-1)[..., 0]


def _window(mask: jax.Array, first: jax.Array) -> jax.Array:
    """``mask[..., first : first + BLOCK]`` for one start per leading row: one slice of the row
    each (a gather of whole slices, not one of single entries)."""
    if mask.ndim == 1:
        return jax.lax.dynamic_slice_in_dim(mask, first, BLOCK)
    return jax.vmap(_window)(mask, first)


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniformly random legal action (int32) of one mask, or of each row of a batch of masks
    (``[..., num_actions]``): one uniform draw per row picks the r-th legal action by rank. The
    same distribution as ``jax.random.categorical`` over the mask, without a random number per
    action (Outwit has 8,101). A row with no legal action gives 0.

    The mask is read as blocks of 64 actions: the count per block is the one pass over the whole
    mask (int8 sums of 8 rows of 8, which XLA fuses into a single loop that keeps nothing else:
    on a CPU far cheaper than a float conversion, a pad, a sum of 64 at once or a kept count per
    row of 8); the rank finds the block, and only that block's 64 entries are read again, as 8
    rows of 8, for the row and then the action (the last, partial block counted on its own)."""
    num_actions = legal_action_mask.shape[-1]
    lead = legal_action_mask.shape[:-1]
    full = num_actions // BLOCK  # whole blocks
    rest = num_actions - full * BLOCK  # actions of the partial block
    per_block = []  # int8 (at most 64), read as float32 from here on (exact: counts below 2**24)
    if full:
        rows = legal_action_mask[..., : full * BLOCK].reshape(*lead, full, ROW, ROW).astype(jnp.int8)
        per_block.append(rows.sum(axis=-1, dtype=jnp.int8).sum(axis=-1, dtype=jnp.int8))
    if rest:
        per_block.append(legal_action_mask[..., full * BLOCK:].astype(jnp.int8).sum(axis=-1, keepdims=True,
                                                                                   dtype=jnp.int8))
    per_block = (jnp.concatenate(per_block, axis=-1) if len(per_block) > 1 else per_block[0]).astype(jnp.float32)
    count = per_block.sum(axis=-1)
    rank = jnp.minimum(jnp.floor(keys.uniform(key, lead) * count), jnp.maximum(count - 1, 0))
    block, rank = _nth(per_block, rank)
    # the chosen block's 64 entries: a window of the mask starting at most BLOCK before its end
    # (a mask shorter than a block is padded), entries before the block's start read False
    if num_actions < BLOCK:
        padded = jnp.concatenate([legal_action_mask, jnp.zeros((*lead, BLOCK - num_actions), jnp.bool_)], axis=-1)
        window, first = padded, jnp.zeros_like(block)
    else:
        first = jnp.minimum(block * BLOCK, num_actions - BLOCK)
        window = _window(legal_action_mask, first)
    window = (window & (first[..., None] + jnp.arange(BLOCK) >= block[..., None] * BLOCK)).reshape(*lead, ROW, ROW)
    row, rank = _nth(window.astype(jnp.float32).sum(axis=-1), rank)
    offset, _ = _nth(_take(window, row).astype(jnp.float32), rank)
    return (first + row * ROW + offset).astype(jnp.int32)
