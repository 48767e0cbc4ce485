"""Outfoxed: what each player sees of the moves being played (``action_to_string_for``)."""
from __future__ import annotations

import numpy as np

import fox_envs
from fox_envs.core.game import sample_chance


def random_game(seed: int, decisions: int = 120):
    game = fox_envs.make_game("outfoxed_v0")
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    seen: list[tuple[int, int, str]] = []  # (mover, action, text for the other player)
    while not state.is_terminal() and decisions:
        player = state.current_player()
        if player < 0:
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            decisions -= 1
        seen.append((player, action, state.action_to_string_for(action, 0), state.action_to_string_for(action, 1)))
        state.apply_action(action)
    return state, seen


def viewer_strings(state, viewer: int) -> list[str]:
    replay = state.game.new_initial_state()
    out = []
    for action in state.history():
        out.append(replay.action_to_string_for(action, viewer))
        replay.apply_action(action)
    return out


def test_opponent_faces_and_deals_are_hidden_but_declarations_are_public():
    state, seen = random_game(3)
    hidden_puts = own_puts = hidden_deals = 0
    for player, action, for_0, for_1 in seen:
        if player >= 0:
            mine, theirs = (for_0, for_1) if player == 0 else (for_1, for_0)
            assert "?" not in mine  # a player always sees its own action in full
            if theirs.startswith("put ?"):
                hidden_puts += 1
                assert theirs.split(" as ")[1] == mine.split(" as ")[1]  # the declared chip is public
            if mine.startswith("put"):
                own_puts += 1
            if mine in ("call", "pass") or mine.startswith("chip"):
                assert theirs == mine
        elif for_0.startswith("deal") or for_1.startswith("deal"):
            assert (for_0 == "deal ?") != (for_1 == "deal ?")  # exactly one player receives it
            hidden_deals += 1
    assert hidden_puts and own_puts and hidden_deals


def test_what_a_player_sees_does_not_depend_on_hidden_facts():
    state, _ = random_game(7, decisions=150)
    for viewer in (0, 1):
        truth = viewer_strings(state, viewer)
        differing = 0
        for seed in range(3):
            other = state.sample_determinisation(viewer, np.random.default_rng(seed))
            differing += other.history() != state.history()
            assert viewer_strings(other, viewer) == truth
        assert differing  # the hidden facts were really redrawn
