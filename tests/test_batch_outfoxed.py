"""Outfoxed's batched kernels (``fox_envs.games.outfoxed.kernels``) on the rules most at risk.

Each scenario builds a position with the rules core from a known move sequence (deals given as
chance outcomes), loads it into a batch row, steps the batch with the action that triggers the
rule, and checks the row against what the rulebook / SPEC 2.5 says and against the rules core.
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from fox_envs.batch.env import count_decisions
from fox_envs.core.game import TERMINAL
from fox_envs.games.outfoxed.rules import (CALL, CHIP0, COLOUR_INDEX, MULTISET_INDEX, O_CALLABLE, O_CHIP, O_CHIP_FACE,
                                     O_FORBIDDEN, O_FOX, O_HAND, O_KEPT, O_OWN_FACE, O_PENDING, O_PICKS, O_ROUND,
                                     O_SIZES, O_TABLE, O_UP_FACE, PASS, TABLE_SCALE, put_action, show_action)
from batch_lockstep import apply_tail, assert_row_matches

ENV = "outfoxed_v0"
BROWN, BLACK, RED, PINK, WHITE, YELLOW = (COLOUR_INDEX[n] for n in ("brown", "black", "red", "pink", "white",
                                                                      "yellow"))
ONE_CARD = np.float32(TABLE_SCALE)


# ----- building positions with the rules core ------------------------------------------------------
def core_state(history=(), **params):
    state = fox_envs.make_game(ENV, **params).new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def passing(state, action) -> None:
    """Apply ``action``, passing first if the player must call or pass."""
    if state.legal_actions() == [CALL, PASS]:
        state.apply_action(PASS)
    state.apply_action(action)


def kept(state, p0, p1) -> None:
    for colour in list(p0) + list(p1):
        state.apply_action(colour)


def deal(state, first_hand, second_hand) -> None:
    assert len(first_hand) == 12 and len(second_hand) == 10
    for colour in list(first_hand) + list(second_hand):
        state.apply_action(colour)


def put_all(state, puts) -> None:
    for face, square, chip in puts:
        passing(state, put_action(face, square, chip))


def opening(first=0, **params):
    """Scoring picks red x3 (player_0) and yellow, yellow, black (player_1), then ``first``."""
    state = core_state(**params)
    kept(state, [RED] * 3, [YELLOW, YELLOW, BLACK])
    state.apply_action(first)
    return state


# Round plans (18 puts in turn order as (face, square, chip), then the two shows), the first
# player holding brown x9 + pink x3, the second white x10.
FIRST_HAND, SECOND_HAND = [BROWN] * 9 + [PINK] * 3, [WHITE] * 10
# Round A: square 1 ties (pink 2, white 2), red chips win squares 2 and 3 (red moves 2 + 3 = 5).
ROUND_A = ([(BROWN if t % 2 == 0 else WHITE, 1 if t == 0 else 2 + t % 2, PINK if t == 0 else RED)
            for t in range(17)] + [(WHITE, 1, WHITE)],
           [(PINK, 1), (WHITE, 1)])
# Round B: a single red chip on square 1 (red moves 1), yellow wins squares 2 and 3.
ROUND_B = ([(BROWN if t % 2 == 0 else WHITE, 1 if t == 0 else 2 + t % 2, RED if t == 0 else YELLOW)
            for t in range(17)] + [(WHITE, 2, WHITE)],
           [(PINK, 3), (WHITE, 3)])


def play_round(state, plan, last_show=True) -> None:
    puts, shows = plan
    deal(state, FIRST_HAND, SECOND_HAND)
    put_all(state, puts)
    passing(state, show_action(*shows[0]))
    if last_show:
        state.apply_action(show_action(*shows[1]))


# ----- batch helpers -------------------------------------------------------------------------------
def loaded(state, num_envs=1, seed=0, **extra):
    env = fox_envs.batch.make(ENV, num_envs, seed=seed, auto_reset=False, **state.game.params, **extra)
    env.load(0, state)
    assert_row_matches(env, 0, state)
    return env


def step_row0(env, ref, action):
    """Step row 0 with ``action`` (other rows random); ``ref`` follows it on the core with the
    chance outcomes the row drew. Returns the step's rewards, terminated, truncated of row 0."""
    actions = env.random_actions()
    actions[0] = action
    rewards, term, trunc = env.step(actions)
    ref.apply_action(action)
    arrays = env._arrays
    if term[0] or trunc[0]:
        apply_tail(ref, env.final_core_state(0).history()[len(ref.history()):])
    else:
        apply_tail(ref, arrays["hist"][0, len(ref.history()):arrays["hlen"][0]].tolist())
        assert_row_matches(env, 0, ref)
    return rewards[0].copy(), bool(term[0]), bool(trunc[0])


