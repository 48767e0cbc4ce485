"""The Gymnasium view inside Gymnasium's vector envs: masks reach the learner (issue 9)."""
from __future__ import annotations

import functools

import gymnasium
import numpy as np
import pytest

import fox_envs  # noqa: F401  (registers the ids)
from fox_envs.core.registry import GAMES


def make_view(gym_id: str):
    return gymnasium.make(gym_id, opponent="random")


def run_masked(vector_env, steps: int, seed: int) -> tuple[int, int]:
    """Step a vector env with actions drawn from the masks in ``infos``; count finished episodes."""
    obs, infos = vector_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finished = illegal = 0
    for _ in range(steps):
        masks = infos["action_mask"]
        assert masks.shape == (vector_env.num_envs, vector_env.single_action_space.n)
        actions = []
        for mask in masks:
            legal = np.flatnonzero(mask)
            actions.append(int(rng.choice(legal)) if len(legal) else 0)  # empty mask: autoreset step
        obs, rewards, terms, truncs, infos = vector_env.step(np.array(actions))
        assert obs.shape[0] == vector_env.num_envs
        finished += int(np.sum(terms | truncs))
        if "illegal_action" in infos:
            illegal += int(np.sum(infos["illegal_action"] & infos.get("_illegal_action", True)))
    return finished, illegal


@pytest.mark.parametrize("vector_cls", [gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv])
def test_vector_envs_carry_masks_and_never_step_illegally(vector_cls):
    env = vector_cls([functools.partial(make_view, "fox_envs/XCeterO-v0") for _ in range(2)])
    try:
        finished, illegal = run_masked(env, steps=60, seed=0)
    finally:
        env.close()
    assert finished >= 2 and illegal == 0


def test_sync_and_async_vector_envs_agree():
    make = [functools.partial(make_view, "fox_envs/Outfox-v0") for _ in range(2)]
    results = []
    for cls in (gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv):
        env = cls(make)
        obs, infos = env.reset(seed=5)
        trace = [obs.copy()]
        for _ in range(10):
            actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in infos["action_mask"]])
            obs, *_, infos = env.step(actions)
            trace.append(obs.copy())
        env.close()
        results.append(trace)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


GAME_IDS = ["fox_envs/" + entry.gym_id for entry in GAMES.values()]


def choose_actions(rng, masks: np.ndarray) -> np.ndarray:
    """A legal action per row, except now and then an illegal, out-of-range or negative one."""
    actions = []
    for mask in masks:
        u = rng.random()
        if u < 0.04:
            actions.append(-1 if u < 0.02 else len(mask) + 3)
        elif u < 0.06 and not mask.all():
            actions.append(int(np.flatnonzero(mask == 0)[0]))
        else:
            actions.append(int(rng.choice(np.flatnonzero(mask))))
    return np.array(actions)


def reference_trace(gym_id: str, num_envs: int, seed: int, steps: int, kwargs: dict) -> list:
    """What FoxVectorEnv must return: plain views stepped one by one, env i reset with seed + i,
    same-step autoreset done by hand."""
    rng = np.random.default_rng(seed)
    views = [gymnasium.make(gym_id, **kwargs) for _ in range(num_envs)]
    obs, masks = zip(*((o, info["action_mask"]) for o, info in (v.reset(seed=seed + i) for i, v in enumerate(views))))
    trace = [(np.stack(obs), np.stack(masks))]
    for _ in range(steps):
        rows = []
        for view, action in zip(views, choose_actions(rng, np.stack(masks))):
            o, reward, term, trunc, info = view.step(int(action))
            final, next_info = None, info
            if term or trunc:
                final, (o, next_info) = o, view.reset()
            rows.append((o, reward, term, trunc, next_info["action_mask"], final, info.get("illegal_action", False)))
        trace.append(tuple(zip(*rows)))
        masks = trace[-1][4]
    return trace


