"""Features of Outwit positions for the learned value network (numpy only).

A position is described from the side of the player to move ("mover"), mover first:

* per side (32 numbers): chips home / 9 and one-hot (10), the depth of the home chips in the
  corner, the distance of the chips outside, how many chips outside can slide home with one
  move (a free lane) and how many regular ones with two, the power chip (home, distance, lane),
  whether the side can bring its ninth chip home with one move, and a histogram of the distances
  of the chips outside (13 bins);
* the board (4 x 90): the mover's regular and power chips, the other's regular and power chips,
  turned by 180 degrees when the mover is player_1 (the board's symmetry swapping the corners),
  so the mover's corner is always a7..c9.

The per-side terms are the ones the heuristic (``fox_envs.games.outwit.heuristic``) weighs by hand; here
the network learns how much they matter from game outcomes.
"""
from __future__ import annotations

import numpy as np

from fox_envs.games.outwit.heuristic import DEPTH_TABLE, DISTANCE_TABLE, can_enter, enters_in_two, wins_next
from fox_envs.games.outwit.rules import IN_CORNER, NUM_SQUARES, POWER, REGULAR

SIDE_FEATURES = 32
NUM_FEATURES = 2 * SIDE_FEATURES + 4 * NUM_SQUARES
MAX_DISTANCE_BIN = 12
_TURNED = np.arange(NUM_SQUARES)[::-1].copy()  # square s of the turned board is square 89 - s
_CHIP_CODES = np.zeros((2, 5), np.int64)  # [mover, board code] -> plane 0..3, or 4 (empty)
for _mover in (0, 1):
    _CHIP_CODES[_mover] = 4
    _CHIP_CODES[_mover, REGULAR[_mover]] = 0
    _CHIP_CODES[_mover, POWER[_mover]] = 1
    _CHIP_CODES[_mover, REGULAR[1 - _mover]] = 2
    _CHIP_CODES[_mover, POWER[1 - _mover]] = 3


def side_features(board: bytearray, squares: list[int], player: int, out: np.ndarray) -> None:
    """Write ``player``'s 32 race features (``squares[0]`` its power chip) into ``out``."""
    corner = IN_CORNER[player]
    distance, depth = DISTANCE_TABLE[player], DEPTH_TABLE[player]
    home = depth_sum = distance_sum = lanes = lanes2 = 0
    histogram = out[19:32]
    histogram[:] = 0.0
    for index, square in enumerate(squares):
        if corner[square]:
            home += 1
            depth_sum += depth[square]
            continue
        d = distance[square]
        distance_sum += d
        histogram[min(d, MAX_DISTANCE_BIN)] += 1.0 / 9
        lane = can_enter(board, square, player, index == 0)
        if lane:
            lanes += 1
        elif index and enters_in_two(board, square, player):
            lanes2 += 1
        if index == 0:
            out[16] = d / 10.0
            out[17] = float(lane)
    power_home = corner[squares[0]]
    if power_home:
        out[16] = out[17] = 0.0
    out[0] = home / 9.0
    out[1:11] = 0.0
    out[1 + home] = 1.0
    out[11] = depth_sum / 20.0
    out[12] = distance_sum / 50.0
    out[13] = lanes / 9.0
    out[14] = lanes2 / 9.0
    out[15] = float(power_home)
    out[18] = float(wins_next(board, squares, player, home))


def position_features(board: bytearray, squares: list[list[int]], mover: int) -> np.ndarray:
    """float32 ``[NUM_FEATURES]`` of the position from ``mover``'s side (layout in the module doc)."""
    out = np.zeros(NUM_FEATURES, np.float32)
    side_features(board, squares[mover], mover, out[:SIDE_FEATURES])
    side_features(board, squares[1 - mover], 1 - mover, out[SIDE_FEATURES:2 * SIDE_FEATURES])
    codes = np.frombuffer(bytes(board), np.uint8)
    if mover == 1:
        codes = codes[_TURNED]
    planes = _CHIP_CODES[mover][codes]
    occupied = np.flatnonzero(planes < 4)
    out[2 * SIDE_FEATURES + planes[occupied] * NUM_SQUARES + occupied] = 1.0
    return out


def position_from_observation(obs: np.ndarray) -> tuple[bytearray, list[list[int]], int]:
    """``(board, squares, mover)`` read from an observation tensor ``[9, 10, 13]`` of the player
    to move (planes 0-3 the chips, plane 4 the observer's corner)."""
    flat = obs.reshape(NUM_SQUARES, obs.shape[-1])
    mover = 0 if flat[60, 4] > 0 else 1  # a7 is in player_0's corner
    board = bytearray(NUM_SQUARES)
    squares: list[list[int]] = [[], []]
    for player, regular_plane, power_plane in ((mover, 0, 1), (1 - mover, 2, 3)):
        power = np.flatnonzero(flat[:, power_plane] > 0).tolist()
        regular = np.flatnonzero(flat[:, regular_plane] > 0).tolist()
        squares[player] = power + regular
        for s in power:
            board[s] = POWER[player]
        for s in regular:
            board[s] = REGULAR[player]
    return board, squares, mover


def observation_features(obs: np.ndarray) -> np.ndarray:
    """``[N, NUM_FEATURES]`` for observation tensors ``[N, 9, 10, 13]``."""
    return np.stack([position_features(*position_from_observation(o)) for o in obs]) if len(obs) else \
        np.zeros((0, NUM_FEATURES), np.float32)
