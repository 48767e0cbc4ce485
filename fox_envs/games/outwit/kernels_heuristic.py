"""Outwit heuristic as batched kernels: the rules of ``fox_envs.games.outwit.heuristic.OutwitHeuristic``.

For the player ``p`` to move (a lone pass is played as it is):

1. a move bringing the ninth chip home wins: the lowest such action is played;
2. else every legal move is scored by the position it leaves: ``LOSS`` if the opponent can then
   complete its corner with one move, else the race value of ``p``'s chips minus half the
   opponent's (``side_score``: chips home by depth, chips outside by distance, with a bonus for a
   free lane into the corner in one move, or for a regular chip in two), minus ``REPEAT`` (ten
   times for a third occurrence) when the position has occurred before (the row's repetition
   table), minus ``OWN_REPEAT`` per earlier position reached by ``p``'s own moves with the same
   arrangement of ``p``'s chips (read from the row's history, walked back from the current
   chips; Zobrist keys of one side's chips).

Scores are multiples of 0.5 (exact in any order of summing), so the agent's 1e-9 tolerance makes
exactly the equal ones tied; one is drawn uniformly from the row's pick stream. Occupancy is the
row's two bit words with the move applied in registers; nothing of the row is written.

Each chip's term of ``side_score`` is computed once for the position, with the squares its
computation looked at; a move changes two squares, and only the terms that looked at one of them
(and the moved chip's) are computed again. The result is the same as computing every term (a
term depends on nothing but the squares it read).

The kernels take the row state as the step kernels' ``state`` tuple (``kernels.STATE_FIELDS``)
and ``common`` (``fox_envs.batch.env.COMMON_FIELDS``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._heuristic_rows import keep_best, pick_tied, seen_count
from fox_envs.batch._rows import borrowed
from fox_envs.games.outwit.heuristic import (DEPTH, DEPTH_TABLE, DISTANCE, DISTANCE_TABLE, HOME, LANE, LANE2, LOSS,
                                             OPPONENT_WEIGHT, OWN_REPEAT, REPEAT)
from fox_envs.games.outwit.kernels import CORNER, LIGHT_KEY, RAY_LENGTH, RAYS, Z_POWER, Z_REGULAR
from fox_envs.games.outwit.rules import NUM_SQUARES, PASS

DISTANCES = np.array(DISTANCE_TABLE, np.float64)  # [player, square]
DEPTHS = np.array(DEPTH_TABLE, np.float64)
ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _toggled(o0: np.uint64, o1: np.uint64, s: int):
    """The occupancy words with square ``s`` flipped."""
    if s < 64:
        return o0 ^ (ONE << np.uint64(s)), o1
    return o0, o1 ^ (ONE << np.uint64(s - 64))


@njit(cache=True, inline="always")
def _read(o0: np.uint64, o1: np.uint64, s: int, r0: np.uint64, r1: np.uint64):
    """Whether square ``s`` is occupied, and the read set ``r0`` / ``r1`` (two bit words) with
    ``s`` added."""
    if s < 64:
        return (o0 >> np.uint64(s)) & ONE != np.uint64(0), r0 | (ONE << np.uint64(s)), r1
    return (o1 >> np.uint64(s - 64)) & ONE != np.uint64(0), r0, r1 | (ONE << np.uint64(s - 64))


@njit(cache=True, inline="always")
def _slide_end(o0, o1, p: int, s: int, d: int, r0, r1):
    """Where a regular chip of ``p`` on ``s`` sliding in direction ``d`` stops (-1: blocked at
    once), with the read set grown by the squares looked at."""
    last = -1
    for k in range(RAY_LENGTH[p, s, d]):
        t = np.int64(RAYS[p, s, d, k])
        taken, r0, r1 = _read(o0, o1, t, r0, r1)
        if taken:
            break
        last = t
    return last, r0, r1


@njit(cache=True, inline="always")
def _can_enter(o0, o1, p: int, s: int, power: bool, r0, r1):
    """Whether the chip of ``p`` on ``s`` (outside its corner) can reach the corner in one move
    (with the read set grown)."""
    if power:
        for d in range(8):
            for k in range(RAY_LENGTH[p, s, d]):
                t = np.int64(RAYS[p, s, d, k])
                taken, r0, r1 = _read(o0, o1, t, r0, r1)
                if taken:
                    break
                if CORNER[p, t]:
                    return True, r0, r1
        return False, r0, r1
    for d in range(4):
        last, r0, r1 = _slide_end(o0, o1, p, s, d, r0, r1)
        if last >= 0 and CORNER[p, last]:
            return True, r0, r1
    return False, r0, r1


@njit(cache=True, inline="always")
def _enters_in_two(o0, o1, p: int, s: int, r0, r1):
    """Whether the regular chip of ``p`` on ``s`` reaches its corner in two slides, others still
    (with the read set grown)."""
    o0, o1 = _toggled(o0, o1, s)
    for d in range(4):
        last, r0, r1 = _slide_end(o0, o1, p, s, d, r0, r1)
        if last >= 0:
            enters, r0, r1 = _can_enter(o0, o1, p, last, False, r0, r1)
            if enters:
                return True, r0, r1
    return False, r0, r1


@njit(cache=True)
def _chip_value(o0, o1, p: int, s: int, c: int):
    """Chip ``c`` of ``p`` on ``s``: its term of the agent's ``side_score``, and the squares
    whose occupancy it depends on (two bit words): while none of them changes, neither does it."""
    if CORNER[p, s]:
        return HOME + DEPTH * DEPTHS[p, s], np.uint64(0), np.uint64(0)
    value = -DISTANCE * DISTANCES[p, s]
    enters, r0, r1 = _can_enter(o0, o1, p, s, c == 0, np.uint64(0), np.uint64(0))
    if enters:
        value += LANE
    elif c > 0:
        enters, r0, r1 = _enters_in_two(o0, o1, p, s, r0, r1)
        if enters:
            value += LANE2
    return value, r0, r1


@njit(cache=True, inline="always")
def _side_values(o0, o1, chips, i: int, p: int, values, reads) -> None:
    """Every chip's ``_chip_value`` now (``values[c]``) with the squares it read (``reads[c]``)."""
    for c in range(9):
        values[c], reads[c, 0], reads[c, 1] = _chip_value(o0, o1, p, np.int64(chips[i, p, c]), c)


