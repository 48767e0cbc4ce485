"""Outfox heuristic: wins when it can, never hands the next player a winning turn when a safe
turn exists, and its exact opponent-win check agrees with enumeration through the rules core."""
from __future__ import annotations

import numpy as np

from fox_envs import make_game
from fox_envs.agents import RandomAgent
from fox_envs.games.outfox.heuristic import OutfoxHeuristic, can_win_turn
from fox_envs.games.outfox.rules import NUM_TYPES, OutfoxState


def full_turns(state: OutfoxState) -> list[OutfoxState]:
    """Every state reachable by one whole turn of the player to move (rules core only)."""
    result = []
    for place in state.legal_actions():
        mid = state.clone()
        mid.apply_action(place)
        if mid.is_terminal() or mid.current_player() != state.current_player() or mid.phase == 0:
            result.append(mid)
            continue
        for slide in mid.legal_actions():
            end = mid.clone()
            end.apply_action(slide)
            result.append(end)
    return result


def has_winning_turn(state: OutfoxState) -> bool:
    mover = state.current_player()
    return any(end.winner == mover for end in full_turns(state))


def random_positions(num_players: int, count: int, seed: int, heuristic: bool = False) -> list[OutfoxState]:
    """Positions at a placement decision after random play (or heuristic self-play)."""
    rng = np.random.default_rng(seed)
    agent = OutfoxHeuristic(seed=seed)
    game = make_game("outfox_v0", num_players=num_players)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        target = int(rng.integers(3, 14))
        while not state.is_terminal() and state.turns < target:
            if heuristic:
                state.apply_action(agent.act(state, state.current_player()))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and state.phase == 0:
            positions.append(state)
    return positions


def hand_mask(state: OutfoxState, seat: int) -> int:
    return sum(1 << t for t in range(NUM_TYPES) if state.hands[seat][t])


def play_turn(agent, state: OutfoxState) -> OutfoxState:
    state = state.clone()
    mover = state.current_player()
    while not state.is_terminal() and state.current_player() == mover:
        state.apply_action(agent.act(state, mover))
        if state.phase == 0:
            break
    return state


def test_can_win_turn_agrees_with_rules_core_enumeration():
    found = 0
    for num_players in (2, 3):
        for state in random_positions(num_players, 12, seed=num_players):
            mover = state.current_player()
            board = state.board[:]
            fast = can_win_turn(board, hand_mask(state, mover))
            assert board == state.board  # restored
            assert fast == has_winning_turn(state)
            found += fast
    assert found >= 3  # the sample contains positions with a winning turn


def test_heuristic_takes_a_win():
    state = make_game("outfox_v0").new_initial_state()
    for move in ["SR@a1", "TR@b2", "a1-c1"]:
        state.apply_string(move)
    # player_0 to move wins e.g. with CR@c3 then b2-c2 (c1 c2 c3 = SR TR CR)
    assert state.current_player() == 0 and has_winning_turn(state)
    for seed in range(5):
        after = play_turn(OutfoxHeuristic(seed=seed), state)
        assert after.winner == 0 and after.win_lines


def test_heuristic_never_leaves_a_winning_turn_when_a_safe_turn_exists():
    checked = 0
    for num_players in (2, 3):
        for index, state in enumerate(random_positions(num_players, 10, seed=10 + num_players, heuristic=True)):
            if has_winning_turn(state):
                continue
            ends = [end for end in full_turns(state) if not end.is_terminal()]
            safe = [end for end in ends if not can_win_turn(end.board[:], hand_mask(end, end.current_player()))]
            after = play_turn(OutfoxHeuristic(seed=index), state)
            if after.is_terminal():
                assert after.winner == state.current_player()
                continue
            if safe and len(safe) < len(ends):  # some turns would hand over a win, some not
                assert not has_winning_turn(after)
                checked += 1
    assert checked >= 6


def test_heuristic_beats_random_in_short_match():
    game = make_game("outfox_v0")
    wins = 0
    for g in range(20):
        seat = g % 2
        agents = [RandomAgent(g), RandomAgent(g + 100)]
        agents[seat] = OutfoxHeuristic(seed=g)
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            state.apply_action(agents[player].act(state, player))
        wins += state.winner == seat
    assert wins >= 18
