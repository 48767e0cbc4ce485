"""fox_envs.integrations.sb3.SB3VecEnv with the real Stable-Baselines3 and sb3-contrib.

The tests marked ``integration`` need the ``sb3`` extra and run with
``python -m pytest -q -m integration``; the two import tests run in the default suite.

Every kind of source vector env is held to an independent reference, step by step:
Gymnasium's sync / async vector envs and ``FoxVectorEnv`` to SB3's own ``DummyVecEnv`` over
``gymnasium.make`` envs seeded the same way (env i with seed + i, autoreset without a seed), and
the batched core's ``BatchVectorEnv`` to a twin ``BatchVectorEnv`` stepped directly (its random
opponents are the batched core's own streams, which no single env reproduces).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pytest

import fox_envs  # noqa: F401  (registers the Gymnasium ids)

integration = pytest.mark.integration

# source kind -> (make_vec keyword arguments, does DummyVecEnv reproduce it)
SOURCES = {
    "batch": {},
    "fox": {"workers": 2, "opponent": "heuristic"},
    "sync": {"vectorization_mode": "sync"},
    "async": {"vectorization_mode": "async"},
    "sync-same-step": {"vectorization_mode": "sync",
                       "vector_kwargs": {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}},
}
# env kwargs of the single env DummyVecEnv builds, per source (the opponent must match)
SINGLE_KWARGS = {"fox": {"opponent": "heuristic"}, "sync": {}, "async": {}, "sync-same-step": {}}


def make_source(kind: str, gym_id: str, num_envs: int, **env_kwargs):
    return gymnasium.make_vec(gym_id, num_envs, **SOURCES[kind], **env_kwargs)


def make_sb3(kind: str, gym_id: str, num_envs: int, **env_kwargs):
    from fox_envs.integrations.sb3 import SB3VecEnv

    return SB3VecEnv(make_source(kind, gym_id, num_envs, **env_kwargs))


def make_reference(kind: str, gym_id: str, num_envs: int, **env_kwargs):
    """The same episodes by another road (see the module docstring)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    if kind == "batch":
        return make_source(kind, gym_id, num_envs, **env_kwargs)
    kwargs = {**SINGLE_KWARGS[kind], **env_kwargs}
    return DummyVecEnv([lambda: gymnasium.make(gym_id, **kwargs) for _ in range(num_envs)])


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def run_in_lockstep(kind: str, gym_id: str, num_envs: int, steps: int, seed: int, **env_kwargs) -> dict:
    """Step an SB3VecEnv and its reference with the same random legal actions, asserting that
    they agree at every step; returns counts of what was seen."""
    env = make_sb3(kind, gym_id, num_envs, **env_kwargs)
    ref = make_reference(kind, gym_id, num_envs, **env_kwargs)
    rng = np.random.default_rng(seed)
    seen = {"terminated": 0, "truncated": 0, "steps": 0}
    try:
        assert env.seed(seed) == [seed + i for i in range(num_envs)]
        obs = env.reset()
        if kind == "batch":
            ref_obs, ref_infos = ref.reset(seed=seed)
            ref_masks = ref_infos["action_mask"].astype(bool)
        else:
            ref.seed(seed)
            ref_obs = ref.reset()
            ref_masks = np.stack(ref.env_method("action_masks"))
        np.testing.assert_array_equal(obs, ref_obs)
        masks = np.stack(env.env_method("action_masks"))
        assert masks.dtype == bool and masks.shape == (num_envs, env.action_space.n)
        np.testing.assert_array_equal(masks, ref_masks)
        for _ in range(steps):
            actions = random_legal(masks, rng)
            obs, rewards, dones, infos = env.step(actions)
            if kind == "batch":
                ref_obs, ref_rewards, terms, truncs, ref_infos = ref.step(actions)
                ref_dones = terms | truncs
                ref_masks = ref_infos["action_mask"].astype(bool)
                ref_terminal = {i: ref_infos["final_obs"][i] for i in np.flatnonzero(ref_dones)}
                ref_limit = [bool(truncs[i] and not terms[i]) for i in range(num_envs)]
            else:
                ref_obs, ref_rewards, ref_dones, ref_step_infos = ref.step(actions)
                ref_masks = np.stack(ref.env_method("action_masks"))
                ref_terminal = {i: ref_step_infos[i]["terminal_observation"] for i in np.flatnonzero(ref_dones)}
                ref_limit = [info["TimeLimit.truncated"] for info in ref_step_infos]
            assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
            assert obs.shape == (num_envs, *env.observation_space.shape)
            assert rewards.dtype == np.float32 and dones.dtype == bool
            assert isinstance(infos, list) and len(infos) == num_envs
            np.testing.assert_array_equal(obs, ref_obs)
            np.testing.assert_array_equal(rewards, ref_rewards)
            np.testing.assert_array_equal(dones, ref_dones)
            masks = np.stack(env.env_method("action_masks"))
            np.testing.assert_array_equal(masks, ref_masks)
            assert masks.any(axis=1).all()  # every env is ready for its next move
            for i, info in enumerate(infos):
                assert info["TimeLimit.truncated"] == ref_limit[i]
                assert ("terminal_observation" in info) == bool(dones[i])
                if dones[i]:
                    terminal = info["terminal_observation"]
                    assert terminal.shape == env.observation_space.shape
                    np.testing.assert_array_equal(terminal, ref_terminal[i])
                    seen["truncated" if info["TimeLimit.truncated"] else "terminated"] += 1
            seen["steps"] += 1
    finally:
        env.close()
        ref.close()
    return seen


