"""The Outfoxed ``ismcts`` agent (``fox_envs/games/outfoxed/ismcts.py``) and the opponent model
it gives ``sample_determinisation``.

It may use only what its player knows: two states that differ only in facts hidden from the
player (the opponent's scoring cards, hand, face-down faces) get the same move for the same seed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
from fox_envs.games.outfoxed.ismcts import TRUTH, OpponentModel, OutfoxedISMCTS
from fox_envs.agents.registry import make_agent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, TERMINAL, sample_chance
from fox_envs.core.registry import make_game
from fox_envs.evaluation import evaluate
from fox_envs.games.outfoxed.rules import MULTISETS

GAME = "outfoxed_v0"
SMALL = "ismcts:simulations=2,candidates=3"


def heuristic_states(seed: int, every: int = 5) -> list:
    """Clones of the decision states of one heuristic self-play game, every ``every`` decisions."""
    rng = np.random.default_rng(seed)
    players = (OutfoxedHeuristic(seed), OutfoxedHeuristic(seed + 1))
    state = make_game(GAME).new_initial_state()
    found, step = [], 0
    while state.current_player() != TERMINAL:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if step % every == 0 and len(state.legal_actions()) > 1:
            found.append(state.clone())
        state.apply_action(players[player].act(state, player))
        step += 1
    return found


def hidden_facts(state, player: int):
    opponent = 1 - player
    faces = tuple(card[2] for card in state.cards if card[1] == opponent and not card[5])
    return tuple(state.kept[opponent]), tuple(state.hands[opponent]), faces


def test_same_information_same_move_whatever_the_hidden_facts():
    agent = OutfoxedISMCTS(simulations=2, candidates=4)
    compared = differing = 0
    for game_seed in (1, 2):
        for state in heuristic_states(game_seed, every=6)[1:12]:
            player = state.current_player()
            twin = state.sample_determinisation(player, np.random.default_rng(game_seed + 100))
            assert twin.information(player) == state.information(player)
            differing += hidden_facts(twin, player) != hidden_facts(state, player)
            for seed in (3, 4):
                agent.reset(seed)
                move = agent.act(state, player)
                agent.reset(seed)
                assert agent.act(twin, player) == move
                compared += 1
    assert compared >= 30 and differing >= compared // 4  # the twins really differ in hidden facts


def test_moves_are_legal_and_the_state_is_untouched():
    agent = OutfoxedISMCTS(simulations=2, candidates=3, seed=5)
    for state in heuristic_states(3, every=3):
        player = state.current_player()
        before = state.to_json()
        assert agent.act(state, player) in state.legal_actions()
        assert state.to_json() == before


def test_whole_games_are_reproducible_from_the_seed():
    first = evaluate(GAME, [SMALL, "heuristic"], num_games=2, seed=7, keep_records=True)
    again = evaluate(GAME, [SMALL, "heuristic"], num_games=2, seed=7, keep_records=True)
    assert [r.history for r in first.records] == [r.history for r in again.records]
    other = evaluate(GAME, [SMALL, "heuristic"], num_games=2, seed=8, keep_records=True)
    assert [r.history for r in other.records] != [r.history for r in first.records]


def test_a_short_match_runs_in_both_seats_and_with_horizon_game():
    result = evaluate(GAME, [SMALL + ",horizon=game", "random"], num_games=2, seed=1)
    assert result.num_games == 2 and result.truncations == 0
    assert sum(result.results[0].seat_games) == 2


def test_options_and_other_games_are_refused_clearly():
    for spec in ("ismcts:simulations=0", "ismcts:candidates=1.5", "ismcts:anchor=-1", "ismcts:horizon=turn"):
        with pytest.raises(InvalidParameterError, match="ismcts"):
            make_agent(spec, GAME)
    with pytest.raises(InvalidParameterError, match="Outfoxed"):
        make_agent("ismcts", "outwit_v0")
    state = heuristic_states(1)[3]
    with pytest.raises(ValueError, match="not to move"):
        OutfoxedISMCTS().act(state, 1 - state.current_player())


def test_the_belief_finds_the_heuristics_scoring_colour_after_a_round():
    model = OpponentModel()
    top = checked = 0
    for seed in range(12):
        states = [s for s in heuristic_states(seed, every=1) if s.round == 1 and s.turn >= 16]
        if not states:
            continue
        state = states[0]
        player = state.current_player()
        logs = model.kept_log_prior(state.sample_determinisation(player, np.random.default_rng(seed)), 1 - player)
        checked += 1
        top += MULTISETS[int(np.argmax(logs))] == tuple(state.kept[1 - player])
    assert checked >= 10 and top >= 0.8 * checked


def test_determinisation_follows_the_opponent_model():
    state = next(s for s in heuristic_states(4, every=1) if s.round == 1 and s.turn >= 12)
    player = state.current_player()
    opponent = 1 - player
    wanted = next(i for i, m in enumerate(MULTISETS) if max(m) == 3 and list(m) != state.kept[player])
    prior = [-math.inf] * len(MULTISETS)
    prior[wanted] = 0.0
    truthful = 0
    for seed in range(5):
        world = state.sample_determinisation(player, np.random.default_rng(seed), kept_log_prior=prior,
                                             truth=(1.0, 1.0, 1.0, 1.0))
        assert world.information(player) == state.information(player)
        assert tuple(world.kept[opponent]) == MULTISETS[wanted]
        hidden = [card for card in world.cards if card[1] == opponent and not card[5]]
        truthful += sum(card[2] == card[3] for card in hidden) == len(hidden)
    assert truthful >= 4  # every face true unless the deck cannot hold it
    with pytest.raises(ValueError, match="kept_log_prior"):
        state.sample_determinisation(player, np.random.default_rng(0), kept_log_prior=[0.0])
    with pytest.raises(ValueError, match="truth"):
        state.sample_determinisation(player, np.random.default_rng(0), truth=(2.0, 0.0, 0.0, 0.0))
    assert len(TRUTH) == 4


@pytest.mark.slow
def test_it_beats_the_heuristic_in_a_short_match():
    result = evaluate(GAME, ["ismcts:simulations=6", "heuristic"], num_games=24, seed=2, workers=2)
    ours = result.results[0]
    assert ours.wins >= 2 * ours.games // 3  # the heuristic alone would win about half


def test_the_heuristics_fast_square_winner_is_the_rule():
    from itertools import product

    from fox_envs.games.outfoxed.heuristic import fast_square_winner
    from fox_envs.games.outfoxed.rules import square_winner

    for row in product(range(4), repeat=6):
        assert fast_square_winner(list(row)) == square_winner(row)
