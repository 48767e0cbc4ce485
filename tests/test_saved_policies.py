"""Policies saved by the training examples load from any working directory with only fox_envs
installed: they name classes in ``fox_envs.agents.trained``. Each file is loaded and played in a
subprocess started in an empty directory with PYTHONPATH removed (so ``examples/`` of the
repository cannot be imported), and files naming the examples' old factories still load."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from fox_envs.agents import load_policy, save_policy
from fox_envs.core.errors import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PLAY = textwrap.dedent("""
    import importlib.util, sys
    import fox_envs
    from fox_envs.agents import make_agent
    assert importlib.util.find_spec("examples") is None, "the repository's examples/ must not be importable"
    env_id, path, trust = sys.argv[1], sys.argv[2], sys.argv[3] == "trust"
    agent = make_agent(path, env_id, seed=0, trust_code=trust)
    state = fox_envs.make_game(env_id).new_initial_state()
    other = make_agent("random", env_id, seed=1)
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(outcomes[0])
            continue
        player = state.current_player()
        action = (agent if player == 0 or not fox_envs.make_game(env_id).zero_sum else other).act(state, player)
        assert state.is_legal(action)
        state.apply_action(action)
        moves += 1
    print(type(agent).__module__, type(agent).__name__, moves, state.returns())
""")


def play_from_elsewhere(env_id: str, path: Path, cwd: Path, trust_code: bool = False) -> str:
    """Load and play the policy file in a fresh interpreter in ``cwd`` (a MaskablePPO file, whose
    model is unpickled, needs ``trust_code``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    trust = "trust" if trust_code else "data-only"
    run = subprocess.run([sys.executable, "-c", PLAY, env_id, str(path), trust], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_q_table_from_the_training_function_loads_anywhere(tmp_path):
    from examples.train_xceter_o_qlearning import save, train

    table = train(300, seed=0)
    path = save(table, tmp_path / "q.npz")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = play_from_elsewhere("xceter_o_v0", path, elsewhere)
    assert out.startswith("fox_envs.games.xceter_o.trained_q QAgent")
    # an old file naming the example script's factory plays the same moves through the same class
    with np.load(path) as data:
        arrays = {k: data[k] for k in ("keys", "values")}
    legacy = save_policy(tmp_path / "old.npz", "examples.train_xceter_o_qlearning:load_agent", "xceter_o_v0",
                         arrays=arrays)
    assert play_from_elsewhere("xceter_o_v0", legacy, elsewhere) == out


def test_afterstate_network_from_the_training_function_loads_anywhere(tmp_path):
    from examples.train_bye_bye_mr_fox import FACTORY, ENV_ID, train

    net = train(20, seed=0)
    path = save_policy(tmp_path / "td.npz", FACTORY, ENV_ID, arrays=net.arrays())
    out = play_from_elsewhere(ENV_ID, path, tmp_path)
    assert out.startswith("fox_envs.games.bye_bye_mr_fox.trained_td AfterstateAgent")


def test_an_unknown_examples_factory_says_to_retrain(tmp_path):
    path = save_policy(tmp_path / "gone.json", "examples.removed_script:load_agent", "xceter_o_v0")
    with pytest.raises(InvalidParameterError, match="retrain and save it with the current example"):
        load_policy(path, "xceter_o_v0")
    wrong = save_policy(tmp_path / "other.json", "fox_envs.games.xceter_o.trained_q:nothing_here", "xceter_o_v0")
    with pytest.raises(InvalidParameterError, match="not one of the package's trained agents"):
        load_policy(wrong, "xceter_o_v0")
    with pytest.raises(InvalidParameterError, match="cannot load factory") as error:
        load_policy(wrong, "xceter_o_v0", trust_code=True)
    assert "retrain" not in str(error.value)


def test_trained_policy_files_check_their_arrays(tmp_path):
    path = save_policy(tmp_path / "empty.npz", "fox_envs.games.xceter_o.trained_q:load_agent", "xceter_o_v0",
                       arrays={"keys": np.zeros(1, np.int64)})
    with pytest.raises(InvalidParameterError, match="'keys' and 'values'"):
        load_policy(path, "xceter_o_v0")


@pytest.mark.integration
def test_maskable_ppo_board_policy_loads_anywhere(tmp_path):
    pytest.importorskip("sb3_contrib")
    from examples.train_maskable_ppo import main

    main(["--quick", "--random-steps", "128", "--heuristic-steps", "0", "--envs", "2", "--eval-games", "2",
          "--channels", "4", "--layers", "1", "--save", str(tmp_path / "ppo.zip"), "--plot", ""])
    out = play_from_elsewhere("outfox_v0", tmp_path / "ppo.json", tmp_path, trust_code=True)
    assert out.startswith("fox_envs.agents.trained.sb3_policy MaskedPolicyAgent")


@pytest.mark.integration
def test_an_old_maskable_ppo_file_with_the_board_policy_of_examples_loads(tmp_path):
    """A model saved when the board policy was ``examples._board_policy.BoardPolicy`` (SB3 stores
    the class by module path), with the old factory and no ``policy`` entry, loads through the
    package's BoardPolicy where that module does not exist."""
    pytest.importorskip("sb3_contrib")
    old_code = tmp_path / "old_code" / "examples"
    old_code.mkdir(parents=True)
    (old_code / "_board_policy.py").write_text(
        "from fox_envs.agents.trained import outfox_board_policy\n\n\n"
        "class BoardPolicy(outfox_board_policy.BoardPolicy):\n    pass\n")
    save_old = textwrap.dedent(f"""
        import gymnasium, fox_envs
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
        from examples._board_policy import BoardPolicy
        from fox_envs.agents import save_policy
        from fox_envs.games.outfox.planes import LinePlanes
        env = DummyVecEnv([lambda: LinePlanes(gymnasium.make("fox_envs/Outfox-v0", opponent="random"))])
        model = MaskablePPO(BoardPolicy, env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu",
                            policy_kwargs={{"features_extractor_kwargs": {{"channels": 4, "layers": 1}}}})
        model.save({str(tmp_path / 'old.zip')!r})
        save_policy({str(tmp_path / 'old.json')!r}, "examples.train_maskable_ppo:load_agent", "outfox_v0",
                    model={str(tmp_path / 'old.zip')!r}, features="lines")
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", save_old], cwd=old_code.parent, env=env, capture_output=True,
                         text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = play_from_elsewhere("outfox_v0", tmp_path / "old.json", elsewhere, trust_code=True)
    assert out.startswith("fox_envs.agents.trained.sb3_policy MaskedPolicyAgent")


def test_an_alphazero_network_file_loads_without_trusting_code(tmp_path):
    """A saved ``alphazero`` network is data (float arrays checked for shape), like ``learned``."""
    from fox_envs.agents.alphazero import packaged_arrays
    from fox_envs.core.registry import make_game

    path = save_policy(tmp_path / "az.npz", "fox_envs.agents.alphazero:make_alphazero", "xceter_o_v0",
                       arrays=packaged_arrays("xceter_o_v0", {"ordered_rows": False}), simulations=0)
    agent = load_policy(path, "xceter_o_v0", seed=0)
    state = make_game("xceter_o_v0").new_initial_state()
    assert state.is_legal(agent.act(state, 0))
    broken = save_policy(tmp_path / "broken.npz", "fox_envs.agents.alphazero:make_alphazero", "xceter_o_v0",
                         arrays={"w0": np.zeros((3, 3), np.float32)})
    with pytest.raises(InvalidParameterError, match="missing"):
        load_policy(broken, "xceter_o_v0", seed=0)
