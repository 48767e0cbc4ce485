"""Outfoxed heuristic as batched kernels: the rules of ``fox_envs.games.outfoxed.heuristic.OutfoxedHeuristic``.

The kernel reads only what the player to move may know, as the agent does through
``state.information(player)``: its own hand and kept cards, the foxes, the table (square,
owner, effective colour, declaration, face up) with the faces of face-up cards and of its own
face-down cards, the size of the opponent's hand and the public call statistics. It never reads
the opponent's hand, the faces of the opponent's face-down cards or the deck.

* Scoring picks: the first colour kept again while it is allowed, else any allowed pick.
* A table's value (``_value``): the round-end movement of the visible chips scored with
  per-colour weights (own kept cards minus a guess of the opponent's from its declarations),
  a small term per chip (``SOFT``) and a bonus or malus when a fox finishes.
* Put, chip, special-turn show: the legal actions of the highest score (a score more than 1e-9
  above the best so far starts a new best list, one within 1e-9 joins it, in legal order).
* Call or pass: call when the expected gain of re-chipping a lie beats the expected loss of
  turning up a true card (hypergeometric chance that the opponent's unseen cards hold what it
  claims, times its revealed honesty).

Every float is computed in the agent's order of operations, so scores and ties are the agent's
bit for bit. The best actions of a row are listed in legal order (``best_moves_row`` gives them)
and one is drawn uniformly from the row's pick stream (``heuristic_rows``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._heuristic_rows import pick_tied
from fox_envs.games.outfoxed.heuristic import FINISH_BONUS, SOFT, TRUTH_BONUS, put_value
from fox_envs.games.outfoxed.kernels import CARDS, CHIP_CARD, FOXES, HANDS, KEPT, LAST, MAX_LEGAL, NCARDS, PHASE, STATS
from fox_envs.games.outfoxed.rules import (CALL, CALLING, CARDS_PER_COLOUR, CHIP0, CHIPPING, FINISH, KEEP, PASS, PUT,
                                           PUT0, SHOW0)

_put_value = njit(cache=True, inline="always")(put_value)  # the agent's own arithmetic, compiled
TIE = 1e-9  # scores this close to the best are tied (the agent's tolerance)
CALLED_TRUE, CALLED_LIE, CALLS, CALL_CHANCES = 0, 1, 2, 3  # offsets of a seat's STATS


@njit(cache=True, inline="always")
def _square_winner(counts, square: int) -> int:
    """The colour that moves from ``square``: the highest count held by exactly one colour
    (colours without cards do not count), -1 when none."""
    winner, best = -1, 0
    for c in range(6):
        m = counts[square, c]
        if m > best:
            unique = True
            for d in range(6):
                if d != c and counts[square, d] == m:
                    unique = False
            if unique:
                winner, best = c, m
    return winner


@njit(cache=True)
def _value(st, i, counts, weights, foxes) -> float:
    """The table's value for the weights: foxes after the round-end movement of ``counts``
    (stopping at a finish), plus ``SOFT`` per chip and square number, plus or minus
    ``FINISH_BONUS`` when a fox finishes."""
    for c in range(6):
        foxes[c] = st[i, FOXES + c]
    finished = False
    for square in range(1, 4):
        colour = _square_winner(counts, square)
        if colour >= 0:
            foxes[colour] = min(FINISH, foxes[colour] + square)
            if foxes[colour] == FINISH:
                finished = True
                break
    value = 0.0
    for c in range(6):
        value += weights[c] * foxes[c]
    for square in range(1, 4):
        chips = 0.0
        for c in range(6):
            chips += weights[c] * counts[square, c]
        value += SOFT * square * chips
    if finished:
        value += FINISH_BONUS if value > 0 else -FINISH_BONUS
    return value


@njit(cache=True, inline="always")
def _value_added(st, i, counts, weights, foxes, square: int, colour: int) -> float:
    counts[square, colour] += 1
    value = _value(st, i, counts, weights, foxes)
    counts[square, colour] -= 1
    return value


@njit(cache=True, inline="always")
def _value_moved(st, i, counts, weights, foxes, square: int, old: int, new: int) -> float:
    counts[square, old] -= 1
    counts[square, new] += 1
    value = _value(st, i, counts, weights, foxes)
    counts[square, new] -= 1
    counts[square, old] += 1
    return value


@njit(cache=True, inline="always")
def _their_colour(weights) -> int:
    """The colour of the lowest weight (the first of equal ones): what the opponent would chip."""
    best = 0
    for c in range(1, 6):
        if weights[c] < weights[best]:
            best = c
    return best


@njit(cache=True)
def _comb(n: int, k: int) -> int:
    """The binomial coefficient (0 when ``k`` is outside ``0..n``)."""
    if k < 0 or k > n:
        return 0
    result = 1
    for j in range(1, k + 1):
        result = result * (n - k + j) // j
    return result


@njit(cache=True)
def _at_least(k: int, pool: int, good: int, drawn: int) -> float:
    """P(at least ``k`` of ``good`` cards among ``drawn`` drawn from ``pool``) (hypergeometric).
    The counts stay below 2**53 (a pool of at most 47 unseen cards), so the quotient is the
    agent's exact one."""
    drawn = min(drawn, pool)
    total = _comb(pool, drawn)
    if total == 0:
        return 0.0
    below = 0
    for j in range(min(k, good + 1)):
        below += _comb(good, j) * _comb(pool - good, drawn - j)
    return max(0.0, 1.0 - float(below) / float(total))


