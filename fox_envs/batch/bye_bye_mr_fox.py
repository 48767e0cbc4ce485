"""Bye Bye Mr. Fox! batched kernels (the rules of ``fox_envs.games.bye_bye_mr_fox``, SPEC 2.4).

The board (default layout; ``layout`` moves the printed pictures)::

                      O0 three hens
          O5 brown                    O1 black
                   N5      N0      N1
                   N4      N3      N2
          O4 fox                      O2 fox
                      O3 white

    the spinner's front end points at sector s, its back end at nest circle N<(s+3) mod 6>

State of row ``i`` (structure of arrays)::

    circles[i, 0..5]    1 if an egg lies on nest circle N0..N5
    visible[i, 0..5]    the picture visible on O0..O5 (a token's kind, else the printing):
                        black 0, brown 1, white 2, fox 4, three hens 5 (egg 3 never shows)
    covered[i, 0..5]    1 if a token lies on O0..O5
    nests[i, 0..2]      eggs in the black, brown, white hen's nest (capacity 3)
    face_down[i, 0..4]  face-down black/brown/white hens, eggs, foxes; left[i] their sum
    discarded[i, 0..4]  discarded tokens of each kind
    phase[i]            PLACE or GIVE (the decision the row waits for; chance is never left
                        pending), token[i] the token to place, spin[i] the last spin's sector
    turn[i]             turns started before the current one (the seat is turn % num_players)

The observation (68 floats, the same for every seat: all is public) is kept up to date value by
value as the state changes (``_write_view`` writes it whole on reset and replay); each value is
read from a table computed with the core's own float32 arithmetic (``FACE_DOWN_VALUE`` etc.).
A step: the decision (place or give), then the chance nodes it leads to drawn from the row's own
stream (spin 1/6 each; flip proportional to what is left face down), until a decision or the
end, with the end checks of the core's ``_end_turn`` (win, then out of tokens).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._rng import CHANCE_STREAM, below
from fox_envs.batch._rows import TERMINAL, add_legal, begin_row, clear_legal, keep_history, push_history
from fox_envs.batch.env import GameKernels
from fox_envs.games.bye_bye_mr_fox import (EGG, FLIP, FOX, GIVE, GIVE_ACTION, HENS, NEST_CAPACITY, OBS_COVERED,
                                           OBS_DISCARDED, OBS_FACE_DOWN, OBS_NESTS, OBS_PHASE, OBS_SIZE, OBS_SPIN,
                                           OBS_TOKEN, OBS_VISIBLE, OUTER_ACTION, PLACE, SPIN, THREE_HENS,
                                           VISIBLE_SLOT, ByeByeMrFoxGame)

_GAME = ByeByeMrFoxGame()
# ALLOWED[token, picture]: a hen or fox token may go on an outer circle showing that picture
# (the core's ``Game.allowed``, which does not depend on params; the egg row is unused).
ALLOWED = np.zeros((5, 6), np.bool_)
for _token, _row in _GAME.allowed.items():
    ALLOWED[_token] = _row
SLOT = np.full(6, -1, np.int64)  # observation slot of each visible picture
for _kind, _slot in VISIBLE_SLOT.items():
    SLOT[_kind] = _slot
_nest_values = np.zeros(NEST_CAPACITY + 1, np.float32)
_nest_values[:] = np.arange(NEST_CAPACITY + 1)
_nest_values *= 1.0 / NEST_CAPACITY  # the core's own operation
NEST_VALUE = _nest_values
COUNT_LIMIT = 17  # counts of one kind are at most egg_tokens <= 16
FULL = np.int8(NEST_CAPACITY)
CONTINUE, WON, LOST = 0, 1, 2


def _value_table(scale: np.ndarray) -> np.ndarray:
    """``table[k, n]``: the core's float32 of count ``n`` of kind ``k`` times ``scale[k]``."""
    table = np.zeros((5, COUNT_LIMIT), np.float32)
    for n in range(COUNT_LIMIT):
        column = np.zeros(5, np.float32)
        column[:] = [n] * 5
        column *= scale
        table[:, n] = column
    return table


# ----- observation ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _write_view(out, i, circles, visible, covered, nests, face_down, discarded, phase, token, spin,
                fd_value, disc_value) -> None:
    """The core's ``observation_tensor`` of row ``i`` into ``out`` (68 floats)."""
    for k in range(OBS_SIZE):
        out[k] = 0.0
    for s in range(6):
        out[s] = circles[i, s]
        out[OBS_VISIBLE + 5 * s + SLOT[visible[i, s]]] = 1.0
        out[OBS_COVERED + s] = covered[i, s]
    for c in range(3):
        out[OBS_NESTS + c] = NEST_VALUE[nests[i, c]]
    for k in range(5):
        out[OBS_FACE_DOWN + k] = fd_value[k, face_down[i, k]]
        out[OBS_DISCARDED + k] = disc_value[k, discarded[i, k]]
    if phase[i] == PLACE:
        out[OBS_TOKEN + token[i]] = 1.0
        out[OBS_PHASE] = 1.0
    elif phase[i] == GIVE:
        out[OBS_SPIN + spin[i]] = 1.0
        out[OBS_PHASE + 1] = 1.0


