"""Outwit's two move generators agree: ``generate_moves`` (rays walked square by square) and
``OutwitState._legal_actions`` (row and column slides looked up by line pattern in ``SLIDES``,
the power chip's diagonals walked) list the same legal actions, ``pass`` exactly when there is
no move, for both players on every position visited: random play, heuristic play with the
heuristic in either seat, and scenario positions built chip by chip."""
from __future__ import annotations

import numpy as np
import pytest

from fox_envs import make_game
from fox_envs.agents import make_agent
from fox_envs.games.outwit.rules import (
    CORNERS, EMPTY, IN_CORNER, PASS, POWER, REGULAR, SQUARE_INDEX, SQUARE_NAMES, OutwitState, chips_code,
    generate_moves,
)

RANDOM_GAMES, RANDOM_PLIES = 120, 150  # random games rarely end: cut them at RANDOM_PLIES
HEURISTIC_GAMES = 60  # heuristic against random, 30 with the heuristic in each seat
SELF_PLAY_GAMES = 30  # heuristic against heuristic
MAX_PLIES = 300  # the game's max_moves_default


def legal_for(state: OutwitState, player: int) -> list[int]:
    """``_legal_actions`` as if ``player`` were to move (the generator reads only the board)."""
    mover = state.to_move
    state.to_move = player
    try:
        return state._legal_actions()
    finally:
        state.to_move = mover


def assert_generators_agree(state: OutwitState) -> int:
    """Both generators give the same sorted, duplicate-free actions for both players; returns
    how many actions were compared."""
    compared = 0
    for player in (0, 1):
        moves = generate_moves(state.board, state.squares[player], player)
        expected = moves or [PASS]
        actual = legal_for(state, player)
        assert PASS not in moves, f"generate_moves lists pass for player_{player}\n{state}"
        assert moves == sorted(set(moves)), f"generate_moves not sorted or repeats for player_{player}"
        assert actual == sorted(set(actual)), f"_legal_actions not sorted or repeats for player_{player}"
        if actual != expected:
            only_rays = sorted(state.action_to_string(a) for a in set(expected) - set(actual))
            only_lines = sorted(state.action_to_string(a) for a in set(actual) - set(expected))
            pytest.fail(f"player_{player}: only generate_moves {only_rays}, only _legal_actions "
                        f"{only_lines}\n{state}")
        compared += len(actual)
    return compared


def play_game(agents: tuple, rng: np.random.Generator, max_plies: int) -> int:
    """Play one game (``None`` in ``agents`` = uniformly random), checking every position;
    returns the number of plies played."""
    state = make_game("outwit_v0").new_initial_state()
    plies = 0
    while True:
        assert_generators_agree(state)
        if state.is_terminal() or plies >= max_plies:
            return plies
        player = state.current_player()
        agent = agents[player]
        if agent is None:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = agent.act(state, player)
        state.apply_action(action)
        plies += 1


def test_generators_agree_along_random_games() -> None:
    rng = np.random.default_rng(20240601)
    plies = sum(play_game((None, None), rng, RANDOM_PLIES) for _ in range(RANDOM_GAMES))
    assert plies > RANDOM_GAMES * 50  # the games went deep, past the opening