@njit(cache=True, inline="always")
def _read_table(st, i, me: int, counts, weights) -> None:
    """``counts[square, colour]``: the table's cards by effective colour; ``weights``: own kept
    cards minus a guess of the opponent's (its declarations this round, one of each colour
    assumed)."""
    for s in range(4):
        for c in range(6):
            counts[s, c] = 0
    declared = np.ones(6)
    for k in range(st[i, NCARDS]):
        b = CARDS + 6 * k
        counts[st[i, b], st[i, b + 4]] += 1
        if st[i, b + 1] != me and st[i, b + 3] >= 0:
            declared[st[i, b + 3]] += 1.0
    total = 0.0
    for c in range(6):
        total += declared[c]
    for c in range(6):
        weights[c] = st[i, KEPT + 6 * me + c] - 3.0 * declared[c] / total


@njit(cache=True, inline="always")
def _keep_best(st, i, me: int, legal_row, n: int, best) -> int:
    """The first kept colour again while it is allowed, else every allowed pick."""
    for c in range(6):
        if st[i, KEPT + 6 * me + c] > 0:
            for k in range(n):  # allowed: in the legal list (the dense mask may be off)
                if legal_row[k] == c:
                    best[0] = c
                    return 1
            break
    for k in range(n):
        best[k] = legal_row[k]
    return n


@njit(cache=True, inline="always")
def _tied_best(legal_row, scores, n: int, best) -> int:
    """The agent's best list of the ``n`` scored legal actions (see the module docstring)."""
    count = 0
    top = 0.0
    for k in range(n):
        value = scores[k]
        if count == 0 or value > top + TIE:
            best[0] = legal_row[k]
            count = 1
            top = value
        elif abs(value - top) <= TIE:
            best[count] = legal_row[k]
            count += 1
    return count


@njit(cache=True)
def _put_scores(st, i, me: int, legal_row, n: int, counts, weights, foxes, scores) -> None:
    """Each put's value (``put_value``) for the opponent's call rate."""
    opponent = 1 - me
    stats = STATS + 4 * opponent
    p_call = (st[i, stats + CALLS] + 1.0) / (st[i, stats + CALL_CHANCES] + 2.0)
    their_colour = _their_colour(weights)
    added = np.empty((4, 6))
    for s in range(1, 4):
        for d in range(6):
            added[s, d] = _value_added(st, i, counts, weights, foxes, s, d)
    for k in range(n):
        code = legal_row[k] - PUT0
        square, colour, declared = code // 36 + 1, code % 36 // 6, code % 6
        scores[k] = _put_value(added[square, declared], added[square, their_colour], colour == declared, p_call,
                               weights[colour], st[i, HANDS + 6 * me + colour])