@njit(cache=True, inline="always")
def _discard(o, i, kind, discarded, disc_value) -> None:
    n = discarded[i, kind] + 1
    discarded[i, kind] = n
    o[OBS_DISCARDED + kind] = disc_value[kind, n]


# ----- rules --------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _start_row(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
               printed, initial_face_down, white_sector) -> None:
    """The setup: an egg on every nest circle but the white hen's, all tokens face down, before
    the first flip."""
    total = 0
    for s in range(6):
        circles[i, s] = 0 if s == white_sector else 1
        visible[i, s] = printed[s]
        covered[i, s] = 0
    for c in range(3):
        nests[i, c] = 0
    for k in range(5):
        face_down[i, k] = initial_face_down[k]
        discarded[i, k] = 0
        total += initial_face_down[k]
    left[i] = total
    phase[i] = FLIP
    token[i] = -1
    spin[i] = -1
    turn[i] = 0


@njit(cache=True, inline="always")
def _flip(o, i, t, mask, legal, nlegal, circles, visible, face_down, discarded, phase, token, left, fd_value,
          disc_value) -> bool:
    """Token ``t`` turns face up: True when it has a place (the row waits for that decision,
    whose actions are now legal), False when it was discarded (the spin follows)."""
    n = face_down[i, t] - 1
    face_down[i, t] = n
    left[i] -= 1
    o[OBS_FACE_DOWN + t] = fd_value[t, n]
    if t == EGG:
        for s in range(6):
            if circles[i, s] == 0:
                add_legal(mask, legal, nlegal, i, s)
    else:
        for s in range(6):
            if ALLOWED[t, visible[i, s]]:
                add_legal(mask, legal, nlegal, i, OUTER_ACTION + s)
    if nlegal[i] == 0:
        _discard(o, i, t, discarded, disc_value)
        token[i] = t
        phase[i] = SPIN
        return False
    token[i] = t
    phase[i] = PLACE
    o[OBS_TOKEN + t] = 1.0
    o[OBS_PHASE] = 1.0
    return True


@njit(cache=True, inline="always")
def _place(o, i, a, circles, visible, covered, discarded, phase, token, disc_value) -> None:
    t = token[i]
    o[OBS_TOKEN + t] = 0.0
    o[OBS_PHASE] = 0.0
    if a < OUTER_ACTION:
        circles[i, a] = 1
        o[a] = 1.0
    else:
        s = a - OUTER_ACTION
        old = visible[i, s]
        if covered[i, s]:
            _discard(o, i, old, discarded, disc_value)
        else:
            covered[i, s] = 1
            o[OBS_COVERED + s] = 1.0
        o[OBS_VISIBLE + 5 * s + SLOT[old]] = 0.0
        o[OBS_VISIBLE + 5 * s + SLOT[t]] = 1.0
        visible[i, s] = t
    phase[i] = SPIN


@njit(cache=True, inline="always")
def _spin(o, i, s, mask, legal, nlegal, circles, visible, nests, discarded, phase, spin, disc_value) -> bool:
    """The spin points at sector ``s``: True when the players must give the egg (the row
    waits for that decision, whose actions are now legal), False when the turn ends."""
    spin[i] = s
    back = (s + 3) % 6
    if circles[i, back] == 0:
        return False
    circles[i, back] = 0
    o[back] = 0.0
    picture = visible[i, s]
    if picture == THREE_HENS:
        for c in range(3):
            if nests[i, c] < FULL:
                add_legal(mask, legal, nlegal, i, GIVE_ACTION + c)
        phase[i] = GIVE
        o[OBS_SPIN + s] = 1.0
        o[OBS_PHASE + 1] = 1.0
        return True
    if picture == FOX or nests[i, picture] >= FULL:
        _discard(o, i, EGG, discarded, disc_value)
    else:
        n = nests[i, picture] + 1
        nests[i, picture] = n
        o[OBS_NESTS + picture] = NEST_VALUE[n]
    return False


