"""Outfox heuristic as batched kernels: the rules of ``fox_envs.games.outfox.heuristic.OutfoxHeuristic``.

A turn is a placement then a slide; the heuristic plans whole turns ``(type, point, from, to)``
(at a slide decision the placement is made, so only the slides of the placed piece are left):

1. the placement-only first turn: any legal action;
2. a turn that wins now (a winning line through the placed or the slid piece, or the next seat
   left without a piece or a legal placement): any of their first decisions;
3. else turns are grouped by the legal placement points they leave (``options``), most first;
   a group is checked only while fewer than ``MAX_SAFETY_CHECKS`` turns come before it. The
   first group holding a safe turn (the next seat then has no turn ending with a winning line)
   gives the best actions: the first decisions of its safe turns;
4. no safe turn in the checked groups: the first decisions of the turns with most options.

The best actions of a row are listed in increasing order (``best_moves_row`` gives them) and
one is drawn uniformly from the row's pick stream (``heuristic_rows``); work arrays are made
once per kernel call. The kernels take the game's ``state`` tuple of ``kernels.STATE_FIELDS``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._heuristic_rows import pick_tied
from fox_envs.games.outfox.heuristic import MAX_SAFETY_CHECKS
from fox_envs.games.outfox.kernels import (ALL_POINTS, LT_COUNT, LT_PTS, MAX_SLIDES, NB_COUNT, NB_LIST, RAY_COUNT,
                                           RAY_LEN, RAY_PTS, WIN_TABLE, _legal_points)
from fox_envs.games.outfox.rules import COMPLETES, NUM_ACTIONS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, SLIDE

COMPLETE_TABLE = np.array(COMPLETES, np.int32)  # [a*9 + b]: types t making {a, b, t} a winning line
PAIR_PTS = np.zeros(LT_PTS.shape[:2] + (2,), np.int8)  # [p, k]: the other two points of line k through p
for _p in range(NUM_POINTS):
    for _k, _pair in enumerate(PAIRS_THROUGH[_p]):
        PAIR_PTS[_p, _k] = _pair
# The most (point, from, to) moves a position can have: every slide of every neighbour of every point.
MAX_MOVES = int(sum(RAY_LEN[m].sum() for p in range(NUM_POINTS) for m in NB_LIST[p, :NB_COUNT[p]]))
MAX_TURNS = MAX_MOVES * NUM_TYPES
RAY_MASK = np.zeros(RAY_LEN.shape, np.int32)  # [m, d]: the points of ray d from m as bits
for _p in range(NUM_POINTS):
    for _d in range(RAY_COUNT[_p]):
        for _k in range(RAY_LEN[_p, _d]):
            RAY_MASK[_p, _d] |= 1 << int(RAY_PTS[_p, _d, _k])
del _p, _k, _pair, _d


@njit(cache=True, inline="always")
def _popcount(bits: int) -> int:
    """The number of set bits of ``bits``."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _open_points(work, occ: int) -> int:
    """The empty points that end a line whose two other points hold pieces some third piece
    completes (only there can a slid piece make a line without the placed one)."""
    result = 0
    for e in range(NUM_POINTS):
        if (occ >> e) & 1:
            continue
        for line in range(LT_COUNT[e]):
            x = work[PAIR_PTS[e, line, 0]]
            y = work[PAIR_PTS[e, line, 1]]
            if x >= 0 and y >= 0 and COMPLETE_TABLE[x * NUM_TYPES + y] != 0:
                result |= 1 << e
                break
    return result


