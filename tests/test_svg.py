"""SVG boards: every game and viewer gives a standalone XML document; every legal move can be
made by clicking ``data-action`` elements (the click contract of ``fox_envs.core.svg``); hidden
facts stay hidden; the env, Gymnasium and Jupyter hooks; the fallback of a user's game."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import gymnasium
import numpy as np
import pytest
from conftest import conformance_cases, example_cases, play_random_states

import fox_envs
from fox_envs.core.gym_view import FoxGymEnv
from fox_envs.core.registry import GAMES
from fox_envs.core.svg import (
    game_drawing,
    move_names,
    present_labels,
    state_svg,
    walk_labels,
)
from fox_envs.core.move_steps import MoveSteps, move_parts, part_label

SVG = "{http://www.w3.org/2000/svg}"


def parse(document: str) -> ET.Element:
    """The document's root, checked: an ``<svg>`` with a viewBox, no script, no external link."""
    root = ET.fromstring(document)
    assert root.tag == f"{SVG}svg" and len(root.get("viewBox").split()) == 4
    assert root.find(f".//{SVG}script") is None and "href" not in document and "http://" not in document.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    return root


def actions(root: ET.Element) -> dict[str, list[ET.Element]]:
    """The clickable elements by their ``data-action`` label; each has class ``act`` and a title."""
    found: dict[str, list[ET.Element]] = {}
    for element in root.iter():
        label = element.get("data-action")
        if label is not None:
            assert "act" in element.get("class", "").split()
            assert element.find(f"{SVG}title") is not None
            found.setdefault(label, []).append(element)
    return found


