"""Outfoxed batched kernels (the rules of ``fox_envs.games.outfoxed.rules``; docs/rules/outfoxed.md).

The table and the race track are drawn in ``board.py``.

State of row ``i``: one int16 row ``st[i]`` (fields at the offsets below) and ``forb[i]``::

    st[i, PHASE]            the core's phase (KEEP, PUT, CALLING, CHIPPING, SHOW, OVER; FIRST
                            and DEAL are chance phases, never left pending after a step)
    st[i, PICKS]            scoring picks made in the current pick phase (0..6)
    st[i, ROUND], FIRST_P   the round (1..max_rounds, 0 while picking) and its first player
    st[i, DEALT]            cards dealt this round (0..22: the first player's 12, then 10)
    st[i, TURN]             turns completed this round (0..18)
    st[i, LAST + p]         table index of seat p's latest card this round (-1: none)
    st[i, CHIP_CARD], CHIP_PLAYER   the card whose chip is to be chosen and who chooses
    st[i, PEND_C], PEND_S   the first player's special-turn card (colour, square), -1 none
    st[i, FINISHED]         1 once a fox reached 6
    st[i, NCARDS]           cards on the table this round (at most 18 puts + 2 shows)
    st[i, KEPT + 6p + c]    seat p's kept scoring cards of colour c
    st[i, HANDS + 6p + c]   seat p's hand
    st[i, DECK + c]         deck cards left of colour c (this round's shuffle)
    st[i, FOXES + c]        fox c's track position (0..6)
    st[i, STATS + 4p + k]   seat p's cards called true, called lies, calls made, call chances
    st[i, CARDS + 6k + f]   table card k: square (1..3), owner, face, declared (-1 for a
                            special-turn card), chip (the effective colour), face up (0/1)
    st[i, SCRATCH + c]      scratch counts (round-end square counts)
    forb[i]                 the forbidden scoring multisets as bits (MULTISETS order)

The observation (286 floats, the core's ``OBS_LAYOUT``) is written whole for the player to
move after each step (``_write_view``): it depends on the viewer (hand, kept cards, own face-down
faces), and the viewer changes nearly every decision. The table sums are counted as integers in
the float slots and then replaced by the core's own float64 sums of ``TABLE_SCALE`` rounded to
float32 (``TABLE_VALUE``), so every value is bit for bit the core's.

A step: the decision, then the chance nodes it leads to, drawn from the row's own stream (first
player 1/2 each; a deal proportional to the deck left), then the end checks (game over, else
``max_moves``). A game never ends on a chance node (only the special turn ends a round).

The helpers read the state as ``st[i, FIELD]`` (no row views); each kernel first takes its arrays
through ``_rows.borrowed`` (reference counts off). The three large helpers (``_apply``,
``_write_view``, ``_publish``) are compiled as functions of their own, not inlined into each
kernel, to keep the module's compile time short.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._box import PICK, prepare
from fox_envs.batch._obs import plane_ratio, plane_squashed, plane_table
from fox_envs.batch._rng import CHANCE_STREAM, below
from fox_envs.batch._rows import (TERMINAL, add_legal, borrowed, clear_legal, keep_history, push_history, take_action,
                                  win_for)
from fox_envs.games.outfoxed.rules import (CALL, CALLING, CARDS_PER_COLOUR, CHIP0, CHIPPING, COMPLETIONS, DEAL, FINISH,
                                     FIRST, FIRST_HAND, KEEP, MAX_TABLE_CARDS, MULTISET_INDEX, MULTISETS,
                                     O_CALLABLE, O_CHIP, O_CHIP_FACE, O_FIRST, O_FORBIDDEN, O_FOX, O_HAND, O_KEPT,
                                     O_MY_LAST, O_OWN_FACE, O_PENDING, O_PHASE, O_PICKS, O_ROUND, O_SEAT, O_SIZES,
                                     O_STATS, O_TABLE, O_TURN, O_UP_FACE, OBS_PHASE_SLOT, OBS_SIZE, OVER, PASS, PUT,
                                     PUT0, PUT_TABLE, SECOND_HAND, SHOW, SHOW0, SHOW_TABLE, TABLE_SCALE,
                                     TRUE_PUT_TABLE, TURNS_PER_ROUND)

# ----- row layout ---------------------------------------------------------------------------------
PHASE, PICKS, ROUND, FIRST_P, DEALT, TURN, LAST, CHIP_CARD, CHIP_PLAYER, PEND_C, PEND_S, FINISHED, NCARDS = (
    0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13)
KEPT, HANDS, DECK, FOXES, STATS, SCRATCH = 16, 28, 40, 46, 52, 60
MAX_CARDS = MAX_TABLE_CARDS  # 18 put in turns, 2 shown on the special turn
CARDS = 66
WIDTH = CARDS + 6 * MAX_CARDS
DEAL_TOTAL = FIRST_HAND + SECOND_HAND
NUM_MULTISETS = len(MULTISETS)

# ----- tables built from the core's ---------------------------------------------------------------
def _code(counts) -> int:
    """Base-4 code of per-colour counts (each 0..3)."""
    return sum(int(n) * 4 ** c for c, n in enumerate(counts))


# COMPLETION_BITS[code of a player's partial picks, colour]: the MULTISETS that contain those
# picks plus colour, as bits (the core's COMPLETIONS).
COMPLETION_BITS = np.zeros((4 ** 6, 6), np.uint64)
for _partial, _per_colour in COMPLETIONS.items():
    for _colour, _indices in enumerate(_per_colour):
        COMPLETION_BITS[_code(_partial), _colour] = np.uint64(sum(1 << k for k in _indices))
MULTISET_OF_CODE = np.full(4 ** 6, -1, np.int16)  # the MULTISETS index of three picks
for _counts, _index in MULTISET_INDEX.items():
    MULTISET_OF_CODE[_code(_counts)] = _index
POW4 = np.array([4 ** c for c in range(6)], np.int64)


def _padded(table) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(row) for row in table)
    out = np.zeros((len(table), width), np.int16)
    sizes = np.zeros(len(table), np.int16)
    for k, row in enumerate(table):
        out[k, :len(row)] = row
        sizes[k] = len(row)
    return out, sizes


PUTS, PUTS_N = _padded(PUT_TABLE)  # [hand colours as bits] -> the core's sorted legal puts
TRUE_PUTS, TRUE_PUTS_N = _padded(TRUE_PUT_TABLE)
SHOWS, SHOWS_N = _padded(SHOW_TABLE)
MAX_LEGAL = max(PUTS.shape[1], TRUE_PUTS.shape[1], SHOWS.shape[1], 6)


def _table_values(n: int) -> np.ndarray:
    """``TABLE_VALUE[k]``: k cards summed as the core sums them (float64 += TABLE_SCALE), as float32."""
    values, total = [], 0.0
    for _ in range(n + 1):
        values.append(total)
        total += TABLE_SCALE
    return np.array(values, np.float32)


TABLE_VALUE = _table_values(MAX_CARDS)
PHASE_SLOT = np.array(OBS_PHASE_SLOT, np.int64)  # the core's O_PHASE slot of each phase
TABLE_SLOTS = 18 * 4  # O_TABLE .. O_TABLE + 71, then O_OWN_FACE 18, O_UP_FACE 18 (contiguous)
assert O_OWN_FACE == O_TABLE + TABLE_SLOTS and O_UP_FACE == O_OWN_FACE + 18


# ----- small helpers ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _mover(st, i) -> int:
    """The seat whose put-and-declare turn it is."""
    return st[i, FIRST_P] if st[i, TURN] % 2 == 0 else 1 - st[i, FIRST_P]


@njit(cache=True, inline="always")
def _current(st, i) -> int:
    ph = st[i, PHASE]
    if ph == PUT or ph == CALLING:
        return _mover(st, i)
    if ph == CHIPPING:
        return st[i, CHIP_PLAYER]
    if ph == SHOW:
        return st[i, FIRST_P] if st[i, PEND_C] < 0 else 1 - st[i, FIRST_P]
    if ph == KEEP:
        return 0 if st[i, PICKS] < 3 else 1
    return TERMINAL  # OVER (chance phases never stay pending)


@njit(cache=True, inline="always")
def _hand_bits(st, i, p: int) -> int:
    h = HANDS + 6 * p
    bits = 0
    for c in range(6):
        if st[i, h + c] > 0:
            bits |= 1 << c
    return bits


@njit(cache=True, inline="always")
def _kept_code(st, i, p: int) -> int:
    code = 0
    for c in range(6):
        code += st[i, KEPT + 6 * p + c] * POW4[c]
    return code


@njit(cache=True, inline="always")
def _start_round(st, i) -> None:
    """Shuffle the deck (everything but the kept cards) and start dealing."""
    for c in range(6):
        st[i, DECK + c] = CARDS_PER_COLOUR - st[i, KEPT + c] - st[i, KEPT + 6 + c]
        st[i, HANDS + c] = 0
        st[i, HANDS + 6 + c] = 0
    st[i, NCARDS] = 0
    st[i, DEALT] = 0
    st[i, TURN] = 0
    st[i, LAST] = -1
    st[i, LAST + 1] = -1
    st[i, PEND_C] = -1
    st[i, PEND_S] = -1
    st[i, PHASE] = DEAL


@njit(cache=True, inline="always")
def _start_row(st, i, forb) -> None:
    for k in range(WIDTH):
        st[i, k] = 0
    st[i, FIRST_P] = -1
    st[i, LAST] = -1
    st[i, LAST + 1] = -1
    st[i, CHIP_CARD] = -1
    st[i, CHIP_PLAYER] = -1
    st[i, PEND_C] = -1
    st[i, PEND_S] = -1
    st[i, PHASE] = KEEP
    forb[i] = np.uint64(0)


@njit(cache=True, inline="always")
def _end_turn(st, i) -> None:
    t = st[i, TURN] + 1
    st[i, TURN] = t
    st[i, PHASE] = SHOW if t == TURNS_PER_ROUND else PUT


@njit(cache=True, inline="always")
def _add_card(st, i, square, owner, face, declared, chip, up) -> int:
    n = st[i, NCARDS]
    b = CARDS + 6 * n
    st[i, b] = square
    st[i, b + 1] = owner
    st[i, b + 2] = face
    st[i, b + 3] = declared
    st[i, b + 4] = chip
    st[i, b + 5] = up
    st[i, NCARDS] = n + 1
    return n


@njit(cache=True, inline="always")
def _end_round(st, i, max_rounds: int) -> None:
    """Square 1's winner moves 1, square 2's 2, square 3's 3; stop the moment a fox reaches 6."""
    n = st[i, NCARDS]
    for square in range(1, 4):
        for c in range(6):
            st[i, SCRATCH + c] = 0
        for k in range(n):
            b = CARDS + 6 * k
            if st[i, b] == square:
                st[i, SCRATCH + st[i, b + 4]] += 1
        # the highest count held by exactly one colour (colours without cards do not count)
        winner, best = -1, 0
        for c in range(6):
            m = st[i, SCRATCH + c]
            if m > best:
                unique = True
                for d in range(6):
                    if d != c and st[i, SCRATCH + d] == m:
                        unique = False
                if unique:
                    winner, best = c, m
        if winner >= 0:
            f = min(FINISH, st[i, FOXES + winner] + square)
            st[i, FOXES + winner] = f
            if f == FINISH:
                st[i, FINISHED] = 1
                break
    if st[i, FINISHED] or st[i, ROUND] >= max_rounds:
        st[i, PHASE] = OVER
    else:
        st[i, ROUND] += 1
        st[i, FIRST_P] = 1 - st[i, FIRST_P]
        _start_round(st, i)


