"""``examples/train_alphazero.py --quick``: AlphaZero self-play with ``mctx`` over the JAX env
trains, measures and saves what it says. Needs the ``jax-train`` extra (jax, optax, mctx) and
takes a few minutes on 2 CPU cores: ``python -m pytest -q -m "integration and slow"
tests/test_alphazero_training.py``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("needs_jax_train")]


@pytest.mark.slow
def test_quick_mode_learns_and_writes_weights_checkpoints_and_curve(tmp_path, capsys):
    """``--quick`` (20 iterations of 128 games x 32 moves, 16 simulations; 76 s wall, 23 s CPU
    on the shared 2-core machine): the greedy policy's share of value-optimal moves over every
    reachable X-Ceter-O position rises above the untrained network's (measured 56.9 % -> 70.7 %,
    seed 0), it beats random (17 of 20), and the saved weights are the trained network, played
    by the numpy agent."""
    from examples.train_alphazero import main
    from fox_envs.agents.alphazero import AlphaZeroAgent, PolicyValueNet

    result = main(["--quick", "--seed", "0", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("jax ") and any(f" on {p}:" in first for p in ("cpu", "gpu", "cuda", "tpu"))
    curve = result["curve"]
    assert [p["iteration"] for p in curve] == [0, 10, 20]
    assert all(set(p) >= {"random", "heuristic", "mcts", "optimal", "converted", "wall", "cpu"} for p in curve)
    assert all(p["random"]["games"] == 20 for p in curve)
    assert curve[-1]["optimal"] > curve[0]["optimal"] + 0.10, [p["optimal"] for p in curve]
    assert curve[-1]["random"]["win_rate"] >= 0.7, curve[-1]["random"]
    history = result["history"]
    assert len(history) == 20 and all(h["games"] > 0 for h in history)
    assert history[-1]["policy_loss"] < history[0]["policy_loss"]
    # files: final weights (float32 only) with their record, checkpoints, the curve
    weights = tmp_path / "alphazero_xceter_o_v0.npz"
    assert result["weights"] == weights
    with np.load(weights, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    assert all(a.dtype == np.float32 for a in arrays.values())
    for name, value in result["params"].items():
        assert np.array_equal(np.asarray(value, np.float32), arrays[name])
    meta = json.loads(weights.with_suffix(".json").read_text())
    assert meta["seed"] == 0 and meta["iterations"] == 20 and meta["cpu_seconds"] > 0 and "--quick" in meta["command"]
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("*.npz")) == [
        f"alphazero_xceter_o_v0_{i:05d}.npz" for i in (0, 10, 20)]
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((tmp_path / "curve.json").read_text())
    assert [p["iteration"] for p in saved["curve"]] == [0, 10, 20]
    # the numpy agent plays the saved network
    import fox_envs

    agent = AlphaZeroAgent("xceter_o_v0", simulations=0, arrays=arrays)
    state = fox_envs.make_game("xceter_o_v0").new_initial_state()
    logits, _ = PolicyValueNet(arrays).forward(state.observation_tensor(0).reshape(1, -1))
    assert agent.act(state, 0) == int(np.argmax(logits[0]))
    assert "wall time" in out and "CPU time" in out


def test_factored_policy_head_is_the_numpy_agents():
    """Outwit's network factors its 8,101 logits into from- and to-square numbers (and pass):
    the training forward pass and the numpy agent's agree on real observations."""
    import jax

    import fox_envs
    from examples.train_alphazero import FACTORED_SQUARES, forward, init_params, numpy_arrays
    from fox_envs.agents.alphazero import PolicyValueNet

    params = init_params(jax.random.PRNGKey(0), 9 * 10 * 13, 8101, 32, 2, FACTORED_SQUARES["outwit_v0"])
    assert {"policy_from_w", "policy_to_w", "policy_extra_w"} <= set(params) and "policy_w" not in params
    params = {k: v * 5 for k, v in params.items()}  # logits far from zero (about 1 to 10)
    state = fox_envs.make_game("outwit_v0").new_initial_state()
    x = np.stack([state.observation_tensor(p).ravel() for p in (0, 1)])
    logits, value = forward(params, x)
    net = PolicyValueNet(numpy_arrays(params))
    want_logits, want_value = net.forward(x)
    assert logits.shape == (2, 8101) and net.num_actions == 8101
    assert np.abs(want_logits).max() > 1 and np.allclose(np.asarray(logits), want_logits, rtol=1e-4, atol=1e-4)
    assert np.allclose(np.asarray(value), want_value, atol=1e-5)


def test_warm_start_fits_the_heuristics_moves_and_returns():
    """``--warm-start``: the heuristic's games on the batched core give legal moves (the packed
    mask unpacks to the batched core's mask, which holds the move) and returns in {-1, 0, 1};
    fitting them lowers the policy loss from the untrained network's."""
    import jax

    from examples.train_alphazero import heuristic_samples, init_params, warm_start

    samples = heuristic_samples("xceter_o_v0", {"ordered_rows": False}, 30, seed=1, epsilon=0.1)
    count = len(samples["y"])
    assert count >= 30 * 5 and samples["x"].shape == (count, 90) and samples["mask"].shape == (count, 2)
    mask = np.unpackbits(samples["mask"], axis=-1, count=9).astype(bool)
    assert mask[np.arange(count), samples["action"]].all()
    assert set(np.unique(samples["y"])) <= {-1.0, 0.0, 1.0} and (samples["y"] != 0).any()
    params = init_params(jax.random.PRNGKey(0), 90, 9, 32, 1)
    _, first_policy, _ = warm_start(params, samples, 1, 64, 1e-3, 0, 9)
    _, policy_loss, value_loss = warm_start(params, samples, 300, 64, 1e-3, 0, 9)
    assert policy_loss < first_policy - 0.3, (first_policy, policy_loss)
    assert value_loss < 1.0


def test_value_targets_follow_the_game_backwards():
    """Returns flow back through the unroll with the sign of the mover, stop at a game's end
    and bootstrap a game still going; random opening moves give no value target."""
    import jax.numpy as jnp

    from examples.train_alphazero import Sample, value_targets

    # one row, 4 moves: players 0, 1, 0 (player 0 wins at move 3), then a new game's first move
    mover = jnp.array([[0], [1], [0], [0]])
    next_player = jnp.array([[1], [0], [0], [1]])
    reward = jnp.array([[0.0], [0.0], [1.0], [0.0]])
    ended = jnp.array([[False], [False], [True], [False]])
    searched = jnp.array([[False], [True], [True], [True]])
    zeros = jnp.zeros((4, 1, 1))
    samples = Sample(observation=zeros, mask=zeros, policy=zeros, mover=mover, reward=reward, ended=ended,
                     next_player=next_player, searched=searched, root_value=jnp.zeros((4, 1)))
    values, clean = value_targets(samples, jnp.array([0.25]))
    assert np.allclose(np.asarray(values)[:, 0], [1.0, -1.0, 1.0, -0.25])
    assert np.asarray(clean)[:, 0].tolist() == [False, True, True, True]
