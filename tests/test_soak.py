"""Long soak (slow): 10^6 ``env()`` steps per game, 10^5 Gymnasium vector steps per backend,
create/close cycles of the vector env with workers, and 100 tournaments with a worker killed at
a random moment. Memory stays flat, and no process, file descriptor or shared-memory segment is
left behind; nothing hangs.

``FOX_SOAK_SCALE=0.05`` runs a 5 % version (a quick check of the test itself).
Run: ``python -m pytest -m slow tests/test_soak.py``."""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import fox_envs
from fox_envs.core.registry import GAMES
from fox_envs.evaluation import WorkerLostError, round_robin

from fault_agents import KilledAgent
from process_table import children_of

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads memory and fds from /proc")]

SCALE = float(os.environ.get("FOX_SOAK_SCALE", "1"))
GROWTH_LIMIT = 32 << 20  # bytes of resident memory a soak may add after its warm-up


def resident_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def open_fds() -> set[str]:
    return {os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")}


def heap_arena(target: str) -> bool:
    """An fd of multiprocessing's shared heap (an unlinked ``/dev/shm/pym-*`` file): the heap keeps
    a few arenas mapped for reuse, so a soak must show their number bounded, not zero."""
    return "/pym-" in target and target.endswith("(deleted)")


ARENA_LIMIT = 8  # arenas the shared heap may keep for reuse


def shared_memory() -> set[str]:
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


class Leaks:
    """What a block of work leaves behind: memory growth after a warm-up, new fds, new shared
    memory segments, child processes."""

    def __enter__(self) -> "Leaks":
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()  # multiprocessing's one helper process (and its pipe), started once
        self.tracker = resource_tracker._resource_tracker._pid
        self.fds, self.shm = open_fds(), shared_memory()
        self.warm = None
        return self

    def warmed_up(self) -> None:
        self.warm = resident_bytes()

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:
            return
        multiprocessing.active_children()  # reap finished workers
        growth = resident_bytes() - (self.warm or 0)
        assert self.warm is None or growth < GROWTH_LIMIT, f"resident memory grew by {growth / 2**20:.1f} MiB"
        new = open_fds() - self.fds
        assert {fd for fd in new if not heap_arena(fd)} == set(), new
        assert len(new) <= ARENA_LIMIT, f"{len(new)} shared-heap arenas kept: {sorted(new)}"
        assert shared_memory() - self.shm == set(), shared_memory() - self.shm
        assert [pid for pid in children_of(os.getpid()) if pid != self.tracker] == [], children_of(os.getpid())


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_a_million_env_steps_keep_memory_flat(env_id):
    env = fox_envs.make(env_id)
    rng = np.random.default_rng(0)
    total, games = int(1_000_000 * SCALE), 0
    with Leaks() as leaks:
        steps = 0
        while steps < total:
            env.reset(seed=games)
            games += 1
            for agent in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                env.step(action)
                steps += 1
            if leaks.warm is None and steps > total // 10:
                leaks.warmed_up()
        env.close()
    assert games > 10


@pytest.mark.parametrize("backend", ["batch", "processes"])
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_a_hundred_thousand_vector_steps_keep_memory_flat(env_id, backend):
    gym_id = "fox_envs/" + GAMES[env_id].gym_id
    kwargs = {"workers": 2} if backend == "processes" else {}
    total = int(100_000 * SCALE)
    with Leaks() as leaks:
        envs = gymnasium.make_vec(gym_id, num_envs=4, backend=backend, **kwargs)
        obs, infos = envs.reset(seed=0)
        rng = np.random.default_rng(1)
        episodes = 0
        for step in range(total):
            masks = infos["action_mask"].astype(bool)
            choice = (rng.random(masks.shape) * masks).argmax(axis=1)
            obs, rewards, terms, truncs, infos = envs.step(choice)
            episodes += int(terms.sum() + truncs.sum())
            assert envs.single_observation_space.contains(obs[0])
            if step == total // 10:
                leaks.warmed_up()
        envs.close()
    assert episodes > 0


def test_vector_env_create_close_cycles_leave_nothing():
    with Leaks() as leaks:
        for cycle in range(int(300 * SCALE) or 1):
            envs = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=4, workers=2)
            obs, infos = envs.reset(seed=cycle)
            envs.step(infos["action_mask"].argmax(axis=1))
            envs.close()
            if cycle == 10:
                leaks.warmed_up()


def test_a_hundred_tournaments_with_a_killed_worker_never_hang_and_keep_results():
    rng = np.random.default_rng(2)
    lost_runs = 0
    with Leaks() as leaks:
        for run in range(int(100 * SCALE) or 1):
            killed = KilledAgent(after=int(rng.integers(0, 60)))
            agents = ["random", "heuristic", killed]
            order = rng.permutation(3)
            try:
                result = round_robin("xceter_o_v0", [agents[i] for i in order], 8, seed=run, workers=2, bootstrap=10)
            except WorkerLostError as error:
                lost_runs += 1
                partial = error.partial
                assert partial is not None and partial.lost and "lost" in str(error)
                lost = {row["match"]: row["lost_games"] for row in partial.lost}
                for m, match in enumerate(partial.matches):  # finished games kept, lost ones named
                    assert match.num_games + len(lost.get(m, [])) == 8
            else:
                assert all(m.num_games == 8 for m in result.matches)
            if run == 5:
                leaks.warmed_up()
    assert lost_runs > 0