@njit(cache=True, nogil=True)
def _apply(st, i, forb, a: int, max_rounds: int) -> None:
    """The core's ``_apply_action`` for a decision or a chance outcome."""
    ph = st[i, PHASE]
    if ph == DEAL:
        d = st[i, DEALT]
        receiver = st[i, FIRST_P] if d < FIRST_HAND else 1 - st[i, FIRST_P]
        st[i, HANDS + 6 * receiver + a] += 1
        st[i, DECK + a] -= 1
        st[i, DEALT] = d + 1
        if d + 1 == DEAL_TOTAL:
            st[i, PHASE] = PUT
    elif ph == PUT:
        code = a - PUT0
        square, colour, declared = code // 36 + 1, code % 36 // 6, code % 6
        p = _mover(st, i)
        st[i, HANDS + 6 * p + colour] -= 1
        up = 1 if st[i, TURN] == TURNS_PER_ROUND - 1 else 0
        st[i, LAST + p] = _add_card(st, i, square, p, colour, declared, declared, up)
        target = st[i, LAST + 1 - p]
        if target >= 0 and st[i, CARDS + 6 * target + 5] == 0:
            st[i, PHASE] = CALLING
        else:
            _end_turn(st, i)
    elif ph == CALLING:
        p = _mover(st, i)
        st[i, STATS + 4 * p + 3] += 1
        if a == PASS:
            _end_turn(st, i)
            return
        st[i, STATS + 4 * p + 2] += 1
        o = 1 - p
        target = st[i, LAST + o]
        b = CARDS + 6 * target
        st[i, b + 5] = 1
        st[i, PHASE] = CHIPPING
        if st[i, b + 2] != st[i, b + 4]:  # a lie: the caller chooses its chip
            st[i, STATS + 4 * o + 1] += 1
            st[i, CHIP_CARD] = target
            st[i, CHIP_PLAYER] = p
        else:  # the truth: the caller's card is turned up, the opponent chooses its chip
            st[i, STATS + 4 * o] += 1
            own = st[i, LAST + p]
            st[i, CARDS + 6 * own + 5] = 1
            st[i, CHIP_CARD] = own
            st[i, CHIP_PLAYER] = o
    elif ph == CHIPPING:
        st[i, CARDS + 6 * st[i, CHIP_CARD] + 4] = a - CHIP0
        st[i, CHIP_CARD] = -1
        st[i, CHIP_PLAYER] = -1
        _end_turn(st, i)
    elif ph == SHOW:
        code = a - SHOW0
        colour, square = code % 6, code // 6 + 1
        if st[i, PEND_C] < 0:
            st[i, PEND_C] = colour
            st[i, PEND_S] = square
            return
        f = st[i, FIRST_P]
        pc = st[i, PEND_C]
        st[i, HANDS + 6 * f + pc] -= 1
        _add_card(st, i, st[i, PEND_S], f, pc, -1, pc, 1)
        st[i, HANDS + 6 * (1 - f) + colour] -= 1
        _add_card(st, i, square, 1 - f, colour, -1, colour, 1)
        st[i, PEND_C] = -1
        st[i, PEND_S] = -1
        _end_round(st, i, max_rounds)
    elif ph == KEEP:
        picks = st[i, PICKS]
        p = 0 if picks < 3 else 1
        st[i, KEPT + 6 * p + a] += 1
        picks += 1
        st[i, PICKS] = picks
        if picks < 6:
            return
        same = True
        for c in range(6):
            if st[i, KEPT + c] != st[i, KEPT + 6 + c]:
                same = False
        nforb = 0
        bits = forb[i]
        for k in range(NUM_MULTISETS):
            if (bits >> np.uint64(k)) & np.uint64(1):
                nforb += 1
        if same and nforb < NUM_MULTISETS - 1:
            forb[i] = bits | (np.uint64(1) << np.uint64(MULTISET_OF_CODE[_kept_code(st, i, 0)]))
            for k in range(12):
                st[i, KEPT + k] = 0
            st[i, PICKS] = 0
            return
        st[i, PHASE] = FIRST
    elif ph == FIRST:
        st[i, FIRST_P] = a
        st[i, ROUND] = 1
        _start_round(st, i)


