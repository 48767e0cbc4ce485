"""MCTS baseline: tactics in X-Ceter-O positions set up by notation, and generic behaviour on
every registered game (legal moves, no mutation, seeding, chance, determinisation)."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs.agents import MCTSAgent, make_agent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, sample_chance
from fox_envs.core.registry import make_game


def xceter_o(moves: str):
    state = make_game("xceter_o_v0").new_initial_state()
    for move in moves.split():
        state.apply_string(move)
    return state


def wins_now(state, action) -> bool:
    after = state.clone()
    mover = after.current_player()
    after.apply_action(action)
    return after.winner == mover


def safe_moves(state) -> list[str]:
    """Moves after which the opponent has no immediate win (brute force from the rules)."""
    safe = []
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal() or not any(wins_now(after, reply) for reply in after.legal_actions()):
            safe.append(state.action_to_string(action))
    return safe


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_takes_a_one_move_win(seed):
    # X1 a1, O2 c3, X3 b1, O4 b3: X5 on c1 completes a1-b1-c1; O threatens a3 (a3-b3-c3).
    state = xceter_o("a1 c3 b1 b3")
    assert state.current_player() == 0
    winning = [state.action_to_string(a) for a in state.legal_actions() if wins_now(state, a)]
    assert winning == ["c1"]
    agent = MCTSAgent(seed=seed, simulations=200)
    assert state.action_to_string(agent.act(state, 0)) == "c1"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_blocks_a_one_move_loss_in_placement(seed):
    # X1 a1, O2 b2, X3 c3, O4 a3: O threatens c1 (a3-b2-c1); X has no win now.
    state = xceter_o("a1 b2 c3 a3")
    assert not any(wins_now(state, a) for a in state.legal_actions())
    assert safe_moves(state) == ["c1"]
    agent = MCTSAgent(seed=seed, simulations=300)
    assert state.action_to_string(agent.act(state, 0)) == "c1"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_blocks_a_one_move_loss_by_a_jump(seed):
    # Movement phase: X3 (b2) must jump to c3, where O4 (c2) would complete a3-b3-c3.
    state = xceter_o("a1 c3 b2 c2 b1 a3 a2 b3")
    assert state.current_player() == 0 and state.next_piece() == 3
    assert not any(wins_now(state, a) for a in state.legal_actions())
    assert safe_moves(state) == ["c3"]
    agent = MCTSAgent(seed=seed, simulations=300)
    assert state.action_to_string(agent.act(state, 0)) == "c3"


def test_mcts_is_seeded_and_does_not_mutate():
    state = xceter_o("a1")
    before = state.clone()
    first = [MCTSAgent(seed=5, simulations=60).act(state, 1) for _ in range(2)]
    agent = MCTSAgent(seed=99, simulations=60)
    agent.reset(5)
    assert first[0] == first[1] == agent.act(state, 1)
    assert state == before and state.history() == before.history()


def test_mcts_clones_once_per_simulation(monkeypatch):
    state = xceter_o("a1 b2")
    calls = []
    original = type(state).clone

    def counting_clone(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(type(state), "clone", counting_clone)
    MCTSAgent(seed=0, simulations=37).act(state, 0)
    assert len(calls) == 37


def test_mcts_options_by_name():
    agent = make_agent("mcts:simulations=17,c=0.5,rollout_limit=3", "xceter_o_v0", seed=1)
    assert (agent.simulations, agent.c, agent.rollout_limit, agent.rollout) == (17, 0.5, 3, "random")
    heuristic_rollouts = make_agent("mcts:simulations=5,rollout=heuristic", "xceter_o_v0", seed=1)
    state = xceter_o("a1")
    assert heuristic_rollouts.act(state, 1) in state.legal_actions()
    for bad in ("mcts:simulations=0", "mcts:c=-1", "mcts:rollout=smart", "mcts:nonsense=1", "mcts:simulations"):
        with pytest.raises(InvalidParameterError):
            make_agent(bad, "xceter_o_v0")


def _positions(env_id: str, count: int, seed: int = 0):
    """A few decision states from one random game (params: defaults)."""
    game = make_game(env_id)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal() and len(found) < count:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if rng.random() < 0.3:
            found.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return found


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_mcts_plays_legal_moves_on_every_game(env_id, monkeypatch):
    positions = _positions(env_id, 2)
    assert positions
    imperfect = not positions[0].game.perfect_information
    calls = []
    if imperfect:  # determinisation: every simulation starts from sample_determinisation
        cls = type(positions[0])
        original = cls.sample_determinisation

        def spy(self, player, rng):
            calls.append(player)
            return original(self, player, rng)

        monkeypatch.setattr(cls, "sample_determinisation", spy)
    for state in positions:
        player = state.current_player()
        before = state.clone()
        agent = MCTSAgent(seed=3, simulations=8, rollout_limit=30)
        action = agent.act(state, player)
        assert action in state.legal_actions()
        assert state == before and state.history() == before.history()
        again = MCTSAgent(seed=3, simulations=8, rollout_limit=30).act(state, player)
        assert again == action
    if imperfect and any(len(s.legal_actions()) > 1 for s in positions):
        assert calls and set(calls) <= {s.current_player() for s in positions}
