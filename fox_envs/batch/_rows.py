"""Row bookkeeping shared by every game's batched kernels (numba, cached on disk).

A game's kernels receive the env's common buffers as one tuple, ``common``, unpacked in the
order of ``COMMON_FIELDS``:

* ``obs`` float32 ``[B, *observation_shape]``, ``mask`` bool ``[B, A]``, ``player`` int32 ``[B]``
* ``rewards`` float32 ``[B, num_players]``, ``term`` / ``trunc`` bool ``[B]``
* ``final_obs`` float32 like ``obs`` (the last observation of a game that ended in this step)
* ``moves`` int32 ``[B]`` (player decisions of the current game), ``streams`` uint64 ``[B, 2]``
* ``hist`` int16 ``[B, H]`` / ``hlen`` int32 ``[B]``: every action and chance outcome of the
  current game; ``last_hist`` / ``last_hlen``: those of the game that ended last in the row
* ``legal`` int32 ``[B, L]`` / ``nlegal`` int32 ``[B]``: the legal actions of ``mask`` as a list
* ``rep_keys`` uint64 ``[B, R]``: an open-addressing table of position keys per row with their
  counts, for threefold repetition (``R`` is 1 for games without it); ``rep_counts`` uint8
  ``[B, 1]``: the generation of each row's table (see ``clear_repetitions``)

A kernel keeps ``mask`` and ``legal`` together through ``clear_legal`` / ``add_legal``, so a
mask of thousands of entries is never scanned or cleared whole.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from fox_envs.batch._rng import PICK_STREAM, below, mix64

COMMON_FIELDS = ("obs", "mask", "player", "rewards", "term", "trunc", "final_obs", "moves", "streams",
                 "hist", "hlen", "last_hist", "last_hlen", "legal", "nlegal", "rep_keys", "rep_counts")
TERMINAL = -2
EMPTY_KEY = np.uint64(0)
ONE_KEY = np.uint64(1)
COUNT_BITS = np.uint64(3)  # a slot: [hash tag: 54 bits][generation: 8][count: 2]
GEN_SHIFT = np.uint64(2)
GEN_MASK = np.uint64(0xFF)
TAG_BITS = ~np.uint64(0x3FF)
GENERATIONS = 255


@intrinsic
def borrowed(typingctx, values):
    """The tuple ``values`` with every array's reference count off (null meminfo and parent;
    other members as they are). A kernel's row loop then passes the arrays and their row views to
    inlined helpers without an atomic increment and decrement each time, which otherwise costs
    most of a step. Only for arrays the caller keeps alive during the call (every kernel
    argument is)."""

    def codegen(context, builder, signature, args):
        result = args[0]
        for k, member_type in enumerate(signature.args[0]):
            if isinstance(member_type, types.Array):
                view = cgutils.create_struct_proxy(member_type)(context, builder,
                                                               value=builder.extract_value(result, k))
                view.meminfo = cgutils.get_null_value(view.meminfo.type)
                view.parent = cgutils.get_null_value(view.parent.type)
                result = builder.insert_value(result, view._getvalue(), k)
        return result

    return values(values), codegen


@intrinsic
def prefetch_row(typingctx, array, row):
    """Ask the cache for ``array[row]`` (a C-contiguous array) about to be written: a step's rows
    of the common buffers are larger than the hardware prefetcher runs ahead. Prefetching past
    the end is harmless (a hint, never a load)."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        strides = cgutils.unpack_tuple(builder, view.strides)
        index = [args[1]] + [zero] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer2(context, builder, view.data, cgutils.unpack_tuple(builder, view.shape),
                                            strides, array_type.layout, index)
        byte_pointer, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0i8")
        base = builder.bitcast(pointer, byte_pointer)
        with cgutils.for_range_slice(builder, zero, strides[0], context.get_constant(types.intp, 64)) as (k, _):
            # write, high locality, data cache
            builder.call(prefetch, [builder.gep(base, [k]), ir.Constant(i32, 1), ir.Constant(i32, 3),
                                    ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, row), codegen


@njit(cache=True, inline="always")
def push_history(hist: np.ndarray, hlen: np.ndarray, i: int, action: int) -> None:
    """Append ``action`` to row ``i``'s history (a full buffer only counts; the bridge reports it)."""
    n = hlen[i]
    if n < hist.shape[1]:
        hist[i, n] = action
    hlen[i] = n + 1


@njit(cache=True, inline="always")
def keep_history(hist, hlen, last_hist, last_hlen, i: int) -> None:
    """Copy row ``i``'s history to ``last_hist`` (its game has just ended) and clear it."""
    n = min(hlen[i], hist.shape[1])
    for k in range(n):
        last_hist[i, k] = hist[i, k]
    last_hlen[i] = hlen[i]
    hlen[i] = 0


@njit(cache=True, inline="always")
def clear_legal(mask: np.ndarray, legal: np.ndarray, nlegal: np.ndarray, i: int) -> None:
    """Row ``i`` has no legal action (only the entries set before are cleared)."""
    for k in range(nlegal[i]):
        mask[i, legal[i, k]] = False
    nlegal[i] = 0


@njit(cache=True, inline="always")
def add_legal(mask: np.ndarray, legal: np.ndarray, nlegal: np.ndarray, i: int, action: int) -> None:
    """Mark ``action`` legal in row ``i`` (each action at most once between clears)."""
    mask[i, action] = True
    legal[i, nlegal[i]] = action
    nlegal[i] += 1


@njit(cache=True, inline="always")
def clear_repetitions(rep_keys: np.ndarray, rep_counts: np.ndarray, i: int) -> None:
    """Empty row ``i``'s table for a new game: its generation (``rep_counts[i, 0]``) moves on,
    which makes every slot of older games empty without writing it; the slots are zeroed only
    when the 8-bit generation wraps around (once every 255 games)."""
    generation = rep_counts[i, 0] + 1
    if generation > GENERATIONS:
        generation = 1
        for k in range(rep_keys.shape[1]):
            rep_keys[i, k] = EMPTY_KEY
    rep_counts[i, 0] = generation


@njit(cache=True, inline="always")
def table_slot(rep_keys: np.ndarray, key: np.uint64) -> int:
    """The slot where probing for position ``key`` starts (a kernel may prefetch it)."""
    return np.int64(mix64(key) >> np.uint64(40)) & (rep_keys.shape[1] - 1)  # the size is a power of two


@njit(cache=True, inline="always")
def count_position(rep_keys: np.ndarray, rep_counts: np.ndarray, i: int, key: np.uint64) -> int:
    """Record one more occurrence of position ``key`` in row ``i``; returns how often it has now
    occurred (counted up to 3). A slot holds the key's hash with its low ten bits replaced by the
    game's generation (8 bits) and the count (2 bits), so one cache line is read per probe; a
    slot of another generation is empty. No slot of the current game is ever emptied, so probing
    finds every key it inserted; the table holds more slots than a game has positions, so
    probing always ends."""
    tag = mix64(key) & TAG_BITS
    live = tag | (np.uint64(rep_counts[i, 0]) << GEN_SHIFT)
    size = rep_keys.shape[1]
    slot = table_slot(rep_keys, key)
    while True:
        here = rep_keys[i, slot]
        if here & ~COUNT_BITS == live:
            count = here & COUNT_BITS
            if count < COUNT_BITS:
                count += ONE_KEY
                rep_keys[i, slot] = live | count
            return int(count)
        if here == EMPTY_KEY or (here >> GEN_SHIFT) & GEN_MASK != np.uint64(rep_counts[i, 0]):
            rep_keys[i, slot] = live | ONE_KEY
            return 1
        slot = (slot + 1) & (size - 1)


@njit(cache=True, inline="always")
def begin_row(rewards: np.ndarray, term: np.ndarray, trunc: np.ndarray, i: int) -> None:
    """A step's results of row ``i`` start as 'nothing happened'."""
    for p in range(rewards.shape[1]):
        rewards[i, p] = 0.0
    term[i] = False
    trunc[i] = False


@njit(cache=True, inline="always")
def take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i: int) -> int:
    """Start row ``i``'s step: its results cleared, then its action recorded in its history and
    counted as a decision; -1 (nothing recorded) when the row is skipped this step (a negative
    action, or a finished game)."""
    begin_row(rewards, term, trunc, i)
    a = actions[i]
    if a < 0 or player[i] < 0:
        return -1
    push_history(hist, hlen, i, a)
    moves[i] += 1
    return a