@njit(cache=True, inline="always")
def _resolve(st, i, forb, streams, hist, hlen, max_rounds: int) -> None:
    """Draw the chance nodes until a player is to move (or the game is over)."""
    while True:
        ph = st[i, PHASE]
        if ph == DEAL:
            total = 0
            for c in range(6):
                total += st[i, DECK + c]
            x = np.int64(below(streams, i, CHANCE_STREAM, total))
            a = np.int64(0)
            while x >= st[i, DECK + a]:
                x -= st[i, DECK + a]
                a += 1
        elif ph == FIRST:
            a = np.int64(below(streams, i, CHANCE_STREAM, 2))
        else:
            return
        push_history(hist, hlen, i, a)
        _apply(st, i, forb, a, max_rounds)


@njit(cache=True, nogil=True)
def _write_view(out, st, i, fbits, v: int, max_rounds: int) -> None:
    """The core's ``observation_tensor(v)`` of this position into ``out``."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    o = 1 - v
    hand_v, hand_o = 0, 0
    for c in range(6):
        h = st[i, HANDS + 6 * v + c]
        hand_v += h
        hand_o += st[i, HANDS + 6 * o + c]
        out[i, O_HAND + c] = plane_ratio(out, h, 12.0)
        out[i, O_KEPT + c] = plane_ratio(out, st[i, KEPT + 6 * v + c], 3.0)
        out[i, O_FOX + c * 7 + st[i, FOXES + c]] = 1.0
    n = st[i, NCARDS]
    for k in range(n):  # counts first, turned into the core's sums below
        b = CARDS + 6 * k
        s1 = st[i, b] - 1
        up = st[i, b + 5]
        if st[i, b + 1] == v:
            group = 0 if up else 1
        else:
            group = 2 if up else 3
        out[i, O_TABLE + (s1 * 6 + st[i, b + 4]) * 4 + group] += 1.0
        if up:
            out[i, O_UP_FACE + s1 * 6 + st[i, b + 2]] += 1.0
        elif st[i, b + 1] == v:
            out[i, O_OWN_FACE + s1 * 6 + st[i, b + 2]] += 1.0
    if n:
        for k in range(O_TABLE, O_TABLE + TABLE_SLOTS + 36):
            out[i, k] = plane_table(out, int(out[i, k]), TABLE_VALUE)
    ph = st[i, PHASE]
    if ph == CALLING and _mover(st, i) == v:
        b = CARDS + 6 * st[i, LAST + o]
        out[i, O_CALLABLE + st[i, b] - 1] = 1.0
        out[i, O_CALLABLE + 3 + st[i, b + 4]] = 1.0
    own = st[i, LAST + v]
    if own >= 0:
        b = CARDS + 6 * own
        out[i, O_MY_LAST + st[i, b] - 1] = 1.0
        out[i, O_MY_LAST + 3 + st[i, b + 2]] = 1.0
    if _current(st, i) != v:
        out[i, O_PHASE + 5] = 1.0
    else:
        out[i, O_PHASE + PHASE_SLOT[ph]] = 1.0
        if ph == CHIPPING:
            b = CARDS + 6 * st[i, CHIP_CARD]
            out[i, O_CHIP + st[i, b] - 1] = 1.0
            out[i, O_CHIP + (3 if st[i, b + 1] == v else 4)] = 1.0
            out[i, O_CHIP_FACE + st[i, b + 2]] = 1.0
    out[i, O_ROUND] = plane_ratio(out, st[i, ROUND], max_rounds)
    out[i, O_TURN] = plane_ratio(out, st[i, TURN], TURNS_PER_ROUND)
    out[i, O_FIRST] = 1.0 if st[i, FIRST_P] == v else 0.0
    out[i, O_SEAT] = v
    out[i, O_PICKS] = plane_ratio(out, st[i, PICKS], 6.0)
    out[i, O_SIZES] = plane_ratio(out, hand_v, 12.0)
    out[i, O_SIZES + 1] = plane_ratio(out, hand_o, 12.0)
    if fbits:
        for k in range(NUM_MULTISETS):
            if (fbits >> np.uint64(k)) & np.uint64(1):
                out[i, O_FORBIDDEN + k] = 1.0
    if st[i, PEND_C] >= 0 and v == st[i, FIRST_P]:
        out[i, O_PENDING + (st[i, PEND_S] - 1) * 6 + st[i, PEND_C]] = 1.0
    base = O_STATS
    for seat in (v, o):
        for k in range(4):
            x = st[i, STATS + 4 * seat + k]
            out[i, base] = plane_squashed(out, x)
            base += 1


@njit(cache=True, nogil=True)
def _publish(st, i, forb, mask, legal, nlegal, obs, player, max_rounds: int) -> None:
    """Player, legal list and observation of row ``i`` for the player to move."""
    clear_legal(mask, legal, nlegal, i)
    ph = st[i, PHASE]
    p = _current(st, i)
    player[i] = p
    if ph == PUT:
        bits = _hand_bits(st, i, p)
        if st[i, TURN] == TURNS_PER_ROUND - 1:
            for k in range(TRUE_PUTS_N[bits]):
                add_legal(mask, legal, nlegal, i, TRUE_PUTS[bits, k])
        else:
            for k in range(PUTS_N[bits]):
                add_legal(mask, legal, nlegal, i, PUTS[bits, k])
    elif ph == CALLING:
        add_legal(mask, legal, nlegal, i, CALL)
        add_legal(mask, legal, nlegal, i, PASS)
    elif ph == CHIPPING:
        for c in range(6):
            add_legal(mask, legal, nlegal, i, CHIP0 + c)
    elif ph == SHOW:
        bits = _hand_bits(st, i, p)
        for k in range(SHOWS_N[bits]):
            add_legal(mask, legal, nlegal, i, SHOWS[bits, k])
    elif ph == KEEP:
        code = _kept_code(st, i, p)
        allowed = ~forb[i]
        for c in range(6):
            if COMPLETION_BITS[code, c] & allowed:
                add_legal(mask, legal, nlegal, i, c)
    _write_view(obs, st, i, forb[i], p, max_rounds)


@njit(cache=True, inline="always")
def _returns(st, i, rewards) -> None:
    """The core's ``returns()`` of a finished game into ``rewards[i]``."""
    if not st[i, FINISHED]:
        return
    s0, s1 = 0, 0
    for c in range(6):
        s0 += st[i, KEPT + c] * st[i, FOXES + c]
        s1 += st[i, KEPT + 6 + c] * st[i, FOXES + c]
    if s0 != s1:
        win_for(rewards, i, 0 if s0 > s1 else 1)


