"""Outfox batched kernels (the rules of ``fox_envs.games.outfox.rules``; docs/rules/outfox.md).

The board: 19 points of a hexagon, indexed as the rules core does::

        a1  a2  a3              0   1   2          r = -2
      b1  b2  b3  b4          3   4   5   6        r = -1
    c1  c2  c3  c4  c5      7   8   9  10  11      r =  0
      d1  d2  d3  d4         12  13  14  15        r =  1
        e1  e2  e3             16  17  18          r =  2

A game's state is the tuple ``state`` of ``STATE_FIELDS`` (one array each, row ``i`` first)::

    board[i, 0..18]    piece type 0..8 on each point (shape*3 + colour), -1 empty
    occ[i]             the occupied points as a 19-bit mask
    hands[i, s, t]     pieces of type t still in seat s's hand
    left[i, s]         pieces left in seat s's hand (sum over t)
    phase[i]           PLACE: a placement is next, SLIDE: the slide after the piece just placed
    placed[i]          the point of the piece just placed (slide decision), -1 otherwise
    turns[i]           completed turns (turn 0 is a placement only)
    points[i]          the count of the legal placement points, then those points

and the game's constants are the tuple ``setup`` of ``SETUP_FIELDS``: the start hands, the
initial observation, the rewards of each winner, the number of seats ``n`` and the hand-plane
scale (1 / the per-type maximum). Each kernel unpacks them once.

The seat to move is the common ``player[i]`` (a turn is two decisions by it). Legal placement
points come from the occupancy mask alone: an empty point ``p`` is legal when an occupied
neighbour ``n`` has at least two empty neighbours (``p`` and the one it then slides to).

Observation (5, 5, 20 + 10n) exactly as the core's ``observation_tensor``: per point the piece's
type, shape and colour (0-14), empty (15), valid point (16); constant planes of the hands seen
from the viewer (17 + 9k + t, count / per-type maximum), the decision kind (17+9n placement,
18+9n slide), the point just placed (19+9n) and the seat to move relative to the viewer
(20+9n+k); the decision and seat planes are zero once the game is won. The grid cell (0, 0)
lies outside the hexagon, so it holds exactly the constant planes: it is written first and
copied into the other 24 cells, which then get their point planes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._box import PICK, prepare
from fox_envs.batch._rows import (TERMINAL, add_legal, borrowed, clear_legal, keep_history, prefetch_row,
                                  push_history, take_action)
from fox_envs.games.outfox.rules import (COORDS, LINES_THROUGH, NEIGHBOURS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PLACE,
                                         RAYS, SLIDE, WINS)

STATE_FIELDS = ("board", "occ", "hands", "left", "phase", "placed", "turns", "points")
SETUP_FIELDS = ("start_hands", "start_obs", "win_rewards", "n", "scale")

# ----- kernel layouts of the rules core's geometry (NEIGHBOURS, RAYS, LINES_THROUGH, WINS) -----
NB_MASK = np.array([sum(1 << n for n in NEIGHBOURS[p]) for p in range(NUM_POINTS)], np.int32)
NB_LIST = np.full((NUM_POINTS, 6), -1, np.int8)
NB_COUNT = np.zeros(NUM_POINTS, np.int8)
MAX_RAY = max(len(ray) for rays in RAYS for ray in rays)
RAY_PTS = np.full((NUM_POINTS, 6, MAX_RAY), -1, np.int8)
RAY_COUNT = np.zeros(NUM_POINTS, np.int8)
RAY_LEN = np.zeros((NUM_POINTS, 6), np.int8)
for _p in range(NUM_POINTS):
    NB_COUNT[_p] = len(NEIGHBOURS[_p])
    NB_LIST[_p, :len(NEIGHBOURS[_p])] = NEIGHBOURS[_p]
    RAY_COUNT[_p] = len(RAYS[_p])
    for _d, _ray in enumerate(RAYS[_p]):
        RAY_LEN[_p, _d] = len(_ray)
        RAY_PTS[_p, _d, :len(_ray)] = _ray
MAX_LINES = max(len(lines) for lines in LINES_THROUGH)
LT_PTS = np.zeros((NUM_POINTS, MAX_LINES, 3), np.int8)
LT_COUNT = np.zeros(NUM_POINTS, np.int8)
for _p in range(NUM_POINTS):
    LT_COUNT[_p] = len(LINES_THROUGH[_p])
    for _k, _line in enumerate(LINES_THROUGH[_p]):
        LT_PTS[_p, _k] = _line
WIN_TABLE = np.array(WINS, np.bool_)
CELL_R = np.array([r + 2 for q, r in COORDS], np.int8)
CELL_Q = np.array([q + 2 for q, r in COORDS], np.int8)
ALL_POINTS = (1 << NUM_POINTS) - 1
# The most slides a placement can open: every ray of every neighbour of the placed point, empty.
MAX_SLIDES = max(sum(int(RAY_LEN[n].sum()) for n in NEIGHBOURS[p]) for p in range(NUM_POINTS))
MAX_LEGAL = max(NUM_TYPES * NUM_POINTS, MAX_SLIDES)
AHEAD = 3  # rows prefetched ahead in step_rows
del _p, _d, _ray, _k, _line


@njit(cache=True, inline="always")
def _legal_points(occ: int) -> int:
    """The legal placement points (19-bit mask) of a board with ``occ`` occupied (not empty)."""
    result = 0
    empty = ALL_POINTS & ~occ
    for n in range(NUM_POINTS):
        if (occ >> n) & 1:
            free = NB_MASK[n] & empty
            if free & (free - 1):  # at least two empty neighbours
                result |= free
    return result


@njit(cache=True, inline="always")
def _list_points(points, i: int, bits: int) -> None:
    """``points[i]``: the count of the set bits of ``bits``, then those points in order."""
    count = 0
    for p in range(NUM_POINTS):
        if (bits >> p) & 1:
            count += 1
            points[i, count] = p
    points[i, 0] = count


@njit(cache=True, inline="always")
def _line_through(board_row, point: int) -> bool:
    """Whether a winning line on ``board_row`` contains ``point`` (the core's ``line_through``)."""
    for k in range(LT_COUNT[point]):
        x = board_row[LT_PTS[point, k, 0]]
        y = board_row[LT_PTS[point, k, 1]]
        z = board_row[LT_PTS[point, k, 2]]
        if x >= 0 and y >= 0 and z >= 0 and WIN_TABLE[x * 81 + y * 9 + z]:
            return True
    return False


@njit(cache=True, inline="always")
def _start_row(i, state, start_hands, common) -> None:
    """The empty board, full hands, player_0 to place (placement only)."""
    board, occ, hands, left, phase, placed, turns, points = state
    player, moves, hlen = common[2], common[7], common[10]
    for p in range(NUM_POINTS):
        board[i, p] = -1
    occ[i] = 0
    for s in range(hands.shape[1]):
        total = 0
        for t in range(NUM_TYPES):
            hands[i, s, t] = start_hands[s, t]
            total += start_hands[s, t]
        left[i, s] = total
    phase[i] = PLACE
    placed[i] = -1
    turns[i] = 0
    moves[i] = 0
    hlen[i] = 0
    player[i] = 0


@njit(cache=True, inline="always")
def _write_view(out, board_row, hands_row, to_move: int, ph: int, pl: int, over: bool, viewer: int, n: int,
                scale: float) -> None:
    """The core's observation tensor of this position for ``viewer`` into ``out`` (5, 5, P)."""
    planes = out.shape[2]
    base = 17 + 9 * n
    corner = out[0, 0]
    for k in range(17):
        corner[k] = 0.0
    for k in range(n):
        seat = (viewer + k) % n
        for t in range(NUM_TYPES):
            corner[17 + 9 * k + t] = hands_row[seat, t] * scale
    for k in range(base, planes):
        corner[k] = 0.0
    if not over:
        corner[base + ph] = 1.0
        corner[base + 3 + (to_move - viewer) % n] = 1.0
    for r in range(5):
        for q in range(5):
            if r == 0 and q == 0:
                continue
            cell = out[r, q]
            for k in range(planes):
                cell[k] = corner[k]
    for p in range(NUM_POINTS):
        cell = out[CELL_R[p], CELL_Q[p]]
        cell[16] = 1.0
        b = board_row[p]
        if b >= 0:
            cell[b] = 1.0
            cell[9 + b // 3] = 1.0
            cell[12 + b % 3] = 1.0
        else:
            cell[15] = 1.0
    if not over and ph == SLIDE:
        out[CELL_R[pl], CELL_Q[pl], base + 2] = 1.0


@njit(cache=True, inline="always")
def _fill_plane(out, k: int, value: float) -> None:
    """A constant plane: ``value`` in all 25 cells."""
    for r in range(5):
        for q in range(5):
            out[r, q, k] = value


@njit(cache=True, inline="always")
def _write_hands(out, hands_row, viewer: int, n: int, scale: float) -> None:
    """The hand planes seen from ``viewer``: into the corner cell, then copied to the others."""
    corner = out[0, 0]
    for k in range(n):
        seat = (viewer + k) % n
        for t in range(NUM_TYPES):
            corner[17 + 9 * k + t] = hands_row[seat, t] * scale
    top = 17 + 9 * n
    for r in range(5):
        for q in range(5):
            if r == 0 and q == 0:
                continue
            cell = out[r, q]
            for k in range(17, top):
                cell[k] = corner[k]


@njit(cache=True, inline="always")
def _set_piece(out, p: int, b: int, value: float) -> None:
    """Point ``p``'s planes for piece type ``b`` (``value`` 1: the piece is there, 0: it left)."""
    cell = out[CELL_R[p], CELL_Q[p]]
    cell[b] = value
    cell[9 + b // 3] = value
    cell[12 + b % 3] = value
    cell[15] = 1.0 - value


@njit(cache=True, inline="always")
def _update_view(out, board_row, hands_row, a: int, mover: int, seat: int, was_placed: int, n: int,
                 scale: float) -> None:
    """The view of the player to move (``seat``) after ``mover`` played ``a``, from the view before
    it (which was ``mover``'s, the game going on): only what the decision changed is written."""
    base = 17 + 9 * n
    if a < NUM_PLACE:
        t = a // NUM_POINTS
        p = a - t * NUM_POINTS
        _set_piece(out, p, t, 1.0)
        if seat != mover:  # the placement-only first turn: the next seat's view
            _write_hands(out, hands_row, seat, n, scale)
            return
        _fill_plane(out, 17 + t, hands_row[mover, t] * scale)
        _fill_plane(out, base, 0.0)
        _fill_plane(out, base + 1, 1.0)
        out[CELL_R[p], CELL_Q[p], base + 2] = 1.0
        return
    s = a - NUM_PLACE
    frm = s // NUM_POINTS
    to = s - frm * NUM_POINTS
    b = board_row[to]
    _set_piece(out, frm, b, 0.0)
    _set_piece(out, to, b, 1.0)
    out[CELL_R[was_placed], CELL_Q[was_placed], base + 2] = 0.0
    _fill_plane(out, base + 1, 0.0)
    _fill_plane(out, base, 1.0)
    _write_hands(out, hands_row, seat, n, scale)


@njit(cache=True, inline="always")
def _publish_legal(i, state, common) -> None:
    """Mask and legal list of row ``i`` for the player to move: at a slide decision the slides of
    the pieces next to the placed one, else every type in hand on every point of ``points[i]``."""
    board, occ, hands, left, phase, placed, turns, points = state
    mask, player, legal, nlegal = common[1], common[2], common[13], common[14]
    clear_legal(mask, legal, nlegal, i)
    seat = player[i]
    if phase[i] == SLIDE:
        at = placed[i]
        for j in range(NB_COUNT[at]):
            frm = NB_LIST[at, j]
            if board[i, frm] < 0:
                continue
            for d in range(RAY_COUNT[frm]):
                for k in range(RAY_LEN[frm, d]):
                    to = RAY_PTS[frm, d, k]
                    if board[i, to] >= 0:
                        break
                    add_legal(mask, legal, nlegal, i, NUM_PLACE + frm * NUM_POINTS + to)
    else:
        count = points[i, 0]
        for t in range(NUM_TYPES):
            if hands[i, seat, t] > 0:
                first = t * NUM_POINTS
                for k in range(1, count + 1):
                    add_legal(mask, legal, nlegal, i, first + points[i, k])


@njit(cache=True, inline="always")
def _publish(i, state, n: int, scale: float, common) -> None:
    """Mask, legal list and observation (written whole) of row ``i`` for the player to move."""
    board, occ, hands, left, phase, placed, turns, points = state
    _publish_legal(i, state, common)
    seat = common[2][i]
    _write_view(common[0][i], board[i], hands[i], seat, phase[i], placed[i], False, seat, n, scale)


@njit(cache=True, inline="always")
def _apply(i, a: int, mover: int, state, n: int) -> int:
    """Play decision ``a`` of ``mover``. Returns -2 while the turn goes on (a slide is next), -1
    when the turn ended and the next seat (``(mover + 1) % n``) is to move (its legal placement
    points then in ``points[i]``), or the winner's seat: a winning line through the placed or the
    slid piece, or the next seat left without a piece or a legal placement."""
    board, occ, hands, left, phase, placed, turns, points = state
    if a < NUM_PLACE:
        t = a // NUM_POINTS
        p = a - t * NUM_POINTS
        board[i, p] = t
        occ[i] |= 1 << p
        hands[i, mover, t] -= 1
        left[i, mover] -= 1
        if turns[i] != 0:
            phase[i] = SLIDE
            placed[i] = p
            return -2
        first, last = p, p
    else:
        s = a - NUM_PLACE
        frm = s // NUM_POINTS
        to = s - frm * NUM_POINTS
        board[i, to] = board[i, frm]
        board[i, frm] = -1
        occ[i] = (occ[i] & ~(1 << frm)) | (1 << to)
        first, last = placed[i], to
        phase[i] = PLACE
        placed[i] = -1
    turns[i] += 1
    # a new line holds the placed piece or the slid one (touched first / last, as the core checks)
    if _line_through(board[i], first) or _line_through(board[i], last):
        return mover
    nxt = (mover + 1) % n
    if left[i, nxt] == 0:
        return mover
    legal_points = _legal_points(occ[i])
    if legal_points == 0:
        return mover
    _list_points(points, i, legal_points)
    return -1


@njit(cache=True, inline="always")
def _restart(i, state, start_hands, start_obs, common) -> None:
    """A new game in row ``i``: its observation is the (fixed) initial one."""
    _start_row(i, state, start_hands, common)
    _list_points(state[7], i, ALL_POINTS)
    _publish_legal(i, state, common)
    common[0][i] = start_obs


@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, state, common, setup) -> None:
    """A new game in every row ``i`` of ``[lo, hi)`` with ``which[i]``."""
    start_hands, start_obs = setup[0], setup[1]
    for i in range(lo, hi):
        if which[i]:
            _restart(i, state, start_hands, start_obs, common)


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, state, common, max_moves, auto_reset, final_view, setup) -> None:
    """Play ``actions[i]`` in every row ``i`` of ``[lo, hi)`` (rows with a negative action or a
    finished game skipped): the rewards and ends, then the next decision's mask, legal list and
    observation (a finished game's last view into ``final_obs``, restarted when ``auto_reset``)."""
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    state = (board, occ, hands, left, phase, placed, turns, points) = borrowed(state)
    start_hands, start_obs, win_rewards, n, scale = setup
    actions, start_hands, start_obs, win_rewards = borrowed((actions, start_hands, start_obs, win_rewards))
    for i in range(lo, hi):
        a = take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i)
        if a < 0:
            continue
        if i + AHEAD < hi:
            prefetch_row(obs, i + AHEAD)
            prefetch_row(mask, i + AHEAD)
            prefetch_row(legal, i + AHEAD)
        mover = player[i]
        was_placed = placed[i]
        result = _apply(i, a, mover, state, n)
        if result < 0:
            seat = mover
            if result == -1:
                seat = (mover + 1) % n
                player[i] = seat
            if moves[i] < max_moves:
                _publish_legal(i, state, common)
                _update_view(obs[i], board[i], hands[i], a, mover, seat, was_placed, n, scale)
                continue
            trunc[i] = True
        else:
            term[i] = True
            for s in range(n):
                rewards[i, s] = win_rewards[result, s]
        view = mover if final_view < 0 else final_view
        _write_view(final_obs[i], board[i], hands[i], player[i], phase[i], placed[i], result >= 0, view, n, scale)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _restart(i, state, start_hands, start_obs, common)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)
            obs[i] = final_obs[i]