@njit(cache=True, inline="always")
def _side_score(occupied, changed, chips, i: int, p: int, moved: int, moved_to: int, values, reads) -> float:
    """The agent's ``side_score`` of ``p``'s chips on the squares ``occupied`` (two bit words)
    after a move that changed the squares ``changed`` (two bit words; chip ``moved`` now on
    ``moved_to``): a chip that read none of them keeps its value of before the move."""
    o0, o1 = occupied
    ch0, ch1 = changed
    score = 0.0
    for c in range(9):
        if c == moved:
            score += _chip_value(o0, o1, p, moved_to, c)[0]
        elif (reads[c, 0] & ch0) | (reads[c, 1] & ch1):
            score += _chip_value(o0, o1, p, np.int64(chips[i, p, c]), c)[0]
        else:
            score += values[c]
    return score


@njit(cache=True, inline="always")
def _wins_next(o0, o1, chips, i: int, q: int, home_q: int) -> bool:
    """Whether ``q`` (``home_q`` chips home) can complete its corner with one move."""
    if home_q < 8:
        return False
    for c in range(9):
        s = np.int64(chips[i, q, c])
        if not CORNER[q, s] and _can_enter(o0, o1, q, s, c == 0, np.uint64(0), np.uint64(0))[0]:
            return True
    return False


@njit(cache=True, inline="always")
def _arrangement(chips, i: int, p: int) -> np.uint64:
    """The Zobrist key of ``p``'s chips alone (power chip and regular chips)."""
    key = Z_POWER[p, chips[i, p, 0]]
    for c in range(1, 9):
        key ^= Z_REGULAR[p, chips[i, p, c]]
    return key


@njit(cache=True, inline="always")
def _own_arrangements(i: int, p: int, chips, hist, hlen, out) -> int:
    """The Zobrist keys of ``p``'s chips in every position of the game reached by ``p``'s own
    moves (and the start position, for player_1, whose opponent is to move there), into ``out``;
    returns how many. The game is walked back from the current chips through the history."""
    power = np.int64(chips[i, p, 0])
    arrangement = _arrangement(chips, i, p)
    m = 0
    for k in range(hlen[i] - 1, -1, -1):  # here: the position after ply k
        if k % 2 != p:
            continue
        out[m] = arrangement
        m += 1
        a = np.int64(hist[i, k])
        if a != PASS:
            origin, target = a // NUM_SQUARES, a % NUM_SQUARES
            if target == power:
                arrangement ^= Z_POWER[p, target] ^ Z_POWER[p, origin]
                power = origin
            else:
                arrangement ^= Z_REGULAR[p, target] ^ Z_REGULAR[p, origin]
    if p == 1:
        out[m] = arrangement
        m += 1
    return m


