"""Outfox scenario tests, written from SPEC 2.3 and the rulebook ``outfox.txt``.

Positions are reached by playing notation from the start. Boards in the comments are drawn like
the text board (row a at the top; c3 touches b2 b3 c2 c4 d2 d3).
"""
from __future__ import annotations

import numpy as np
import pytest

from fox_envs import IllegalActionError, InvalidParameterError, make_game
from fox_envs.games.outfox.rules import OutfoxState


def play(moves: list[str], num_players: int = 2) -> OutfoxState:
    state = make_game("outfox_v0", num_players=num_players).new_initial_state()
    for move in moves:
        state.apply_string(move)
    return state


def at(state: OutfoxState, point: str) -> str:
    """The piece on ``point`` as ``TR``, or ``.``."""
    from fox_envs.games.outfox.rules import POINT_INDEX, TYPE_NAMES

    piece = state.board[POINT_INDEX[point]]
    return TYPE_NAMES[piece] if piece >= 0 else "."


def legal_strings(state: OutfoxState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


# ----- board, pieces, encoding ------------------------------------------------------------------
def test_point_names_indices_and_geometry():
    from fox_envs.games.outfox.rules import COORDS, LINES, NEIGHBOURS, POINT_INDEX, POINT_NAMES

    assert POINT_NAMES == ("a1", "a2", "a3", "b1", "b2", "b3", "b4", "c1", "c2", "c3", "c4", "c5",
                           "d1", "d2", "d3", "d4", "e1", "e2", "e3")
    assert (POINT_INDEX["a1"], POINT_INDEX["c3"], POINT_INDEX["e3"]) == (0, 9, 18)
    # axial coordinates: rows a..e are r = -2..2, numbered by increasing q
    assert COORDS[POINT_INDEX["a1"]] == (0, -2) and COORDS[POINT_INDEX["c1"]] == (-2, 0)
    assert COORDS[POINT_INDEX["e3"]] == (0, 2) and COORDS[POINT_INDEX["c3"]] == (0, 0)
    names = lambda i: {POINT_NAMES[n] for n in NEIGHBOURS[i]}  # noqa: E731
    assert names(POINT_INDEX["c3"]) == {"b2", "b3", "c2", "c4", "d2", "d3"}
    assert names(POINT_INDEX["a1"]) == {"a2", "b1", "b2"}
    assert names(POINT_INDEX["e3"]) == {"e2", "d3", "d4"}
    assert sorted(len(n) for n in NEIGHBOURS).count(6) == 7  # the 7 inner points
    assert len(LINES) == 27  # 9 windows of 3 on each of the 3 axes


def test_actions_and_notation():
    state = play([])
    assert state.game.num_actions == 532
    assert state.string_to_action("TR@c3") == (2 * 3 + 0) * 19 + 9
    assert state.string_to_action("CR@a1") == 0 and state.string_to_action("TB@e3") == 170
    assert state.string_to_action("b2-b4") == 171 + 4 * 19 + 6
    assert state.action_to_string(531) == "e3-e3" and state.action_to_string(171) == "a1-a1"
    assert len({state.action_to_string(a) for a in range(532)}) == 532
    for text in ("XR@c3", "TR@f1", "b2-z9", "TR c3", ""):
        with pytest.raises(IllegalActionError):
            state.string_to_action(text)


def test_params():
    assert make_game("outfox_v0").num_players == 2
    assert make_game("outfox_v0", num_players=3).num_players == 3
    for bad in (1, 4, 2.0, True, "2"):
        with pytest.raises(InvalidParameterError):
            make_game("outfox_v0", num_players=bad)


def test_two_player_hands_are_full_sets():
    state = play([])
    assert state.hands == [[1] * 9, [1] * 9]
    # the first turn: any piece of the own set on any point (placement only)
    assert len(state.legal_actions()) == 9 * 19


def test_three_player_hands_are_one_colour():
    state = play([], num_players=3)
    assert state.hands == [[2, 0, 0] * 3, [0, 2, 0] * 3, [0, 0, 2] * 3]
    assert {s[:2] for s in legal_strings(state)} == {"CR", "SR", "TR"}
    state.apply_string("SR@c3")
    assert state.current_player() == 1
    assert {s[:2] for s in legal_strings(state)} == {"CY", "SY", "TY"}
    with pytest.raises(IllegalActionError):
        state.apply_string("CR@c4")  # not seat 1's colour


def test_player_places_only_own_unplaced_pieces():
    state = play(["TR@c3"])
    assert state.hands[0][6] == 0 and state.hands[1][6] == 1
    state.apply_string("TR@c4")  # player_1 has its own red triangle
    state.apply_string("c3-c1")
    with pytest.raises(IllegalActionError):
        state.apply_string("TR@c2")  # player_0's red triangle is already on the board
    before = state.clone()
    assert state == before


# ----- turn structure -----------------------------------------------------------------------------
def test_first_turn_is_placement_only():
    state = play(["TR@c3"])
    assert state.current_player() == 1 and state.phase == 0
    assert all(a < 171 for a in state.legal_actions())


def test_turn_is_place_then_slide_by_the_same_player():
    state = play(["TR@c3", "CY@c4"])
    assert state.current_player() == 1 and state.phase == 1
    assert all(a >= 171 for a in state.legal_actions())
    state.apply_string("c3-c1")
    assert state.current_player() == 0 and state.phase == 0
    assert at(state, "c1") == "TR" and at(state, "c3") == "." and at(state, "c4") == "CY"


def test_only_neighbours_of_the_placed_piece_slide_straight_through_empty_points():
    # TR on c3, then CY placed on c4: only c3 touches c4, the placed piece itself never slides
    state = play(["TR@c3", "CY@c4"])
    assert legal_strings(state) == {
        "c3-c2", "c3-c1",  # along the row, away from c4
        "c3-b2", "c3-a1", "c3-d3", "c3-e3",  # "\" diagonal both ways
        "c3-b3", "c3-a3", "c3-d2", "c3-e1",  # "/" diagonal both ways
    }


def test_slide_stops_before_an_occupied_point_and_any_owner_piece_slides():
    # a1 SB (p0), b2 gets placed later; p1 places CY on b1 and slides p0's piece
    state = play(["SB@a1", "CY@b1"])
    assert legal_strings(state) == {"a1-a2", "a1-a3", "a1-b2", "a1-c3", "a1-d3", "a1-e3"}
    state.apply_string("a1-c3")  # player_1 moves player_0's piece
    # p0 places TR on b2 between b1 and c3: neighbours b1 (CY) and c3 (SB) may slide
    state.apply_string("TR@b2")
    slides = legal_strings(state)
    assert "c3-a1" not in slides  # would pass through the occupied b2
    assert slides == {
        "b1-a1", "b1-c1", "b1-c2", "b1-d2", "b1-e2",  # b1: every direction but into b2
        "c3-c4", "c3-c5", "c3-c2", "c3-c1", "c3-d3", "c3-e3", "c3-b3", "c3-a3", "c3-d2", "c3-e1",
    }  # never the placed piece b2 itself


def test_placement_needs_a_neighbour_that_can_slide():
    state = play(["TR@c3"])
    # no neighbouring piece: illegal ("Illegal placement: no neighbouring pieces")
    assert {s.split("@")[1] for s in legal_strings(state)} == {"b2", "b3", "c2", "c4", "d2", "d3"}
    with pytest.raises(IllegalActionError):
        state.apply_string("CR@a1")


SURROUNDED = ["TR@c5", "CY@b4", "c5-c2", "SB@d2", "c2-c4", "SY@c2", "d2-e2", "SR@b3", "c4-d3",
              "SB@c5", "b4-c4", "TB@e1", "e2-e3", "TR@e2", "e3-d4", "CR@d1", "c2-d2", "CB@a2", "b3-c3"]


def test_placement_illegal_where_the_neighbouring_pieces_cannot_move():
    state = play(SURROUNDED)
    # a      a1  CB  a3
    # b    b1  b2  b3  b4
    # c  c1  c2  SR  CY  SB
    # d    CR  SY  TR  SB
    # e      TB  TR  e3
    rows = str(state).splitlines()
    assert rows[3].split() == ["d", "CR", "SY", "TR", "SB"] and rows[4].split() == ["e", "TB", "TR", "e3"]
    # e3 touches e2, d3, d4; each of them has e3 as its only empty neighbour, so after a
    # placement on e3 none of them could move: "pieces completely surround an intersection point"
    points = {s.split("@")[1] for s in legal_strings(state)}
    assert "e3" not in points
    assert "b1" not in points  # no neighbouring piece at all
    assert points == {"a1", "a3", "b2", "b3", "b4", "c1", "c2"}
    with pytest.raises(IllegalActionError):
        state.apply_string("CY@e3")


# ----- winning lines ------------------------------------------------------------------------------
def test_placing_a_piece_to_make_one_shape_in_three_colours_wins():
    state = play(["SB@d3", "TB@e2", "d3-c3", "SR@e3", "e2-d2", "SY@d3"])
    # line c3 d3 e3 = SB SY SR once SY is placed; player_1 then slides d2 away (not in the line)
    assert not state.is_terminal()
    state.apply_string("d2-d1")
    assert state.is_terminal() and state.winner == 1
    assert [at(state, p) for p in ("c3", "d3", "e3")] == ["SB", "SY", "SR"]
    # SB and SR were placed by player_0: who placed the pieces does not matter
    assert state.returns().tolist() == [-1.0, 1.0]


def test_placing_to_make_three_shapes_of_one_colour_wins():
    state = play(["TR@c3", "SB@b2", "c3-c1", "TB@d1", "c1-c3", "CB@c2", "c3-d3"])
    assert [at(state, p) for p in ("d1", "c2", "b2")] == ["TB", "CB", "SB"]
    assert state.winner == 1 and state.returns().tolist() == [-1.0, 1.0]


def test_moving_a_piece_to_make_a_line_wins():
    state = play(["SY@a1", "SR@b1", "a1-e3", "SB@a1", "b1-b2", "CY@d4"])
    assert not state.is_terminal()  # CY on d4 makes no line
    state.apply_string("e3-c3")  # the slide completes a1 b2 c3 = SB SR SY
    assert state.winner == 1
    assert [at(state, p) for p in ("a1", "b2", "c3")] == ["SB", "SR", "SY"]


def test_combining_placement_and_slide_wins():
    state = play(["SR@a1", "TR@b2", "a1-c1", "CR@c3"])
    assert not state.is_terminal()
    state.apply_string("b2-c2")  # c1 c2 c3 = SR TR CR: placed CR and slid TR
    assert state.winner == 0 and state.returns().tolist() == [1.0, -1.0]


def test_line_of_another_players_pieces_wins_for_the_mover():
    # three players: every red piece was placed by player_0, yet player_1 completes the red line
    state = play(["SR@c2", "TY@c3", "c2-d1", "TB@b2", "c3-c2", "TR@c3", "b2-b4", "SY@c5", "b4-a3",
                  "SB@e1", "d1-d4", "CR@b2", "c3-d2", "CY@b3", "b2-d3"], num_players=3)
    assert [at(state, p) for p in ("d2", "d3", "d4")] == ["TR", "CR", "SR"]
    assert state.winner == 1
    assert state.returns().tolist() == [-0.5, 1.0, -0.5]


def test_three_different_shapes_and_colours_is_not_a_line():
    state = play(["TB@a3", "CY@a2", "a3-c3", "SR@a1", "a2-b2"])
    assert [at(state, p) for p in ("a1", "b2", "c3")] == ["SR", "CY", "TB"]
    assert not state.is_terminal() and state.current_player() == 1


def test_neither_one_colour_nor_one_shape_is_not_a_line():
    state = play(["CR@d3", "SB@c4", "d3-e3", "SR@e2", "e3-d3"])
    assert [at(state, p) for p in ("c4", "d3", "e2")] == ["SB", "CR", "SR"]
    assert not state.is_terminal()


def test_two_identical_pieces_never_win():
    state = play(["SR@b2", "SB@c3", "b2-b4", "SB@c5", "b4-c4"])
    assert [at(state, p) for p in ("c3", "c4", "c5")] == ["SB", "SR", "SB"]  # one shape, 2 colours
    assert not state.is_terminal()
    state = play(["CY@c2", "CY@b1", "c2-c3", "TY@a1", "b1-b2"])
    assert [at(state, p) for p in ("a1", "b2", "c3")] == ["TY", "CY", "CY"]  # one colour, 2 shapes
    assert not state.is_terminal()


def test_line_between_placement_and_slide_does_not_count():
    state = play(["SB@e2", "TB@e1", "e2-d2", "CB@c3"])
    # after the placement e1 d2 c3 = TB SB CB is a line, but c3's only neighbouring piece is d2,
    # which must slide and break it: the turn is not won
    assert [at(state, p) for p in ("e1", "d2", "c3")] == ["TB", "SB", "CB"]
    assert not state.is_terminal() and state.phase == 1
    assert all(s.startswith("d2-") for s in legal_strings(state))
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        assert not after.is_terminal() and after.current_player() == 1


def test_longer_run_wins_on_any_three_consecutive():
    from fox_envs.games.outfox.rules import LINES, POINT_INDEX, has_line

    board = [-1] * 19
    for point, piece in (("c1", 1), ("c2", 0), ("c3", 3), ("c4", 6)):  # CY CR SR TR
        board[POINT_INDEX[point]] = piece
    assert has_line(board)  # c2 c3 c4 inside the run c1..c4
    board[POINT_INDEX["c4"]] = 7  # TY: c1..c4 = CY CR SR TY, no 3 consecutive qualify
    assert not has_line(board)
    assert (POINT_INDEX["c2"], POINT_INDEX["c3"], POINT_INDEX["c4"]) in LINES


# ----- no legal turn: the player who played last wins ---------------------------------------------
def test_all_pieces_placed_last_player_wins_two_players():
    moves = ["SB@b2", "TR@b1", "b2-a1", "CB@b2", "b1-c1", "SY@c2", "b2-b1", "SY@b2", "c2-c4", "SB@b4",
             "c4-b3", "TR@c5", "b4-a3", "TY@d1", "c1-c3", "CR@a2", "b3-b4", "CR@d4", "c5-c4", "TY@c1",
             "d1-c2", "CY@d1", "c2-d2", "SR@d3", "c4-c5", "CB@e3", "d4-b3", "CY@c2", "c3-c4", "SR@e2",
             "d2-e1", "TB@d4", "c4-c3", "TB@c4", "c3-d2"]
    state = play(moves)
    # 18 turns, 35 decisions (the max_moves default); player_0 has no piece left
    assert len(state.history()) == 35 == state.game.max_moves_default
    assert state.hands == [[0] * 9, [0] * 9]
    assert state.is_terminal() and state.winner == 1 and not state.win_lines
    assert state.returns().tolist() == [-1.0, 1.0]


def test_all_pieces_placed_last_player_wins_three_players():
    moves = ["CR@d2", "SY@c2", "d2-d4", "TB@d2", "c2-d1", "CR@d3", "d4-e3", "SY@c4", "d3-a1", "TB@b1",
             "a1-b2", "TR@b4", "c4-d4", "CY@c2", "d1-c1", "SB@d3", "d2-e1", "SR@a2", "b2-c3", "TY@a1",
             "b1-b3", "CB@e2", "d3-c4", "TR@b2", "c2-d1", "TY@c2", "b2-b1", "CB@c5", "b4-a3", "SR@d3",
             "c4-b4", "CY@b2", "c2-d2", "SB@c2", "c3-c4"]
    state = play(moves, num_players=3)
    assert state.winner == 2 and not state.win_lines
    assert state.returns().tolist() == [-0.5, -0.5, 1.0]


def test_next_player_without_legal_placement_loses():
    moves = ["SY@a1", "TY@b1", "a1-d3", "SR@c2", "b1-b4", "CY@e3", "d3-c3", "CY@c5", "b4-b2", "SB@c4",
             "c3-b3", "CR@b1", "c2-d1", "CB@c2", "b2-c3", "SB@c1", "c2-a2", "SR@b2", "b1-a1", "TY@e2",
             "e3-d3", "TR@b4", "c4-d4", "TB@d2", "d3-c4", "TB@b1", "c1-c2", "CB@e1", "d2-d3", "CR@d2",
             "c2-c1"]
    state = play(moves)
    # a      CR  CB  a3
    # b    TB  SR  SY  TR
    # c  SB  c2  TY  CY  CY
    # d    SR  CR  TB  SB
    # e      CB  TY  e3
    # every piece touches at most one empty point (a3, c2 or e3): no placement can be followed by
    # a slide, so player_0 (a red triangle still in hand) has no legal turn; player_1 played last
    assert state.hands[0][6] == 1
    assert state.is_terminal() and state.winner == 1 and not state.win_lines
    assert state.returns().tolist() == [-1.0, 1.0]


def test_next_player_without_legal_placement_three_players():
    moves = ["SR@c2", "CY@c3", "c2-b1", "TB@c2", "c3-b3", "CR@c1", "c2-d2", "TY@e1", "d2-e2", "SB@d3",
             "e2-e3", "SR@d2", "d3-c4", "TY@d4", "e3-a1", "TB@b4", "b3-c3", "TR@c5", "d4-e3", "CY@a2",
             "a1-b2", "SB@a1", "b1-c2", "CR@a3", "a2-b3", "SY@b1", "a1-a2", "CB@d4", "c4-d3", "TR@d1",
             "e1-e2"]
    state = play(moves, num_players=3)
    assert any(state.hands[1]) and state.winner == 0 and not state.win_lines
    assert state.returns().tolist() == [1.0, -0.5, -0.5]


def test_line_is_checked_before_the_next_players_turn():
    moves = ["SR@c5", "TR@c4", "c5-a3", "CB@c3", "c4-b4", "TY@c5", "b4-c4", "CY@d2", "c3-d3", "TB@c3",
             "c4-d4", "SY@e3", "d3-c4", "CR@b2", "c3-b3", "CR@e1", "d2-b1", "SB@a1", "b1-d2", "SB@d1",
             "d2-c2", "CB@a2", "b2-d3", "TB@e2", "e1-d2", "SR@b2", "a1-b1", "TY@b4", "b3-c3", "SY@a1",
             "b2-b3", "TR@c1", "c2-b2", "CY@e1", "d2-c2"]
    state = play(moves)
    # the last turn both makes the line c2 b2 a2 = CR CY CB and leaves player_0 without pieces:
    # the winning line is what ends the game
    assert state.winner == 1 and state.hands[0] == [0] * 9
    assert [at(state, p) for p in ("c2", "b2", "a2")] == ["CR", "CY", "CB"]
    assert len(state.win_lines) == 1
    assert "wins with the line" in str(state).splitlines()[-1]


# ----- observation --------------------------------------------------------------------------------
def test_observation_layout():
    from fox_envs.games.outfox.rules import COORDS, POINT_INDEX

    state = play(["TR@c3", "CY@c4"])
    obs = state.observation_tensor(0)
    assert obs.shape == (5, 5, 40) == state.game.observation_shape and obs.dtype == np.float32

    def cell(point):
        q, r = COORDS[POINT_INDEX[point]]
        return obs[r + 2, q + 2]

    c3, c4 = cell("c3"), cell("c4")
    assert c3[6] == 1 and c3[9 + 2] == 1 and c3[12 + 0] == 1 and c3[15] == 0  # red triangle
    assert c4[1] == 1 and c4[9 + 0] == 1 and c4[12 + 1] == 1  # yellow circle
    assert obs[:, :, 16].sum() == 19 and obs[0, 0, 16] == 0  # the 6 corner cells are off board
    assert obs[:, :, 15].sum() == 17
    # hands relative to the observer: player_0 lacks TR, player_1 lacks CY
    assert obs[0, 0, 17 + 6] == 0 and obs[0, 0, 17 + 0] == 1
    assert obs[0, 0, 26 + 1] == 0 and obs[0, 0, 26 + 6] == 1
    # slide decision, the just placed piece on c4, player_1 (relative seat 1) to move
    assert obs[:, :, 35].max() == 0 and obs[:, :, 36].min() == 1
    assert obs[:, :, 37].sum() == 1 and c4[37] == 1
    assert obs[:, :, 38].max() == 0 and obs[:, :, 39].min() == 1
    mine = state.observation_tensor(1)
    assert mine[0, 0, 17 + 1] == 0 and mine[0, 0, 26 + 6] == 0  # own hand first
    assert mine[:, :, 38].min() == 1


def test_observation_three_players_normalises_hands():
    state = play(["TR@c3"], num_players=3)
    obs = state.observation_tensor(2)
    assert obs.shape == (5, 5, 50) and obs.max() <= 1
    # seat 2 (blue) first, then seat 0 (red, one triangle used), then seat 1
    assert obs[0, 0, 17 + 2] == 1.0 and obs[0, 0, 17 + 9 + 6] == 0.5 and obs[0, 0, 17 + 9 + 3] == 1.0
    assert obs[0, 0, 47 + 2] == 1  # seat 1 to move = relative seat 2 from seat 2


def test_text_board_shows_shapes_and_colours():
    state = play(["TR@c3", "CY@c4"])
    text = str(state)
    assert text.splitlines()[2].split() == ["c", "c1", "c2", "TR", "[CY]", "c5"]
    assert "player_1 to slide" in text
    picture = state.render_rgb()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3


# ----- move generation against a brute-force generator --------------------------------------------
HEX = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if max(abs(q), abs(r), abs(q + r)) <= 2]
DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]