def sampled_states(env_id: str, params: dict, seed: int, count: int, decisions: int = 80) -> list:
    """About ``count`` states of one random game, spread over its first ``decisions`` decisions
    (the end included when it comes sooner), clones."""
    game = fox_envs.make_game(env_id, **params)
    states = [state.clone() for state in play_random_states(game, seed, max_moves=decisions)]
    step = max(1, len(states) // count)
    return states[::step] + states[-1:]


def walk(state, labels: dict[str, list]) -> None:
    """Every legal move of ``state`` is built by clicking, at each step, an element whose label
    is the move's next part (and which ``options()`` offers)."""
    names = [state.action_to_string(a) for a in state.legal_actions()]
    offered = MoveSteps(names).options()  # before any click (one legal move: its first part)
    assert all(label in labels for label in offered), (offered, sorted(labels))
    for target in names:
        steps, parts = MoveSteps(names), move_parts(target)
        chosen = None
        for _ in range(len(parts) + 1):
            chosen = steps.done()
            if chosen == target:
                break
            needed = part_label(parts[len(steps.chosen)])
            assert needed in steps.options() and needed in labels, (target, needed, sorted(labels))
            chosen = steps.take(needed)
            if chosen == target:
                break
        assert chosen == target


@pytest.mark.parametrize("env_id, params", conformance_cases())
def test_every_view_is_an_svg_document_and_every_legal_move_can_be_clicked(env_id, params):
    seats = range(fox_envs.make_game(env_id, **params).num_players)
    for seed in (0, 1):
        for state in sampled_states(env_id, params, seed, count=6):
            for viewer in (None, *seats):
                root = parse(state_svg(state, viewer))
                if state.current_player() >= 0 and viewer in (None, state.current_player()):
                    walk(state, actions(root))
                    # the game's own drawing carries them all (no buttons added by state_svg)
                    drawn = present_labels(game_drawing(state)(state, viewer))
                    assert set(walk_labels(move_names(state))) <= drawn


def decision_states(env_id: str, seed: int, count: int, every: int = 7) -> list:
    """``count`` states at a player's decision (never the end) of random games, every
    ``every``-th decision, clones."""
    game, found = fox_envs.make_game(env_id), []
    while len(found) < count:
        decisions = (state for state in play_random_states(game, seed) if state.current_player() >= 0)
        found += [state.clone() for k, state in enumerate(decisions) if k % every == every - 1]
        seed += 1000
    return found[:count]


@pytest.mark.parametrize("seat", [0, 1])
def test_outfoxed_a_seat_sees_the_same_svg_whatever_the_hidden_facts(seat):
    """Two states that differ only in what ``seat`` cannot know (the other's hand, kept cards,
    face-down faces, pending card: ``sample_determinisation``) give byte-identical SVGs for
    ``seat``; the full view (``None``) tells them apart."""
    rng = np.random.default_rng(seat)
    told_apart = 0
    for state in decision_states("outfoxed_v0", seed=seat, count=40):
        other = state.sample_determinisation(seat, rng)
        assert state_svg(state, seat) == state_svg(other, seat)
        told_apart += state_svg(state) != state_svg(other)
    assert told_apart >= 10


def test_outfoxed_hides_the_other_hand_and_shows_ones_own():
    state = next(s for s in decision_states("outfoxed_v0", seed=7, count=30) if s.phase == 3)  # PUT
    mover = state.current_player()
    mine = actions(parse(state_svg(state, mover)))
    theirs = actions(parse(state_svg(state, 1 - mover)))
    held = {name for name, count in zip(("brown", "black", "red", "pink", "white", "yellow"), state.hands[mover]) if count}
    # the mover's cards act as their colour; the other seat sees card backs, and the colour
    # buttons only: one element per colour
    assert all(len(mine[colour]) == 2 for colour in held)
    assert all(len(theirs[colour]) == 1 for colour in held)
    assert {"1", "2", "3", "call", "pass"} <= set(theirs)


def test_render_mode_svg_through_make_and_gymnasium_and_repr_svg():
    env = fox_envs.make("outwit_v0", render_mode="svg")
    env.reset(seed=0)
    document = env.render()
    assert parse(document) is not None and document == state_svg(env.unwrapped.game_state)
    assert env._repr_svg_() == document and env.unwrapped._repr_svg_() == document
    state = env.unwrapped.game_state
    assert state._repr_svg_() == state.render_svg() == document
    hidden = fox_envs.make("outfoxed_v0", render_mode="svg", render_viewer="player_1")
    hidden.reset(seed=0)
    assert hidden.render() == state_svg(hidden.unwrapped.game_state, 1)
    view = gymnasium.make("fox_envs/Outfoxed-v0", seat=1, render_mode="svg")
    view.reset(seed=0)
    assert view.render() == state_svg(view.unwrapped.state, 1)
    view.step(int(np.flatnonzero(view.unwrapped.action_masks())[0]))
    parse(view.render())
    with pytest.raises(fox_envs.InvalidParameterError, match="allowed: None, ansi, human, rgb_array, svg"):
        FoxGymEnv("outwit_v0", render_mode="vector")


def test_an_ending_outside_the_rules_core_is_the_caption():
    env = fox_envs.make("xceter_o_v0", render_mode="svg", max_moves=2)
    env.reset(seed=0)
    for _ in range(2):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    document = env.render()
    assert "truncated after 2 player moves" in document and "to move" not in document.split("</title>", 2)[-1]
    assert actions(parse(document))  # the board still carries its squares


@pytest.mark.parametrize("env_id", list(GAMES))
@pytest.mark.parametrize("bad", [-1, 5, 1.0, "0", True, "player_0", [0]])
def test_a_bad_viewer_is_a_clear_error(env_id, bad):
    state = fox_envs.make_game(env_id).new_initial_state()
    with pytest.raises(fox_envs.InvalidParameterError, match=r"bad viewer .*allowed: None \(everything\) or a seat 0\.\."):
        state.render_svg(bad)


def test_escaping_and_the_fallback_of_a_users_game(example_registered, monkeypatch):
    """A game whose spec names no drawing (the doc's Nim) gets its text board in monospace
    lines and a button per label; every legal move can be clicked; text is escaped."""
    assert example_registered.svg is None
    game = fox_envs.make_game(example_registered.env_id)
    for state in play_random_states(game, seed=0):
        root = parse(state.render_svg())
        texts = [element.text for element in root.iter(f"{SVG}text")]
        assert state.render_text().splitlines()[0] in texts
        if state.current_player() >= 0:
            walk(state, actions(root))
    state = game.new_initial_state()
    monkeypatch.setattr(type(state), "render_text", lambda self, viewer=None: 'a <b> & "c"\nnext')
    root = parse(state.render_svg())
    assert 'a <b> & "c"' in [element.text for element in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("env_id, params", example_cases())
def test_labels_a_drawing_lacks_become_buttons(env_id, params, example_registered):
    """``state_svg`` adds a button for every label of the legal moves a game's drawing does
    not carry (here a drawing with none), so the click contract holds for any drawing."""
    import dataclasses

    from conftest import unregister

    from fox_envs.core import svg

    bare = dataclasses.replace(example_registered, svg=lambda state, viewer: svg.document(200, 40, svg.text((100, 20), "bare")))
    before = GAMES.copy()
    fox_envs.register_game(bare, replace=True)
    try:
        for state in play_random_states(fox_envs.make_game(env_id, **params), seed=1):
            root = parse(state.render_svg())
            if state.current_player() >= 0:
                labels = actions(root)
                assert all("button" in element.get("class") for found in labels.values() for element in found)
                walk(state, labels)
    finally:
        unregister(bare, before)


def test_the_first_word_of_a_lone_move_becomes_a_button():
    """Bye Bye Mr. Fox! with one hen's nest not full: ``give white`` is the only move, so
    ``options()`` offers ``give``, which no part of the board is; ``state_svg`` adds its button."""
    game = fox_envs.make_game("bye_bye_mr_fox_v0")
    state = next(s for s in play_random_states(game, seed=1)
                 if s.current_player() >= 0 and len(s.legal_actions()) == 1 and s.action_to_string(s.legal_actions()[0]).startswith("give"))
    assert walk_labels(move_names(state)) == ["give"]
    assert "give" not in present_labels(game_drawing(state)(state, None))
    labels = actions(parse(state_svg(state, state.current_player())))
    assert [element.get("class") for element in labels["give"]] == ["act button"]
    walk(state, labels)