@njit(cache=True, inline="always")
def win_for(rewards: np.ndarray, i: int, winner: int) -> None:
    """Two-player zero-sum rewards of row ``i``: +1 for ``winner``, -1 for the other seat."""
    rewards[i, winner] = 1.0
    rewards[i, 1 - winner] = -1.0


@njit(cache=True, inline="always")
def record_end(rewards: np.ndarray, term: np.ndarray, trunc: np.ndarray, i: int, result: int) -> None:
    """How row ``i``'s two-player game ended: ``result`` 0 or 1 the winning seat, 2 a draw (both
    terminated), negative truncated at ``max_moves`` (reward 0)."""
    if result >= 0:
        term[i] = True
        if result < 2:
            win_for(rewards, i, result)
    else:
        trunc[i] = True


@njit(cache=True, inline="always")
def is_illegal(mask: np.ndarray, legal: np.ndarray, nlegal: np.ndarray, i: int, a: int) -> bool:
    """Whether ``a`` is out of range or not a legal action of row ``i``: the dense mask says, or
    the legal list when the mask is off (a shared write-only row: its first stride is 0)."""
    if a < 0 or a >= mask.shape[1]:
        return True
    if mask.strides[0] != 0:
        return not mask[i, a]
    for k in range(nlegal[i]):
        if legal[i, k] == a:
            return False
    return True