def brute_name(q: int, r: int) -> str:
    row = [p for p in HEX if p[1] == r]
    return "abcde"[r + 2] + str(row.index((q, r)) + 1)


def brute_wins(board: dict) -> bool:
    for q, r in HEX:
        for dq, dr in ((1, 0), (0, 1), (1, -1)):
            cells = [(q + k * dq, r + k * dr) for k in range(3)]
            if all(c in board for c in cells):
                pieces = [board[c] for c in cells]  # (shape, colour)
                shapes, colours = {p[0] for p in pieces}, {p[1] for p in pieces}
                if (len(colours) == 1 and len(shapes) == 3) or (len(shapes) == 1 and len(colours) == 3):
                    return True
    return False


def brute_points(board: dict, first: bool) -> list:
    def can_slide(n, placed):
        return any((n[0] + dq, n[1] + dr) in HEX and (n[0] + dq, n[1] + dr) not in board
                   and (n[0] + dq, n[1] + dr) != placed for dq, dr in DIRS)
    return [p for p in HEX if p not in board and (first or any(
        (p[0] + dq, p[1] + dr) in board and can_slide((p[0] + dq, p[1] + dr), p) for dq, dr in DIRS))]


def brute_moves(node: dict) -> dict:
    """Legal decisions in notation -> next node. node: board {(q, r): (shape, colour)}, hands
    [{(shape, colour): count}], seat, placed (None at a placement), turn, over."""
    if node["over"]:
        return {}
    board, seat = node["board"], node["seat"]
    result = {}
    if node["placed"] is None:
        for piece, count in node["hands"][seat].items():
            if not count:
                continue
            for p in brute_points(board, node["turn"] == 0):
                new = {**node, "board": {**board, p: piece},
                       "hands": [dict(h) for h in node["hands"]], "placed": p}
                new["hands"][seat][piece] -= 1
                if node["turn"] == 0:
                    new = brute_end_turn(new)
                result["CST"[piece[0]] + "RYB"[piece[1]] + "@" + brute_name(*p)] = new
        return result
    placed = node["placed"]
    for dq, dr in DIRS:
        n = (placed[0] + dq, placed[1] + dr)
        if n not in board:
            continue
        for eq, er in DIRS:
            to = (n[0] + eq, n[1] + er)
            while to in HEX and to not in board:
                new_board = dict(board)
                new_board[to] = new_board.pop(n)
                result[brute_name(*n) + "-" + brute_name(*to)] = brute_end_turn({**node, "board": new_board})
                to = (to[0] + eq, to[1] + er)
    return result