@njit(cache=True, inline="always")
def _line_kinds(work, p: int, kinds) -> tuple:
    """How each line through point ``p`` can be completed by a piece on ``p`` after one slide
    (``kinds[line]``: kind, r, z, types): 1 its two other points hold pieces the ``types`` bits
    complete; 2 one holds a piece (point ``r``), the other (``z``) is empty; 0 neither.
    Returns the types of the kind-1 lines and the empty points of the kind-2 lines as bits (a
    slide can make a line through ``p`` only then)."""
    complete_types = 0
    empty_ends = 0
    for line in range(LT_COUNT[p]):
        a, b = PAIR_PTS[p, line, 0], PAIR_PTS[p, line, 1]
        x, y = work[a], work[b]
        kind, r, z, types = 0, -1, -1, 0
        if x >= 0 and y >= 0:
            types = COMPLETE_TABLE[x * NUM_TYPES + y]
            if types:
                kind = 1
                complete_types |= types
        elif x >= 0:
            kind, r, z = 2, a, b
        elif y >= 0:
            kind, r, z = 2, b, a
        if kind == 2:
            empty_ends |= 1 << z
        kinds[line, 0] = kind
        kinds[line, 1] = r
        kinds[line, 2] = z
        kinds[line, 3] = types
    return complete_types, empty_ends


@njit(cache=True, inline="always")
def _placed_line_types(work, kinds, p: int, m: int, to: int, piece: int) -> int:
    """The types that make a line through ``p`` once the piece on ``m`` (``piece``) slides to
    ``to`` (``kinds`` from ``_line_kinds``): a kind-1 line keeps its two pieces unless ``m`` is
    one of them; a kind-2 line is filled when ``to`` is its empty point and ``m`` is not its piece."""
    types = 0
    for line in range(LT_COUNT[p]):
        kind = kinds[line, 0]
        if kind == 1:
            if m != PAIR_PTS[p, line, 0] and m != PAIR_PTS[p, line, 1]:
                types |= kinds[line, 3]
        elif kind == 2:
            r = kinds[line, 1]
            if to == kinds[line, 2] and r != m:
                types |= COMPLETE_TABLE[work[r] * NUM_TYPES + piece]
    return types


@njit(cache=True, inline="always")
def _slid_line(work, p: int, m: int, to: int, piece: int) -> bool:
    """Whether ``piece`` slid from ``m`` to ``to`` makes a line through ``to`` without ``p``
    (its two other pieces stay where they are, neither on ``m``)."""
    for line in range(LT_COUNT[to]):
        u, v = PAIR_PTS[to, line, 0], PAIR_PTS[to, line, 1]
        if u == p or v == p or u == m or v == m:
            continue
        x, y = work[u], work[v]
        if x >= 0 and y >= 0 and WIN_TABLE[x * 81 + y * 9 + piece]:
            return True
    return False


@njit(cache=True, inline="always")
def _list_slides(p: int, taken: int, targets: int, slides) -> int:
    """``slides[k]`` = (from, to): the slides a placement on ``p`` opens (pieces neighbouring
    ``p`` along a ray through empty points; ``taken``: occupied points with ``p``), keeping only
    those onto ``targets``; returns their count."""
    count = 0
    for j in range(NB_COUNT[p]):
        m = NB_LIST[p, j]
        if not (taken >> m) & 1:
            continue
        for d in range(RAY_COUNT[m]):
            if not RAY_MASK[m, d] & targets:
                continue
            for k in range(RAY_LEN[m, d]):
                to = RAY_PTS[m, d, k]
                if (taken >> to) & 1:
                    break
                if (targets >> to) & 1:
                    slides[count, 0] = m
                    slides[count, 1] = to
                    count += 1
    return count


@njit(cache=True)
def _can_win_turn(work, occ: int, hand_mask: int, kinds, slides) -> bool:
    """Whether a seat holding the types in ``hand_mask`` has a turn ending with a winning line
    on ``work`` (occupied points ``occ``; no line on it now); ``work`` is only read. A line
    after the turn holds the placed piece (``_placed_line_types``) or the slid one
    (``_slid_line``, only onto ``_open_points``); so after placing on ``p`` only slides onto
    the empty ends of ``p``'s lines or onto open points are tried, unless two pieces on a line
    through ``p`` are completed by a type in hand (then every slide)."""
    if hand_mask == 0:
        return False
    open_points = _open_points(work, occ)
    points = _legal_points(occ)
    for p in range(NUM_POINTS):
        if not (points >> p) & 1:
            continue
        complete_types, empty_ends = _line_kinds(work, p, kinds)
        complete_types &= hand_mask
        taken = occ | (1 << p)
        targets = ALL_POINTS if complete_types else empty_ends | (open_points & ~taken)
        if targets == 0:
            continue  # no slide after placing on p can make a line
        for k in range(_list_slides(p, taken, targets, slides)):
            m, to = slides[k, 0], slides[k, 1]
            piece = work[m]
            if (complete_types or (empty_ends >> to) & 1) and (
                    _placed_line_types(work, kinds, p, m, to, piece) & hand_mask):
                return True
            if (open_points >> to) & 1 and _slid_line(work, p, m, to, piece):
                return True
    return False