@njit(cache=True, nogil=True)
def first_illegal(actions: np.ndarray, mask: np.ndarray, player: np.ndarray, legal: np.ndarray,
                  nlegal: np.ndarray, lo: int, hi: int) -> int:
    """The first row of ``[lo, hi)`` whose action is out of range or illegal (finished rows are
    skipped), or -1."""
    for i in range(lo, hi):
        if player[i] >= 0 and is_illegal(mask, legal, nlegal, i, actions[i]):
            return i
    return -1


@njit(cache=True, inline="always")
def random_legal(legal: np.ndarray, nlegal: np.ndarray, streams: np.ndarray, i: int) -> int:
    """A uniformly random legal action of row ``i`` from its own pick stream (-1 when it has
    none; the stream is then left as it is)."""
    n = nlegal[i]
    return legal[i, below(streams, i, PICK_STREAM, n)] if n > 0 else -1


@njit(cache=True, nogil=True)
def pick_from_streams(legal: np.ndarray, nlegal: np.ndarray, streams: np.ndarray, which: np.ndarray,
                      out: np.ndarray) -> None:
    """A uniformly random legal action from the row's own pick stream for every row flagged in
    ``which`` (-1 for the others and for rows without a legal action; their streams stay)."""
    for i in range(out.shape[0]):
        out[i] = random_legal(legal, nlegal, streams, i) if which[i] else -1


@njit(cache=True, nogil=True)
def pick_from_uniforms(legal: np.ndarray, nlegal: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """A legal action per row chosen by ``uniforms`` in [0, 1) (-1 when none)."""
    for i in range(out.shape[0]):
        n = nlegal[i]
        out[i] = legal[i, min(int(uniforms[i] * n), n - 1)] if n > 0 else -1