@njit(cache=True)
def _call(st, i, me: int, counts, weights, foxes) -> int:
    """CALL when P(lie) * gain from re-chipping beats P(truth) * loss of our own card, else PASS."""
    opponent = 1 - me
    target = CARDS + 6 * st[i, LAST + opponent]
    own = CARDS + 6 * st[i, LAST + me]
    declared = st[i, target + 4]
    seen = np.zeros(6, np.int64)
    hidden_cards = 0  # the opponent's cards whose faces we cannot see (hand + face down)
    claims = 0  # the opponent's face-down cards declaring this colour, the target included
    for k in range(st[i, NCARDS]):
        b = CARDS + 6 * k
        owner = st[i, b + 1]
        if st[i, b + 5] or owner == me:  # a face we may see
            seen[st[i, b + 2]] += 1
        elif owner == opponent:
            hidden_cards += 1
            claims += st[i, b + 4] == declared
    pool = 0
    good = 0
    for c in range(6):
        unseen = CARDS_PER_COLOUR - st[i, KEPT + 6 * me + c] - st[i, HANDS + 6 * me + c] - seen[c]
        pool += unseen
        if c == declared:
            good = unseen
    for c in range(6):
        hidden_cards += st[i, HANDS + 6 * opponent + c]  # the opponent's hand size (public)
    p_held = _at_least(claims, pool, good, hidden_cards)
    stats = STATS + 4 * opponent
    called_true = st[i, stats + CALLED_TRUE]
    honesty = (called_true + 2.0) / (called_true + st[i, stats + CALLED_LIE] + 3.0)
    p_true = honesty * p_held
    current = _value(st, i, counts, weights, foxes)
    best_chip = _value_moved(st, i, counts, weights, foxes, st[i, target], declared, 0)
    for c in range(1, 6):
        best_chip = max(best_chip, _value_moved(st, i, counts, weights, foxes, st[i, target], declared, c))
    after_truth = _value_moved(st, i, counts, weights, foxes, st[i, own], st[i, own + 4], _their_colour(weights))
    gain = (1.0 - p_true) * (best_chip - current) - p_true * (current - after_truth + TRUTH_BONUS * 0.5)
    return CALL if gain > TIE else PASS


@njit(cache=True)
def _row_best(i, st, common, best, counts, weights, foxes, scores) -> int:
    """The heuristic's best actions of row ``i`` into ``best`` (legal order); their count (0 for
    a finished game)."""
    player, legal, nlegal = common[2], common[13], common[14]
    me = player[i]
    if me < 0:
        return 0
    n = nlegal[i]
    legal_row = legal[i]
    phase = st[i, PHASE]
    if phase == KEEP:
        return _keep_best(st, i, me, legal_row, n, best)
    _read_table(st, i, me, counts, weights)
    if phase == CALLING:
        best[0] = _call(st, i, me, counts, weights, foxes)
        return 1
    if phase == PUT:
        _put_scores(st, i, me, legal_row, n, counts, weights, foxes, scores)
    elif phase == CHIPPING:
        card = CARDS + 6 * st[i, CHIP_CARD]
        for k in range(n):
            scores[k] = _value_moved(st, i, counts, weights, foxes, st[i, card], st[i, card + 4], legal_row[k] - CHIP0)
    else:  # the special turn: show a card face up
        for k in range(n):
            code = legal_row[k] - SHOW0
            scores[k] = _value_added(st, i, counts, weights, foxes, code // 6 + 1, code % 6)
    return _tied_best(legal_row, scores, n, best)


@njit(cache=True)
def _scratch() -> tuple:
    """Work arrays of ``_row_best`` (made once per kernel call): the best list, table counts,
    weights, fox positions and the legal actions' scores."""
    return (np.empty(MAX_LEGAL, np.int32), np.zeros((4, 6), np.int64), np.empty(6), np.empty(6, np.int64),
            np.empty(MAX_LEGAL))


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, st, common) -> None:
    """``out[i]``: the heuristic's action for every row of ``[lo, hi)``, one of its best moves
    drawn from the row's pick stream (-1 for a finished game)."""
    streams = common[8]
    best, counts, weights, foxes, scores = _scratch()
    for i in range(lo, hi):
        count = _row_best(i, st, common, best, counts, weights, foxes, scores)
        out[i] = pick_tied(streams, i, best, count) if count > 0 else -1


@njit(cache=True, nogil=True)
def best_moves_row(i, st, common) -> np.ndarray:
    """The heuristic's best actions of row ``i`` (legal order; empty for a finished game)."""
    best, counts, weights, foxes, scores = _scratch()
    count = _row_best(i, st, common, best, counts, weights, foxes, scores)
    return best[:count].copy()