@njit(cache=True, inline="always")
def _gather_flagged(flags, best) -> int:
    """The flagged actions into ``best`` in increasing order (the flags cleared); their count."""
    count = 0
    for a in range(flags.shape[0]):
        if flags[a]:
            flags[a] = False
            best[count] = a
            count += 1
    return count


@njit(cache=True, inline="always")
def _first_decision(slide_phase: bool, t: int, p: int, f: int, to: int) -> int:
    """The action that starts the turn ``(t, p, f, to)`` at this decision."""
    if slide_phase:
        return NUM_PLACE + f * NUM_POINTS + to
    return t * NUM_POINTS + p


@njit(cache=True)
def _best_moves(i, state, mover: int, n: int, best, scratch) -> int:
    """The heuristic's best actions in row ``i`` (not the first turn, game going on) into
    ``best`` in increasing order (``scratch`` from ``_scratch``); returns their count."""
    board, occ, hands, phase, placed = state[0], state[1], state[2], state[4], state[5]
    work, flags, moves, turn_list, order, group_start, kinds, slides = scratch
    nxt = (mover + 1) % n
    next_mask = 0
    for t in range(NUM_TYPES):
        if hands[i, nxt, t] > 0:
            next_mask |= 1 << t
    for q in range(NUM_POINTS):
        work[q] = board[i, q]
    o = occ[i]
    slide_phase = phase[i] == SLIDE
    # the moves (point, from, to, options, winning types): every placement point with every
    # slide it opens, the legal placement points left after it and the placed types that win
    nmoves = 0
    all_types = (1 << NUM_TYPES) - 1
    open_points = _open_points(work, o)
    points = 1 << placed[i] if slide_phase else _legal_points(o)
    for p in range(NUM_POINTS):
        if not (points >> p) & 1:
            continue
        complete_types, empty_ends = _line_kinds(work, p, kinds)
        taken = o | (1 << p)
        for k in range(_list_slides(p, taken, ALL_POINTS, slides)):
            m, to = slides[k, 0], slides[k, 1]
            piece = work[m]
            options = _popcount(_legal_points((taken & ~(1 << m)) | (1 << to)))
            slid_line = ((open_points >> to) & 1) != 0 and _slid_line(work, p, m, to, piece)
            if next_mask == 0 or options == 0 or slid_line:
                wins = all_types
            elif complete_types or (empty_ends >> to) & 1:
                wins = _placed_line_types(work, kinds, p, m, to, piece)
            else:
                wins = 0
            moves[nmoves, 0] = p
            moves[nmoves, 1] = m
            moves[nmoves, 2] = to
            moves[nmoves, 3] = options
            moves[nmoves, 4] = wins
            nmoves += 1
    # whole turns: a move with a type in hand (the placed type at a slide decision)
    nwin = 0
    nturns = 0
    for k in range(nmoves):
        p, f, to, wins = moves[k, 0], moves[k, 1], moves[k, 2], moves[k, 4]
        for t in range(NUM_TYPES):
            if slide_phase:
                if t != work[p]:
                    continue
            elif hands[i, mover, t] == 0:
                continue
            a = _first_decision(slide_phase, t, p, f, to)
            if (wins >> t) & 1:
                if not flags[a]:
                    flags[a] = True
                    nwin += 1
            elif nwin == 0:
                turn_list[nturns, 0] = t
                turn_list[nturns, 1] = k
                nturns += 1
    if nwin > 0:
        return _gather_flagged(flags, best)
    # counting sort of the turns by options, most first
    for v in range(NUM_POINTS + 2):
        group_start[v] = 0
    for k in range(nturns):
        group_start[NUM_POINTS - moves[turn_list[k, 1], 3] + 1] += 1
    for v in range(1, NUM_POINTS + 2):
        group_start[v] += group_start[v - 1]
    for k in range(nturns):
        g = NUM_POINTS - moves[turn_list[k, 1], 3]
        order[group_start[g]] = k
        group_start[g] += 1
    for v in range(NUM_POINTS, 0, -1):  # group_start[g] back to the start of group g
        group_start[v] = group_start[v - 1]
    group_start[0] = 0
    top = -1
    for g in range(NUM_POINTS + 1):
        lo, hi = group_start[g], group_start[g + 1]
        if lo == hi:
            continue
        if top < 0:
            top = g
        if lo >= MAX_SAFETY_CHECKS:
            break
        nsafe = 0
        for s in range(lo, hi):
            t, k = turn_list[order[s], 0], turn_list[order[s], 1]
            p, f, to = moves[k, 0], moves[k, 1], moves[k, 2]
            a = _first_decision(slide_phase, t, p, f, to)
            if flags[a]:
                continue
            if not slide_phase:
                work[p] = t
            piece = work[f]
            work[f] = -1
            work[to] = piece
            after = ((o | (1 << p)) & ~(1 << f)) | (1 << to)
            if not _can_win_turn(work, after, next_mask, kinds, slides):
                flags[a] = True
                nsafe += 1
            work[to] = -1
            work[f] = piece
            if not slide_phase:
                work[p] = -1
        if nsafe > 0:
            return _gather_flagged(flags, best)
    for s in range(group_start[top], group_start[top + 1]):
        t, k = turn_list[order[s], 0], turn_list[order[s], 1]
        flags[_first_decision(slide_phase, t, moves[k, 0], moves[k, 1], moves[k, 2])] = True
    return _gather_flagged(flags, best)


