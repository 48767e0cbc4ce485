"""Outwit heuristic: it takes a win, stops an immediate loss, beats random and its self-play
games finish."""
from __future__ import annotations

from fox_envs.agents import RandomAgent
from fox_envs.games.outwit.heuristic import OutwitHeuristic, wins_next
from fox_envs.games.outwit.rules import OutwitGame

from test_outwit import WON_GAME, moves_of, play

# Light (8 chips home) threatens a3-h3 along row 3; dark can only stop it with b1-b3 or i7-e3.
THREAT = (
    "f5-d7 e5-i1 d7-f9 f6-f1 e4-e9 f1-h1 f9-g8 d4-j4 i8-i4 j4-j1 g8-f8 i9-i5 f8-e8 h8-j8 c2-c1 "
    "j8-j2 i4-a4 b2-i2 c1-c2 i5-i3 e8-i8 i3-j3 g6-a6 g7-g1 a6-a9 h1-h3 e9-e1 g1-h1 d3-d9 h3-i3 "
    "j9-j4 c3-h3 j4-b4 h3-h2 i8-i7 a1-a3"
)


def test_takes_the_winning_move() -> None:
    state = play(" ".join(WON_GAME[:-1]))
    for seed in range(5):
        action = OutwitHeuristic(seed).act(state, 1)
        after = state.clone()
        after.apply_action(action)
        assert after.winner == 1


def test_stops_an_immediate_loss() -> None:
    state = play(THREAT)
    assert state.home == [1, 8] and wins_next(state.board, state.squares[1], 1, 8)
    before = state.clone()
    for seed in range(5):
        move = state.action_to_string(OutwitHeuristic(seed).act(state, 0))
        assert move in {"b1-b3", "i7-e3"}
        assert move in moves_of(state)
    assert state == before  # the agent does not change the state


def play_game(agents, seed: int, cap: int) -> tuple:
    state = OutwitGame().new_initial_state()
    for k, agent in enumerate(agents):
        agent.reset(seed * 2 + k)
    while not state.is_terminal() and len(state.history()) < cap:
        player = state.current_player()
        state.apply_action(agents[player].act(state, player))
    return state


def test_beats_random_with_seats_swapped() -> None:
    wins = 0
    for game in range(20):
        seat = game % 2
        agents = [RandomAgent(), RandomAgent()]
        agents[seat] = OutwitHeuristic()
        state = play_game(agents, game, OutwitGame.max_moves_default)
        wins += state.is_terminal() and state.returns()[seat] > 0
    assert wins >= 19


def test_self_play_games_finish_within_max_moves() -> None:
    for game in range(10):
        state = play_game([OutwitHeuristic(), OutwitHeuristic()], game, OutwitGame.max_moves_default)
        assert state.is_terminal() and state.winner >= 0
