"""The learned agents (fox_envs/agents/learned.py): packaged weights, the numpy forward pass,
their features, legal and reproducible play, and clear errors."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import fox_envs
from fox_envs.agents import RandomAgent, make_agent
from fox_envs.agents.learned import LEARNED_GAMES, ValueNet, packaged_arrays
from fox_envs.core.errors import InvalidParameterError, InvalidStateError
from fox_envs.evaluation import evaluate


def random_states(env_id: str, count: int, seed: int, max_steps: int = 40, **params):
    """Non-terminal states reached by random play (a varied sample of positions)."""
    game = fox_envs.make_game(env_id, **params)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, max_steps))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state)
    return states


# ----- weights and the network ------------------------------------------------------------------
@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_weights_load_from_any_working_directory(env_id, tmp_path):
    code = (
        "import fox_envs; from fox_envs.agents import make_agent\n"
        f"agent = make_agent('learned', {env_id!r}, seed=1)\n"
        f"state = fox_envs.make_game({env_id!r}).new_initial_state()\n"
        "print(agent.act(state, 0) in state.legal_actions())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_packaged_weights_are_small_float32_layers(env_id):
    arrays = packaged_arrays(env_id)
    assert all(a.dtype == np.float32 for a in arrays.values())
    assert sum(a.nbytes for a in arrays.values()) < 1_000_000
    net = ValueNet(arrays)
    assert len(net.layers) >= 2


def reference_value(arrays: dict[str, np.ndarray], x: list[float]) -> float:
    """The network's output computed neuron by neuron in plain Python."""
    h = list(map(float, x))
    k = 0
    while f"w{k}" in arrays:
        w, b = arrays[f"w{k}"].tolist(), arrays[f"b{k}"].tolist()
        out = [b[j] + math.fsum(h[i] * w[i][j] for i in range(len(h))) for j in range(len(b))]
        k += 1
        h = [max(v, 0.0) for v in out] if f"w{k}" in arrays else [math.tanh(v) for v in out]
    return h[0]


@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_forward_pass_matches_reference(env_id):
    arrays = packaged_arrays(env_id)
    net = ValueNet(arrays)
    rng = np.random.default_rng(0)
    x = rng.random((3, net.num_inputs)).astype(np.float32)
    x[0] = 0.0
    values = net.value(x)
    assert values.shape == (3,)
    for row, value in zip(x, values):
        assert value == pytest.approx(reference_value(arrays, row.tolist()), abs=1e-5)
    assert np.all(np.abs(values) <= 1.0)


def test_value_net_rejects_bad_arrays_and_inputs():
    with pytest.raises(InvalidParameterError, match="w0"):
        ValueNet({})
    with pytest.raises(InvalidParameterError, match="chain"):
        ValueNet({"w0": np.zeros((3, 4)), "b0": np.zeros(4), "w1": np.zeros((5, 1)), "b1": np.zeros(1)})
    with pytest.raises(InvalidParameterError, match="one output"):
        ValueNet({"w0": np.zeros((3, 2)), "b0": np.zeros(2)})
    net = ValueNet({"w0": np.ones((3, 2)), "b0": np.zeros(2), "w1": np.ones((2, 1)), "b1": np.zeros(1)})
    with pytest.raises(InvalidParameterError, match=r"\[N, 3\]"):
        net.value(np.zeros((2, 4)))
    assert net.value(np.array([[1.0, 0.0, 0.0]]))[0] == pytest.approx(math.tanh(2.0))


def test_games_without_weights_raise():
    for env_id in ("xceter_o_v0", "bye_bye_mr_fox_v0", "outfoxed_v0"):
        with pytest.raises(InvalidParameterError, match="no trained weights.*outfox_v0, outwit_v0"):
            make_agent("learned", env_id)


def test_three_player_outfox_is_refused():
    agent = make_agent("learned", "outfox_v0", seed=0)
    state = fox_envs.make_game("outfox_v0", num_players=3).new_initial_state()
    with pytest.raises(InvalidStateError, match="two-player"):
        agent.act(state, 0)