# ----- the kernels ----------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, st, forb, common, max_rounds) -> None:
    """A new game (the scoring picks first) in every row ``i`` of ``[lo, hi)`` with ``which[i]``."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    st, forb = borrowed((st, forb))
    for i in range(lo, hi):
        if which[i]:
            _start_row(st, i, forb)
            moves[i] = 0
            hlen[i] = 0
            _publish(st, i, forb, mask, legal, nlegal, obs, player, max_rounds)


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, st, forb, common, max_moves, auto_reset, final_view, max_rounds) -> None:
    """The decision of every row of ``[lo, hi)`` with an action, then the chance it leads to; the
    game ends when it is over or after ``max_moves`` decisions."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    st, forb = borrowed((st, forb))
    for i in range(lo, hi):
        a = take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i)
        if a < 0:
            continue
        mover = player[i]
        _apply(st, i, forb, a, max_rounds)
        _resolve(st, i, forb, streams, hist, hlen, max_rounds)
        over = st[i, PHASE] == OVER
        if not over and moves[i] < max_moves:
            _publish(st, i, forb, mask, legal, nlegal, obs, player, max_rounds)
            continue
        if over:
            term[i] = True
            _returns(st, i, rewards)
        else:
            trunc[i] = True
        _write_view(final_obs, st, i, forb[i], mover if final_view < 0 else final_view, max_rounds)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _start_row(st, i, forb)
            moves[i] = 0
            _publish(st, i, forb, mask, legal, nlegal, obs, player, max_rounds)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)
            for k in range(OBS_SIZE):
                obs[i, k] = final_obs[i, k]