@njit(cache=True, inline="always")
def _turn_over(i, nests, left) -> int:
    """The core's ``_end_turn`` checks: WON when every nest is full, LOST when no token is left
    face down, else CONTINUE (the next turn's flip)."""
    if nests[i, 0] == FULL and nests[i, 1] == FULL and nests[i, 2] == FULL:
        return WON
    if left[i] == 0:
        return LOST
    return CONTINUE


@njit(cache=True, inline="always")
def _draw_flip(streams, i, face_down, left) -> int:
    """A face-down token, each kind with probability proportional to its count."""
    r = below(streams, i, CHANCE_STREAM, left[i])
    k = 0
    while r >= face_down[i, k]:
        r -= face_down[i, k]
        k += 1
    return k


@njit(cache=True, inline="always")
def _resolve(o, i, spinning, common, circles, visible, nests, face_down, discarded, phase, token, spin, turn,
             left, fd_value, disc_value) -> int:
    """Draw chance from the row's stream from the spin (``spinning``) or the end of the turn
    until a decision (CONTINUE) or the end of the game (WON / LOST), every outcome pushed."""
    mask, streams, hist, hlen, legal, nlegal = common[1], common[8], common[9], common[10], common[13], common[14]
    while True:
        if spinning:
            s = below(streams, i, CHANCE_STREAM, 6)
            push_history(hist, hlen, i, s)
            if _spin(o, i, s, mask, legal, nlegal, circles, visible, nests, discarded, phase, spin, disc_value):
                return CONTINUE
        result = _turn_over(i, nests, left)
        if result != CONTINUE:
            return result
        turn[i] += 1
        t = _draw_flip(streams, i, face_down, left)
        push_history(hist, hlen, i, t)
        if _flip(o, i, t, mask, legal, nlegal, circles, visible, face_down, discarded, phase, token, left,
                 fd_value, disc_value):
            return CONTINUE
        spinning = True


@njit(cache=True, inline="always")
def _new_game(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left, common,
              printed, initial_face_down, white_sector, fd_value, disc_value, num_players) -> None:
    """Row ``i`` starts afresh, its chance drawn up to the first decision, and is published."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    _start_row(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
               printed, initial_face_down, white_sector)
    moves[i] = 0
    hlen[i] = 0
    clear_legal(mask, legal, nlegal, i)
    o = obs[i]
    _write_view(o, i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, fd_value,
                disc_value)
    # the first turn has a flip and a spin ahead: nothing can end the game before a decision
    turn[i] = -1
    _resolve(o, i, False, common, circles, visible, nests, face_down, discarded, phase, token, spin, turn, left,
             fd_value, disc_value)
    player[i] = turn[i] % num_players


# ----- the kernels --------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn,
               left, common, printed, initial_face_down, white_sector, fd_value, disc_value, num_players) -> None:
    for i in range(lo, hi):
        if which[i]:
            _new_game(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
                      common, printed, initial_face_down, white_sector, fd_value, disc_value, num_players)


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn,
              left, common, max_moves, auto_reset, final_view, printed, initial_face_down, white_sector, fd_value,
              disc_value, num_players) -> None:
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    for i in range(lo, hi):
        begin_row(rewards, term, trunc, i)
        a = actions[i]
        if a < 0 or player[i] < 0:
            continue
        push_history(hist, hlen, i, a)
        moves[i] += 1
        clear_legal(mask, legal, nlegal, i)
        o = obs[i]
        if phase[i] == PLACE:
            _place(o, i, a, circles, visible, covered, discarded, phase, token, disc_value)
            spinning = True
        else:  # GIVE
            c = a - GIVE_ACTION
            n = nests[i, c] + 1
            nests[i, c] = n
            o[OBS_NESTS + c] = NEST_VALUE[n]
            o[OBS_SPIN + spin[i]] = 0.0
            o[OBS_PHASE + 1] = 0.0
            phase[i] = SPIN
            spinning = False
        result = _resolve(o, i, spinning, common, circles, visible, nests, face_down, discarded, phase, token, spin,
                          turn, left, fd_value, disc_value)
        if result == CONTINUE and moves[i] < max_moves:
            player[i] = turn[i] % num_players
            continue
        if result != CONTINUE:
            term[i] = True
            value = 1.0 if result == WON else -1.0
            for p in range(rewards.shape[1]):
                rewards[i, p] = value
        else:
            trunc[i] = True
        final_obs[i] = o  # every seat sees the same (final_view changes nothing)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _new_game(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
                      common, printed, initial_face_down, white_sector, fd_value, disc_value, num_players)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)


@njit(cache=True, nogil=True)
def replay_row(i, history, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
               common, printed, initial_face_down, white_sector, fd_value, disc_value, num_players) -> None:
    """Row ``i`` through ``history`` (outcomes as given), then chance drawn until a decision.
    Should that chance end the game, the row is finished as a step would finish it without
    auto-reset (term, rewards, final observation, TERMINAL), the replay not knowing auto_reset."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    _start_row(i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, turn, left,
               printed, initial_face_down, white_sector)
    moves[i] = 0
    hlen[i] = 0
    clear_legal(mask, legal, nlegal, i)
    o = obs[i]
    _write_view(o, i, circles, visible, covered, nests, face_down, discarded, phase, token, spin, fd_value,
                disc_value)
    for a in history:
        push_history(hist, hlen, i, a)
        clear_legal(mask, legal, nlegal, i)
        ph = phase[i]
        if ph == FLIP:
            if not _flip(o, i, a, mask, legal, nlegal, circles, visible, face_down, discarded, phase, token, left,
                         fd_value, disc_value):
                phase[i] = SPIN
        elif ph == PLACE:
            moves[i] += 1
            _place(o, i, a, circles, visible, covered, discarded, phase, token, disc_value)
        elif ph == SPIN:
            if not _spin(o, i, a, mask, legal, nlegal, circles, visible, nests, discarded, phase, spin, disc_value):
                phase[i] = FLIP
                turn[i] += 1  # undone below if the history stops here
        else:  # GIVE
            moves[i] += 1
            c = a - GIVE_ACTION
            n = nests[i, c] + 1
            nests[i, c] = n
            o[OBS_NESTS + c] = NEST_VALUE[n]
            o[OBS_SPIN + spin[i]] = 0.0
            o[OBS_PHASE + 1] = 0.0
            phase[i] = FLIP
            turn[i] += 1
    result = CONTINUE
    if phase[i] == SPIN:
        result = _resolve(o, i, True, common, circles, visible, nests, face_down, discarded, phase, token, spin,
                          turn, left, fd_value, disc_value)
    elif phase[i] == FLIP:  # a turn has just ended (or the game starts): its end checks, then flips
        turn[i] -= 1
        result = _resolve(o, i, False, common, circles, visible, nests, face_down, discarded, phase, token, spin,
                          turn, left, fd_value, disc_value)
    if result == CONTINUE:
        player[i] = turn[i] % num_players
        return
    begin_row(rewards, term, trunc, i)
    term[i] = True
    for p in range(rewards.shape[1]):
        rewards[i, p] = 1.0 if result == WON else -1.0
    final_obs[i] = o
    keep_history(hist, hlen, last_hist, last_hlen, i)
    player[i] = TERMINAL
    clear_legal(mask, legal, nlegal, i)


