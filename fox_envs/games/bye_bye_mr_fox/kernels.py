"""Bye Bye Mr. Fox! batched kernels (the rules of ``fox_envs.games.bye_bye_mr_fox.rules``; docs/rules/bye_bye_mr_fox.md).

The board, its circles and sectors are drawn in ``board.py``.

State of row ``i``: one int8 row ``st[i]`` of ``STATE_SIZE`` small counts (one cache line, and
one array for numba to pass around)::

    st[i, CIRCLES + s]    1 if an egg lies on nest circle N<s>                     s = 0..5
    st[i, VISIBLE + s]    the picture visible on O<s> (a token's kind, else the printing):
                          black 0, brown 1, white 2, fox 4, three hens 5 (an egg never shows)
    st[i, COVERED + s]    1 if a token lies on O<s>
    st[i, NESTS + c]      eggs in the black, brown, white hen's nest (capacity 3)  c = 0..2
    st[i, FACE_DOWN + k]  face-down black/brown/white hens, eggs, foxes           k = 0..4
    st[i, DISCARDED + k]  discarded tokens of each kind
    st[i, PHASE]          PLACE or GIVE: the decision the row waits for (chance is never left
                          pending; FLIP / SPIN only while a step or a replay runs)
    st[i, TOKEN]          the token to place (the last one flipped)
    st[i, SPIN]           the sector of the last spin
    st[i, LEFT]           tokens still face down (the sum of FACE_DOWN)
    st[i, TURN]           turns started before the current one: the seat is TURN % num_players

The observation (68 floats, the same for every seat: everything is public) is kept up to date
value by value as the state changes; a new game copies ``start_obs``. Count values come from
``values`` (``values[k, n]`` face down, ``values[5 + k, n]`` discarded, ``values[NEST_ROW, n]``
the nests), computed with the core's own float32 operations, so they are equal bit for bit; for
uint8 observations (``compact_setup``) ``values[k, n]`` is ``n`` itself.

A step: the decision (place or give), then the chance nodes it leads to, drawn from the row's
own stream (a spin 1/6 each; a flip proportional to the counts left face down), until the next
decision or the end of the game, with the end checks of the core's ``_end_turn`` (every nest
full: a win; else no token left face down: a loss).

``env.load`` of a chance node (the core allows one) draws chance until a decision; should that
chance end the game, ``replay_row`` finishes the row as a step without auto-reset finishes it
(``term``, rewards, final observation, TERMINAL), and ``BatchEnv.load`` restarts it when
``auto_reset`` is on.

The kernels take the game's constants as one tuple, ``setup = (start_state, start_obs, values)``
(``ByeByeMrFoxKernels.setup``), and ``step_rows`` and ``reset_rows`` run on borrowed views of
their arrays (``_rows.borrowed``: no reference counts).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._box import PICK, prepare
from fox_envs.batch._rng import CHANCE_STREAM, below
from fox_envs.batch._rows import (TERMINAL, add_legal, begin_row, borrowed, clear_legal, keep_history, push_history,
                                  take_action)
from fox_envs.games.bye_bye_mr_fox.rules import (EGG, FLIP, FOX, GIVE, GIVE_ACTION, NEST_CAPACITY, OBS_COVERED,
                                           OBS_DISCARDED, OBS_FACE_DOWN, OBS_NESTS, OBS_PHASE, OBS_SIZE, OBS_SPIN,
                                           OBS_TOKEN, OBS_VISIBLE, OUTER_ACTION, PLACE, SPIN, THREE_HENS,
                                           VISIBLE_SLOT, ByeByeMrFoxGame)

# ----- the state row ------------------------------------------------------------------------------
CIRCLES, VISIBLE, COVERED, NESTS, FACE_DOWN, DISCARDED = 0, 6, 12, 18, 21, 26
PHASE, TOKEN, SPIN_AT, LEFT, TURN = 31, 32, 33, 34, 35
STATE_SIZE = 36

# ----- tables ---------------------------------------------------------------------------------------
# ALLOWED[token, picture]: a hen or fox token may go on an outer circle showing that picture
# (the core's ``Game.allowed``, which does not depend on params; the egg row is unused).
ALLOWED = np.zeros((5, 6), np.bool_)
for _token, _row in ByeByeMrFoxGame().allowed.items():
    ALLOWED[_token] = _row
SLOT = np.zeros(6, np.int64)  # observation slot of each visible picture (the core's VISIBLE_SLOT)
for _kind, _slot in VISIBLE_SLOT.items():
    SLOT[_kind] = _slot
NEST_VALUE = np.zeros(NEST_CAPACITY + 1, np.float32)
NEST_VALUE[:] = np.arange(NEST_CAPACITY + 1)
NEST_VALUE *= 1.0 / NEST_CAPACITY  # the core's own operation
COUNT_LIMIT = 17  # a count of one kind never exceeds egg_tokens <= 16
NEST_ROW = 10  # the row of ``values`` holding the nests' values
FULL = NEST_CAPACITY
CONTINUE, WON, LOST = 0, 1, 2


def _value_table(scale: np.ndarray) -> np.ndarray:
    """``table[k, n]``: the core's float32 value of count ``n`` of kind ``k`` (``n * scale[k]``
    computed as the core computes it: a float32 vector of counts times ``scale`` in place)."""
    table = np.zeros((5, COUNT_LIMIT), np.float32)
    for n in range(COUNT_LIMIT):
        column = np.zeros(5, np.float32)
        column[:] = [n] * 5
        column *= scale
        table[:, n] = column
    return table


# ----- observation ------------------------------------------------------------------------------------
@njit(cache=True)
def _write_view(out, row, values) -> None:
    """The core's ``observation_tensor`` of state ``row`` into ``out`` (68 floats)."""
    for k in range(OBS_SIZE):
        out[k] = 0.0
    for s in range(6):
        out[s] = row[CIRCLES + s]
        out[OBS_VISIBLE + 5 * s + SLOT[row[VISIBLE + s]]] = 1.0
        out[OBS_COVERED + s] = row[COVERED + s]
    for c in range(3):
        out[OBS_NESTS + c] = values[NEST_ROW, row[NESTS + c]]
    for k in range(5):
        out[OBS_FACE_DOWN + k] = values[k, row[FACE_DOWN + k]]
        out[OBS_DISCARDED + k] = values[5 + k, row[DISCARDED + k]]
    if row[PHASE] == PLACE:
        out[OBS_TOKEN + row[TOKEN]] = 1.0
        out[OBS_PHASE] = 1.0
    elif row[PHASE] == GIVE:
        out[OBS_SPIN + row[SPIN_AT]] = 1.0
        out[OBS_PHASE + 1] = 1.0