@njit(cache=True)
def _scratch() -> tuple:
    """Work arrays of ``_row_best`` (made once per kernel call): a board, action flags, the
    moves, the turns, their order by options, the options groups' starts and the kinds of the
    lines through a point and the slides a placement opens."""
    return (np.empty(NUM_POINTS, np.int8), np.zeros(NUM_ACTIONS, np.bool_), np.empty((MAX_MOVES, 5), np.int32),
            np.empty((MAX_TURNS, 2), np.int32), np.empty(MAX_TURNS, np.int32), np.empty(NUM_POINTS + 2, np.int32),
            np.empty((LT_PTS.shape[1], 4), np.int32), np.empty((MAX_SLIDES, 2), np.int32))


@njit(cache=True, inline="always")
def _row_best(i, state, common, n: int, best, scratch) -> int:
    """The heuristic's best actions of row ``i`` into ``best`` (increasing); their count (0 for
    a finished game)."""
    player, legal, nlegal = common[2], common[13], common[14]
    turns = state[6]
    mover = player[i]
    if mover < 0:
        return 0
    if turns[i] == 0:  # the placement-only first turn: any legal action
        for k in range(nlegal[i]):
            best[k] = legal[i, k]
        return nlegal[i]
    return _best_moves(i, state, mover, n, best, scratch)


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, state, common, n: int) -> None:
    """``out[i]``: the heuristic's action for every row of ``[lo, hi)``, one of its best moves
    drawn from the row's pick stream (-1 for a finished game)."""
    streams = common[8]
    scratch = _scratch()
    best = np.empty(NUM_ACTIONS, np.int32)
    for i in range(lo, hi):
        count = _row_best(i, state, common, n, best, scratch)
        out[i] = pick_tied(streams, i, best, count) if count > 0 else -1


@njit(cache=True, nogil=True)
def best_moves_row(i, state, common, n: int) -> np.ndarray:
    """The heuristic's best actions of row ``i`` (increasing; empty for a finished game)."""
    best = np.empty(NUM_ACTIONS, np.int32)
    count = _row_best(i, state, common, n, best, _scratch())
    return best[:count].copy()