@njit(cache=True)
def _best_moves(i, p, board, common, own, best, work) -> int:
    """Fill ``best`` with the heuristic's best actions for row ``i`` (``p`` to move; ``board``:
    the arrays ``chips, slot, occ, home, key``); returns how many (``own``: room for
    ``_own_arrangements``, ``work``: the scratch arrays of ``_work``)."""
    chips, slot, occ, home, key = board
    hist, hlen, legal, nlegal = common[9], common[10], common[13], common[14]
    rep_keys, rep_counts = common[15], common[16]
    count = nlegal[i]
    if count == 1 and legal[i, 0] == PASS:
        best[0] = PASS
        return 1
    if home[i, p] == 8:
        win = -1
        for k in range(count):
            a = np.int64(legal[i, k])
            if CORNER[p, a % NUM_SQUARES] and not CORNER[p, a // NUM_SQUARES] and (win < 0 or a < win):
                win = a
        if win >= 0:
            best[0] = win
            return 1
    q = 1 - p
    mine = _own_arrangements(i, p, chips, hist, hlen, own)
    current = _arrangement(chips, i, p)
    values, reads = work
    _side_values(occ[i, 0], occ[i, 1], chips, i, p, values[0], reads[0])
    _side_values(occ[i, 0], occ[i, 1], chips, i, q, values[1], reads[1])
    n = 0
    best_score = 0.0
    for k in range(count):
        a = np.int64(legal[i, k])
        origin, target = a // NUM_SQUARES, a % NUM_SQUARES
        c = np.int64(slot[i, origin])
        ch0, ch1 = _toggled(np.uint64(0), np.uint64(0), origin)
        ch0, ch1 = _toggled(ch0, ch1, target)
        o0, o1 = occ[i, 0] ^ ch0, occ[i, 1] ^ ch1
        if _wins_next(o0, o1, chips, i, q, home[i, q]):
            score = LOSS
        else:
            occupied, changed = (o0, o1), (ch0, ch1)
            score = (_side_score(occupied, changed, chips, i, p, c, target, values[0], reads[0])
                     - OPPONENT_WEIGHT * _side_score(occupied, changed, chips, i, q, -1, -1, values[1], reads[1]))
            z = Z_POWER[p] if c == 0 else Z_REGULAR[p]
            delta = z[origin] ^ z[target]
            position = key[i] ^ delta
            if q == 1:
                position ^= LIGHT_KEY
            seen = seen_count(rep_keys, rep_counts, i, position)
            if seen:
                score -= REPEAT * (10 if seen >= 2 else 1)
            arrangement = current ^ delta
            repeats = 0
            for j in range(mine):
                repeats += own[j] == arrangement
            score -= OWN_REPEAT * repeats
        n, best_score = keep_best(best, n, best_score, a, score)
    return n


@njit(cache=True, inline="always")
def _work():
    """Scratch arrays for ``_best_moves``: chip values and read squares of both sides."""
    return np.empty((2, 9), np.float64), np.empty((2, 9, 2), np.uint64)


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, state, common) -> None:
    """``out[i]``: the heuristic's move for every row of ``[lo, hi)`` (-1 for a finished game)."""
    common = borrowed(common)
    player, streams, hist, legal = common[2], common[8], common[9], common[13]
    state = borrowed(state)
    out = borrowed((out,))[0]
    board = (state[0], state[1], state[2], state[4], state[8])  # chips, slot, occ, home, key
    best = np.empty(legal.shape[1], np.int64)
    own = np.empty(hist.shape[1] // 2 + 2, np.uint64)
    work = _work()
    for i in range(lo, hi):
        p = player[i]
        if p < 0:
            out[i] = -1
            continue
        n = _best_moves(i, p, board, common, own, best, work)
        out[i] = pick_tied(streams, i, best, n)


@njit(cache=True)
def best_moves_of_row(i, chips, slot, occ, home, key, common) -> np.ndarray:
    """Every move the heuristic considers best in row ``i`` (tests compare it with the agent's)."""
    hist, legal = common[9], common[13]
    best = np.empty(legal.shape[1], np.int64)
    own = np.empty(hist.shape[1] // 2 + 2, np.uint64)
    n = _best_moves(i, common[2][i], (chips, slot, occ, home, key), common, own, best, _work())
    return best[:n].copy()