@njit(cache=True, inline="always")
def _discard(st, obs, i, kind, values) -> None:
    """One more discarded token of ``kind``."""
    n = st[i, DISCARDED + kind] + 1
    st[i, DISCARDED + kind] = n
    obs[i, OBS_DISCARDED + kind] = values[5 + kind, n]


@njit(cache=True, inline="always")
def _to_nest(st, obs, i, hen, values) -> None:
    """One more egg in the nest of ``hen``."""
    n = st[i, NESTS + hen] + 1
    st[i, NESTS + hen] = n
    obs[i, OBS_NESTS + hen] = values[NEST_ROW, n]


# ----- rules ------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _flip(st, obs, mask, legal, nlegal, i, t, values) -> bool:
    """Token ``t`` turns face up: True when it has a place (the row waits for that decision,
    whose actions are now legal), False when it is discarded (the spin follows)."""
    n = st[i, FACE_DOWN + t] - 1
    st[i, FACE_DOWN + t] = n
    st[i, LEFT] -= 1
    obs[i, OBS_FACE_DOWN + t] = values[t, n]
    st[i, TOKEN] = t
    if t == EGG:
        for s in range(6):
            if st[i, CIRCLES + s] == 0:
                add_legal(mask, legal, nlegal, i, s)
    else:
        for s in range(6):
            if ALLOWED[t, st[i, VISIBLE + s]]:
                add_legal(mask, legal, nlegal, i, OUTER_ACTION + s)
    if nlegal[i] == 0:
        _discard(st, obs, i, t, values)
        st[i, PHASE] = SPIN
        return False
    st[i, PHASE] = PLACE
    obs[i, OBS_TOKEN + t] = 1.0
    obs[i, OBS_PHASE] = 1.0
    return True


