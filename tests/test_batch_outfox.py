"""Outfox batched kernels (``fox_envs.games.outfox.kernels``): the rules most at risk, from SPEC 2.3 and
the rulebook ``outfox.txt``.

Each scenario builds a position with the rules core (notation played from the start), loads it
into one row of a batch, steps the batch with the action that triggers the rule, and checks the
row against what the rule says and against the core. Outfox has no chance events, so there is no
chance-frequency test here.
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from fox_envs import make_game
from fox_envs.games.outfox.rules import NUM_PLACE, NUM_POINTS, POINT_INDEX, TYPE_INDEX, TYPE_NAMES
from batch_lockstep import assert_row_matches, run_lockstep

ROW = 1
RUN2 = ["c1", "c2", "c3", "c4"]  # the row c1..c4


def play(moves: list[str], num_players: int = 2):
    state = make_game("outfox_v0", num_players=num_players).new_initial_state()
    for move in moves:
        state.apply_string(move)
    return state


def loaded(moves: list[str], num_players: int = 2, auto_reset: bool = False, **kwargs):
    """A batch of 3 rows whose row ``ROW`` continues from ``moves``; the core state too."""
    env = fox_envs.batch.make("outfox_v0", 3, seed=0, auto_reset=auto_reset, num_players=num_players, **kwargs)
    state = play(moves, num_players)
    env.load(ROW, state)
    assert env.core_state(ROW) == state
    assert_row_matches(env, ROW, state)
    return env, state


def step_row(env, text: str, state=None):
    """Play ``text`` in row ``ROW`` (random legal actions elsewhere); the core state follows."""
    action = env.game.new_initial_state().string_to_action(text)
    assert env.action_mask[ROW, action], f"{text} is not legal in the batch row"
    actions = env.random_actions()
    actions[ROW] = action
    rewards, term, trunc = env.step(actions)
    if state is not None:
        state.apply_action(action)
    return rewards[ROW].copy(), bool(term[ROW]), bool(trunc[ROW])


def legal_strings(env, row: int = ROW) -> set[str]:
    state = env.game.new_initial_state()
    return {state.action_to_string(int(a)) for a in np.flatnonzero(env.action_mask[row])}


def placement_points(env, row: int = ROW) -> set[str]:
    return {s.split("@")[1] for s in legal_strings(env, row) if "@" in s}


def at(env, point: str) -> str:
    """The piece the batch row's observation shows on ``point`` (type planes 0-8), or ``.``."""
    from fox_envs.games.outfox.rules import COORDS

    q, r = COORDS[POINT_INDEX[point]]
    cell = env.observation[ROW, r + 2, q + 2]
    types = np.flatnonzero(cell[:9])
    return TYPE_NAMES[int(types[0])] if len(types) else "."


# ----- the turn: placement, then a slide by the same seat -----------------------------------------
def test_first_turn_is_a_placement_anywhere_then_the_next_seat_places():
    env = fox_envs.batch.make("outfox_v0", 4, seed=1)
    # every row: any of the 9 own pieces on any of the 19 points, no slide
    assert (env.action_mask[:, :NUM_PLACE]).all() and not env.action_mask[:, NUM_PLACE:].any()
    assert (env.current_player == 0).all()
    state = play([])
    _, term, _ = step_row(env, "TR@c3", state)
    assert not term
    assert env.current_player[ROW] == 1  # a placement only: the turn is over
    assert all("@" in s for s in legal_strings(env))  # player_1 places, no slide yet
    # only points next to a piece that could then slide: the 6 neighbours of c3
    assert placement_points(env) == {"b2", "b3", "c2", "c4", "d2", "d3"}
    assert_row_matches(env, ROW, state)


