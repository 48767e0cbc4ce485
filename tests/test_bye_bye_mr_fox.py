"""Scenario tests for Bye Bye Mr. Fox! written from SPEC 2.4 and the rulebook.

Default layout (sector: outer printing, spinner back end):
0 three hens -> N3, 1 black -> N4, 2 fox -> N5, 3 white -> N0, 4 fox -> N1, 5 brown -> N2.
At setup every nest circle but N3 holds an egg.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import fox_envs
from fox_envs import CHANCE, TERMINAL, IllegalActionError, InvalidParameterError
from fox_envs.games.bye_bye_mr_fox.rules import (
    BLACK, BROWN, EGG, FOX, OBS_COVERED, OBS_DISCARDED, OBS_FACE_DOWN, OBS_NEST_CIRCLES, OBS_NESTS,
    OBS_PHASE, OBS_SIZE, OBS_SPIN, OBS_TOKEN, OBS_VISIBLE, THREE_HENS, WHITE, ByeByeMrFoxGame,
)

ENV_ID = "bye_bye_mr_fox_v0"


def new_state(**params):
    return fox_envs.make_game(ENV_ID, **params).new_initial_state()


def play(state, *moves: str):
    for move in moves:
        state.apply_string(move)
    return state


def names(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


# ----- setup and parameters ----------------------------------------------------------------------
def test_setup_default_layout_and_pile():
    state = new_state()
    assert state.game.layout == ["three_hens", "black", "fox", "white", "fox", "brown"]
    assert state.circles == [1, 1, 1, 0, 1, 1]  # no egg in front of the white hen
    assert state.visible == [THREE_HENS, BLACK, FOX, WHITE, FOX, BROWN]
    assert state.covered == [0] * 6 and state.nests == [0, 0, 0]
    assert state.face_down == [2, 2, 2, 11, 4]
    assert state.current_player() == CHANCE
    assert state.game.num_players == 2 and state.game.zero_sum is False


@pytest.mark.parametrize("eggs,face_down_eggs", [(16, 11), (14, 9), (12, 7)])
def test_egg_token_variants(eggs, face_down_eggs):
    state = new_state(egg_tokens=eggs)
    assert state.face_down == [2, 2, 2, face_down_eggs, 4]
    assert sum(state.circles) == 5


def test_custom_layout_leaves_the_circle_in_front_of_the_white_hen_empty():
    layout = ("fox", "white", "three_hens", "black", "fox", "brown")
    state = new_state(layout=layout)
    assert state.game.params["layout"] == list(layout)  # stored as a JSON-friendly list
    assert state.circles == [1, 0, 1, 1, 1, 1]
    play(state, "flip egg")
    assert names(state) == ["N1"]
    loaded = fox_envs.state_from_json(state.to_json())
    assert loaded == state and json.loads(state.to_json())["params"]["layout"] == list(layout)


@pytest.mark.parametrize("params", [
    {"layout": ["three_hens", "three_hens", "black", "brown", "white", "fox"]},
    {"layout": ["three_hens", "black", "black", "brown", "fox", "fox"]},
    {"layout": ["three_hens", "black", "brown", "white", "fox"]},
    {"layout": ["three_hens", "black", "brown", "white", "fox", "egg"]},
    {"layout": "three_hens black fox white fox brown"},
    {"egg_tokens": 15}, {"egg_tokens": 16.0}, {"num_players": 0}, {"num_players": 5},
])
def test_bad_params_are_rejected(params):
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        fox_envs.make_game(ENV_ID, **params)


# ----- chance nodes -------------------------------------------------------------------------------
def test_flip_probabilities_are_proportional_to_the_face_down_pile():
    state = new_state()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 1, 2, 3, 4]
    assert [p for _, p in outcomes] == pytest.approx([2 / 21, 2 / 21, 2 / 21, 11 / 21, 4 / 21])
    play(state, "flip black", "O2", "spin 0", "flip black", "O4", "spin 0")
    outcomes = dict(state.chance_outcomes())
    assert BLACK not in outcomes and state.legal_actions() == [1, 2, 3, 4]
    assert outcomes[EGG] == pytest.approx(11 / 19) and outcomes[FOX] == pytest.approx(4 / 19)
    assert math.isclose(sum(outcomes.values()), 1.0)


def test_spin_is_uniform_over_six_sectors_after_every_placement():
    state = play(new_state(), "flip egg", "N3")
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 6)) for s in range(6)]


def test_notation():
    state = new_state()
    assert state.string_to_action("flip black") == 0 and state.string_to_action("flip fox") == 4
    assert state.action_to_string(3) == "flip egg"
    play(state, "flip white")
    assert state.string_to_action("O4") == 10 and state.action_to_string(8) == "O2"
    assert state.string_to_action("N2") == 2
    play(state, "O2")
    assert state.string_to_action("spin 3") == 3 and state.action_to_string(5) == "spin 5"
    play(state, "spin 1", "flip egg", "N3", "spin 0")
    assert names(state) == ["give black", "give brown", "give white"]
    assert state.string_to_action("give white") == 14
    with pytest.raises(IllegalActionError):
        state.string_to_action("give purple")


# ----- placing tokens -----------------------------------------------------------------------------
def test_egg_goes_on_an_empty_nest_circle_and_is_a_decision_even_with_one_option():
    state = play(new_state(), "flip egg")
    assert state.current_player() == 0 and names(state) == ["N3"]
    play(state, "N3")
    assert state.circles == [1] * 6 and state.current_player() == CHANCE


def test_hen_covers_a_fox_or_a_hen_of_another_colour_never_its_own_or_the_three_hens():
    state = play(new_state(), "flip black")
    assert names(state) == ["O2", "O3", "O4", "O5"]  # fox, white, fox, brown
    play(state, "O2", "spin 0")  # spin 0: back end on the empty N3, nothing happens
    assert state.visible[2] == BLACK and state.covered[2] == 1 and state.discarded == [0] * 5
    play(state, "flip black")
    assert names(state) == ["O3", "O4", "O5"]  # not O1 (printed black) nor O2 (black token)
    play(state, "O4", "spin 0", "flip white")
    assert names(state) == ["O1", "O2", "O4", "O5"]
    play(state, "O2")  # covers the black hen token: it is discarded
    assert state.visible[2] == WHITE and state.discarded == [1, 0, 0, 0, 0]


def test_fox_covers_a_single_hen_and_a_covered_hen_token_is_discarded():
    state = play(new_state(), "flip fox")
    assert names(state) == ["O1", "O3", "O5"]
    play(state, "O3", "spin 0", "flip brown")
    assert names(state) == ["O1", "O2", "O3", "O4"]  # the fox token on O3 can be covered
    play(state, "O3", "spin 0")
    assert state.visible[3] == BROWN and state.discarded[FOX] == 1
    play(state, "flip fox")
    assert names(state) == ["O1", "O3", "O5"]
    play(state, "O3")
    assert state.visible[3] == FOX and state.discarded[BROWN] == 1 and state.covered[3] == 1


def test_fox_with_no_single_hen_visible_is_discarded_without_a_decision():
    state = play(new_state(), "flip fox", "O1", "spin 0", "flip fox", "O3", "spin 0", "flip fox", "O5", "spin 0")
    assert state.visible == [THREE_HENS, FOX, FOX, FOX, FOX, FOX]
    history = len(state.history())
    play(state, "flip fox")
    assert state.current_player() == CHANCE and state.chance_outcomes()[0][0] == 0  # straight to the spin
    assert len(state.history()) == history + 1
    assert state.discarded[FOX] == 1 and state.face_down[FOX] == 0


# ----- the spinner --------------------------------------------------------------------------------
@pytest.mark.parametrize("spin,back,nests,discarded_eggs", [
    ("spin 1", 4, [1, 0, 0], 0),  # black hen at 1, egg from N4 to the black nest
    ("spin 5", 2, [0, 1, 0], 0),  # brown hen at 5, egg from N2
    ("spin 3", 0, [0, 0, 1], 0),  # white hen at 3, egg from N0
    ("spin 2", 5, [0, 0, 0], 1),  # fox at 2 steals the egg from N5
    ("spin 4", 1, [0, 0, 0], 1),  # fox at 4 steals the egg from N1
])
def test_spin_moves_the_egg_at_the_back_end(spin, back, nests, discarded_eggs):
    state = play(new_state(), "flip egg", "N3", spin)
    assert state.circles[back] == 0 and sum(state.circles) == 5
    assert state.nests == nests and state.discarded[EGG] == discarded_eggs
    assert state.current_player() == CHANCE and state.turn == 1


def test_spin_to_an_empty_circle_does_nothing():
    state = play(new_state(), "flip fox", "O5", "spin 0")
    assert state.circles == [1, 1, 1, 0, 1, 1] and state.nests == [0, 0, 0] and state.turn == 1


def test_three_hens_space_lets_the_player_choose_a_nest():
    state = play(new_state(num_players=3), "flip egg", "N3", "spin 4", "flip fox", "O1", "spin 0")
    # turn 2 (seat 1): the spin at the three-hens space takes the egg from N3
    assert state.current_player() == 1 and state.circles[3] == 0
    assert names(state) == ["give black", "give brown", "give white"]
    obs = state.observation_tensor(1)
    assert obs[OBS_SPIN] == 1.0 and obs[OBS_PHASE + 1] == 1.0
    play(state, "give brown")
    assert state.nests == [0, 1, 0] and state.current_player() == CHANCE and state.turn == 2


def test_full_nest_discards_and_is_not_offered_at_the_three_hens_space():
    state = play(new_state(), "flip egg", "N3", "spin 1")  # black 1
    for _ in range(2):
        play(state, "flip egg")
        assert names(state) == ["N4"]
        play(state, "N4", "spin 1")
    assert state.nests == [3, 0, 0]
    play(state, "flip egg", "N4", "spin 1")  # black nest full: the egg is discarded
    assert state.nests == [3, 0, 0] and state.discarded[EGG] == 1 and state.circles[4] == 0
    play(state, "flip fox", "O3", "spin 0")
    assert names(state) == ["give brown", "give white"]


# ----- end of the game ----------------------------------------------------------------------------
FOXES_AND_HENS = [
    "flip fox", "O1", "spin 0", "flip fox", "O3", "spin 0", "flip fox", "O5", "spin 0",
    "flip fox", "spin 0",  # no single hen visible: discarded without a decision
    "flip black", "O1", "spin 0", "flip brown", "O5", "spin 0", "flip white", "O3", "spin 0",
    "flip black", "O2", "spin 0", "flip brown", "O4", "spin 4",  # N1 -> brown
    "flip white", "O2", "spin 1",  # covers the black hen token; N4 -> black
]
EGGS_BUT_LAST = [
    "flip egg", "N1", "spin 3", "flip egg", "N0", "spin 3", "flip egg", "N0", "spin 2",  # white 3
    "flip egg", "N4", "spin 1", "flip egg", "N4", "spin 1",  # black 3
    "flip egg", "N4", "spin 5",  # brown 2
]


def last_turn_state(num_players: int):
    state = play(new_state(egg_tokens=12, num_players=num_players), *FOXES_AND_HENS)
    assert state.visible == [THREE_HENS, BLACK, WHITE, WHITE, BROWN, BROWN]
    assert state.discarded == [1, 0, 0, 0, 4] and state.nests == [1, 1, 0]
    play(state, *EGGS_BUT_LAST)
    assert state.nests == [3, 2, 3] and state.face_down == [0, 0, 0, 1, 0]
    play(state, "flip egg", "N3")
    assert sum(state.face_down) == 0 and not state.is_terminal()  # the last turn still spins
    return state


def test_win_on_the_turn_of_the_last_flip():
    state = last_turn_state(num_players=3)
    play(state, "spin 0")
    assert state.current_player() == 16 % 3 and names(state) == ["give brown"]  # one option: a decision
    play(state, "give brown")
    assert state.current_player() == TERMINAL and state.won
    np.testing.assert_array_equal(state.returns(), [1.0, 1.0, 1.0])


def test_loss_when_the_turn_of_the_last_flip_ends_without_a_win():
    state = last_turn_state(num_players=2)
    play(state, "spin 2")  # N5 is empty: nothing happens
    assert state.is_terminal() and not state.won
    np.testing.assert_array_equal(state.returns(), [-1.0, -1.0])


def test_win_as_soon_as_every_nest_holds_three_eggs_with_tokens_left():
    state = play(new_state(num_players=4), "flip egg", "N3", "spin 1", "flip egg", "N4", "spin 1",
                 "flip egg", "N4", "spin 1", "flip egg", "N4", "spin 5", "flip egg", "N2", "spin 5",
                 "flip egg", "N2", "spin 5", "flip egg", "N2", "spin 3", "flip egg", "N0", "spin 3",
                 "flip egg", "N0", "spin 0")
    assert state.nests == [3, 3, 2] and state.current_player() == 8 % 4
    play(state, "give white")
    assert state.is_terminal() and state.won and sum(state.face_down) == 12
    np.testing.assert_array_equal(state.returns(), [1.0] * 4)


def test_seats_take_turns_and_a_single_player_plays_every_turn():
    for players in (1, 2, 3, 4):
        state = new_state(num_players=players)
        seats = []
        for turn in range(6):
            play(state, "flip egg" if turn == 0 else "flip fox" if turn % 2 else "flip black")
            seats.append(state.current_player())
            state.apply_action(state.legal_actions()[0])
            play(state, "spin 2")  # the first empties N5, later ones do nothing
        assert seats == [t % players for t in range(6)]


def test_every_hen_and_egg_has_a_place_and_games_stay_within_max_moves():
    """Only a fox can lack a place (see docs); at most 2 decisions per flipped token."""
    game = ByeByeMrFoxGame(egg_tokens=16)
    rng = np.random.default_rng(7)
    for _ in range(200):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[int(rng.choice(len(outcomes), p=[p for _, p in outcomes]))][0]
                if state.phase == 0 and action != FOX:
                    state.apply_action(action)
                    assert not state.is_chance_node(), "a hen or egg always has a place"
                    continue
            else:
                legal = state.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
                decisions += 1
            state.apply_action(action)
        assert decisions <= game.max_moves_default == 42


# ----- observation and pictures -------------------------------------------------------------------
def test_observation_is_public_and_describes_the_position():
    state = play(new_state(num_players=3, egg_tokens=14), "flip black", "O2", "spin 1", "flip fox")
    obs = [state.observation_tensor(p) for p in range(3)]
    for other in obs[1:]:
        np.testing.assert_array_equal(other, obs[0])
    o = obs[0]
    assert o.shape == (OBS_SIZE,)
    np.testing.assert_array_equal(o[OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6], [1, 1, 1, 0, 0, 1])
    visible = o[OBS_VISIBLE:OBS_VISIBLE + 30].reshape(6, 5)  # black, brown, white, fox, three hens
    assert visible[0, 4] == 1 and visible[1, 0] == 1 and visible[2, 0] == 1 and visible[4, 3] == 1
    assert visible.sum() == 6
    np.testing.assert_array_equal(o[OBS_COVERED:OBS_COVERED + 6], [0, 0, 1, 0, 0, 0])
    np.testing.assert_allclose(o[OBS_NESTS:OBS_NESTS + 3], [1 / 3, 0, 0])
    np.testing.assert_array_equal(o[OBS_TOKEN:OBS_TOKEN + 5], [0, 0, 0, 0, 1])  # a fox to place
    np.testing.assert_allclose(o[OBS_FACE_DOWN:OBS_FACE_DOWN + 5], [0.5, 1, 1, 1, 0.75])
    np.testing.assert_array_equal(o[OBS_DISCARDED:OBS_DISCARDED + 5], [0, 0, 0, 0, 0])
    np.testing.assert_array_equal(o[OBS_PHASE:OBS_PHASE + 2], [1, 0])
    assert o[OBS_SPIN:OBS_SPIN + 6].sum() == 0


def test_text_board_and_picture():
    state = play(new_state(), "flip black", "O2", "spin 1")
    text = str(state)
    assert "O2 black hen (token)" in text and "black 1/3" in text and "player_1 flips" in text
    image = state.render_rgb()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10
    assert not np.array_equal(image, new_state().render_rgb())