def vector_trace(gym_id: str, num_envs: int, seed: int, steps: int, kwargs: dict, workers: int,
                 keep: bool = False, spin: float = 0.0005) -> list:
    """FoxVectorEnv's results; ``keep``: the trace holds views of the returned arrays (which must
    then never be overwritten), else copies (the returned arrays are then written again)."""
    from fox_envs.vector.process import FoxVectorEnv

    rng = np.random.default_rng(seed)
    env = FoxVectorEnv(gym_id, num_envs, workers=workers, spin=spin, **kwargs)
    held = (lambda x: x) if keep else np.copy
    try:
        obs, infos = env.reset(seed=seed)
        assert infos["action_mask"].dtype == np.int8
        trace = [(held(obs), held(infos["action_mask"]))]
        for _ in range(steps):
            masks = infos["action_mask"]
            np.testing.assert_array_equal(env.action_masks(), masks.astype(bool))
            obs, rewards, terms, truncs, infos = env.step(choose_actions(rng, masks))
            assert env.observation_space.contains(obs)
            assert rewards.dtype == np.float64 and terms.dtype == bool and truncs.dtype == bool
            done = terms | truncs
            assert "final_obs" in infos if done.any() else "final_obs" not in infos
            finals = infos["final_obs"] if done.any() else None
            if finals is not None:
                np.testing.assert_array_equal(infos["_final_obs"], done)
                assert not finals[~done].any()  # rows of envs that go on are zero, as in Gymnasium
            illegal = infos.get("illegal_action", np.zeros(num_envs, dtype=bool))
            if "illegal_action" in infos:
                np.testing.assert_array_equal(infos["_illegal_action"], illegal)
            rows = [(held(obs[i]), rewards[i], terms[i], trunc, held(infos["action_mask"][i]),
                     held(finals[i]) if finals is not None and done[i] else None, illegal[i])
                    for i, trunc in enumerate(truncs)]
            trace.append(tuple(zip(*rows)))
    finally:
        env.close()
    return trace


def assert_same_trace(got: list, want: list) -> None:
    np.testing.assert_array_equal(got[0][0], want[0][0])
    np.testing.assert_array_equal(got[0][1], want[0][1])
    for step, (row_got, row_want) in enumerate(zip(got[1:], want[1:]), 1):
        for name, a, b in zip(("obs", "reward", "term", "trunc", "mask", "final_obs", "illegal"), row_got, row_want):
            for env_index, (x, y) in enumerate(zip(a, b)):
                assert (x is None) == (y is None), (step, name, env_index)
                if x is not None:
                    np.testing.assert_array_equal(x, y, err_msg=f"step {step} {name} env {env_index}")


CASES = [pytest.param(gym_id, {"opponent": "random"}, id=gym_id.split("/")[1]) for gym_id in GAME_IDS] + [
    pytest.param("fox_envs/Outfox-v0", {"opponent": "random", "max_moves": 5}, id="Outfox-truncated"),
    pytest.param("fox_envs/XCeterO-v0", {"opponent": "heuristic", "seat": 1}, id="XCeterO-heuristic-seat1"),
    pytest.param("fox_envs/Outfox-v0", {"opponent": ["random", "heuristic"], "num_players": 3, "seat": 2},
                 id="Outfox-3-players"),
]


@pytest.mark.parametrize("gym_id, kwargs", CASES)
def test_fox_vector_env_equals_plain_views_for_any_worker_count(gym_id, kwargs, monkeypatch):
    """Observations, rewards, flags, masks, final observations and illegal-action flags of
    FoxVectorEnv stepped in 1, 2 and 3 processes equal the plain views stepped one by one, both
    when the caller drops the returned arrays (they are written again) and when it keeps them
    (they must not change: fresh arrays are returned instead)."""
    from fox_envs.core import vector

    fresh_sets = []
    original = vector._Buffers.fresh
    monkeypatch.setattr(vector._Buffers, "fresh", classmethod(lambda cls, *a: fresh_sets.append(1) or original(*a)))
    want = reference_trace(gym_id, 5, seed=7, steps=30, kwargs=kwargs)
    assert any(any(row[5][i] is not None for i in range(5)) for row in want[1:])  # episodes did end
    for workers, spin in ((0, 0.0005), (2, 0.0005), (3, 0.0005), (2, 0)):  # spin 0: processes block at once
        for keep in (False, True):
            fresh_sets.clear()
            got = vector_trace(gym_id, 5, seed=7, steps=30, kwargs=kwargs, workers=workers, keep=keep, spin=spin)
            assert_same_trace(got, want)
            assert len(fresh_sets) == (29 if keep else 0)  # kept: every step after the first two


def test_fox_vector_env_covers_truncation_and_illegal_actions():
    trace = reference_trace("fox_envs/Outfox-v0", 5, seed=7, steps=30, kwargs={"opponent": "random", "max_moves": 5})
    assert any(any(row[3]) for row in trace[1:])  # truncated
    assert any(any(row[6]) for row in trace[1:])  # illegal
    assert any(any(r == -1.0 for r in row[1]) for row in trace[1:])


def test_fox_vector_env_seed_list_and_repeated_resets():
    from fox_envs.vector.process import FoxVectorEnv

    env = FoxVectorEnv("fox_envs/Outfoxed-v0", 3, workers=0)
    try:
        by_int, _ = env.reset(seed=10)
        by_list, _ = env.reset(seed=[10, 11, 12])
        np.testing.assert_array_equal(by_int, by_list)
        np.testing.assert_array_equal(env.reset(seed=np.int64(10))[0], by_int)
        mixed, _ = env.reset(seed=[12, None, 10])
        np.testing.assert_array_equal(mixed[0], by_int[2])
        np.testing.assert_array_equal(mixed[2], by_int[0])
    finally:
        env.close()