def test_a_turn_is_two_decisions_of_the_same_seat():
    env, state = loaded(["TR@c3"])
    _, term, _ = step_row(env, "CY@c4", state)
    assert not term and env.current_player[ROW] == 1  # the same seat slides
    base = 17 + 9 * 2
    assert (env.observation[ROW, :, :, base + 1] == 1).all()  # slide-decision plane
    q, r = 1, 0  # c4, the point just placed
    assert env.observation[ROW, r + 2, q + 2, base + 2] == 1
    # the placed piece never slides; c3 (its only neighbour) slides straight through empty points
    assert legal_strings(env) == {"c3-c2", "c3-c1", "c3-b2", "c3-a1", "c3-d3", "c3-e3",
                                  "c3-b3", "c3-a3", "c3-d2", "c3-e1"}
    assert_row_matches(env, ROW, state)
    step_row(env, "c3-c1", state)
    assert env.current_player[ROW] == 0 and all("@" in s for s in legal_strings(env))
    assert (at(env, "c1"), at(env, "c3"), at(env, "c4")) == ("TR", ".", "CY")
    assert_row_matches(env, ROW, state)


def test_slides_stop_before_occupied_points_and_any_owner_piece_slides():
    env, state = loaded(["SB@a1"])
    step_row(env, "CY@b1", state)
    assert legal_strings(env) == {"a1-a2", "a1-a3", "a1-b2", "a1-c3", "a1-d3", "a1-e3"}
    step_row(env, "a1-c3", state)  # player_1 slides player_0's piece
    assert at(env, "c3") == "SB"
    step_row(env, "TR@b2", state)
    # b2 now blocks c3's way back to a1 and b1's way along the diagonal
    assert legal_strings(env) == {
        "b1-a1", "b1-c1", "b1-c2", "b1-d2", "b1-e2",
        "c3-c4", "c3-c5", "c3-c2", "c3-c1", "c3-d3", "c3-e3", "c3-b3", "c3-a3", "c3-d2", "c3-e1",
    }
    assert_row_matches(env, ROW, state)


SURROUNDED = ["TR@c5", "CY@b4", "c5-c2", "SB@d2", "c2-c4", "SY@c2", "d2-e2", "SR@b3", "c4-d3",
              "SB@c5", "b4-c4", "TB@e1", "e2-e3", "TR@e2", "e3-d4", "CR@d1", "c2-d2", "CB@a2"]


def test_a_placement_is_legal_only_if_a_neighbour_can_then_slide():
    env, state = loaded(SURROUNDED)
    step_row(env, "b3-c3", state)  # the turn that surrounds e3
    # e3's neighbours e2 d3 d4 each have e3 as their only empty neighbour: no placement there;
    # b1 has no neighbouring piece at all
    assert placement_points(env) == {"a1", "a3", "b2", "b3", "b4", "c1", "c2"}
    assert_row_matches(env, ROW, state)


# ----- winning lines -------------------------------------------------------------------------------
def test_one_shape_in_three_colours_wins_for_the_mover_not_the_placer():
    env, state = loaded(["SB@d3", "TB@e2", "d3-c3", "SR@e3", "e2-d2"])
    # the line c3 d3 e3 = SB SY SR exists after the placement: not yet a win
    rewards, term, _ = step_row(env, "SY@d3", state)
    assert not term and env.current_player[ROW] == 1 and not rewards.any()
    rewards, term, trunc = step_row(env, "d2-d1", state)
    # player_1 ends the turn with the line (SB and SR were placed by player_0): player_1 wins
    assert term and not trunc
    assert rewards.tolist() == [-1.0, 1.0] == state.returns().tolist()
    assert env.current_player[ROW] == fox_envs.TERMINAL and not env.action_mask[ROW].any()
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(1))
    assert env.final_core_state(ROW) == state


def test_three_shapes_of_one_colour_wins():
    env, state = loaded(["TR@c3", "SB@b2", "c3-c1", "TB@d1", "c1-c3", "CB@c2"])
    rewards, term, _ = step_row(env, "c3-d3", state)  # d1 c2 b2 = TB CB SB
    assert term and rewards.tolist() == [-1.0, 1.0]
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(1))


def test_a_slide_completing_a_line_wins():
    env, state = loaded(["SY@a1", "SR@b1", "a1-e3", "SB@a1", "b1-b2"])
    rewards, term, _ = step_row(env, "CY@d4", state)
    assert not term  # CY on d4 makes no line
    rewards, term, _ = step_row(env, "e3-c3", state)  # a1 b2 c3 = SB SR SY
    assert term and rewards.tolist() == [-1.0, 1.0]