@njit(cache=True, nogil=True)
def replay_row(i, history, st, forb, common, max_rounds) -> None:
    """Row ``i`` from the start through ``history`` (decisions and chance outcomes), then chance
    drawn until a player is to move."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    st, forb = borrowed((st, forb))
    _start_row(st, i, forb)
    moves[i] = 0
    hlen[i] = 0
    for a in history:
        push_history(hist, hlen, i, a)
        ph = st[i, PHASE]
        if ph != DEAL and ph != FIRST:
            moves[i] += 1
        _apply(st, i, forb, a, max_rounds)
    _resolve(st, i, forb, streams, hist, hlen, max_rounds)
    _publish(st, i, forb, mask, legal, nlegal, obs, player, max_rounds)


@njit(cache=True, nogil=True)
def run_rows(box, lo, hi, mode, actions, max_moves, auto_reset, final_view) -> int:
    """The ``Rows`` box's kernel (``fox_envs.batch._box``): ``mode``'s work on ``actions`` for
    rows ``[lo, hi)``, then the step unless an illegal action was found (its row is returned)."""
    bad = prepare(box.common, lo, hi, mode, actions)
    if bad < 0 and mode != PICK:
        step_rows(lo, hi, actions, box.state[0], box.state[1], box.common, max_moves, auto_reset, final_view, box.extra[0])
    return bad
