"""Random legal actions for large action spaces."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

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


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniformly random legal action (int32) of one mask, or of each row of a batch of masks
    (``[..., num_actions]``): one uniform draw per row picks the r-th legal action by rank. The
    same distribution as ``jax.random.categorical`` over the mask, without a random number per
    action (Outwit has 8,101). A row with no legal action gives 0.

    The mask is read as blocks of 64 actions, each 8 rows of 8: the rank finds the block, then
    the row in it, then the action. The counts per row of 8 are the one pass over the whole
    mask (int8 sums over 8 entries: on a CPU far cheaper than a float conversion, a pad or a
    long reduction of the mask); the last, partial block is read on its own (no pad)."""
    num_actions = legal_action_mask.shape[-1]
    lead = legal_action_mask.shape[:-1]
    full = num_actions // BLOCK  # whole blocks
    rest = legal_action_mask[..., full * BLOCK:]  # the partial block: num_actions % 64 actions
    rest_rows = -(-rest.shape[-1] // ROW)
    # rest_row_of[a, r]: action a of the partial block lies in its row r
    rest_row_of = (np.arange(rest.shape[-1])[:, None] // ROW == np.arange(ROW)[None, :]).astype(np.float32)
    rest_counts = rest.astype(jnp.float32) @ jnp.asarray(rest_row_of)  # [..., 8]
    if full:
        rows = legal_action_mask[..., : full * BLOCK].reshape(*lead, full * ROW, ROW)
        row_counts = rows.astype(jnp.int8).sum(axis=-1, dtype=jnp.int8).reshape(*lead, full, ROW)
        per_block = jnp.concatenate([row_counts.sum(axis=-1, dtype=jnp.int8).astype(jnp.int32),  # at most 64
                                     rest_counts.sum(axis=-1, keepdims=True).astype(jnp.int32)], axis=-1)
    else:
        per_block = rest_counts.sum(axis=-1, keepdims=True)
    count = per_block.sum(axis=-1).astype(jnp.float32)
    rank = jnp.minimum(jnp.floor(jax.random.uniform(key, lead) * count), jnp.maximum(count - 1, 0))
    block, rank = _nth(per_block, rank)
    in_rest = block == full
    counts = rest_counts
    if full:
        inside = jnp.minimum(block, full - 1)
        counts = jnp.where(in_rest[..., None], rest_counts, _take(row_counts, inside).astype(jnp.float32))
    row, rank = _nth(counts, rank)
    # the chosen row of 8 actions: from the partial block (absent actions read False) or a whole one
    index = row[..., None] * ROW + jnp.arange(ROW)
    actions = jnp.take_along_axis(rest, jnp.minimum(index, max(rest.shape[-1] - 1, 0)), axis=-1) if rest_rows else \
        jnp.zeros(index.shape, jnp.bool_)
    actions = actions & (index < rest.shape[-1])
    if full:
        actions = jnp.where(in_rest[..., None], actions, _take(rows, inside * ROW + row))
    offset, _ = _nth(actions.astype(jnp.float32), rank)
    return (block * BLOCK + row * ROW + offset).astype(jnp.int32)