def test_a_line_only_between_placement_and_slide_does_not_count():
    env, state = loaded(["SB@e2", "TB@e1", "e2-d2"])
    rewards, term, _ = step_row(env, "CB@c3", state)  # e1 d2 c3 = TB SB CB, before the slide
    assert not term and not rewards.any()
    # c3's only neighbouring piece is d2, which must slide away and break the line
    assert all(s.startswith("d2-") for s in legal_strings(env))
    for slide in sorted(legal_strings(env)):
        other, twin = loaded(["SB@e2", "TB@e1", "e2-d2", "CB@c3"])
        rewards, term, _ = step_row(other, slide, twin)
        assert not term and other.current_player[ROW] == 1
        assert_row_matches(other, ROW, twin)


@pytest.mark.parametrize("moves, run, pieces", [
    # a2 b3 c4 d4 on one axis: CY SR SY is no line, SR SY SB (one shape, three colours) is
    (["CR@b4", "CR@b3", "b4-a3", "CY@a2", "b3-b4", "SY@c5", "b4-d3", "SR@b3", "a3-b4", "CY@c3",
      "d3-e2", "SB@d4", "c5-c4"], ["a2", "b3", "c4", "d4"], ["CY", "SR", "SY", "SB"]),
    # CY CB SB TB: the last three are three shapes of blue
    (["CY@c1", "CR@b1", "c1-c4", "CB@d3", "c4-c1", "CB@d2", "d3-c3", "SB@d3", "d2-e1", "TB@b3",
      "c3-c2", "CR@a1", "b1-b2", "SR@d4", "d3-c3", "SY@b4", "b3-c4"], RUN2, ["CY", "CB", "SB", "TB"]),
])
def test_three_consecutive_inside_a_longer_run_win(moves, run, pieces):
    env, state = loaded(moves[:-1])
    rewards, term, _ = step_row(env, moves[-1], state)
    assert term and state.is_terminal()
    mover = (len(moves) // 2) % 2  # decisions 1, then 2 per turn: the seat of the last turn
    assert rewards[mover] == 1.0 and rewards[1 - mover] == -1.0
    np.testing.assert_array_equal(rewards, state.returns().astype(np.float32))
    final = env.final_core_state(ROW)
    assert final == state
    assert [TYPE_NAMES[final.board[POINT_INDEX[p]]] for p in run] == pieces
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(mover))


def test_three_players_a_red_line_placed_by_player_0_wins_for_player_1():
    moves = ["SR@c2", "TY@c3", "c2-d1", "TB@b2", "c3-c2", "TR@c3", "b2-b4", "SY@c5", "b4-a3",
             "SB@e1", "d1-d4", "CR@b2", "c3-d2", "CY@b3", "b2-d3"]
    env, state = loaded(moves[:-1], num_players=3)
    assert env.current_player[ROW] == 1
    rewards, term, _ = step_row(env, moves[-1], state)  # d2 d3 d4 = TR CR SR
    assert term and rewards.tolist() == [-0.5, 1.0, -0.5]
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(1))


# ----- no legal turn: the player who played last wins ----------------------------------------------
ALL_PLACED = ["SB@b2", "TR@b1", "b2-a1", "CB@b2", "b1-c1", "SY@c2", "b2-b1", "SY@b2", "c2-c4", "SB@b4",
              "c4-b3", "TR@c5", "b4-a3", "TY@d1", "c1-c3", "CR@a2", "b3-b4", "CR@d4", "c5-c4", "TY@c1",
              "d1-c2", "CY@d1", "c2-d2", "SR@d3", "c4-c5", "CB@e3", "d4-b3", "CY@c2", "c3-c4", "SR@e2",
              "d2-e1", "TB@d4", "c4-c3", "TB@c4", "c3-d2"]


@pytest.mark.parametrize("auto_reset", [False, True])
def test_no_pieces_left_the_last_player_wins_at_the_35th_decision(auto_reset):
    # the 35th decision is also max_moves (the default): the game is won, not truncated
    env, state = loaded(ALL_PLACED[:-1], auto_reset=auto_reset)
    assert env.moves[ROW] == 34
    rewards, term, trunc = step_row(env, ALL_PLACED[-1], state)
    assert term and not trunc and rewards.tolist() == [-1.0, 1.0]
    assert not state.win_lines
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(1))
    if auto_reset:  # a new game in the same step
        assert env.current_player[ROW] == 0 and env.moves[ROW] == 0
        assert_row_matches(env, ROW, make_game("outfox_v0").new_initial_state())
    else:
        np.testing.assert_array_equal(env.observation[ROW], state.observation_tensor(1))