# ----- scoring picks -----------------------------------------------------------------------------------
def test_identical_scoring_sets_are_forbidden_and_picked_again():
    state = core_state([RED, RED, PINK, RED, PINK])  # player_1 is about to complete red, red, pink
    env = loaded(state)
    ref = state.clone()
    step_row0(env, ref, RED)
    forbidden = MULTISET_INDEX[tuple((RED, RED, PINK).count(c) for c in range(6))]
    obs = env.observation[0]
    assert env.current_player[0] == 0  # picks start again with player_0
    assert obs[O_FORBIDDEN + forbidden] == 1.0 and obs[O_FORBIDDEN:O_FORBIDDEN + 56].sum() == 1.0
    assert obs[O_PICKS] == 0.0 and not obs[O_KEPT:O_KEPT + 6].any()
    step_row0(env, ref, PINK)
    step_row0(env, ref, RED)
    # red, pink + red would complete the forbidden set: masked; every other colour is legal
    assert env.action_mask[0, :6].tolist() == [c != RED for c in range(6)]
    step_row0(env, ref, BROWN)
    step_row0(env, ref, RED)
    step_row0(env, ref, PINK)
    assert env.action_mask[0, :6].tolist() == [c != RED for c in range(6)]  # for player_1 too


def test_different_scoring_sets_stand_and_chance_picks_the_first_player():
    state = core_state([RED, RED, PINK, RED, PINK])
    env = loaded(state)
    ref = state.clone()
    step_row0(env, ref, WHITE)  # different sets: the first player is drawn, then 22 deals
    history = env._arrays["hist"][0, :env._arrays["hlen"][0]]
    assert len(history) == 6 + 1 + 22
    first = int(history[6])
    assert env.current_player[0] == first  # the first player puts first
    kept_now = env.observation[0, O_KEPT:O_KEPT + 6]  # player_0 kept red, red, pink; player_1 red, pink, white
    expected = [0, 0, 2, 1, 0, 0] if first == 0 else [0, 0, 1, 1, 1, 0]
    np.testing.assert_array_equal(kept_now, (np.array(expected) / 3.0).astype(np.float32))


def test_a_state_loaded_in_the_middle_of_the_deal_is_dealt_on_from_the_deck_left():
    state = opening(first=1)
    for colour in [RED] * 7 + [PINK] * 3:  # the deck's last 7 reds go to player_1 (the first player)
        state.apply_action(colour)
    assert state.is_chance_node()
    env = fox_envs.batch.make(ENV, 1, seed=3)
    env.load(0, state)
    history = env._arrays["hist"][0, :env._arrays["hlen"][0]].tolist()
    assert history[:len(state.history())] == state.history()
    rest = history[len(state.history()):]
    assert len(rest) == 22 - 10 and RED not in rest  # no red is left in the deck
    ref = state.clone()
    apply_tail(ref, rest)
    assert_row_matches(env, 0, ref)
    assert env.current_player[0] == 1 and env.moves[0] == 6


# ----- chance frequencies ----------------------------------------------------------------------------
def batch_after_picks(rows, seed, **params):
    """``rows`` rows, each after the picks brown x3 / black x3 (the deck keeps 7, 7, 10, 10, 10, 10)."""
    env = fox_envs.batch.make(ENV, rows, seed=seed, auto_reset=False, **params)
    for colour in [BROWN] * 3 + [BLACK] * 3:
        env.step(np.full(rows, colour))
    return env