@njit(cache=True, inline="always")
def _place(st, obs, i, a, values) -> None:
    """The token goes where ``a`` says; a token it covers on an outer circle is discarded."""
    t = st[i, TOKEN]
    obs[i, OBS_TOKEN + t] = 0.0
    obs[i, OBS_PHASE] = 0.0
    if a < OUTER_ACTION:
        st[i, CIRCLES + a] = 1
        obs[i, a] = 1.0
    else:
        s = a - OUTER_ACTION
        old = st[i, VISIBLE + s]
        if st[i, COVERED + s]:
            _discard(st, obs, i, old, values)
        else:
            st[i, COVERED + s] = 1
            obs[i, OBS_COVERED + s] = 1.0
        obs[i, OBS_VISIBLE + 5 * s + SLOT[old]] = 0.0
        obs[i, OBS_VISIBLE + 5 * s + SLOT[t]] = 1.0
        st[i, VISIBLE + s] = t
    st[i, PHASE] = SPIN


@njit(cache=True, inline="always")
def _give(st, obs, i, a, values) -> None:
    """The egg of the three-hens spin goes to the nest ``a`` names."""
    _to_nest(st, obs, i, a - GIVE_ACTION, values)
    obs[i, OBS_SPIN + st[i, SPIN_AT]] = 0.0
    obs[i, OBS_PHASE + 1] = 0.0
    st[i, PHASE] = FLIP


@njit(cache=True, inline="always")
def _spin(st, obs, mask, legal, nlegal, i, s, values) -> bool:
    """The spin points at sector ``s``: True when the players must give the egg (the row waits
    for that decision, whose actions are now legal), False when the turn ends."""
    st[i, SPIN_AT] = s
    st[i, PHASE] = FLIP
    back = (s + 3) % 6
    if st[i, CIRCLES + back] == 0:
        return False
    st[i, CIRCLES + back] = 0
    obs[i, back] = 0.0
    picture = st[i, VISIBLE + s]
    if picture == THREE_HENS:
        for c in range(3):
            if st[i, NESTS + c] < FULL:
                add_legal(mask, legal, nlegal, i, GIVE_ACTION + c)
        st[i, PHASE] = GIVE
        obs[i, OBS_SPIN + s] = 1.0
        obs[i, OBS_PHASE + 1] = 1.0
        return True
    if picture == FOX or st[i, NESTS + picture] >= FULL:
        _discard(st, obs, i, EGG, values)
    else:
        _to_nest(st, obs, i, picture, values)
    return False


@njit(cache=True, inline="always")
def _resolve(st, obs, mask, legal, nlegal, streams, hist, hlen, i, values) -> int:
    """From a chance node (PHASE FLIP: a turn has ended, its end checks first; SPIN) draw
    chance from the row's stream, every outcome pushed, until a decision (CONTINUE) or the end
    of the game (WON, LOST)."""
    while True:
        if st[i, PHASE] == SPIN:
            s = below(streams, i, CHANCE_STREAM, 6)
            push_history(hist, hlen, i, s)
            if _spin(st, obs, mask, legal, nlegal, i, s, values):
                return CONTINUE
        # the core's _end_turn
        if st[i, NESTS] == FULL and st[i, NESTS + 1] == FULL and st[i, NESTS + 2] == FULL:
            return WON
        left = st[i, LEFT]
        if left == 0:
            return LOST
        st[i, TURN] += 1
        r = below(streams, i, CHANCE_STREAM, left)
        t = 0
        while r >= st[i, FACE_DOWN + t]:  # each kind with probability count / left
            r -= st[i, FACE_DOWN + t]
            t += 1
        push_history(hist, hlen, i, t)
        if _flip(st, obs, mask, legal, nlegal, i, t, values):
            return CONTINUE


