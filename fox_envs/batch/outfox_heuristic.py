"""Outfox heuristic as batched kernels: the rules of ``fox_envs.agents.outfox.OutfoxHeuristic``.

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
once per kernel call.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.agents.outfox import BLOCK, MAX_SAFETY_CHECKS
from fox_envs.batch._heuristic_rows import pick_tied
from fox_envs.batch.outfox import (LT_COUNT, LT_PTS, NB_COUNT, NB_LIST, RAY_COUNT, RAY_LEN, RAY_PTS, SLIDE,
                                   WIN_TABLE, _legal_points, _line_through)
from fox_envs.games.outfox import COMPLETES, NUM_ACTIONS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH

COMPLETE_TABLE = np.array(COMPLETES, np.int32)  # [a*9 + b]: types t making {a, b, t} a winning line
PAIR_PTS = np.zeros(LT_PTS.shape[:2] + (2,), np.int8)  # [p, k]: the other two points of line k through p
for _p in range(NUM_POINTS):
    for _k, _pair in enumerate(PAIRS_THROUGH[_p]):
        PAIR_PTS[_p, _k] = _pair
# The most (point, from, to) moves a position can have: every slide of every neighbour of every point.
MAX_MOVES = int(sum(RAY_LEN[m].sum() for p in range(NUM_POINTS) for m in NB_LIST[p, :NB_COUNT[p]]))
MAX_TURNS = MAX_MOVES * NUM_TYPES
del _p, _k, _pair


@njit(cache=True, inline="always")
def _popcount(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _real(piece: int) -> bool:
    """A piece on the point (not empty, not the hypothetical placement ``BLOCK``)."""
    return 0 <= piece < BLOCK


@njit(cache=True)
def _can_win_turn(work, occ: int, hand_mask: int) -> bool:
    """Whether a seat holding the types in ``hand_mask`` has a turn ending with a winning line
    on ``work`` (occupied points ``occ``; no line on it now). ``work`` is restored."""
    if hand_mask == 0:
        return False
    points = _legal_points(occ)
    for p in range(NUM_POINTS):
        if not (points >> p) & 1:
            continue
        taken = occ | (1 << p)
        work[p] = BLOCK
        for j in range(NB_COUNT[p]):
            m = NB_LIST[p, j]
            if not (taken >> m) & 1:
                continue
            piece = work[m]
            for d in range(RAY_COUNT[m]):
                for k in range(RAY_LEN[m, d]):
                    to = RAY_PTS[m, d, k]
                    if (taken >> to) & 1:
                        break
                    work[m] = -1
                    work[to] = piece
                    won = False
                    for line in range(LT_COUNT[p]):  # lines through the placed piece: a type in hand completes them
                        x = work[PAIR_PTS[p, line, 0]]
                        y = work[PAIR_PTS[p, line, 1]]
                        if _real(x) and _real(y) and COMPLETE_TABLE[x * NUM_TYPES + y] & hand_mask:
                            won = True
                            break
                    if not won:
                        for line in range(LT_COUNT[to]):  # lines through the slid piece, without p
                            x = work[LT_PTS[to, line, 0]]
                            y = work[LT_PTS[to, line, 1]]
                            z = work[LT_PTS[to, line, 2]]
                            if _real(x) and _real(y) and _real(z) and WIN_TABLE[x * 81 + y * 9 + z]:
                                won = True
                                break
                    work[to] = -1
                    work[m] = piece
                    if won:
                        work[p] = -1
                        return True
        work[p] = -1
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
def _best_moves(i, board, occ, hands, phase, placed, mover: int, n: int, best, work, flags, moves, turns,
                order, group_start) -> int:
    """The heuristic's best actions in row ``i`` (not the first turn, game going on) into
    ``best`` in increasing order; returns their count."""
    nxt = (mover + 1) % n
    next_mask = 0
    for t in range(NUM_TYPES):
        if hands[i, nxt, t] > 0:
            next_mask |= 1 << t
    for q in range(NUM_POINTS):
        work[q] = board[i, q]
    o = occ[i]
    slide_phase = phase[i] == SLIDE
    # the (point, from, to, options) moves: every placement point with every slide it opens
    nmoves = 0
    points = 1 << placed[i] if slide_phase else _legal_points(o)
    for p in range(NUM_POINTS):
        if not (points >> p) & 1:
            continue
        taken = o | (1 << p)
        for j in range(NB_COUNT[p]):
            m = NB_LIST[p, j]
            if not (taken >> m) & 1:
                continue
            for d in range(RAY_COUNT[m]):
                for k in range(RAY_LEN[m, d]):
                    to = RAY_PTS[m, d, k]
                    if (taken >> to) & 1:
                        break
                    moves[nmoves, 0] = p
                    moves[nmoves, 1] = m
                    moves[nmoves, 2] = to
                    moves[nmoves, 3] = _popcount(_legal_points((taken & ~(1 << m)) | (1 << to)))
                    nmoves += 1
    # whole turns: a move with a type in hand (the placed type at a slide decision)
    nwin = 0
    nturns = 0
    for k in range(nmoves):
        p, f, to, options = moves[k, 0], moves[k, 1], moves[k, 2], moves[k, 3]
        for t in range(NUM_TYPES):
            if slide_phase:
                if t > 0:
                    break
            elif hands[i, mover, t] == 0:
                continue
            a = _first_decision(slide_phase, t, p, f, to)
            won = next_mask == 0 or options == 0
            if not won:
                if not slide_phase:
                    work[p] = t
                piece = work[f]
                work[f] = -1
                work[to] = piece
                won = _line_through(work, p) or _line_through(work, to)
                work[to] = -1
                work[f] = piece
                if not slide_phase:
                    work[p] = -1
            if won:
                if not flags[a]:
                    flags[a] = True
                    nwin += 1
            elif nwin == 0:
                turns[nturns, 0] = t
                turns[nturns, 1] = k
                nturns += 1
    if nwin > 0:
        return _gather_flagged(flags, best)
    # counting sort of the turns by options, most first
    for v in range(NUM_POINTS + 2):
        group_start[v] = 0
    for k in range(nturns):
        group_start[NUM_POINTS - moves[turns[k, 1], 3] + 1] += 1
    for v in range(1, NUM_POINTS + 2):
        group_start[v] += group_start[v - 1]
    for k in range(nturns):
        g = NUM_POINTS - moves[turns[k, 1], 3]
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
            t, k = turns[order[s], 0], turns[order[s], 1]
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
            if not _can_win_turn(work, after, next_mask):
                flags[a] = True
                nsafe += 1
            work[to] = -1
            work[f] = piece
            if not slide_phase:
                work[p] = -1
        if nsafe > 0:
            return _gather_flagged(flags, best)
    for s in range(group_start[top], group_start[top + 1]):
        t, k = turns[order[s], 0], turns[order[s], 1]
        flags[_first_decision(slide_phase, t, moves[k, 0], moves[k, 1], moves[k, 2])] = True
    return _gather_flagged(flags, best)


@njit(cache=True)
def _scratch() -> tuple:
    """Work arrays of ``_row_best`` (made once per kernel call): a board, action flags, the
    moves, the turns, their order by options and the options groups' starts."""
    return (np.empty(NUM_POINTS, np.int8), np.zeros(NUM_ACTIONS, np.bool_), np.empty((MAX_MOVES, 4), np.int32),
            np.empty((MAX_TURNS, 2), np.int32), np.empty(MAX_TURNS, np.int32), np.empty(NUM_POINTS + 2, np.int32))


