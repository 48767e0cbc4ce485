"""Random legal actions for large action spaces."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

BLOCK = 64  # actions per block of the two-level prefix count


def _prefix_counts(counts: jax.Array, inclusive: bool) -> jax.Array:
    """Prefix sums along the last axis as one small matrix product (float32, exact for counts
    below 2**24): on a CPU ``jnp.cumsum`` over thousands of entries costs far more."""
    n = counts.shape[-1]
    triangle = np.triu(np.ones((n, n), np.float32), 0 if inclusive else 1)
    return counts @ jnp.asarray(triangle)


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniformly random legal action (int32) of one mask, or of each row of a batch of masks
    (``[..., num_actions]``): one uniform draw per row picks the r-th legal action by rank. The
    same distribution as ``jax.random.categorical`` over the mask, without a random number per
    action (Outwit has 8,101): the rank is found block by block (the block, then the action in
    it). A row with no legal action gives 0."""
    num_actions = legal_action_mask.shape[-1]
    width = min(BLOCK, num_actions)
    pad = (-num_actions) % width
    lead = legal_action_mask.shape[:-1]
    mask = jnp.pad(legal_action_mask.astype(jnp.float32), [(0, 0)] * len(lead) + [(0, pad)])
    blocks = mask.reshape(*lead, -1, width)  # [..., blocks, width]
    per_block = blocks.sum(axis=-1)
    before = _prefix_counts(per_block, inclusive=False)  # legal actions in earlier blocks
    count = per_block.sum(axis=-1)
    rank = jnp.minimum(jnp.floor(jax.random.uniform(key, lead) * count), jnp.maximum(count - 1, 0))
    block = jnp.argmax(before + per_block > rank[..., None], axis=-1)
    within = rank - jnp.take_along_axis(before, block[..., None], axis=-1)[..., 0]
    row = jnp.take_along_axis(blocks, block[..., None, None], axis=-2)[..., 0, :]
    offset = jnp.argmax(_prefix_counts(row, inclusive=True) > within[..., None], axis=-1)
    return (block * width + offset).astype(jnp.int32)