def within(frequency, probability, rows, sigmas=5.0) -> bool:
    return abs(frequency - probability) < sigmas * np.sqrt(probability * (1 - probability) / rows) + 1e-9


def test_first_player_is_drawn_half_and_half_after_the_scoring_picks():
    rows = 4000
    env = batch_after_picks(rows, seed=31)
    first = env._arrays["hist"][:, 6]
    assert set(np.unique(first).tolist()) == {0, 1}
    assert within(np.mean(first == 0), 0.5, rows)
    np.testing.assert_array_equal(env.current_player, first)


DECK = np.array([7, 7, 10, 10, 10, 10])


def check_deals(deals: np.ndarray) -> None:
    """``deals`` [rows, 22]: every position's colour has probability deck / 54, and the totals
    per colour follow the hypergeometric law of drawing 22 of the 54 without replacement."""
    rows = deals.shape[0]
    for position in (0, 11, 12, 21):
        for colour in range(6):
            assert within(np.mean(deals[:, position] == colour), DECK[colour] / 54, rows), (position, colour)
    for colour in range(6):
        totals = (deals == colour).sum(axis=1)
        p = DECK[colour] / 54
        mean, variance = 22 * p, 22 * p * (1 - p) * (54 - 22) / (54 - 1)
        assert abs(totals.mean() - mean) < 5 * np.sqrt(variance / rows)
        # the sample variance of a sum of 22 draws with replacement would be 1.65x this
        assert abs(totals.var() / variance - 1) < 5 * np.sqrt(2 / rows) * 1.5, (colour, totals.var(), variance)
        assert totals.max() <= DECK[colour]


def test_deals_are_proportional_to_the_deck_left():
    rows = 4000
    env = batch_after_picks(rows, seed=32)
    hist = env._arrays["hist"]
    deals = hist[:, 7:29].astype(int)
    check_deals(deals)
    # the first player's hand holds the first 12 cards dealt, the second's the next 10
    first = hist[:, 6]
    for i in range(0, rows, 397):
        counts = np.bincount(deals[i, :12], minlength=6)
        np.testing.assert_array_equal(env.observation[i, O_HAND:O_HAND + 6], (counts / 12.0).astype(np.float32))
        assert env.observation[i, O_SIZES] == 1.0 and env.observation[i, O_SIZES + 1] == np.float32(10 / 12.0)
        assert env.current_player[i] == first[i]


def test_every_round_shuffles_the_deck_anew():
    """The deals of round 2 (after the first round's two special-turn cards) follow the deck."""
    rows = 2000
    env = batch_after_picks(rows, seed=33)
    for _ in range(70):
        env.step(env.random_actions())
    hist, hlen = env._arrays["hist"], env._arrays["hlen"]
    deals = []
    for i in range(rows):
        row = hist[i, 29:hlen[i]]
        shows = np.flatnonzero(row >= 122)
        if len(shows) >= 2 and len(row) >= shows[1] + 23:
            assert row[shows[1] + 1:shows[1] + 23].max() < 6
            deals.append(row[shows[1] + 1:shows[1] + 23])
    assert len(deals) > rows // 2
    check_deals(np.array(deals, int))


# ----- a turn: put and declare, call or pass, chips ------------------------------------------------
def first_turn():
    """player_0 first, holding red x6 + pink x6; player_1 white x5 + yellow x5."""
    state = opening(first=0)
    deal(state, [RED] * 6 + [PINK] * 6, [WHITE] * 5 + [YELLOW] * 5)
    return state


def test_first_put_of_a_round_has_no_call_and_any_card_square_and_chip():
    state = first_turn()
    env = loaded(state)
    legal = {put_action(c, s, d) for c in (RED, PINK) for s in (1, 2, 3) for d in range(6)}
    assert set(np.flatnonzero(env.action_mask[0])) == legal
    ref = state.clone()
    step_row0(env, ref, put_action(RED, 1, PINK))
    assert env.current_player[0] == 1  # no call on the first turn: player_1 puts next
    obs = env.observation[0]
    assert obs[O_TABLE + (0 * 6 + PINK) * 4 + 3] == ONE_CARD  # the opponent's face-down card, chip pink
    assert not obs[O_UP_FACE:O_UP_FACE + 18].any() and not obs[O_OWN_FACE:O_OWN_FACE + 18].any()