@pytest.mark.parametrize("moves, num_players, expected", [
    # two players: nobody could slide after any placement; player_0 still holds a red triangle
    (["SY@a1", "TY@b1", "a1-d3", "SR@c2", "b1-b4", "CY@e3", "d3-c3", "CY@c5", "b4-b2", "SB@c4",
      "c3-b3", "CR@b1", "c2-d1", "CB@c2", "b2-c3", "SB@c1", "c2-a2", "SR@b2", "b1-a1", "TY@e2",
      "e3-d3", "TR@b4", "c4-d4", "TB@d2", "d3-c4", "TB@b1", "c1-c2", "CB@e1", "d2-d3", "CR@d2",
      "c2-c1"], 2, [-1.0, 1.0]),
    (["SR@c2", "CY@c3", "c2-b1", "TB@c2", "c3-b3", "CR@c1", "c2-d2", "TY@e1", "d2-e2", "SB@d3",
      "e2-e3", "SR@d2", "d3-c4", "TY@d4", "e3-a1", "TB@b4", "b3-c3", "TR@c5", "d4-e3", "CY@a2",
      "a1-b2", "SB@a1", "b1-c2", "CR@a3", "a2-b3", "SY@b1", "a1-a2", "CB@d4", "c4-d3", "TR@d1",
      "e1-e2"], 3, [1.0, -0.5, -0.5]),
    # three players, every piece placed
    (["CR@d2", "SY@c2", "d2-d4", "TB@d2", "c2-d1", "CR@d3", "d4-e3", "SY@c4", "d3-a1", "TB@b1",
      "a1-b2", "TR@b4", "c4-d4", "CY@c2", "d1-c1", "SB@d3", "d2-e1", "SR@a2", "b2-c3", "TY@a1",
      "b1-b3", "CB@e2", "d3-c4", "TR@b2", "c2-d1", "TY@c2", "b2-b1", "CB@c5", "b4-a3", "SR@d3",
      "c4-b4", "CY@b2", "c2-d2", "SB@c2", "c3-c4"], 3, [-0.5, -0.5, 1.0]),
])
def test_next_seat_without_a_legal_turn_the_last_player_wins(moves, num_players, expected):
    env, state = loaded(moves[:-1], num_players=num_players)
    mover = int(env.current_player[ROW])
    rewards, term, _ = step_row(env, moves[-1], state)
    assert term and not state.win_lines
    assert rewards[mover] == 1.0 and rewards.tolist() == expected
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(mover))


def test_the_line_is_checked_before_the_next_players_turn():
    moves = ["SR@c5", "TR@c4", "c5-a3", "CB@c3", "c4-b4", "TY@c5", "b4-c4", "CY@d2", "c3-d3", "TB@c3",
             "c4-d4", "SY@e3", "d3-c4", "CR@b2", "c3-b3", "CR@e1", "d2-b1", "SB@a1", "b1-d2", "SB@d1",
             "d2-c2", "CB@a2", "b2-d3", "TB@e2", "e1-d2", "SR@b2", "a1-b1", "TY@b4", "b3-c3", "SY@a1",
             "b2-b3", "TR@c1", "c2-b2", "CY@e1", "d2-c2"]
    env, state = loaded(moves[:-1])
    rewards, term, _ = step_row(env, moves[-1], state)
    assert term and rewards.tolist() == [-1.0, 1.0] and len(state.win_lines) == 1