class ByeByeMrFoxKernels(GameKernels):
    max_legal = 6  # an egg on up to 6 empty nest circles; a hen or fox on at most 5 outer circles

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        super().__init__(game)
        self.printed = np.array(game.printed, np.int8)
        self.initial_face_down = np.array(game.initial_face_down, np.int8)
        self.white_sector = int(game.white_sector)
        self.fd_value = _value_table(game.face_down_scale)
        self.disc_value = _value_table(game.discard_scale)
        self.num_players = int(game.num_players)
        self.max_turns = int(game.max_turns)

    def allocate(self, num_envs: int) -> None:
        b = num_envs
        self.circles = np.zeros((b, 6), np.int8)
        self.visible = np.zeros((b, 6), np.int8)
        self.covered = np.zeros((b, 6), np.int8)
        self.nests = np.zeros((b, 3), np.int8)
        self.face_down = np.zeros((b, 5), np.int8)
        self.discarded = np.zeros((b, 5), np.int8)
        self.phase = np.zeros(b, np.int8)
        self.token = np.zeros(b, np.int8)
        self.spin = np.zeros(b, np.int8)
        self.turn = np.zeros(b, np.int32)
        self.left = np.zeros(b, np.int32)

    def _arrays(self) -> tuple:
        return (self.circles, self.visible, self.covered, self.nests, self.face_down, self.discarded, self.phase,
                self.token, self.spin, self.turn, self.left)

    def _params(self) -> tuple:
        return (self.printed, self.initial_face_down, self.white_sector, self.fd_value, self.disc_value,
                self.num_players)

    def history_capacity(self, max_moves: int) -> int:
        # one turn per face-down token, each a flip, a place, a spin and a give at most
        return 4 * self.max_turns

    def reset(self, lo, hi, which, common) -> None:
        reset_rows(lo, hi, which, *self._arrays(), common, *self._params())

    def step(self, lo, hi, actions, common, max_moves, auto_reset, final_view) -> None:
        step_rows(lo, hi, actions, *self._arrays(), common, max_moves, auto_reset, final_view, *self._params())

    def replay(self, i, history, common) -> None:
        replay_row(i, history, *self._arrays(), common, *self._params())