def test_call_on_a_lie_turns_it_up_and_the_caller_chooses_its_chip():
    state = first_turn()
    put_all(state, [(RED, 1, PINK), (WHITE, 2, WHITE)])
    env = loaded(state)
    assert env.current_player[0] == 1 and set(np.flatnonzero(env.action_mask[0])) == {CALL, PASS}
    assert env.observation[0, O_CALLABLE + 0] == 1.0 and env.observation[0, O_CALLABLE + 3 + PINK] == 1.0
    ref = state.clone()
    step_row0(env, ref, CALL)
    obs = env.observation[0]
    assert env.current_player[0] == 1  # the caller chooses the liar's chip
    assert set(np.flatnonzero(env.action_mask[0])) == set(range(CHIP0, CHIP0 + 6))
    assert obs[O_CHIP + 0] == 1.0 and obs[O_CHIP + 4] == 1.0 and obs[O_CHIP_FACE + RED] == 1.0
    assert obs[O_UP_FACE + RED] == ONE_CARD  # turned up: player_1 sees the red face now
    step_row0(env, ref, CHIP0 + BROWN)
    obs = env.observation[0]  # player_0 to put: its card lies face up on square 1 with a brown chip
    assert env.current_player[0] == 0
    assert obs[O_TABLE + (0 * 6 + BROWN) * 4 + 0] == ONE_CARD and obs[O_TABLE + (0 * 6 + PINK) * 4 + 0] == 0
    # player_1's white card on square 2 stays face down: player_0 sees its chip, not its face
    assert obs[O_TABLE + (1 * 6 + WHITE) * 4 + 3] == ONE_CARD and obs[O_UP_FACE + 6 + WHITE] == 0


def test_call_on_the_truth_turns_the_callers_card_up_and_the_opponent_chooses_its_chip():
    state = first_turn()
    put_all(state, [(RED, 1, RED), (YELLOW, 3, PINK)])
    env = loaded(state)
    ref = state.clone()
    step_row0(env, ref, CALL)
    obs = env.observation[0]
    assert env.current_player[0] == 0  # the opponent of the caller chooses the chip ...
    assert obs[O_CHIP + 2] == 1.0 and obs[O_CHIP + 4] == 1.0  # ... of the caller's card on square 3
    assert obs[O_CHIP_FACE + YELLOW] == 1.0 and obs[O_UP_FACE + 12 + YELLOW] == ONE_CARD
    assert obs[O_UP_FACE + RED] == ONE_CARD  # the true card is face up too
    step_row0(env, ref, CHIP0 + WHITE)
    assert env.current_player[0] == 0  # then player_0 takes its own turn
    assert env.observation[0, O_TABLE + (2 * 6 + WHITE) * 4 + 2] == ONE_CARD


def test_pass_leaves_the_card_face_down_and_only_the_previous_card_may_be_called():
    state = first_turn()
    put_all(state, [(RED, 1, RED), (YELLOW, 3, PINK)])
    env = loaded(state)
    ref = state.clone()
    step_row0(env, ref, PASS)
    assert env.current_player[0] == 0
    assert env.observation[0, O_UP_FACE:O_UP_FACE + 18].sum() == 0  # nothing was turned up
    step_row0(env, ref, put_action(PINK, 2, BLACK))
    # player_0 may call player_1's card (square 3, declared pink)
    obs = env.observation[0]
    assert env.current_player[0] == 0 and obs[O_CALLABLE + 2] == 1.0 and obs[O_CALLABLE + 3 + PINK] == 1.0
    step_row0(env, ref, PASS)
    step_row0(env, ref, put_action(WHITE, 1, WHITE))
    # player_1 may call player_0's newest card (square 2, black), not its first one (square 1, red)
    obs = env.observation[0]
    assert env.current_player[0] == 1 and obs[O_CALLABLE + 1] == 1.0 and obs[O_CALLABLE + 3 + BLACK] == 1.0
    assert obs[O_CALLABLE:O_CALLABLE + 9].sum() == 2.0
    step_row0(env, ref, CALL)  # a lie (pink declared black): player_1 chips it
    assert env.current_player[0] == 1 and env.observation[0, O_CHIP + 1] == 1.0
    assert env.observation[0, O_CHIP_FACE + PINK] == 1.0


