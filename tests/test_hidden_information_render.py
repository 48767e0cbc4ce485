"""Hidden information stays hidden: renders for a viewer and the infos after an illegal action."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import fox_envs
from fox_envs import outfoxed_v0
from fox_envs.core.game import sample_chance


def positions(seed: int, count: int):
    """States of random Outfoxed games at player decisions, ``count`` of them (no game over:
    the scoring cards are then turned up, which a determinisation does not redo)."""
    game = fox_envs.make_game("outfoxed_v0")
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            player = state.current_player()
            if player < 0:
                state.apply_action(sample_chance(state, rng))
                continue
            if rng.random() < 0.15:
                found.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return found


def render_env(state, mode: str, viewer):
    env = outfoxed_v0.env(render_mode=mode, render_viewer=viewer)
    env.reset(seed=0)
    env.unwrapped.game_state = state
    return env.render()


@pytest.mark.parametrize("viewer", [0, 1, "player_0", "player_1"])
def test_a_viewer_sees_the_same_text_and_picture_whatever_the_hidden_facts(viewer):
    """Two histories that differ only in what ``viewer`` cannot know (the other player's hand,
    kept cards, face-down faces, pending card: ``sample_determinisation``) render identically
    for it, as text and as picture, through env(render_viewer=...); the full view (the
    default) tells them apart."""
    seat = viewer if isinstance(viewer, int) else int(viewer[-1])
    rng = np.random.default_rng(seat)
    told_apart = {"ansi": 0, "rgb_array": 0}
    for state in positions(seed=seat, count=40):
        other = state.sample_determinisation(seat, rng)
        for mode in ("ansi", "rgb_array"):
            mine, theirs = render_env(state, mode, viewer), render_env(other, mode, viewer)
            np.testing.assert_array_equal(mine, theirs)
            full, other_full = render_env(state, mode, None), render_env(other, mode, None)
            told_apart[mode] += not np.array_equal(full, other_full)
    assert told_apart["ansi"] >= 10 and told_apart["rgb_array"] >= 10, told_apart


def test_the_default_render_shows_everything_and_a_viewer_only_its_own():
    state = positions(seed=3, count=30)[-1]
    assert render_env(state, "ansi", None) == state.render_text(None)
    np.testing.assert_array_equal(render_env(state, "rgb_array", None), state.render_rgb(None))
    assert "everything" in render_env(state, "ansi", None)
    assert "player_1's view" in render_env(state, "ansi", 1)
    for bad in (2, -1, "player_2", 1.5, True, "everything"):
        with pytest.raises(fox_envs.InvalidParameterError, match="render_viewer"):
            outfoxed_v0.env(render_viewer=bad)
    # perfect-information games take the parameter too; every view is the whole board
    env = fox_envs.make("outwit_v0", render_mode="ansi", render_viewer=1)
    env.reset(seed=0)
    assert env.render() == env.unwrapped.game_state.render_text(None)


def test_the_gymnasium_view_renders_only_the_learners_view():
    rng = np.random.default_rng(5)
    for seat in (0, 1):
        view = gymnasium.make("fox_envs/Outfoxed-v0", seat=seat, render_mode="rgb_array").unwrapped
        view.reset(seed=0)
        for state in positions(seed=10 + seat, count=15):
            view.state = state
            picture = view.render()
            view.state = state.sample_determinisation(seat, rng)
            np.testing.assert_array_equal(view.render(), picture)


def test_after_an_illegal_action_only_the_offender_sees_its_legal_actions():
    """The error text lists the offender's legal actions (its hand): only the offender's info
    holds it; the other's info says who played an illegal action."""
    env = outfoxed_v0.env()
    env.reset(seed=1)
    for _ in range(5):  # into the game, past the scoring picks
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    offender = env.agent_selection
    other = next(a for a in env.possible_agents if a != offender)
    mask = env.observe(offender)["action_mask"]
    legal_text = [env.unwrapped.game_state.action_to_string(int(a)) for a in np.flatnonzero(mask)]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    infos = env.infos
    assert infos[offender]["illegal_action"] and any(text in infos[offender]["error"] for text in legal_text)
    assert infos[other]["illegal_action"] is False and infos[other]["illegal_action_by"] == offender
    assert not any(text in repr(infos[other]) for text in legal_text), infos[other]
    assert str(np.flatnonzero(mask)[0]) not in infos[other]["error"]