@njit(cache=True, inline="always")
def _row_best(i, board, occ, hands, phase, placed, turns, common, n, best, scratch) -> int:
    """The heuristic's best actions of row ``i`` into ``best`` (increasing); their count (0 for
    a finished game)."""
    player, legal, nlegal = common[2], common[13], common[14]
    mover = player[i]
    if mover < 0:
        return 0
    if turns[i] == 0:  # the placement-only first turn: any legal action
        for k in range(nlegal[i]):
            best[k] = legal[i, k]
        return nlegal[i]
    work, flags, moves, turn_list, order, group_start = scratch
    return _best_moves(i, board, occ, hands, phase, placed, mover, n, best, work, flags, moves, turn_list, order,
                       group_start)


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, board, occ, hands, phase, placed, turns, common, n) -> None:
    """``out[i]``: the heuristic's action for every row of ``[lo, hi)``, one of its best moves
    drawn from the row's pick stream (-1 for a finished game)."""
    streams = common[8]
    scratch = _scratch()
    best = np.empty(NUM_ACTIONS, np.int32)
    for i in range(lo, hi):
        count = _row_best(i, board, occ, hands, phase, placed, turns, common, n, best, scratch)
        out[i] = pick_tied(streams, i, best, count) if count > 0 else -1


@njit(cache=True, nogil=True)
def best_moves_row(i, board, occ, hands, phase, placed, turns, common, n) -> np.ndarray:
    """The heuristic's best actions of row ``i`` (increasing; empty for a finished game)."""
    best = np.empty(NUM_ACTIONS, np.int32)
    count = _row_best(i, board, occ, hands, phase, placed, turns, common, n, best, _scratch())
    return best[:count].copy()
