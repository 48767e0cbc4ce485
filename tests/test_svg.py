"""SVG boards: every game and viewer gives a standalone XML document; every legal move can be
made by clicking ``data-action`` elements (the click contract of ``fox_envs.core.svg``); hidden
facts stay hidden; the env, Gymnasium and Jupyter hooks; the fallback of a user's game."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import gymnasium
import numpy as np
import pytest

import fox_envs
from conftest import conformance_cases, example_cases, play_random_states
from fox_envs.core.game import sample_chance
from fox_envs.core.registry import GAMES
from fox_envs.core.svg import state_svg
from fox_envs.ui.move_steps import MoveSteps, move_parts, part_label

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