@njit(cache=True, nogil=True)
def replay_row(i, history, state, common, setup) -> None:
    """Row ``i`` from the start through ``history``; then its mask, legal list and observation."""
    player, moves, hist, hlen = common[2], common[7], common[9], common[10]
    start_hands, n, scale = setup[0], setup[3], setup[4]
    occ, turns, points = state[1], state[6], state[7]
    _start_row(i, state, start_hands, common)
    for a in history:
        push_history(hist, hlen, i, a)
        moves[i] += 1
        mover = player[i]
        if _apply(i, a, mover, state, n) == -1:
            player[i] = (mover + 1) % n
    _list_points(points, i, ALL_POINTS if turns[i] == 0 else _legal_points(occ[i]))
    _publish(i, state, n, scale, common)


@njit(cache=True, nogil=True)
def run_rows(box, lo, hi, mode, actions, max_moves, auto_reset, final_view) -> int:
    """The ``Rows`` box's kernel (``fox_envs.batch._box``): ``mode``'s work on ``actions`` for
    rows ``[lo, hi)``, then the step unless an illegal action was found (its row is returned)."""
    bad = prepare(box.common, lo, hi, mode, actions)
    if bad < 0 and mode != PICK:
        step_rows(lo, hi, actions, box.state[0], box.common, max_moves, auto_reset, final_view, box.extra[0])
    return bad