@pytest.mark.parametrize("workers, bad_env", [(0, 3), (2, 0), (2, 3), (3, 1)])
def test_fox_vector_env_raise_mode_reports_the_env_and_needs_a_reset(workers, bad_env):
    """The error of an env stepped here or in a worker is raised, naming the env; every worker's
    answer is still read, so the env works again after reset()."""
    from fox_envs import IllegalActionError
    from fox_envs.vector.process import FoxVectorEnv

    env = FoxVectorEnv("fox_envs/XCeterO-v0", 4, workers=workers, illegal_action="raise")
    try:
        obs, infos = env.reset(seed=0)
        actions = infos["action_mask"].argmax(axis=1)
        actions[bad_env] = 42
        with pytest.raises(IllegalActionError, match="out of range") as raised:
            env.step(actions)
        if hasattr(raised.value, "add_note"):
            assert f"env {bad_env}" in "".join(raised.value.__notes__)
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step(infos["action_mask"].argmax(axis=1))
        obs, infos = env.reset(seed=0)
        env.step(infos["action_mask"].argmax(axis=1))  # usable again
    finally:
        env.close()


def test_fox_vector_env_rejects_bad_arguments():
    from fox_envs import InvalidParameterError
    from fox_envs.vector.process import FoxVectorEnv

    for num_envs in (0, -1, True, 1.5, "2"):
        with pytest.raises(InvalidParameterError, match="num_envs"):
            FoxVectorEnv("fox_envs/XCeterO-v0", num_envs)
    for workers in (3, -1, True, 1.0):
        with pytest.raises(InvalidParameterError, match="workers"):
            FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=workers)
    for spin in (-0.001, 2, float("nan"), True, "0"):
        with pytest.raises(InvalidParameterError, match="spin"):
            FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=2, spin=spin)
    with pytest.raises(InvalidParameterError, match="unknown agent"):
        FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=1, opponent="nobody")
    with pytest.raises(gymnasium.error.Error):
        FoxVectorEnv("fox_envs/NoSuchGame-v0", 2, workers=1)
    env = FoxVectorEnv("fox_envs/XCeterO-v0", 2)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(np.array([0, 0]))
    for seed in (1.5, -1, True, [1], [1, 2, 3], [1, 2.0], [0, -1], "0"):
        with pytest.raises(InvalidParameterError, match="seed"):
            env.reset(seed=seed)
    env.reset(seed=0)
    for actions in (np.array([0.5, 1.0]), np.array([True, False]), np.array([0, 1, 2]), np.array([[0], [1]]), [None, 1]):
        with pytest.raises(InvalidParameterError, match="2 integers"):
            env.step(actions)
    env.close()
    env.close()  # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)


def test_fox_vector_env_reports_a_dead_worker_and_reset_starts_the_workers_again():
    """A dead worker: step raises saying so and what to do (call reset()), the other workers
    are stopped, step keeps asking for reset(), and reset() really recovers: fresh workers,
    results equal to plain views again."""
    from fox_envs.vector.process import FoxVectorEnv

    kwargs = {"opponent": "random"}
    want = reference_trace("fox_envs/XCeterO-v0", 3, seed=4, steps=12, kwargs=kwargs)
    env = FoxVectorEnv("fox_envs/XCeterO-v0", 3, workers=3, **kwargs)
    try:
        obs, infos = env.reset(seed=0)
        processes = list(env._processes)
        env._processes[1].kill()
        env._processes[1].join()
        with pytest.raises(RuntimeError, match=r"worker exited .*call reset\(\)"):
            env.step(infos["action_mask"].argmax(axis=1))
        assert not any(process.is_alive() for process in processes)  # the other workers were stopped too
        with pytest.raises(gymnasium.error.ResetNeeded, match=r"call reset\(\)"):
            env.step(infos["action_mask"].argmax(axis=1))
        assert not env.closed
    finally:
        env.close()
    rng = np.random.default_rng(4)  # the same actions as reference_trace's
    env = FoxVectorEnv("fox_envs/XCeterO-v0", 3, workers=3, **kwargs)
    try:
        env.reset(seed=0)
        env._processes[0].kill()
        env._processes[0].join()
        with pytest.raises(RuntimeError, match="worker exited"):
            env.step(np.zeros(3, dtype=np.int64))
        obs, infos = env.reset(seed=4)
        assert len(env._processes) == 2 and all(process.is_alive() for process in env._processes)
        np.testing.assert_array_equal(obs, want[0][0])
        np.testing.assert_array_equal(infos["action_mask"], want[0][1])
        for row in want[1:]:
            obs, rewards, terms, truncs, infos = env.step(choose_actions(rng, infos["action_mask"]))
            np.testing.assert_array_equal(obs, np.stack(row[0]))
            np.testing.assert_array_equal(rewards, np.array(row[1]))
            np.testing.assert_array_equal(infos["action_mask"], np.stack(row[4]))
    finally:
        env.close()