# ----- the four kinds of source --------------------------------------------------------------------
@integration
@pytest.mark.parametrize("kind", list(SOURCES))
def test_steps_match_the_reference_through_episode_ends(kind: str) -> None:
    seen = run_in_lockstep(kind, "fox_envs/XCeterO-v0", num_envs=4, steps=60, seed=11)
    assert seen["terminated"] >= 4  # several episodes ended (and reset) on the way


@integration
@pytest.mark.parametrize("kind", list(SOURCES))
def test_truncation_sets_time_limit_truncated(kind: str) -> None:
    seen = run_in_lockstep(kind, "fox_envs/Outwit-v0", num_envs=3, steps=12, seed=3, max_moves=8)
    assert seen["truncated"] >= 3  # max_moves cut every env's episode at least once


@integration
@pytest.mark.parametrize("kind", ["batch", "sync", "async"])
def test_three_player_outfox_matches_the_reference(kind: str) -> None:
    seen = run_in_lockstep(kind, "fox_envs/Outfox-v0", num_envs=3, steps=40, seed=5, num_players=3)
    assert seen["terminated"] + seen["truncated"] >= 1


@integration
@pytest.mark.parametrize("kind", list(SOURCES))
def test_the_same_seed_gives_the_same_episodes(kind: str) -> None:
    def trajectory(seed: int) -> list:
        env = make_sb3(kind, "fox_envs/ByeByeMrFox-v0", 3)
        rng = np.random.default_rng(0)
        try:
            env.seed(seed)
            out = [env.reset().copy()]
            for _ in range(25):
                obs, rewards, dones, infos = env.step(random_legal(np.stack(env.env_method("action_masks")), rng))
                out += [obs.copy(), rewards.copy(), dones.copy()]
            return out
        finally:
            env.close()

    first, again, other = trajectory(21), trajectory(21), trajectory(22)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


@integration
@pytest.mark.parametrize("kind", list(SOURCES))
def test_vec_env_interface(kind: str) -> None:
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecEnv

    env = make_sb3(kind, "fox_envs/XCeterO-v0", 2)
    try:
        assert isinstance(env, VecEnv) and env.num_envs == 2
        assert env.observation_space == gymnasium.spaces.Box(0.0, 1.0, (3, 3, 10), np.float32)
        assert env.action_space == gymnasium.spaces.Discrete(9)
        assert env.render_mode is None and env.get_attr("render_mode") == [None, None]
        assert env.has_attr("action_masks")
        env.reset()
        np.testing.assert_array_equal(env.get_attr("action_masks", indices=1)[0](), env.env_method("action_masks")[1])
        assert len(env.env_method("action_masks", indices=[0])) == 1
        assert env.env_is_wrapped(Monitor) == [False, False]
        assert len(env.reset_infos) == 2
        if kind in ("sync", "sync-same-step", "async"):  # per-env objects: attributes reach each env
            assert env.get_attr("seat") == [0, 0]
            env.set_attr("max_moves", 5, indices=[1])
            assert env.get_attr("max_moves") == [200, 5]
            assert env.env_method("render", indices=None) == [None, None]
        else:  # one vector env for all: its own attributes, nothing to set per env
            assert env.get_attr("render_mode", indices=[0, 1]) == [None, None]
            with pytest.raises(NotImplementedError):
                env.set_attr("seat", 1)
            with pytest.raises(AttributeError):
                env.env_method("render")
            assert not env.has_attr("no_such_attribute")
        env.step_async(np.array(env.env_method("action_masks")).argmax(axis=1))
        obs, rewards, dones, infos = env.step_wait()
        assert obs.shape == (2, 3, 3, 10) and all("TimeLimit.truncated" in info for info in infos)
        env.step_async(np.array(env.env_method("action_masks")).argmax(axis=1))
        env.seed(4)
        assert env.reset().shape == (2, 3, 3, 10)  # a reset drops the pending step
        obs, rewards, dones, infos = env.step(np.array(env.env_method("action_masks")).argmax(axis=1))
        assert obs.shape == (2, 3, 3, 10)
    finally:
        env.close()


