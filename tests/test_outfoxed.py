"""Outfoxed rule scenarios, from the rulebook (outfoxed.txt) and SPEC 2.5.

Positions are reached by playing notation from the start, chance outcomes included
(``keep red``, ``first player_1``, ``deal pink``, ``put red on 2 as pink``, ``call``, ...).
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs import CHANCE, TERMINAL, IllegalActionError
from fox_envs.games.outfoxed.rules import (
    MULTISETS, O_CALLABLE, O_CHIP, O_CHIP_FACE, O_FORBIDDEN, O_HAND, O_KEPT, O_PENDING, O_PHASE, O_SIZES,
    O_TABLE, OBS_SIZE, square_winner,
)


def new(**params):
    return fox_envs.make_game("outfoxed_v0", **params).new_initial_state()


def play(state, moves):
    for move in moves:
        state.apply_string(move)
    return state


def keeps(kept0: str, kept1: str) -> list[str]:
    return [f"keep {c}" for c in kept0.split()] + [f"keep {c}" for c in kept1.split()]


def start(kept0="red red red", kept1="white white white", first=0, **params):
    """A state right after the scoring picks and the first-player draw (dealing next)."""
    return play(new(**params), keeps(kept0, kept1) + [f"first player_{first}"])


def deal(state, first_cards, second_cards):
    """Deal the first player's 12 then the second player's 10 (colour names)."""
    assert len(first_cards) == 12 and len(second_cards) == 10
    return play(state, [f"deal {c}" for c in list(first_cards) + list(second_cards)])


def face(put: str) -> str:
    return put.split()[1]


def run_round(state, first_puts, second_puts, first_show, second_show, first_extra=("yellow", "yellow")):
    """Deal exactly the cards the scripted round needs, then play it, passing at every
    call-or-pass decision."""
    first_cards = [face(p) for p in first_puts] + [first_show.split()[1]] + list(first_extra)
    second_cards = [face(p) for p in second_puts] + [second_show.split()[1]]
    deal(state, first_cards, second_cards)
    for f_put, s_put in zip(first_puts, second_puts):
        for put in (f_put, s_put):
            state.apply_string(put)
            if state.phase == 4:  # call phase
                state.apply_string("pass")
    return play(state, [first_show, second_show])


def effective(state, square):
    return state.square_counts(square)


# ----- encoding ----------------------------------------------------------------------------
def test_action_encoding_and_notation_follow_spec():
    state = new()
    assert state.game.num_actions == 140
    assert state.string_to_action("keep brown") == 0 and state.string_to_action("keep yellow") == 5
    assert state.string_to_action("put red on 2 as pink") == 6 + 36 + 2 * 6 + 3
    assert state.string_to_action("put brown on 1 as brown") == 6
    assert state.string_to_action("put yellow on 3 as yellow") == 113
    assert state.string_to_action("call") == 114 and state.string_to_action("pass") == 115
    assert state.string_to_action("chip brown") == 116 and state.string_to_action("chip white") == 120
    assert state.string_to_action("show yellow on 3") == 139
    assert state.string_to_action("show white on 3") == 122 + 12 + 4
    assert state.action_to_string(57) == "put red on 2 as pink"
    with pytest.raises(IllegalActionError):
        state.string_to_action("put red on 4 as pink")


def test_chance_outcomes_are_named_first_player_and_deal_colour():
    state = play(new(), keeps("red red red", "pink pink pink"))
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.action_to_string(1) == "first player_1" and state.string_to_action("first player_0") == 0
    state.apply_string("first player_1")
    assert state.action_to_string(2) == "deal red" and state.string_to_action("deal yellow") == 5


# ----- setup: scoring picks ----------------------------------------------------------------
def test_scoring_picks_player_0_then_player_1_repeats_allowed():
    state = new()
    for pick in range(6):
        assert state.current_player() == (0 if pick < 3 else 1)
        assert state.legal_actions() == [0, 1, 2, 3, 4, 5]
        state.apply_string("keep red" if pick < 3 else ["keep pink", "keep white", "keep pink"][pick - 3])
    assert state.kept == [[0, 0, 3, 0, 0, 0], [0, 0, 0, 2, 1, 0]]
    assert state.current_player() == CHANCE


def test_kept_cards_leave_the_deck_for_the_whole_game():
    state = start("red red pink", "red white white", first=0)
    outcomes = dict(state.chance_outcomes())
    assert sum(state.deck) == 54
    assert outcomes[2] == pytest.approx(7 / 54)  # red: 10 - 3 kept
    assert outcomes[3] == pytest.approx(9 / 54) and outcomes[4] == pytest.approx(8 / 54)
    assert outcomes[0] == pytest.approx(10 / 54)


def test_identical_scoring_sets_are_revealed_forbidden_and_picked_again():
    state = play(new(), keeps("red red pink", "pink red red"))
    assert state.current_player() == 0 and state.kept == [[0] * 6, [0] * 6]
    forbidden = MULTISETS.index((0, 0, 2, 1, 0, 0))
    assert state.forbidden == [forbidden]
    obs = state.observation_tensor(1)
    assert obs[O_FORBIDDEN + forbidden] == 1.0 and obs[O_FORBIDDEN:O_FORBIDDEN + 56].sum() == 1.0
    play(state, ["keep pink", "keep red"])
    assert state.legal_actions() == [0, 1, 3, 4, 5]  # "keep red" would complete the forbidden set
    with pytest.raises(IllegalActionError):
        state.apply_string("keep red")
    play(state, ["keep brown", "keep red", "keep red"])
    assert state.legal_actions() == [0, 1, 2, 4, 5]  # player_1 may not complete it either
    play(state, ["keep brown"])
    assert state.current_player() == CHANCE and state.kept == [[1, 0, 1, 1, 0, 0], [1, 0, 2, 0, 0, 0]]


def test_a_pick_that_can_only_end_in_forbidden_sets_is_masked():
    state = new()
    for colour in ("brown", "black", "red", "pink", "white", "yellow"):
        play(state, keeps(f"red red {colour}", f"red red {colour}"))
    assert len(state.forbidden) == 6
    state.apply_string("keep red")
    assert state.legal_actions() == [0, 1, 3, 4, 5]  # red, red would leave no allowed third pick
    with pytest.raises(IllegalActionError):
        state.apply_string("keep red")


def test_when_only_one_scoring_set_is_left_identical_picks_stand():
    state = new()
    names = ("brown", "black", "red", "pink", "white", "yellow")
    for counts in MULTISETS[:-1]:
        picks = " ".join(names[c] for c in range(6) for _ in range(counts[c]))
        play(state, keeps(picks, picks))
    assert len(state.forbidden) == 55
    for _ in range(3):
        assert state.legal_actions() == [5]  # only yellow yellow yellow remains
        state.apply_string("keep yellow")
    play(state, ["keep yellow"] * 3)
    assert state.current_player() == CHANCE and state.kept == [[0, 0, 0, 0, 0, 3]] * 2
    assert state.move_number() == 6 * 56  # the bound used for max_moves


# ----- dealing and turns -------------------------------------------------------------------
def test_first_player_gets_twelve_cards_first_then_second_player_ten():
    state = start(first=1)
    play(state, ["deal brown"] * 10 + ["deal black"] * 2)
    assert state.hands[1] == [10, 2, 0, 0, 0, 0] and state.hands[0] == [0] * 6
    assert state.legal_actions() == [1, 2, 3, 4, 5]  # brown is used up
    play(state, ["deal black"] * 8 + ["deal pink"] * 2)
    assert state.hands[0] == [0, 8, 0, 2, 0, 0]
    assert state.current_player() == 1  # the first player puts first


def test_deal_probability_is_proportional_to_what_is_left():
    state = start("red red red", "white white white")
    play(state, ["deal brown"] * 4)
    outcomes = dict(state.chance_outcomes())
    assert outcomes[0] == pytest.approx(6 / 50) and outcomes[2] == pytest.approx(7 / 50)
    assert sum(outcomes.values()) == pytest.approx(1.0)


FIRST_HAND = ["brown"] * 4 + ["black"] * 4 + ["pink"] * 4
SECOND_HAND = ["yellow"] * 5 + ["pink"] * 5


def test_first_turn_put_any_card_any_square_any_chip_and_no_call():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    assert len(state.legal_actions()) == 3 * 3 * 6  # brown, black, pink on 3 squares as 6 colours
    state.apply_string("put brown on 2 as red")
    assert state.current_player() == 1 and state.phase == 3  # no call on the first turn of a round
    assert state.cards == [[2, 0, 0, 2, 2, 0]]  # face down, chip red
    assert effective(state, 2) == [0, 0, 1, 0, 0, 0]


def test_second_player_may_call_or_pass_after_its_put():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 2 as red", "put yellow on 1 as yellow"])
    assert state.current_player() == 1 and state.legal_actions() == [114, 115]
    state.apply_string("pass")
    assert state.current_player() == 0
    state.apply_string("put black on 3 as black")
    assert state.legal_actions() == [114, 115]  # player_0 may call player_1's previous card


def test_call_on_a_lie_turns_it_up_and_the_caller_chooses_its_chip():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 2 as red", "put yellow on 1 as pink", "call"])
    assert state.cards[0][5] == 1 and state.cards[1][5] == 0  # the lie is up, the caller's card stays down
    assert state.current_player() == 1 and state.legal_actions() == list(range(116, 122))
    state.apply_string("chip yellow")
    assert effective(state, 2) == [0, 0, 0, 0, 0, 1]
    assert state.current_player() == 0
    state.apply_string("put pink on 3 as pink")
    assert state.legal_actions() == [114, 115]  # player_1's card is still face down: callable
    play(state, ["call"])  # it was a lie (yellow as pink): player_0 chips it
    assert state.current_player() == 0
    state.apply_string("chip black")
    assert effective(state, 1) == [0, 1, 0, 0, 0, 0]


def test_call_on_the_truth_turns_the_callers_card_up_and_the_opponent_chooses_its_chip():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 2 as brown", "put yellow on 1 as red", "call"])
    assert state.cards[0][5] == 1 and state.cards[1][5] == 1  # both turned up
    assert state.current_player() == 0 and state.legal_actions() == list(range(116, 122))
    state.apply_string("chip brown")
    assert effective(state, 1) == [1, 0, 0, 0, 0, 0] and effective(state, 2) == [1, 0, 0, 0, 0, 0]
    assert state.current_player() == 0  # player_0's own turn comes next
    state.apply_string("put black on 3 as white")
    assert state.current_player() == 1 and state.phase == 3  # player_1's card is up: nothing to call


def test_only_the_opponents_previous_card_may_be_called():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 1 as red", "put yellow on 1 as red", "pass", "put black on 1 as red", "pass"])
    play(state, ["put yellow on 2 as white", "call"])
    assert state.cards[2][5] == 1 and state.cards[0][5] == 0  # player_0's latest card, not the first


def pass_through(state, puts):
    """Apply the puts in order, passing at every call-or-pass decision."""
    for put in puts:
        state.apply_string(put)
        if state.phase == 4:
            state.apply_string("pass")
    return state


def test_second_players_ninth_card_is_face_up_and_true():
    state = deal(start(first=1), FIRST_HAND, SECOND_HAND)  # player_1 first, player_0 second
    first_puts = ["put brown on 1 as red"] * 4 + ["put black on 2 as red"] * 4 + ["put pink on 2 as red"]
    second_puts = ["put yellow on 3 as red"] * 5 + ["put pink on 3 as red"] * 3
    turns = [put for pair in zip(first_puts, second_puts) for put in pair] + [first_puts[8]]
    pass_through(state, turns)
    assert state.current_player() == 0 and state.turn == 17
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    assert legal == [f"put pink on {s} as pink" for s in (1, 2, 3)]
    with pytest.raises(IllegalActionError):
        state.apply_string("put pink on 1 as red")
    state.apply_string("put pink on 3 as pink")
    assert state.cards[-1] == [3, 0, 3, 3, 3, 1]  # face up, true
    assert state.legal_actions() == [114, 115]  # it may still call the first player's 9th card


def test_calling_the_truth_with_the_ninth_card_lets_the_opponent_rechip_it():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    f_puts = ["put brown on 1 as brown"] * 4 + ["put black on 1 as brown"] * 4 + ["put pink on 2 as pink"]
    s_puts = ["put yellow on 3 as yellow"] * 5 + ["put pink on 3 as yellow"] * 3 + ["put pink on 2 as pink"]
    pass_through(state, [put for pair in zip(f_puts, s_puts) for put in pair][:-1])
    state.apply_string(s_puts[-1])
    state.apply_string("call")  # player_0's 9th card (pink as pink) was true
    assert state.cards[-2][5] == 1
    assert state.current_player() == 0 and state.phase == 5
    state.apply_string("chip brown")
    assert state.cards[-1] == [2, 1, 3, 3, 0, 1]
    assert state.phase == 6 and state.current_player() == 0  # the special turn


# ----- special turn ------------------------------------------------------------------------
QUIET_FIRST = [f"put brown on 1 as {c}" for c in ("brown", "black", "red", "pink")] + \
    [f"put black on 1 as {c}" for c in ("white", "yellow", "brown", "black")] + ["put pink on 1 as red"]
QUIET_SECOND = [f"put yellow on 1 as {c}" for c in ("pink", "white", "yellow", "brown", "black")] + \
    [f"put pink on 1 as {c}" for c in ("red", "pink", "white")] + ["put pink on 1 as pink"]
# Square 1 then holds chips brown 3, black 3, red 3, pink 4, white 3, yellow 2.


def _to_special_turn(first=0, **params):
    state = deal(start(first=first, **params), FIRST_HAND, SECOND_HAND)
    return pass_through(state, [put for pair in zip(QUIET_FIRST, QUIET_SECOND) for put in pair])


def test_special_turn_first_player_shows_from_three_then_second_from_one():
    state = _to_special_turn()
    assert effective(state, 1) == [3, 3, 3, 4, 3, 2]
    assert state.current_player() == 0 and state.phase == 6
    assert state.hands[0] == [0, 0, 0, 3, 0, 0] and state.hands[1] == [0, 0, 0, 1, 0, 0]
    assert [state.action_to_string(a) for a in state.legal_actions()] == [f"show pink on {s}" for s in (1, 2, 3)]
    state.apply_string("show pink on 1")
    assert state.current_player() == 1 and len(state.legal_actions()) == 3
    assert len(state.cards) == 18  # not shown until both have chosen
    state.apply_string("show pink on 1")
    # Square 1: pink 6 moves 1; squares 2 and 3 are empty. Round 2: reshuffle, first alternates.
    assert state.foxes == [0, 0, 0, 1, 0, 0] and state.moved == [3, -1, -1]
    assert state.round == 2 and state.first == 1 and state.current_player() == CHANCE
    assert state.cards == [] and state.hands == [[0] * 6, [0] * 6] and sum(state.deck) == 54


def test_second_player_cannot_see_the_first_players_special_turn_choice():
    a, b = _to_special_turn(), _to_special_turn()
    a.apply_string("show pink on 2")
    b.apply_string("show pink on 3")
    assert np.array_equal(a.observation_tensor(1), b.observation_tensor(1))
    assert a.information(1) == b.information(1)
    assert a.render_text(1) == b.render_text(1)
    assert a.legal_actions() == b.legal_actions()
    assert not np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.observation_tensor(0)[O_PENDING + 6 + 3] == 1.0  # square 2, pink
    assert a.render_text(0) != b.render_text(0) and str(a) != str(b)


def test_both_special_cards_are_shown_face_up_and_count_by_face():
    state = _to_special_turn()
    play(state, ["show pink on 2", "show pink on 3"])
    # Square 1 pink 4 moves 1, square 2 pink moves 2, square 3 pink moves 3: pink reaches 6.
    assert state.moved == [3, 3, 3] and state.foxes == [0, 0, 0, 6, 0, 0]
    assert state.cards[-2:] == [[2, 0, 3, -1, 3, 1], [3, 1, 3, -1, 3, 1]]
    assert state.is_terminal() and state.returns().tolist() == [0.0, 0.0]  # nobody kept pink: 0-0


# ----- round end ---------------------------------------------------------------------------
@pytest.mark.parametrize("counts, winner", [
    ((0, 0, 0, 0, 0, 0), -1),
    ((0, 0, 1, 0, 0, 0), 2),
    ((2, 0, 5, 1, 0, 0), 2),
    ((3, 3, 2, 0, 0, 0), 2),  # top shared: the next count, held by one colour, moves
    ((3, 3, 2, 2, 1, 0), 4),
    ((2, 2, 2, 0, 0, 0), -1),  # all tied: nobody moves
    ((4, 4, 1, 1, 0, 0), -1),
])
def test_square_winner_rule(counts, winner):
    assert square_winner(counts) == winner


def _tie_round(**params):
    state = start("red red pink", "red white white", first=0, **params)
    first_puts = [f"put brown on 1 as {c}" for c in ("red", "red", "red", "pink", "pink")] + \
        [f"put black on 1 as {c}" for c in ("pink", "white", "white", "brown")]
    second_puts = [f"put yellow on 2 as {c}" for c in ("red", "red", "pink", "pink")] + \
        ["put pink on 2 as black"] * 2 + ["put pink on 3 as yellow"] * 2 + ["put yellow on 3 as yellow"]
    return run_round(state, first_puts, second_puts, "show brown on 3", "show black on 3")


def test_round_end_tie_rule_on_every_square():
    state = _tie_round()
    # Square 1: red 3, pink 3, white 2, brown 1 -> white moves 1.
    # Square 2: red 2, pink 2, black 2 -> all tied, nothing moves.
    # Square 3: yellow 3, brown 1, black 1 -> yellow moves 3.
    assert state.moved == [4, -1, 5]
    assert state.foxes == [0, 0, 0, 0, 1, 3]
    assert state.round == 2 and not state.is_terminal()


def test_max_rounds_ends_in_a_draw_whatever_the_scores():
    state = _tie_round(max_rounds=1)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns().tolist() == [0.0, 0.0]  # player_1 would score 2 (white 1, twice)
    assert "draw" in str(state)


def _finish_game(kept0="red red pink", kept1="red white white"):
    state = start(kept0, kept1, first=0)
    # Round 1 (player_0 first): red wins square 3 and moves 3; squares 1 and 2 stay empty.
    f_puts = ["put brown on 3 as red"] * 5 + ["put black on 3 as red"] * 4
    s_puts = [f"put yellow on 3 as {c}" for c in ("brown", "black", "pink", "white", "yellow")] + \
        [f"put pink on 3 as {c}" for c in ("brown", "black", "white")] + ["put pink on 3 as pink"]
    run_round(state, f_puts, s_puts, "show black on 3", "show pink on 3")
    assert state.moved == [-1, -1, 2] and state.foxes == [0, 0, 3, 0, 0, 0]
    assert state.first == 1
    # Round 2 (player_1 first): red wins squares 1 and 2, pink square 3.
    f_puts = ["put brown on 1 as red"] * 5 + ["put black on 2 as red"] * 4
    s_puts = ["put yellow on 3 as pink"] * 5 + ["put brown on 3 as pink"] * 3 + ["put pink on 3 as pink"]
    return run_round(state, f_puts, s_puts, "show black on 1", "show pink on 3")


def test_game_ends_the_moment_a_fox_reaches_six():
    state = _finish_game()
    # red 3 -> 4 (square 1) -> 6 (square 2): the end; pink (square 3) does not move.
    assert state.moved == [2, 2] and state.foxes == [0, 0, 6, 0, 0, 0]
    assert state.is_terminal() and state.legal_actions() == []


def test_every_kept_card_scores_its_fox_repeats_included():
    state = _finish_game("red red pink", "red white white")
    assert state.scores == [12, 6]  # 6 + 6 + 0 against 6 + 0 + 0
    assert state.returns().tolist() == [1.0, -1.0]
    assert "scores 12-6, player_0 wins" in state.render_text(1)
    state = _finish_game("pink white yellow", "red black black")
    assert state.scores == [0, 6] and state.returns().tolist() == [-1.0, 1.0]
    state = _finish_game("red brown brown", "red black black")
    assert state.scores == [6, 6] and state.returns().tolist() == [0.0, 0.0]


def test_default_max_moves_bounds_every_game():
    assert fox_envs.make_game("outfoxed_v0").max_moves_default == 336 + 54 * 20
    assert fox_envs.make_game("outfoxed_v0", max_rounds=2).max_moves_default == 336 + 54 * 2


def test_a_round_can_take_exactly_54_decisions():
    """Every card called and found a lie: 18 puts, 17 calls, 17 chips, 2 shows."""
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    before = state.move_number()
    f_puts = ["put brown on 1 as red"] * 4 + ["put black on 1 as red"] * 4 + ["put pink on 1 as red"]
    s_puts = ["put yellow on 2 as red"] * 5 + ["put pink on 2 as red"] * 3 + ["put pink on 2 as pink"]
    for f_put, s_put in zip(f_puts, s_puts):
        for put in (f_put, s_put):
            state.apply_string(put)
            if state.phase == 4:
                play(state, ["call", "chip white"])
    play(state, ["show pink on 3", "show pink on 3"])
    assert state.move_number() - before == 54


# ----- observation, information, text --------------------------------------------------------
def test_observation_contents_for_the_player_to_call():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 2 as red", "put yellow on 1 as pink"])
    obs = state.observation_tensor(1)
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
    assert obs[O_HAND:O_HAND + 6].tolist() == pytest.approx([0, 0, 0, 5 / 12, 0, 4 / 12])
    assert obs[O_KEPT + 4] == 1.0  # white x3
    assert obs[O_PHASE + 2] == 1.0  # call
    assert obs[O_CALLABLE:O_CALLABLE + 9].tolist() == [0, 1, 0, 0, 0, 1, 0, 0, 0]  # square 2, red
    assert obs[O_TABLE + (1 * 6 + 2) * 4 + 3] == pytest.approx(1 / 20)  # opponent face down red on 2
    assert obs[O_TABLE + (0 * 6 + 3) * 4 + 1] == pytest.approx(1 / 20)  # own face down pink on 1
    assert obs[O_SIZES:O_SIZES + 2].tolist() == pytest.approx([9 / 12, 11 / 12])
    other = state.observation_tensor(0)
    assert other[O_PHASE + 5] == 1.0 and other[O_CALLABLE:O_CALLABLE + 9].sum() == 0
    state.apply_string("call")
    obs = state.observation_tensor(1)
    assert obs[O_PHASE + 3] == 1.0 and obs[O_CHIP + 1] == 1.0 and obs[O_CHIP + 4] == 1.0
    assert obs[O_CHIP_FACE + 0] == 1.0  # the called card is a brown


def test_text_view_hides_the_opponents_face_down_cards_hand_and_kept():
    state = deal(start(first=0), FIRST_HAND, SECOND_HAND)
    play(state, ["put brown on 2 as red"])
    assert "0:[? as red]" in state.render_text(1)
    assert "0:[brown as red]" in state.render_text(0) and "0:[brown as red]" in str(state)
    assert "player_0 hand: 11 cards  kept: hidden" in state.render_text(1)
    assert "player_1 hand: pinkx5 yellowx5  kept: whitex3" in state.render_text(1)
    assert "kept: redx3" in str(state) and "kept: redx3" not in state.render_text(1)
    info = state.information(1)
    assert info.table[0].face == -1 and info.table[0].colour == 2
    assert state.information(0).table[0].face == 0


def _twin_games(viewer: int, seed: int):
    """Two games whose histories differ only in what ``viewer`` cannot know: the opponent's
    scoring picks, the cards dealt to it and the faces of its face-down cards. The viewer never
    calls and the opponent calls only lies, so none of the opponent's differing cards is turned
    up. Yields both states after every step."""
    from fox_envs.games.outfoxed.rules import COLOURS

    rng = np.random.default_rng(seed)
    opponent = 1 - viewer
    mine, theirs_a, theirs_b = "brown black red", "red red red", "white pink yellow"
    picks_a = keeps(mine, theirs_a) if viewer == 0 else keeps(theirs_a, mine)
    picks_b = keeps(mine, theirs_b) if viewer == 0 else keeps(theirs_b, mine)
    a, b = new(), new()
    for move_a, move_b in zip(picks_a, picks_b):
        a.apply_string(move_a)
        b.apply_string(move_b)
        yield a, b
    first = int(rng.integers(2))
    play(a, [f"first player_{first}"])
    play(b, [f"first player_{first}"])
    pool = [c for c in range(6) for _ in range(7)]
    order = rng.permutation(len(pool))
    viewer_size = 12 if viewer == first else 10
    public_count = 1 if opponent == first else 2  # the special-turn card (and the 9th card if second)
    cards = [pool[i] for i in order]
    viewer_cards, public = cards[:viewer_size], cards[viewer_size:viewer_size + public_count]
    rest = cards[viewer_size + public_count:]
    hidden_size = 22 - viewer_size - public_count
    hidden_a = rest[:hidden_size]
    hidden_b = list(rng.permutation(rest[hidden_size:])[:hidden_size])
    assert hidden_a != hidden_b
    opp_a, opp_b = hidden_a + public, hidden_b + public  # played in this order
    deals = {viewer: viewer_cards}
    for state, opp_cards in ((a, opp_a), (b, opp_b)):
        deals[opponent] = opp_cards
        for colour in deals[first] + deals[1 - first]:
            state.apply_string(f"deal {COLOURS[colour]}")
    yield a, b
    plays = 0
    while a.round == 1 and not a.is_terminal():
        player = a.current_player()
        if player == viewer:
            assert a.legal_actions() == b.legal_actions()
            options = [x for x in a.legal_actions() if x != 114]  # never call
            action = options[int(rng.integers(len(options)))]
            a.apply_action(action)
            b.apply_action(action)
        elif a.phase == 3:  # the opponent puts its next card
            square, declared = int(rng.integers(1, 4)), int(rng.integers(6))
            face_a, face_b = opp_a[plays], opp_b[plays]
            if a.turn == 17:
                declared = face_a
            plays += 1
            a.apply_string(f"put {COLOURS[face_a]} on {square} as {COLOURS[declared]}")
            b.apply_string(f"put {COLOURS[face_b]} on {square} as {COLOURS[declared]}")
        elif a.phase == 6:
            square = int(rng.integers(1, 4))
            a.apply_string(f"show {COLOURS[public[-1]]} on {square}")
            b.apply_string(f"show {COLOURS[public[-1]]} on {square}")
        else:  # call-or-pass or chip: the same choice in both
            options = a.legal_actions()
            if a.phase == 4:
                target = a.cards[a.last_card[viewer]]
                if target[2] == target[4]:  # calling a true card would turn up its own card
                    options = [115]
            action = options[int(rng.integers(len(options)))]
            a.apply_action(action)
            b.apply_action(action)
        yield a, b


@pytest.mark.parametrize("viewer", [0, 1])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_observation_does_not_depend_on_the_opponents_hidden_facts(viewer, seed):
    from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic

    opponent_differs = 0
    steps = 0
    for a, b in _twin_games(viewer, seed):
        steps += 1
        assert np.array_equal(a.observation_tensor(viewer), b.observation_tensor(viewer))
        assert a.information(viewer) == b.information(viewer)
        assert a.render_text(viewer) == b.render_text(viewer)
        if a.current_player() == viewer:
            assert OutfoxedHeuristic(seed).act(a, viewer) == OutfoxedHeuristic(seed).act(b, viewer)
        opponent_differs += not np.array_equal(a.observation_tensor(1 - viewer), b.observation_tensor(1 - viewer))
    assert steps > 40
    assert opponent_differs > steps // 2  # the opponent can tell the two games apart


def test_heuristic_plays_legal_games_to_the_end():
    from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
    from fox_envs.core.game import resolve_chance

    rng = np.random.default_rng(5)
    agents = [OutfoxedHeuristic(1), OutfoxedHeuristic(2)]
    for _ in range(5):
        state = new()
        while not state.is_terminal():
            resolve_chance(state, rng)
            if state.is_terminal():
                break
            player = state.current_player()
            before = state.clone()
            action = agents[player].act(state, player)
            assert state == before  # the agent does not mutate the state
            state.apply_action(action)


@pytest.mark.slow
def test_heuristic_beats_random_clearly():
    from fox_envs.agents import RandomAgent
    from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
    from fox_envs.core.game import resolve_chance

    rng = np.random.default_rng(11)
    total = 0.0
    for game in range(200):
        seat = game % 2
        agents = [OutfoxedHeuristic(game), RandomAgent(game)]
        if seat:
            agents.reverse()
        state = new()
        while not state.is_terminal():
            resolve_chance(state, rng)
            if not state.is_terminal():
                player = state.current_player()
                state.apply_action(agents[player].act(state, player))
        total += state.returns()[seat]
    assert total / 200 > 0.8
