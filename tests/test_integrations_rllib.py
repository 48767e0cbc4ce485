"""fox_envs.integrations.rllib and the Ray backend of evaluate, with the real Ray RLlib.

Every test needs the ``rllib`` extra and is marked ``integration``
(``python -m pytest -q -m integration``). One Ray instance serves the module (``ray_cluster``);
the subprocess tests start or join their own.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fox_envs
from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.evaluation import WorkerLostError, evaluate, round_robin

pytestmark = pytest.mark.integration
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray for this module: four logical CPUs (two env runners and two game tasks fit at
    once on two cores), a small object store, and this directory importable in its workers
    (the failing agents of ``fault_agents``)."""
    ray = pytest.importorskip("ray")
    sys.path.insert(0, str(TESTS))
    ray.init(num_cpus=4, include_dashboard=False, object_store_memory=100 * 1024 ** 2,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}})
    yield ray
    ray.shutdown()
    sys.path.remove(str(TESTS))


def rllib_env(env_id: str, **config):
    from fox_envs.integrations.rllib import FoxMultiAgentEnv

    return FoxMultiAgentEnv({"env_id": env_id, **config})


def run(code: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)


# ----- imports ---------------------------------------------------------------------------------
def test_importing_fox_envs_does_not_import_ray():
    done = run("import sys, fox_envs; print('ray' in sys.modules, 'ray.rllib' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_without_ray_the_import_error_names_the_extra():
    done = run("""
        import sys
        sys.modules['ray'] = None  # as if Ray were not installed
        try:
            import fox_envs.integrations.rllib
        except ImportError as error:
            print(error)
        try:
            import fox_envs
            fox_envs.evaluate('xceter_o_v0', ['random', 'random'], 2, backend='ray')
        except ImportError as error:
            print(error)
        from fox_envs.ui.cli import main
        print('exit', main(['arena', 'xceter_o_v0', 'random', 'random', '--backend', 'ray', '--quiet']))
    """)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3 and all("fox_envs[rllib]" in line for line in lines[:2])
    assert lines[2] == "exit 2" and "fox_envs[rllib]" in done.stderr


# ----- the env ---------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_the_env_passes_rllibs_checker(env_id):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib_env(env_id)
    check_multiagent_environments(env)
    for agent in env.possible_agents:
        space = env.get_observation_space(agent)
        assert set(space.spaces) == {"observations", "action_mask"}
        assert space["observations"].shape == (int(np.prod(env.game.observation_shape)),)
        assert env.get_action_space(agent).n == env.game.num_actions


def play_random(env, seed: int, on_observation=None):
    """Play one uniformly random legal game; return the last step's results and the summed
    rewards per agent."""
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while True:
        assert len(observations) == 1
        (agent, seen), = observations.items()
        if on_observation:
            on_observation(agent, seen)
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        step = env.step({agent: action})
        observations, rewards = step[0], step[1]
        for name, value in rewards.items():
            totals[name] += value
        if step[2]["__all__"] or step[3]["__all__"]:
            return step, totals


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_observations_and_masks_are_the_rules_cores(env_id):
    env = rllib_env(env_id)
    seen_movers = set()

    def check(agent, seen):
        state = env.game_state
        seat = env.possible_agents.index(agent)
        assert state.current_player() == seat
        assert env.get_observation_space(agent).contains(seen)
        np.testing.assert_array_equal(seen["action_mask"], state.legal_actions_mask().astype(np.float32))
        np.testing.assert_array_equal(seen["observations"], state.observation_tensor(seat).reshape(-1))
        seen_movers.add(agent)

    for seed in range(3):
        play_random(env, seed, check)
    assert seen_movers == set(env.possible_agents)


@pytest.mark.parametrize("env_id, params", [("xceter_o_v0", {}), ("outfox_v0", {"num_players": 3}),
                                            ("bye_bye_mr_fox_v0", {}), ("outfoxed_v0", {})])
def test_terminal_rewards_reach_every_agent_in_the_last_step(env_id, params):
    env = rllib_env(env_id, **params)
    for seed in range(4):
        (observations, rewards, terminateds, truncateds, _), totals = play_random(env, seed)
        state = env.game_state
        assert state.is_terminal() and terminateds["__all__"] and not truncateds["__all__"]
        returns = state.returns()
        assert set(observations) == set(rewards) == set(env.possible_agents)
        for seat, agent in enumerate(env.possible_agents):
            assert rewards[agent] == totals[agent] == returns[seat]
            assert terminateds[agent] and not truncateds[agent]
            assert not observations[agent]["action_mask"].any()


def test_max_moves_truncates_with_a_last_observation_for_everyone():
    env = rllib_env("outwit_v0", max_moves=5)
    (observations, rewards, terminateds, truncateds, _), _ = play_random(env, 0)
    assert truncateds["__all__"] and not terminateds["__all__"]
    assert set(observations) == set(env.possible_agents)
    assert all(rewards[agent] == 0.0 and truncateds[agent] for agent in env.possible_agents)
    with pytest.raises(InvalidParameterError, match="reset"):
        env.step({"player_0": 0})


def test_an_illegal_action_ends_the_game_or_raises():
    env = rllib_env("xceter_o_v0")
    observations, _ = env.reset(seed=0)
    (mover, seen), = observations.items()
    legal = np.flatnonzero(seen["action_mask"])
    env.step({mover: int(legal[0])})
    other = next(agent for agent in env.possible_agents if agent != mover)
    observations, rewards, terminateds, _, infos = env.step({other: int(legal[0])})  # taken square
    assert terminateds["__all__"] and rewards[other] == -1.0 and rewards[mover] == 0.0
    assert infos[other]["illegal_action"] is True

    strict = rllib_env("xceter_o_v0", illegal_action="raise")
    observations, _ = strict.reset(seed=0)
    (mover, _), = observations.items()
    strict.step({mover: int(legal[0])})
    before = strict.game_state.history()
    with pytest.raises(IllegalActionError):
        strict.step({other: int(legal[0])})
    assert strict.game_state.history() == before
    with pytest.raises(IllegalActionError, match="expected an action for"):
        strict.step({mover: 0})


def test_bad_configs_are_refused():
    with pytest.raises(InvalidParameterError, match="env_id"):
        rllib_env(None)
    with pytest.raises(InvalidParameterError, match="known ids"):
        rllib_env("chess_v0")
    with pytest.raises(InvalidParameterError, match="illegal_action"):
        rllib_env("xceter_o_v0", illegal_action="ignore")


def test_register_makes_every_env_id_an_rllib_env(ray_cluster):
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from fox_envs.integrations.rllib import FoxMultiAgentEnv, register

    register()
    for env_id in fox_envs.ENV_IDS:
        env = _global_registry.get(ENV_CREATOR, env_id)({})
        assert isinstance(env, FoxMultiAgentEnv) and env.env_id == env_id
    three = _global_registry.get(ENV_CREATOR, "outfox_v0")({"num_players": 3})
    assert three.possible_agents == ["player_0", "player_1", "player_2"]
    with pytest.raises(InvalidParameterError):
        _global_registry.get(ENV_CREATOR, "outfox_v0")({"env_id": "outwit_v0"})


# ----- training ----------------------------------------------------------------------------------
def test_one_ppo_iteration_with_action_masking_on_two_env_runners(ray_cluster):
    from fox_envs.integrations.rllib import SHARED_POLICY, RLModuleAgent, self_play_ppo_config

    config = (self_play_ppo_config("xceter_o_v0", num_env_runners=2, hidden=(16,))
              .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
              .debugging(seed=0))
    algo = config.build_algo()
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 2
        before = {k: v.detach().clone() for k, v in algo.get_module(SHARED_POLICY).state_dict().items()}
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
        assert result["learners"][SHARED_POLICY]["num_module_steps_trained"] > 0
        module = algo.get_module(SHARED_POLICY)
        after = module.state_dict()
        assert any(not np.allclose(before[k].numpy(), after[k].detach().numpy()) for k in before)
        # the masked module never picks an illegal move, in every seat
        match = evaluate("xceter_o_v0", [RLModuleAgent(module)], num_games=4, seed=0)
        assert match.num_games == 4 and match.truncations == 0
    finally:
        algo.stop()


def test_the_example_trains_and_evaluates(ray_cluster, capsys, tmp_path):
    sys.path.insert(0, str(ROOT))
    try:
        from examples.train_rllib import main
    finally:
        sys.path.remove(str(ROOT))
    result = main(["--iterations", "1", "--batch", "128", "--hidden", "16", "--eval-games", "4", "--num-env-runners", "0",
                   "--plot", str(tmp_path / "curve.png")])
    for phase in ("before", "after"):
        assert set(result[phase]) == {"random", "heuristic"}
        assert all(record["games"] == 4 for record in result[phase].values())
    out = capsys.readouterr().out
    assert "iter   1:" in out and "after 1 iterations" in out
    assert [point["step"] for point in result["curve"]] == [0, 1]  # before and after (no halfway point)
    assert (tmp_path / "curve.png").exists() or "fox_envs[plot]" in out
    assert ray_cluster.is_initialized()  # the test's Ray is left running


def test_rlmodule_agent_takes_the_best_legal_logit():
    from fox_envs.integrations.rllib import masked_argmax

    assert masked_argmax(np.array([5.0, 1.0, 3.0, 9.0]), np.array([0, 1, 1, 0])) == 2
    with pytest.raises(IllegalActionError):
        masked_argmax(np.zeros(3), np.zeros(3))


# ----- evaluate on Ray -----------------------------------------------------------------------------
@pytest.mark.parametrize("env_id, agents, games", [("xceter_o_v0", ["heuristic", "random"], 24),
                                                   ("outfoxed_v0", ["random", "heuristic"], 6),
                                                   ("bye_bye_mr_fox_v0", ["heuristic"], 10)])
def test_evaluate_on_ray_equals_the_process_backend(ray_cluster, env_id, agents, games):
    reference = evaluate(env_id, agents, games, seed=7, keep_records=True)
    for workers in (1, 3):
        on_ray = evaluate(env_id, agents, games, seed=7, workers=workers, backend="ray", keep_records=True)
        assert on_ray.to_dict() == reference.to_dict()
        assert [r.history for r in on_ray.records] == [r.history for r in reference.records]
    assert ray_cluster.is_initialized()  # an existing ray.init is used and left running


def test_round_robin_on_ray_equals_the_process_backend(ray_cluster):
    agents = ["random", "heuristic", "mcts:simulations=10"]
    reference = round_robin("xceter_o_v0", agents, games_per_match=4, seed=2, bootstrap=10)
    on_ray = round_robin("xceter_o_v0", agents, games_per_match=4, seed=2, bootstrap=10, workers=2, backend="ray")
    assert on_ray.to_dict() == reference.to_dict()


def test_a_dead_ray_worker_gives_worker_lost_error_with_the_partial_result(ray_cluster):
    from fault_agents import KilledAgent

    with pytest.raises(WorkerLostError, match="Ray task") as caught:
        evaluate("xceter_o_v0", [KilledAgent(after=8), "random"], 32, seed=1, workers=2, backend="ray")
    error = caught.value
    assert error.lost_games and error.partial is not None
    assert error.partial.lost_games == sorted(error.lost_games + error.unplayed_games)
    assert error.partial.num_games + len(error.partial.lost_games) == 32


def test_an_agents_exception_on_ray_keeps_its_type(ray_cluster):
    from fault_agents import RaisingAgent

    with pytest.raises(ZeroDivisionError, match="divided by zero") as caught:
        evaluate("xceter_o_v0", [RaisingAgent(after=3), "random"], 8, seed=1, workers=2, backend="ray")
    assert any("Ray task" in note for note in caught.value.__notes__)


def test_an_unknown_backend_is_refused():
    with pytest.raises(InvalidParameterError, match="backend"):
        evaluate("xceter_o_v0", ["random", "random"], 2, backend="dask")


def test_an_address_where_no_cluster_answers_is_a_clear_error():
    import socket

    from fox_envs.evaluation.ray_pool import check_reachable

    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionError, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
        check_reachable(f"127.0.0.1:{port}")
    check_reachable("auto")  # left to Ray


def test_ray_started_by_evaluate_is_shut_down_by_it():
    done = run("""
        import ray, fox_envs
        result = fox_envs.evaluate('xceter_o_v0', ['heuristic', 'random'], 4, backend='ray')
        print(result.num_games, ray.is_initialized())
    """, env={**os.environ, "RAY_ADDRESS": "local"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "False"]


def test_ctrl_c_stops_arena_on_ray_without_hanging():
    """SIGINT while games run as Ray tasks: the command exits 130 (the tasks cancelled and Ray
    shut down) instead of waiting for the games."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fox_envs", "arena", "xceter_o_v0", "mcts:simulations=100", "random", "--games", "400",
         "--backend", "ray", "--workers", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "RAY_ADDRESS": "local"})
    try:
        for line in process.stderr:  # the progress bar: games are being played
            if "games" in line and "/400" in line:
                break
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr
