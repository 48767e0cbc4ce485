"""The rgb_array pictures: a stable (H, W, 3) uint8 size per game, the last move marked exactly
where it was played, the result marked at the end, a given status line drawn."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs.core import ending, render
from fox_envs.core.game import sample_chance
from fox_envs.games import outfox_render, outfoxed_render, outwit, xceter_o
from fox_envs.games.bye_bye_mr_fox.render import circle_box, nest_box
from fox_envs.games.outfox.rules import NUM_PLACE, NUM_POINTS
from fox_envs.games.outfoxed.rules import CALL, PUT0

GAMES = ("xceter_o_v0", "outwit_v0", "outfox_v0", "bye_bye_mr_fox_v0", "outfoxed_v0")


def random_game(game_id: str, seed: int, limit: int = 400):
    """``(state before, action, state after)`` of each player decision of a random game."""
    rng = np.random.default_rng(seed)
    state = fox_envs.make_game(game_id).new_initial_state()
    steps = []
    while not state.is_terminal() and len(steps) < limit:
        if state.current_player() < 0:
            state.apply_action(sample_chance(state, rng))
            continue
        before = state.clone()
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        steps.append((before, state.history()[-1], state.clone()))
    return steps


def coloured(picture: np.ndarray, colour) -> np.ndarray:
    return np.all(picture == np.array(colour, dtype=np.uint8), axis=-1)


def only_inside(mask: np.ndarray, boxes, pad: int = 3) -> bool:
    """Every set pixel of ``mask`` lies within one of ``boxes`` (grown by ``pad``), and each box holds some."""
    allowed = np.zeros_like(mask)
    for x0, y0, x1, y1 in boxes:
        region = (slice(max(int(y0) - pad, 0), int(y1) + pad + 1), slice(max(int(x0) - pad, 0), int(x1) + pad + 1))
        if not mask[region].any():
            return False
        allowed[region] = True
    return bool(mask.any()) and not (mask & ~allowed).any()


@pytest.mark.parametrize("game_id", GAMES)
def test_pictures_are_uint8_rgb_of_one_size_per_game(game_id):
    steps = random_game(game_id, seed=1)
    states = [steps[0][0]] + [after for _b, _a, after in steps[:: max(1, len(steps) // 12)]] + [steps[-1][2]]
    shapes = set()
    for state in states:
        for viewer in (None, 0):
            picture = state.render_rgb(viewer)
            assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
            shapes.add(picture.shape)
    assert len(shapes) == 1, shapes
    assert not coloured(steps[0][0].render_rgb(), render.LAST_MOVE).any()  # nothing played yet


def expected_last_move_boxes(game_id: str, before, action: int, after):
    """The boxes the last move must be marked in, worked out from the move itself."""
    if game_id == "xceter_o_v0":
        return [xceter_o.square_box(action)]
    if game_id == "outwit_v0":
        return [outwit.square_box(s) for s in divmod(action, outwit.NUM_SQUARES)] if action != outwit.PASS else []
    if game_id == "outfox_v0":
        if action < NUM_PLACE:
            return [outfox_render.point_box(action % NUM_POINTS)]
        points = {*divmod(action - NUM_PLACE, NUM_POINTS), before.history()[-1] % NUM_POINTS}
        return [outfox_render.point_box(p) for p in points]
    if game_id == "bye_bye_mr_fox_v0":
        return [nest_box(action - 12)] if action >= 12 else [circle_box(action)]
    if PUT0 <= action < CALL and not after.is_terminal():
        return [outfoxed_render.card_box(after, len(after.cards) - 1)]
    return None


@pytest.mark.parametrize("game_id", GAMES)
def test_the_last_move_is_marked_where_it_was_played(game_id):
    checked = 0
    for before, action, after in random_game(game_id, seed=2, limit=60):
        boxes = expected_last_move_boxes(game_id, before, action, after)
        if boxes is None:
            continue
        mask = coloured(after.render_rgb(), render.LAST_MOVE)
        if boxes:
            assert only_inside(mask, boxes), (game_id, action)
            checked += 1
        else:
            assert not mask.any()
    assert checked >= 5


def test_bye_bye_marks_a_placement_and_only_the_last():
    steps = random_game("bye_bye_mr_fox_v0", seed=3)
    marks = [coloured(after.render_rgb(), render.LAST_MOVE) for _b, _a, after in steps]
    assert all(mask.any() for mask in marks)
    for (_b, action, _a), (_b2, action2, _a2), one, two in zip(steps, steps[1:], marks, marks[1:]):
        assert np.array_equal(one, two) == (action == action2)


def test_a_won_game_marks_its_result_and_a_running_game_does_not():
    for game_id in GAMES:
        steps = random_game(game_id, seed=4, limit=3000)
        final, rng = steps[-1][2], np.random.default_rng(0)
        while final.current_player() < 0 and not final.is_terminal():  # the last chance steps
            final.apply_action(sample_chance(final, rng))
        assert final.is_terminal()
        result = coloured(final.render_rgb(), render.RESULT).any()
        # a win is marked green (Outfoxed: the fox at the finish); Bye Bye's team loss gets a red banner
        decided = {"bye_bye_mr_fox_v0": getattr(final, "won", None),
                   "outfoxed_v0": getattr(final, "finished", None)}.get(game_id, final.returns()[0] != 0)
        assert result == decided, game_id
        assert not coloured(steps[len(steps) // 2][2].render_rgb(), render.RESULT).any(), game_id


@pytest.mark.parametrize("game_id", GAMES)
def test_a_given_status_line_is_drawn_under_the_board(game_id):
    state = random_game(game_id, seed=5, limit=6)[-1][2]
    plain = state.render_rgb()
    stopped = ending.board_picture(state, None, ending.truncated(6))
    assert stopped.shape == plain.shape and not np.array_equal(stopped, plain)
    rows = np.flatnonzero(np.any(stopped != plain, axis=(1, 2)))
    assert rows.min() > plain.shape[0] * 0.8  # only the status line at the bottom changed


def test_an_outfoxed_viewer_sees_its_own_hand_and_only_that():
    """Redrawing what player_1 cannot know (player_0's hand, kept cards, faces) leaves player_1's
    picture as it was and changes player_0's own picture whenever player_0's hand changed."""
    rng = np.random.default_rng(6)
    changed = 0
    for _before, _action, state in random_game("outfoxed_v0", seed=6, limit=80)[10::7]:
        if state.is_terminal():
            continue
        other = state.sample_determinisation(1, rng)
        np.testing.assert_array_equal(state.render_rgb(1), other.render_rgb(1))
        if other.hands[0] != state.hands[0]:
            assert not np.array_equal(state.render_rgb(0), other.render_rgb(0))
            changed += 1
    assert changed >= 3
