"""Throughput of the batched core (``fox_envs.batch``) beside the rules core and Pgx, in one run.
No timed assertions anywhere: this script only measures.

    python benchmarks/batch_bench.py                      # every game, B = 1, 64, 1024, 4096
    python benchmarks/batch_bench.py --games xceter_o_v0 --seconds 2 --json results/batch.json

A batched step is ``env.step(env.random_actions())``: a uniformly random legal action per row,
applied, chance drawn, ends checked, finished games restarted, and every row's observation and
mask written. Steps/s counts row steps (player decisions), ``B`` per call. Each configuration is
measured ``--rounds`` times, alternating, and the best round is kept (other programs only slow a
round down). ``threads`` 1 is one core; "all" is every core of the machine.

Beside it, in the same run:
* the rules core's loop of ``benchmarks/bench.py`` (observation of the mover, mask, a random legal
  pick on a bool view of the mask, apply, chance sampled), one game at a time;
* Pgx ``tic_tac_toe`` and ``connect_four`` (``jit(vmap(step))`` on the CPU with auto-reset and a
  random legal action per row, observation produced by the step) when ``pgx`` is installed;
* the first-use compile time of each game's kernels (empty numba cache) and the start-up time
  with the cache filled (``--compile``), each in a fresh process.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (the rules-core loop)

import fox_envs  # noqa: E402
import fox_envs.batch  # noqa: E402

SIZES = (1, 64, 1024, 4096)
PGX_GAMES = {"xceter_o_v0": "tic_tac_toe", "outwit_v0": "connect_four"}


def batch_loop(env_id: str, num_envs: int, threads: int, seconds: float) -> float:
    """Row steps/s of ``env.step(env.random_actions())``."""
    env = fox_envs.batch.make(env_id, num_envs, seed=0, threads=threads)
    for _ in range(3):
        env.step(env.random_actions())
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.step(env.random_actions())
        calls += 1
    elapsed = time.perf_counter() - start
    env.close()
    return calls * num_envs / elapsed


def pgx_loop(name: str, num_envs: int, seconds: float) -> float:
    """Row steps/s of Pgx's ``name`` under ``jit(vmap(...))``: random legal action, step, auto-reset."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    step_with_reset = auto_reset(env.step, env.init)

    def one_row(state, key):
        key_action, key_reset = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(key_action, logits)
        return step_with_reset(state, action, key_reset)

    @jax.jit
    def step_all(state, key):
        key, sub = jax.random.split(key)
        return jax.vmap(one_row)(state, jax.random.split(sub, num_envs)), key

    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
    for _ in range(3):
        state, key = step_all(state, key)
    jax.block_until_ready(state)
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(10):
            state, key = step_all(state, key)
        jax.block_until_ready(state.observation)
        calls += 10
    return calls * num_envs / (time.perf_counter() - start)


STARTUP = """
import time
start = time.perf_counter()
import fox_envs.batch
env = fox_envs.batch.make({env_id!r}, 4, seed=0)
env.step(env.random_actions())
print(time.perf_counter() - start)
"""


def startup_times(env_id: str) -> tuple[float, float]:
    """Seconds to import, build and take the first step in a fresh process: with an empty numba
    cache (compiling every kernel) and then with the cache that run filled."""
    with tempfile.TemporaryDirectory() as cache:
        environment = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", STARTUP.format(env_id=env_id)], env=environment,
                                 capture_output=True, text=True, check=True)
            runs.append(float(out.stdout.strip().splitlines()[-1]))
    return runs[0], runs[1]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(fox_envs.batch.ENV_IDS))
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best is kept")
    parser.add_argument("--no-pgx", action="store_true", help="skip Pgx even where it is installed")
    parser.add_argument("--compile", action="store_true", help="also time compiling and start-up from the cache")
    parser.add_argument("--json", help="write the results to this JSON file")
    args = parser.parse_args(argv)

    cores = fox_envs.batch.threads_all_cores()
    thread_counts = sorted({1, cores})
    try:
        import pgx  # noqa: F401
        have_pgx = not args.no_pgx
    except ImportError:
        have_pgx = False
    jobs: dict[str, callable] = {}
    for env_id in args.games:
        jobs[f"{env_id} core"] = lambda s, e=env_id: bench.core_loop(e, s)[0]
        for size in args.sizes:
            for threads in thread_counts:
                jobs[f"{env_id} B={size} threads={threads}"] = (
                    lambda s, e=env_id, b=size, t=threads: batch_loop(e, b, t, s))
        if have_pgx and env_id in PGX_GAMES:
            for size in args.sizes:
                jobs[f"pgx:{PGX_GAMES[env_id]} B={size}"] = lambda s, n=PGX_GAMES[env_id], b=size: pgx_loop(n, b, s)
    for job in jobs.values():  # compile, warm up
        job(0.05)
    best = {name: 0.0 for name in jobs}
    for _ in range(args.rounds):
        for name, job in jobs.items():
            best[name] = max(best[name], job(args.seconds))

    print(f"# {platform.processor() or platform.machine()}, {cores} cores, Python {platform.python_version()}, "
          f"best of {args.rounds} rounds of {args.seconds:g} s")
    header = "| game | rules core | " + " | ".join(f"B={b} 1 thread | B={b} {cores} threads" for b in args.sizes)
    print(header + " | × core (B=4096, 1 thread) |")
    print("|" + "---|" * (3 + 2 * len(args.sizes)))
    for env_id in args.games:
        core = best[f"{env_id} core"]
        cells = [f"{best[f'{env_id} B={b} threads={t}'] / 1e6:.2f}M" for b in args.sizes for t in thread_counts]
        if len(thread_counts) == 1:
            cells = [c for c in cells for _ in range(2)]
        top = best.get(f"{env_id} B=4096 threads=1")
        ratio = f"{top / core:.1f}x" if top else "-"
        print(f"| {env_id} | {core / 1e3:.0f}k | " + " | ".join(cells) + f" | {ratio} |")
    if have_pgx:
        print("\n| Pgx (CPU, all cores) | " + " | ".join(f"B={b}" for b in args.sizes) + " | fox_envs on all cores ÷ Pgx |")
        print("|" + "---|" * (2 + len(args.sizes)))
        for env_id, name in PGX_GAMES.items():
            if env_id not in args.games:
                continue
            cells = [f"{best[f'pgx:{name} B={b}'] / 1e6:.2f}M" for b in args.sizes]
            ratios = [f"{best[f'{env_id} B={b} threads={cores}'] / best[f'pgx:{name} B={b}']:.2f}x" for b in args.sizes]
            print(f"| {name} (vs {env_id}) | " + " | ".join(cells) + " | " + ", ".join(ratios) + " |")
    results = {"steps_per_second": best, "cores": cores}
    if args.compile:
        print("\n| game | first use, empty cache (s) | start-up from the cache (s) |\n|---|---|---|")
        results["startup"] = {}
        for env_id in args.games:
            cold, warm = startup_times(env_id)
            results["startup"][env_id] = {"compile": cold, "cached": warm}
            print(f"| {env_id} | {cold:.1f} | {warm:.2f} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