def test_second_players_ninth_card_is_face_up_and_true():
    state = opening(first=0)
    deal(state, FIRST_HAND, SECOND_HAND[:8] + [YELLOW, BLACK])
    puts = [(BROWN if t % 2 == 0 else WHITE, 2, RED) for t in range(17)]
    put_all(state, puts)
    if state.legal_actions() == [CALL, PASS]:
        state.apply_action(PASS)
    env = loaded(state)
    assert env.current_player[0] == 1
    legal = {put_action(c, s, c) for c in (YELLOW, BLACK) for s in (1, 2, 3)}
    assert set(np.flatnonzero(env.action_mask[0])) == legal
    ref = state.clone()
    step_row0(env, ref, put_action(YELLOW, 3, YELLOW))
    # player_1 may still call player_0's 9th card; its own 9th lies face up for both
    assert env.current_player[0] == 1 and set(np.flatnonzero(env.action_mask[0])) == {CALL, PASS}
    assert env.observation[0, O_UP_FACE + 12 + YELLOW] == ONE_CARD
    step_row0(env, ref, PASS)
    assert env.current_player[0] == 0  # the special turn: the first player shows first
    assert env.observation[0, O_UP_FACE + 12 + YELLOW] == ONE_CARD


# ----- the special turn ----------------------------------------------------------------------------
def special_turn(first=0, **params):
    state = opening(first=first, **params)
    puts, shows = ROUND_A
    deal(state, FIRST_HAND, SECOND_HAND)
    put_all(state, puts)
    if state.legal_actions() == [CALL, PASS]:
        state.apply_action(PASS)
    return state


@pytest.mark.parametrize("first", [0, 1])
def test_special_turn_second_player_does_not_see_the_first_players_choice(first):
    state = special_turn(first)
    env = loaded(state, num_envs=3)
    env.load(1, state)
    assert env.current_player[0] == first
    assert set(np.flatnonzero(env.action_mask[0])) == {show_action(c, s) for c in (PINK,) for s in (1, 2, 3)}
    actions = np.array([show_action(PINK, 1), show_action(PINK, 3), env.random_actions()[2]])
    env.step(actions)
    for row, action in ((0, show_action(PINK, 1)), (1, show_action(PINK, 3))):
        ref = state.clone()
        ref.apply_action(action)
        assert_row_matches(env, row, ref)
        assert env.current_player[row] == 1 - first
    # the second player's view is the same whichever card the first chose ...
    np.testing.assert_array_equal(env.observation[0], env.observation[1])
    assert not env.observation[0, O_PENDING:O_PENDING + 18].any()
    # face up: only the second player's 9th card (white on square 1)
    assert env.observation[0, O_UP_FACE + WHITE] == ONE_CARD
    assert env.observation[0, O_UP_FACE:O_UP_FACE + 18].sum() == ONE_CARD
    # ... and the first player's own view holds its pending card
    ref = state.clone()
    ref.apply_action(show_action(PINK, 3))
    assert ref.observation_tensor(first)[O_PENDING + 2 * 6 + PINK] == 1.0
    assert env.action_mask[0].sum() == 3  # the second player shows its last card: white on 1, 2 or 3


