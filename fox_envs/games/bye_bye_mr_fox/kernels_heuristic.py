"""Bye Bye Mr. Fox! heuristic as batched kernels: the rules of
``fox_envs.games.bye_bye_mr_fox.heuristic.ByeByeMrFoxHeuristic`` (the same scores, same float operations).

* Placing a token: every legal place, in the order of the legal actions, scores the board it
  leaves (``board_score``: +1 / -1 per egg on a nest circle as the sector opposite would deliver
  it, plus ``need * (1 - 0.5 ** n)`` per hen colour still needing eggs, for the ``n`` sectors
  showing it, the three-hens space counting half); the best within 1e-9 are tied.
* Giving the egg of the three-hens space: the emptiest nest, among equals the colour the fewest
  sectors show.

One of the tied moves is drawn uniformly from the row's pick stream.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._heuristic_rows import keep_best, pick_tied
from fox_envs.batch._rows import borrowed
from fox_envs.games.bye_bye_mr_fox.heuristic import COVERAGE_WEIGHT, EGG_WEIGHT
from fox_envs.games.bye_bye_mr_fox.kernels import CIRCLES, NESTS, PHASE, TOKEN, VISIBLE
from fox_envs.games.bye_bye_mr_fox.rules import FOX, GIVE, GIVE_ACTION, NEST_CAPACITY, OUTER_ACTION, THREE_HENS


@njit(cache=True, inline="always")
def _sector_value(picture: int, row) -> float:
    """+1 if an egg sent by this picture helps, -1 if it is lost."""
    if picture == THREE_HENS:
        for c in range(3):
            if row[NESTS + c] < NEST_CAPACITY:
                return 1.0
        return -1.0
    if picture == FOX or row[NESTS + picture] >= NEST_CAPACITY:
        return -1.0
    return 1.0


@njit(cache=True, inline="always")
def _board_score(row) -> float:
    """The agent's ``board_score`` of the board in state row ``row``."""
    score = 0.0
    for back in range(6):
        if row[CIRCLES + back]:
            score += EGG_WEIGHT * _sector_value(row[VISIBLE + (back + 3) % 6], row)
    shared = 0
    for s in range(6):
        shared += row[VISIBLE + s] == THREE_HENS
    half_shared = 0.5 * shared
    for c in range(3):
        need = NEST_CAPACITY - row[NESTS + c]
        if need:
            showing = 0
            for s in range(6):
                showing += row[VISIBLE + s] == c
            n = showing + half_shared
            score += COVERAGE_WEIGHT * need * (1.0 - 0.5 ** n)
    return score


@njit(cache=True, inline="always")
def _best_places(row, legal_row, count: int, best) -> int:
    """The legal places scoring best (within 1e-9, as the agent compares) into ``best``."""
    n = 0
    best_score = 0.0
    token = row[TOKEN]
    for k in range(count):
        a = legal_row[k]
        if a < OUTER_ACTION:
            row[CIRCLES + a] = 1
            score = _board_score(row)
            row[CIRCLES + a] = 0
        else:
            s = a - OUTER_ACTION
            old = row[VISIBLE + s]
            row[VISIBLE + s] = token
            score = _board_score(row)
            row[VISIBLE + s] = old
        n, best_score = keep_best(best, n, best_score, a, score)
    return n


@njit(cache=True, inline="always")
def _best_gifts(row, legal_row, count: int, best) -> int:
    """The legal nests with the fewest eggs, among those the colours the fewest sectors show."""
    n = 0
    lowest = 1 << 30
    for k in range(count):
        colour = legal_row[k] - GIVE_ACTION
        showing = 0
        for s in range(6):
            showing += row[VISIBLE + s] == colour
        key = row[NESTS + colour] * 16 + showing  # (nest, showing) in order; showing <= 6
        if key < lowest:
            lowest = key
            n = 0
        if key == lowest:
            best[n] = legal_row[k]
            n += 1
    return n


@njit(cache=True, inline="always")
def _best_moves(st, legal, nlegal, i, best) -> int:
    if st[i, PHASE] == GIVE:
        return _best_gifts(st[i], legal[i], nlegal[i], best)
    return _best_places(st[i], legal[i], nlegal[i], best)


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, st, common) -> None:
    """``out[i]``: the heuristic's move for every row of ``[lo, hi)`` (-1 for a finished game)."""
    common = borrowed(common)
    player, streams, legal, nlegal = common[2], common[8], common[13], common[14]
    out, st = borrowed((out, st))
    best = np.empty(legal.shape[1], np.int64)
    for i in range(lo, hi):
        if player[i] < 0:
            out[i] = -1
            continue
        out[i] = pick_tied(streams, i, best, _best_moves(st, legal, nlegal, i, best))


@njit(cache=True)
def best_moves_of_row(i, st, common) -> np.ndarray:
    """Every move the heuristic considers best in row ``i`` (tests compare it with the agent's)."""
    legal, nlegal = common[13], common[14]
    best = np.empty(legal.shape[1], np.int64)
    n = _best_moves(st, legal, nlegal, i, best)
    return best[:n].copy()