@njit(cache=True, inline="always")
def _start_row(st, obs, moves, hlen, mask, legal, nlegal, i, start_state, start_obs) -> None:
    """The setup, before the first flip (TURN -1: the first flip starts turn 0)."""
    for k in range(STATE_SIZE):
        st[i, k] = start_state[k]
    for k in range(OBS_SIZE):
        obs[i, k] = start_obs[k]
    moves[i] = 0
    hlen[i] = 0
    clear_legal(mask, legal, nlegal, i)


@njit(cache=True, inline="always")
def _keep_final(common, i) -> None:
    """The row's observation as its final observation (every seat sees the same, so the view
    asked for changes nothing) and its history kept."""
    obs, final_obs = common[0], common[6]
    hist, hlen, last_hist, last_hlen = common[9], common[10], common[11], common[12]
    for k in range(OBS_SIZE):
        final_obs[i, k] = obs[i, k]
    keep_history(hist, hlen, last_hist, last_hlen, i)


@njit(cache=True, inline="always")
def _finish(common, i, result) -> None:
    """The game of row ``i`` ended (WON or LOST): every seat's reward +1 or -1, ``term`` set,
    final observation and history kept."""
    rewards, term = common[3], common[4]
    term[i] = True
    value = 1.0 if result == WON else -1.0
    for p in range(rewards.shape[1]):
        rewards[i, p] = value
    _keep_final(common, i)


# ----- the kernels --------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, st, common, setup, num_players) -> None:
    """A new game in every row ``i`` of ``[lo, hi)`` with ``which[i]``, chance drawn up to the
    first decision."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    start_state, start_obs, values = setup
    which, st, start_state, start_obs, values = borrowed((which, st, start_state, start_obs, values))
    for i in range(lo, hi):
        if which[i]:
            _start_row(st, obs, moves, hlen, mask, legal, nlegal, i, start_state, start_obs)
            _resolve(st, obs, mask, legal, nlegal, streams, hist, hlen, i, values)  # no end before a decision
            player[i] = st[i, TURN] % num_players


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, st, common, max_moves, auto_reset, final_view, setup, num_players) -> None:
    """The decision of every row of ``[lo, hi)`` with an action, then chance up to the next
    decision or the end of the game; ``max_moves`` decisions truncate it."""
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    start_state, start_obs, values = setup
    actions, st, start_state, start_obs, values = borrowed((actions, st, start_state, start_obs, values))
    for i in range(lo, hi):
        a = take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i)
        if a < 0:
            continue
        clear_legal(mask, legal, nlegal, i)
        if st[i, PHASE] == PLACE:
            _place(st, obs, i, a, values)
        else:
            _give(st, obs, i, a, values)
        result = _resolve(st, obs, mask, legal, nlegal, streams, hist, hlen, i, values)
        if result == CONTINUE:
            if moves[i] < max_moves:
                player[i] = st[i, TURN] % num_players
                continue
            trunc[i] = True
            _keep_final(common, i)
        else:
            _finish(common, i, result)
        if auto_reset:
            _start_row(st, obs, moves, hlen, mask, legal, nlegal, i, start_state, start_obs)
            _resolve(st, obs, mask, legal, nlegal, streams, hist, hlen, i, values)
            player[i] = st[i, TURN] % num_players
        else:  # obs already holds the final observation
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)


@njit(cache=True, nogil=True)
def replay_row(i, history, st, common, setup, num_players) -> None:
    """Row ``i`` through ``history`` (chance outcomes applied as given), then chance drawn until
    a decision. Should that chance end the game (a loaded chance node can), the row ends as a
    step without auto-reset ends it: term, rewards, final observation, TERMINAL."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    start_state, start_obs, values = setup
    _start_row(st, obs, moves, hlen, mask, legal, nlegal, i, start_state, start_obs)
    for k in range(history.shape[0]):
        a = history[k]
        push_history(hist, hlen, i, a)
        phase = st[i, PHASE]
        if phase == FLIP:
            clear_legal(mask, legal, nlegal, i)
            st[i, TURN] += 1
            _flip(st, obs, mask, legal, nlegal, i, a, values)
        elif phase == PLACE:
            moves[i] += 1
            _place(st, obs, i, a, values)
        elif phase == SPIN:
            clear_legal(mask, legal, nlegal, i)
            _spin(st, obs, mask, legal, nlegal, i, a, values)
        else:
            moves[i] += 1
            _give(st, obs, i, a, values)
    if st[i, PHASE] == PLACE or st[i, PHASE] == GIVE:
        result = CONTINUE
    else:
        clear_legal(mask, legal, nlegal, i)
        result = _resolve(st, obs, mask, legal, nlegal, streams, hist, hlen, i, values)
    if result == CONTINUE:
        player[i] = st[i, TURN] % num_players
        return
    begin_row(rewards, term, trunc, i)
    _finish(common, i, result)
    player[i] = TERMINAL
    clear_legal(mask, legal, nlegal, i)