@pytest.mark.parametrize("seat", [0, 1])
def test_generators_agree_along_heuristic_games(seat: int) -> None:
    rng = np.random.default_rng(7 + seat)
    heuristic = make_agent("heuristic", "outwit_v0", seed=11 + seat)
    agents = (heuristic, None) if seat == 0 else (None, heuristic)
    finished = 0
    for _ in range(HEURISTIC_GAMES // 2):
        finished += play_game(agents, rng, MAX_PLIES) < MAX_PLIES
    assert finished > 0  # some games reached the end (chips brought home)


def test_generators_agree_along_heuristic_self_play() -> None:
    rng = np.random.default_rng(3)
    agents = (make_agent("heuristic", "outwit_v0", seed=5), make_agent("heuristic", "outwit_v0", seed=6))
    for _ in range(SELF_PLAY_GAMES):
        play_game(agents, rng, MAX_PLIES)


# ----- scenario positions ----------------------------------------------------------------------
def position(dark: str, light: str, to_move: int = 0) -> OutwitState:
    """A state with ``dark`` (player_0) and ``light`` (player_1) chips on the named squares,
    written ``"Xe5 b1 c2"``: the ``X`` (or ``O``) marked square is the power chip."""
    state = make_game("outwit_v0").new_initial_state()
    state.board = bytearray(len(state.board))
    state.squares = []
    for player, text in enumerate((dark, light)):
        names = text.split()
        power = [name[1:] for name in names if name[0] in "XO"]
        regular = [name for name in names if name[0] not in "XO"]
        assert len(power) == 1, text
        chips = [SQUARE_INDEX[name] for name in power + regular]
        for k, square in enumerate(chips):
            assert state.board[square] == EMPTY, SQUARE_NAMES[square]
            state.board[square] = POWER[player] if k == 0 else REGULAR[player]
        state.squares.append(chips)
    state.home = [sum(IN_CORNER[p][s] for s in state.squares[p]) for p in (0, 1)]
    state.to_move = to_move
    state.code = chips_code(state.squares)
    state.seen = {state.position_key(): 1}
    state._legal = None
    state._derive()
    return state


SCENARIOS = {
    # regular chips in their own corner: they may only slide within it
    "regular chips in own corner": ("Xe5 a7 c7 b8 a9 d1 e2 f3 g4", "Oe6 h1 j1 i2 h3 j3 a1 b2 c3"),
    "both corners full": ("Xc9 a7 a8 a9 b7 b8 b9 c7 c8", "Oj2 h1 h2 h3 i1 i2 i3 j1 j3"),
    # power chips: free in 8 directions, a path entering the own corner stays, diagonal squeezes
    "power chip on an open board": ("Xe5 a1 j5 a9 e9 e1 j1 g9 c3", "Of7 b6 h5 d2 i8 g2 c8 f1 j7"),
    "power chip entering own corner": ("Xb6 d5 d4 e6 f7 g3 h5 i7 j6", "Od8 e2 f3 g4 g6 h7 i9 a2 a3"),
    "power chip inside own corner": ("Xb8 a7 c9 d2 e3 f4 g5 h6 i7", "Oi2 h1 j3 d9 e8 f7 g6 b3 c4"),
    "power chip squeezing between touching chips": (
        "Xe5 f5 e6 d5 e4 a1 a2 a3 a4", "Oh5 j9 i9 h9 g9 f9 j5 j6 j7"),
    "power chips beside the opponent's corner": (
        "Xg2 g1 g3 f2 a5 b5 c5 d5 e5", "Od7 d8 d9 c6 a6 h6 i6 j6 f9"),
    # blocked slides: walled in by chips, the board edge and the opponent's corner
    "regular chip boxed in": ("Xa1 e5 e6 e4 d5 f5 j9 j8 j7", "Og8 a5 b5 c5 d9 e9 f9 h9 i9"),
    "opponent's corner as a wall": ("Xg4 g1 g2 g3 f1 a6 b6 c6 d6", "Oh4 i4 j4 d7 d8 d9 e7 e8 e9"),
    "slides stopped at once in every direction": (
        "Xb2 a1 b1 c1 a2 c2 a3 b3 c3", "Oh8 g7 h7 i7 g8 i8 g9 h9 i9"),
    # forced pass: light walled in by the board edge, dark's corner and dark chips
    "light must pass": ("Xe5 b1 b2 b3 c4 c5 c6 f2 g3", "Ob5 a1 a2 a3 a4 a5 a6 b4 b6"),
    "dark must pass": ("Xi5 j9 j8 j7 j6 j5 j4 i6 i4", "Of4 i9 i8 i7 h6 h5 h4 d1 d2"),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("to_move", [0, 1])
def test_generators_agree_on_scenario_positions(name: str, to_move: int) -> None:
    state = position(*SCENARIOS[name], to_move=to_move)
    assert assert_generators_agree(state) > 0


def test_scenarios_reach_what_they_stress() -> None:
    """The scenarios hold what they are named for (so the agreement above is not vacuous)."""
    light_stuck = position(*SCENARIOS["light must pass"], to_move=1)
    assert light_stuck.legal_actions() == [PASS] and generate_moves(light_stuck.board, light_stuck.squares[1], 1) == []
    dark_stuck = position(*SCENARIOS["dark must pass"])
    assert dark_stuck.legal_actions() == [PASS]
    full = position(*SCENARIOS["both corners full"])
    assert full.home == [9, 9] and legal_for(full, 0) == legal_for(full, 1) == [PASS]
    boxed = position(*SCENARIOS["regular chip boxed in"])
    assert not any(action // 90 == SQUARE_INDEX["e5"] for action in boxed.legal_actions())
    in_corner = position(*SCENARIOS["power chip inside own corner"])
    from_b8 = {a % 90 for a in in_corner.legal_actions() if a // 90 == SQUARE_INDEX["b8"]}
    assert from_b8 and from_b8 <= CORNERS[0]
    squeeze = position(*SCENARIOS["power chip squeezing between touching chips"])
    assert SQUARE_INDEX["e5"] * 90 + SQUARE_INDEX["g7"] in squeeze.legal_actions()