# ----- three players ----------------------------------------------------------------------------
def test_three_player_seats_hold_six_pieces_of_their_colour():
    env = fox_envs.batch.make("outfox_v0", 3, seed=0, num_players=3)
    assert env.observation_shape == (5, 5, 50) and env.num_players == 3
    state = play([], 3)
    placements = {0: "CR@c3", 1: "CY@c4", 2: "CB@c2"}
    slides = {1: "c3-c1", 2: "c1-b1"}
    for seat, colour in enumerate("RYB"):
        own = {TYPE_INDEX[s + colour] for s in "CST"}
        assert env.current_player[ROW] == seat
        assert {int(a) // NUM_POINTS for a in np.flatnonzero(env.action_mask[ROW])} == own
        hand = env.observation[ROW, 0, 0, 17:26]  # the viewer's own hand, a constant plane
        placed = [0.5 if seat > 0 and t == TYPE_INDEX["C" + colour] else 0.0 for t in range(9)]
        assert hand.tolist() == [1.0 if t in own else 0.0 for t in range(9)]  # 2 of 2 each
        step_row(env, placements[seat], state)
        assert_row_matches(env, ROW, state)
        if seat in slides:
            assert env.observation[ROW, 0, 0, 17:26].tolist() == [
                1.0 - p if t in own else 0.0 for t, p in enumerate(placed)]  # one circle placed: 1 of 2
            step_row(env, slides[seat], state)
            assert_row_matches(env, ROW, state)
    assert env.current_player[ROW] == 0


def test_three_player_hands_seen_from_each_seat():
    env, state = loaded(["CR@c3", "CY@c4", "c3-c1"], num_players=3)
    # player_2 to move: its own blue pieces at k = 0, player_0's reds at k = 1 (one red circle
    # placed: 1 of 2), player_1's yellows at k = 2 (one yellow circle placed)
    assert env.current_player[ROW] == 2
    obs = env.observation[ROW]
    hands = obs[:, :, 17:44].reshape(25, 3, 9)
    assert (hands == hands[0]).all()  # constant planes, also outside the hexagon
    assert hands[0, 0].tolist() == [0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert hands[0, 1].tolist() == [0.5, 0, 0, 1, 0, 0, 1, 0, 0]
    assert hands[0, 2].tolist() == [0, 0.5, 0, 0, 1, 0, 0, 1, 0]
    step_row(env, "CB@c2", state)
    assert env.observation[ROW, 0, 0, 17:26].tolist() == [0, 0, 0.5, 0, 0, 1, 0, 0, 1]  # own CB placed
    step_row(env, "c1-e1", state)
    # the turn passes to player_0: the hand planes turn with the viewer
    assert env.current_player[ROW] == 0
    hands = env.observation[ROW, :, :, 17:44].reshape(25, 3, 9)
    assert (hands == hands[0]).all()
    assert hands[0, 0].tolist() == [0.5, 0, 0, 1, 0, 0, 1, 0, 0]
    assert hands[0, 1].tolist() == [0, 0.5, 0, 0, 1, 0, 0, 1, 0]
    assert hands[0, 2].tolist() == [0, 0, 0.5, 0, 0, 1, 0, 0, 1]
    assert_row_matches(env, ROW, state)


# ----- ends that are not wins, other views ------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("max_moves", [4, 6, 8])
def test_truncation_between_placement_and_slide(num_players, max_moves):
    """An even ``max_moves`` truncates in the middle of a turn (a slide was next)."""
    env = fox_envs.batch.make("outfox_v0", 5, seed=7, max_moves=max_moves, num_players=num_players)
    stats = run_lockstep(env, 40)
    assert stats["truncated"] > 0


def test_final_observation_from_another_seat():
    env, state = loaded(["SB@d3", "TB@e2", "d3-c3", "SR@e3", "e2-d2", "SY@d3"])
    actions = env.random_actions()
    actions[ROW] = state.string_to_action("d2-d1")
    state.apply_string("d2-d1")
    env._step(actions, final_view=0)  # the loser's view of the won game
    assert env._arrays["term"][ROW]
    np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(0))


def test_loaded_rows_leave_the_other_rows_alone_and_play_on():
    env = fox_envs.batch.make("outfox_v0", 3, seed=5)
    for _ in range(3):
        env.step(env.random_actions())
    before = [env.core_state(i) for i in (0, 2)]
    env.load(ROW, play(SURROUNDED))
    assert [env.core_state(i) for i in (0, 2)] == before
    assert env.core_state(ROW) == play(SURROUNDED)
    assert env.moves[ROW] == len(SURROUNDED)