def test_both_special_cards_are_shown_and_count_by_face():
    """Round A: square 1 ties (pink 2, white 2: nothing moves), red moves 2 then 3."""
    state = special_turn(0, max_rounds=2)
    state.apply_action(show_action(PINK, 1))
    env = loaded(state)
    ref = state.clone()
    rewards, term, trunc = step_row0(env, ref, show_action(WHITE, 1))
    assert not term and not trunc and not rewards.any()
    obs = env.observation[0]
    foxes = [int(np.flatnonzero(obs[O_FOX + c * 7:O_FOX + c * 7 + 7])[0]) for c in range(6)]
    assert foxes == [0, 0, 5, 0, 0, 0]
    assert env.current_player[0] == 1  # round 2: the first player alternates
    assert obs[O_ROUND] == np.float32(2 / 2) and obs[O_SIZES] == 1.0
    assert not obs[O_TABLE:O_UP_FACE + 18].any()  # a new round starts with an empty table


# ----- round end, the finish, max_rounds ---------------------------------------------------------------
@pytest.mark.parametrize("tie_square_counts, expected_mover", [
    ((PINK, WHITE, WHITE, PINK, RED), RED),  # highest count shared: the next count held by one moves
    ((WHITE, WHITE, PINK, PINK), -1),  # every count shared: nothing moves
    ((RED, RED, RED, PINK, PINK, PINK, BROWN), BROWN),
])
def test_round_end_moves_the_highest_count_held_by_one_colour(tie_square_counts, expected_mover):
    """Square 1 holds the chips ``tie_square_counts`` (the last two cards being the shows), square 2
    holds black chips only, square 3 yellow chips only."""
    chips = list(tie_square_counts)
    shows = chips[-2:]
    square1 = chips[:-2]
    puts = []
    for t in range(18):
        face = BROWN if t % 2 == 0 else WHITE
        if t == 17:
            puts.append((WHITE, 3, WHITE))  # square 3: yellow still leads (the 9th card counts as white)
        elif t < len(square1):
            puts.append((face, 1, square1[t]))
        else:
            puts.append((face, 2 + t % 2, BLACK if t % 2 == 0 else YELLOW))
    hands = ([BROWN] * 9 + [shows[0]] * 3, [WHITE] * 9 + [shows[1]])
    state = opening(first=0, max_rounds=3)
    deal(state, *hands)
    put_all(state, puts)
    passing(state, show_action(shows[0], 1))
    env = loaded(state)
    ref = state.clone()
    step_row0(env, ref, show_action(shows[1], 1))
    obs = env.observation[0]
    foxes = [int(np.flatnonzero(obs[O_FOX + c * 7:O_FOX + c * 7 + 7])[0]) for c in range(6)]
    expected = [0] * 6
    expected[BLACK] += 2
    expected[YELLOW] += 3
    if expected_mover >= 0:
        expected[expected_mover] += 1
    assert foxes == expected


def test_the_game_ends_the_moment_a_fox_reaches_six():
    """Round A brings red to 5; in round B red moves 1 from square 1 and reaches 6, so yellow
    (winner of squares 2 and 3) does not move. Red x3 scores 18 against 0: player_0 wins."""
    state = opening(first=0)
    play_round(state, ROUND_A)
    play_round(state, ROUND_B, last_show=False)
    env = loaded(state)
    ref = state.clone()
    rewards, term, trunc = step_row0(env, ref, show_action(*ROUND_B[1][1]))
    assert term and not trunc and ref.is_terminal()
    assert rewards.tolist() == [1.0, -1.0]
    final = env.final_observation[0]  # the view of the last mover (player_0, second in round 2)
    assert final[O_FOX + RED * 7 + 6] == 1.0 and final[O_FOX + YELLOW * 7 + 0] == 1.0
    np.testing.assert_array_equal(final, ref.observation_tensor(0))
    assert env.current_player[0] == TERMINAL and not env.action_mask[0].any()