def brute_end_turn(node: dict) -> dict:
    node = {**node, "placed": None, "turn": node["turn"] + 1}
    if brute_wins(node["board"]):
        return {**node, "over": True, "winner": node["seat"]}
    nxt = (node["seat"] + 1) % len(node["hands"])
    if not any(node["hands"][nxt].values()) or not brute_points(node["board"], False):
        return {**node, "over": True, "winner": node["seat"]}
    return {**node, "seat": nxt}


def brute_start(num_players: int) -> dict:
    if num_players == 2:
        hands = [{(s, c): 1 for s in range(3) for c in range(3)} for _ in range(2)]
    else:
        hands = [{(s, i): 2 for s in range(3)} for i in range(3)]
    return {"board": {}, "hands": hands, "seat": 0, "placed": None, "turn": 0, "over": False, "winner": None}


# Closed forms: the first piece goes anywhere (types x 19); the second only next to it (the 84
# ordered neighbour pairs); the slide then moves the first piece along any ray not blocked by the
# second: sum over points x of (neighbours(x) - 1) * (points on x's rays) = 600 slides in all.
@pytest.mark.parametrize("num_players, expected", [
    (3, [57, 9 * 84, 9 * 600]),
    (2, [171, 81 * 84]),
    pytest.param(2, [171, 81 * 84, 81 * 600], marks=pytest.mark.slow),
])
def test_move_counts_match_brute_force(num_players, expected):
    depth = len(expected)

    def compare(state, node, level):
        moves = brute_moves(node)
        assert legal_strings(state) == set(moves)
        if level < depth - 1:
            for text, child in moves.items():
                after = state.clone()
                after.apply_string(text)
                compare(after, child, level + 1)

    def perft(node, level):
        if level == 0:
            return 1
        return sum(perft(child, level - 1) for child in brute_moves(node).values())

    root = brute_start(num_players)
    compare(play([], num_players), root, 0)  # the same legal moves at every node
    module_counts = [_perft(play([], num_players), d) for d in range(1, depth + 1)]
    assert module_counts == [perft(root, d) for d in range(1, depth + 1)] == expected


def _perft(state, depth):
    if depth == 0:
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += _perft(child, depth - 1)
    return total


def test_random_games_match_brute_force():
    rng = np.random.default_rng(7)
    for game_index in range(12):
        num_players = 2 + game_index % 2
        state, node = play([], num_players), brute_start(num_players)
        while True:
            moves = brute_moves(node)
            assert legal_strings(state) == set(moves)
            if not moves:
                break
            text = sorted(moves)[int(rng.integers(len(moves)))]
            state.apply_string(text)
            node = moves[text]
        assert state.is_terminal() and state.winner == node["winner"]