@njit(cache=True)
def _initial_view(start_state, values) -> np.ndarray:
    """The observation of state row ``start_state``."""
    out = np.zeros(OBS_SIZE, np.float32)
    _write_view(out, start_state, values)
    return out


def game_setup(game: ByeByeMrFoxGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' ``setup`` of ``game``: the state row before the first flip (TURN -1: that
    flip starts turn 0), its observation, and the count values (face down, then discarded, then the nests)."""
    start = np.zeros(STATE_SIZE, np.int8)
    start[CIRCLES:CIRCLES + 6] = 1
    start[CIRCLES + game.white_sector] = 0
    start[VISIBLE:VISIBLE + 6] = game.printed
    start[FACE_DOWN:FACE_DOWN + 5] = game.initial_face_down
    start[PHASE] = FLIP
    start[TOKEN] = -1
    start[SPIN_AT] = -1
    start[LEFT] = sum(game.initial_face_down)
    start[TURN] = -1
    nests = np.zeros((1, COUNT_LIMIT), np.float32)
    nests[0, :NEST_CAPACITY + 1] = NEST_VALUE
    values = np.concatenate([_value_table(game.face_down_scale), _value_table(game.discard_scale), nests])
    return start, _initial_view(start, values), values


def compact_setup(game: ByeByeMrFoxGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``game_setup`` for uint8 observations: every count value is the count itself."""
    start, view, values = game_setup(game)
    counts = np.tile(np.arange(COUNT_LIMIT, dtype=np.uint8), (values.shape[0], 1))
    return start, game.compact_observation(view), counts


@njit(cache=True, nogil=True)
def run_rows(box, lo, hi, mode, actions, max_moves, auto_reset, final_view) -> int:
    """The ``Rows`` box's kernel (``fox_envs.batch._box``): ``mode``'s work on ``actions`` for
    rows ``[lo, hi)``, then the step unless an illegal action was found (its row is returned)."""
    bad = prepare(box.common, lo, hi, mode, actions)
    if bad < 0 and mode != PICK:
        step_rows(lo, hi, actions, box.state[0], box.common, max_moves, auto_reset, final_view, box.extra[0], box.extra[1])
    return bad