# ----- features ---------------------------------------------------------------------------------
def test_outfox_features_read_from_observations_match_the_state():
    from fox_envs.games.outfox.features import (
        completion_bits, features, legal_point_mask, positions_from_observations,
    )
    from fox_envs.games.outfox.rules import COMPLETES, PAIRS_THROUGH, PLACE, legal_points

    for state in random_states("outfox_v0", 60, seed=1, max_steps=30):
        player = state.current_player()
        boards, mine, theirs = positions_from_observations(state.observation_tensor(player)[None])
        assert boards[0].tolist() == state.board
        assert mine[0].tolist() == state.hands[player] and theirs[0].tolist() == state.hands[1 - player]
        if state.phase == PLACE:
            assert np.flatnonzero(legal_point_mask(boards)[0]).tolist() == legal_points(state.board)
        bits = completion_bits(boards)[0]
        for p in range(19):
            mask = 0
            if state.board[p] < 0:
                for a, b in PAIRS_THROUGH[p]:
                    if state.board[a] >= 0 and state.board[b] >= 0:
                        mask |= COMPLETES[state.board[a] * 9 + state.board[b]]
            assert bits[p].tolist() == [(mask >> t) & 1 for t in range(9)]
        assert features(boards, mine, theirs).shape == (1, 402)


def test_outwit_features_read_from_observations_and_the_board_symmetry():
    from fox_envs.games.outwit.features import position_features, position_from_observation
    from fox_envs.games.outwit.rules import POWER, REGULAR

    for state in random_states("outwit_v0", 30, seed=2, max_steps=80):
        player = state.current_player()
        board, squares, mover = position_from_observation(state.observation_tensor(player))
        assert mover == player and board == state.board
        for p in (0, 1):
            assert squares[p][0] == state.squares[p][0] and sorted(squares[p]) == sorted(state.squares[p])
        # turning the board by 180 degrees and swapping the colours swaps the players' roles
        turned = bytearray(90)
        for s, code in enumerate(state.board):
            if code:
                owner, power = (code - 1) // 2, (code - 1) % 2
                turned[89 - s] = (POWER if power else REGULAR)[1 - owner]
        turned_squares = [[89 - s for s in state.squares[1]], [89 - s for s in state.squares[0]]]
        np.testing.assert_array_equal(position_features(state.board, state.squares, player),
                                      position_features(turned, turned_squares, 1 - player))


# ----- play -------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id,steps", [("outfox_v0", 30), ("outwit_v0", 60)])
def test_act_returns_legal_moves_without_changing_the_state(env_id, steps):
    agent = make_agent("learned", env_id, seed=3)
    for state in random_states(env_id, 12, seed=4, max_steps=steps):
        before = state.to_json()
        action = agent.act(state, state.current_player())
        assert isinstance(action, int) and action in state.legal_actions()
        assert state.to_json() == before


@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_a_game_against_random_is_legal_and_reproducible_for_a_seed(env_id):
    def game_actions(seed: int) -> list[int]:
        state = fox_envs.make_game(env_id).new_initial_state()
        learned, other = make_agent("learned", env_id, seed=seed), RandomAgent(seed)
        actions = []
        while not state.is_terminal() and len(actions) < 120:
            player = state.current_player()
            action = (learned if player == 0 else other).act(state, player)
            assert action in state.legal_actions()
            state.apply_action(action)
            actions.append(action)
        return actions

    assert game_actions(5) == game_actions(5)


@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_short_match_runs(env_id):
    result = evaluate(env_id, ["learned", "heuristic"], num_games=2, seed=0)
    assert result.num_games == 2
    agent = result.results[0]
    assert agent.wins + agent.draws + agent.losses == 2


@pytest.mark.slow
@pytest.mark.parametrize("env_id", LEARNED_GAMES)
def test_learned_beats_the_heuristic_more_often_than_not(env_id):
    result = evaluate(env_id, ["learned", "heuristic"], num_games=60, seed=11, workers=2)
    assert result.results[0].wins > result.results[0].losses


@pytest.mark.slow
@pytest.mark.parametrize("script", ["train_outfox_learned", "train_outwit_learned"])
def test_training_scripts_quick_run_writes_weights_and_curve(script, tmp_path):
    import importlib
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    main = importlib.import_module(f"examples.{script}").main
    weights, plot = tmp_path / "policy.npz", tmp_path / "curve.png"
    result = main(["--quick", "--save", str(weights), "--plot", str(plot)])
    assert plot.stat().st_size > 1000
    point = result["curve"][-1]
    assert point["random"]["win_rate"] > 0.5  # a trained agent beats random play
    env_id = script.removeprefix("train_").removesuffix("_learned") + "_v0"
    agent = make_agent(str(weights), env_id, seed=0)  # the saved policy file loads by its path
    state = fox_envs.make_game(env_id).new_initial_state()
    assert agent.act(state, 0) in state.legal_actions()