@pytest.mark.integration  # needs the sb3 extra: runs with -m integration
def test_sb3_subproc_vec_env_gets_masks_through_env_method():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = SubprocVecEnv([functools.partial(make_view, "fox_envs/Outfox-v0") for _ in range(2)])
    try:
        env.seed(0)
        env.reset()
        for _ in range(20):
            masks = np.stack(env.env_method("action_masks"))  # what sb3-contrib's MaskablePPO calls
            assert masks.shape == (2, 532) and masks.dtype == bool and masks.any(axis=1).all()
            actions = masks.argmax(axis=1)
            obs, rewards, dones, infos = env.step(actions)
            assert obs.shape == (2, 5, 5, 40)
            assert not any(info.get("illegal_action") for info in infos)
    finally:
        env.close()


def test_fox_vector_env_workers_stop_on_close_and_on_garbage_collection():
    import gc

    from fox_envs.vector.process import FoxVectorEnv

    env = FoxVectorEnv("fox_envs/XCeterO-v0", 3, workers=3)
    processes = list(env._processes)
    assert len(processes) == 2  # this process steps the first slice
    env.close()
    assert not any(process.is_alive() for process in processes)
    env = FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=2)
    processes = list(env._processes)
    del env
    gc.collect()
    for process in processes:
        process.join(timeout=5)
    assert not any(process.is_alive() for process in processes)


def test_vector_bench_runs_several_games_and_writes_json(tmp_path, capsys, monkeypatch):
    import importlib.util
    import json
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "vector_bench.py"
    spec = importlib.util.spec_from_file_location("vector_bench", path)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "vector_bench", bench)  # its pool pickles functions by module name
    spec.loader.exec_module(bench)
    out = tmp_path / "vector.json"
    bench.main(["--game", "XCeterO-v0,ByeByeMrFox-v0", "--seconds", "0.05", "--rounds", "1", "--max-workers", "2",
                "--num-envs", "4", "--no-gymnasium", "--opponent", "heuristic", "--json", str(out)])
    results = json.loads(out.read_text())
    assert [r["game"] for r in results] == ["XCeterO-v0", "ByeByeMrFox-v0"]
    for result in results:
        assert result["opponent"] == "heuristic" and result["ratio"]["single process"] == 1.0
        assert set(result["steps_per_s"]) == {"single process", "FoxVectorEnv 4 envs, workers=1",
                                              "FoxVectorEnv 4 envs, workers=2", "BatchVectorEnv 4 envs",
                                              "BatchVectorEnv 4096 envs"}  # the batched heuristic
        assert "machine: 2 CPU loops, 2 processes" in result["ratio"]
    assert "Summary (opponent heuristic, 4 envs)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["--game", "NoSuchGame-v0"])


def test_make_vec_gives_the_batched_env_and_gymnasium_modes_on_request():
    """``gymnasium.make_vec`` uses the ids' vector entry point (FoxVectorEnv, with its own
    arguments such as ``workers`` and the view's such as ``opponent``); ``vectorization_mode``
    "sync" / "async" still give Gymnasium's own vector envs."""
    from fox_envs import InvalidParameterError
    from fox_envs.vector.process import FoxVectorEnv, make_vector_env

    kwargs = {"opponent": "heuristic", "seat": 1}
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=3, workers=2, **kwargs)
    try:
        assert isinstance(env, FoxVectorEnv) and env.num_envs == 3 and len(env._processes) == 1
        assert env.spec.id == "fox_envs/XCeterO-v0"
        obs, infos = env.reset(seed=5)
        direct = FoxVectorEnv("fox_envs/XCeterO-v0", 3, **kwargs)
        want_obs, want_infos = direct.reset(seed=5)
        np.testing.assert_array_equal(obs, want_obs)
        np.testing.assert_array_equal(infos["action_mask"], want_infos["action_mask"])
        direct.close()
    finally:
        env.close()
    for mode, cls in (("sync", gymnasium.vector.SyncVectorEnv), ("async", gymnasium.vector.AsyncVectorEnv)):
        env = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=2, vectorization_mode=mode, opponent="random")
        assert isinstance(env, cls)
        env.close()
    with pytest.raises(InvalidParameterError, match="unknown env_id 'chess_v0'"):
        make_vector_env(2, env_id="chess_v0")