@integration
def test_env_is_wrapped_sees_gymnasium_wrappers() -> None:
    from stable_baselines3.common.monitor import Monitor

    from fox_envs.integrations.sb3 import SB3VecEnv

    for mode in ("sync", "async"):
        env = SB3VecEnv(gymnasium.make_vec("fox_envs/XCeterO-v0", 2, vectorization_mode=mode, wrappers=[Monitor]))
        try:
            assert env.env_is_wrapped(Monitor) == [True, True]
            assert env.env_is_wrapped(gymnasium.wrappers.TimeLimit) == [False, False]
        finally:
            env.close()


@integration
def test_refuses_what_it_cannot_serve() -> None:
    from fox_envs.integrations.sb3 import SB3VecEnv

    with pytest.raises(TypeError, match="make_vec"):
        SB3VecEnv(gymnasium.make("fox_envs/XCeterO-v0"))
    source = gymnasium.make_vec("fox_envs/XCeterO-v0", 2, vectorization_mode="async",
                                vector_kwargs={"shared_memory": False})
    try:
        with pytest.raises(ValueError, match="shared_memory"):
            SB3VecEnv(source)
    finally:
        source.close()


# ----- training ------------------------------------------------------------------------------------
def train_and_play(env, total_timesteps: int, seed: int = 0):
    """What the README shows: MaskablePPO on an SB3VecEnv, then masked predictions."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=2, seed=seed, verbose=0)
    model.learn(total_timesteps=total_timesteps)
    obs = env.reset()
    for _ in range(20):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(env.num_envs), actions].all()  # masked predictions are legal
        obs, rewards, dones, infos = env.step(actions)
    return model


@integration
def test_maskable_ppo_trains_on_the_batched_core() -> None:
    from fox_envs.integrations.sb3 import SB3VecEnv

    env = SB3VecEnv(gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=8))
    try:
        model = train_and_play(env, total_timesteps=512)
        assert model.num_timesteps >= 512
        assert len(model.ep_info_buffer) > 0  # episodes ended and were counted by VecMonitor
    finally:
        env.close()


@integration
def test_maskable_ppo_trains_on_gymnasium_async_outwit() -> None:
    from fox_envs.integrations.sb3 import SB3VecEnv

    env = SB3VecEnv(gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, vectorization_mode="async", max_moves=40))
    try:
        model = train_and_play(env, total_timesteps=256)
        assert model.num_timesteps >= 256
        assert len(model.ep_info_buffer) > 0
    finally:
        env.close()


@integration
def test_readme_snippet_runs() -> None:
    """The ```py block of README.md's Stable-Baselines3 section, run as written."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("### Stable-Baselines3 on the vector envs"):]
    code = re.search(r"```py\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md sb3 block", "exec"), {"__name__": "__docs__"})


# ----- imports (default suite: no SB3 needed) --------------------------------------------------------
def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_importing_fox_envs_never_imports_sb3() -> None:
    result = run_python("""
        import sys
        import gymnasium
        import fox_envs, fox_envs.integrations
        envs = gymnasium.make_vec("fox_envs/XCeterO-v0", 2, vectorization_mode="sync")
        envs.reset(seed=0)
        loaded = [name for name in ("stable_baselines3", "sb3_contrib", "torch") if name in sys.modules]
        assert not loaded, loaded
    """)
    assert result.returncode == 0, result.stderr


def test_missing_sb3_names_the_extra() -> None:
    result = run_python("""
        import sys
        sys.modules["stable_baselines3"] = None  # as if it were not installed
        try:
            import fox_envs.integrations.sb3
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("imported without stable_baselines3")
    """)
    assert result.returncode == 0, result.stderr
    assert "pip install 'fox_envs[sb3]'" in result.stdout