@pytest.mark.parametrize("view", [0, 1])
def test_final_observation_of_a_chosen_seat(view):
    """The vector view asks for the learner's seat: the final observation is that seat's view."""
    state = opening(first=0)
    play_round(state, ROUND_A)
    play_round(state, ROUND_B, last_show=False)
    env = loaded(state)
    env._step(np.array([show_action(*ROUND_B[1][1])]), final_view=view)
    state.apply_action(show_action(*ROUND_B[1][1]))
    assert state.is_terminal() and env._arrays["term"][0]
    np.testing.assert_array_equal(env.final_observation[0], state.observation_tensor(view))
    assert env.final_observation[0, O_KEPT + RED] == (1.0 if view == 0 else 0.0)  # its own kept cards


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_max_rounds_ends_in_a_draw(max_rounds):
    state = opening(first=0, max_rounds=max_rounds)
    play_round(state, ROUND_A, last_show=False)
    env = loaded(state)
    ref = state.clone()
    rewards, term, trunc = step_row0(env, ref, show_action(*ROUND_A[1][1]))
    # player_0 (red x3, red at 5) is ahead 15 to 0, yet the limit makes it a draw
    assert term == (max_rounds == 1) and not trunc and not rewards.any()
    if max_rounds == 2:
        assert env.current_player[0] == 1


def test_max_moves_truncates_with_no_reward():
    state = opening(first=0)
    play_round(state, ROUND_A, last_show=False)
    env = loaded(state, max_moves=count_decisions(state) + 1)
    ref = state.clone()
    rewards, term, trunc = step_row0(env, ref, show_action(*ROUND_A[1][1]))
    assert trunc and not term and not rewards.any()


# ----- hidden information ------------------------------------------------------------------------------
def hidden_variant(opp_keep, opp_hand, opp_face):
    """player_0 (first) to put its second card; player_1's kept cards, hand and the face of its
    face-down card vary."""
    state = core_state()
    kept(state, [RED] * 3, opp_keep)
    state.apply_action(0)
    deal(state, [RED] * 6 + [PINK] * 6, opp_hand)
    put_all(state, [(RED, 1, PINK), (opp_face, 2, WHITE)])
    state.apply_action(PASS)
    return state


def test_observation_never_shows_the_opponents_hand_kept_cards_or_face_down_faces():
    a = hidden_variant([YELLOW] * 3, [WHITE] * 5 + [YELLOW] * 5, WHITE)
    b = hidden_variant([BLACK, BROWN, WHITE], [BROWN] * 4 + [BLACK] * 6, BLACK)
    env = fox_envs.batch.make(ENV, 2, seed=0, auto_reset=False)
    env.load(0, a)
    env.load(1, b)
    assert (env.current_player == 0).all()
    np.testing.assert_array_equal(env.observation[0], env.observation[1])
    env.step(np.array([put_action(PINK, 3, PINK)] * 2))  # player_0 then calls or passes
    assert (env.current_player == 0).all()
    np.testing.assert_array_equal(env.observation[0], env.observation[1])
    env.step(np.array([PASS, PASS]))  # player_1 to put: its own hands differ
    assert (env.current_player == 1).all()
    assert not np.array_equal(env.observation[0], env.observation[1])
    puts = [put_action(WHITE, 1, YELLOW), put_action(BLACK, 1, YELLOW)]
    env.step(np.array(puts))
    env.step(np.array([PASS, PASS]))
    assert (env.current_player == 0).all()  # player_0's view again: the same in both rows
    np.testing.assert_array_equal(env.observation[0], env.observation[1])
    for row, ref in ((0, a), (1, b)):
        for action in (put_action(PINK, 3, PINK), PASS, puts[row], PASS):
            ref.apply_action(action)
        assert_row_matches(env, row, ref)


def test_random_play_observations_depend_only_on_what_the_player_knows():
    """At every step of random batch play, the row's observation equals the core's observation
    of a determinisation (the opponent's hidden facts redrawn) for the player to move."""
    rng = np.random.default_rng(5)
    env = fox_envs.batch.make(ENV, 3, seed=41, max_rounds=2)
    for _ in range(150):
        env.step(env.random_actions())
        for i in range(env.num_envs):
            player = int(env.current_player[i])
            other = env.core_state(i).sample_determinisation(player, rng)
            np.testing.assert_array_equal(env.observation[i], other.observation_tensor(player))
            np.testing.assert_array_equal(env.action_mask[i], other.legal_actions_mask().astype(bool))
