"""Throughput of the batched core (``fox_envs.batch``) beside the rules core, Pgx and OpenSpiel,
in one run. No timed assertions anywhere: this script only measures.

    python benchmarks/batch_bench.py                      # every game, B = 1, 64, 1024, 4096
    python benchmarks/batch_bench.py --games outwit_v0 --sizes 4096 --forms float32 uint8-lists
    python benchmarks/batch_bench.py --threads-table      # threads=2 against threads=1, per game

A batched step is ``env.step_random()`` (one compiled call: a uniformly random legal action per
row, applied, chance drawn, ends checked, finished games restarted, every row's observation and
legal actions written). Steps/s counts row steps (player decisions), ``B`` per call, as wall
rates and per CPU-second (the process's CPU time: on a busy machine the fairer of the two).
Each configuration is measured ``--rounds`` times, alternating, and the best round is kept.

Observation forms (``--forms``): ``float32`` (the default env), ``uint8`` (``observation_dtype=
"uint8"``) and ``uint8-lists`` (uint8 and ``action_mask=False``: legal-action lists only), where
the game's kernels write uint8. "bytes/row step" is the model of what one row step writes:
the mover's observation row (every kernel rewrites it whole), the mask entries cleared and set
(the old and new legal actions, one byte each, when the dense mask is kept), the legal list
(4 bytes per legal action) and 16 bytes of per-row results and history, with the mean number of
legal actions measured in the run.

Beside it, in the same run:
* the rules core's loop of ``benchmarks/bench.py``, one game at a time;
* ``step(random_actions())`` at B = 1 (two calls, the action checked), beside ``step_random``;
* Pgx ``tic_tac_toe``, ``connect_four`` and ``othello`` (``jit(vmap(step))`` on the CPU with
  auto-reset and a random legal action per row) when ``pgx`` is installed;
* OpenSpiel's ``tic_tac_toe`` through pyspiel, one game (observation tensor, legal actions, a
  random pick, apply) when ``pyspiel`` is installed: the anchor for X-Ceter-O at B = 1;
* with ``--compile``, the first-use compile time of each game's kernels (empty numba cache) and
  the start-up time with the cache filled, each in a fresh process.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (the rules-core loop)

import fox_envs  # noqa: E402
import fox_envs.batch  # noqa: E402

SIZES = (1, 64, 1024, 4096)
FORMS = ("float32", "uint8", "uint8-lists")
PGX_GAMES = ("tic_tac_toe", "connect_four", "othello")
THREAD_SIZES = (64, 1024, 4096, 16384)


def form_options(form: str) -> dict:
    """The ``fox_envs.batch.make`` options of an observation form."""
    return {"float32": {}, "uint8": {"observation_dtype": "uint8"},
            "uint8-lists": {"observation_dtype": "uint8", "action_mask": False}}[form]


def forms_of(env_id: str, forms) -> list[str]:
    """The forms of ``forms`` that ``env_id``'s kernels write."""
    written = fox_envs.batch.env.kernels_class(env_id).observation_dtypes
    return [form for form in forms if form == "float32" or "uint8" in written]


def timed(loop, seconds: float) -> tuple[float, float, int]:
    """Run ``loop()`` (one call = some row steps, returned) for ``seconds``: (row steps per wall
    second, per CPU-second of this process, calls)."""
    steps = calls = 0
    wall, cpu = time.perf_counter(), time.process_time()
    deadline = wall + seconds
    while time.perf_counter() < deadline:
        steps += loop()
        calls += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return steps / wall, steps / max(cpu, 1e-9), calls


def batch_loop(env_id: str, num_envs: int, threads: int, seconds: float, form: str = "float32",
               fused: bool = True, legal_counts: list | None = None) -> tuple[float, float]:
    """Row steps/s (wall, per CPU-second) of ``env.step_random()`` (``fused``) or
    ``env.step(env.random_actions())``."""
    env = fox_envs.batch.make(env_id, num_envs, seed=0, threads=threads, **form_options(form))
    for _ in range(3):
        env.step_random()
    if legal_counts is not None:
        legal_counts.append(float(env.num_legal.mean()))

    def fused_step() -> int:
        env.step_random()
        return num_envs

    def plain_step() -> int:
        env.step(env.random_actions())
        return num_envs

    wall, cpu, _ = timed(fused_step if fused else plain_step, seconds)
    env.close()
    return wall, cpu


def pgx_loop(name: str, num_envs: int, seconds: float) -> tuple[float, float]:
    """Row steps/s (wall, per CPU-second) of Pgx's ``name`` under ``jit(vmap(...))``: random
    legal action, step, auto-reset."""
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
    box = [jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs)), key]
    for _ in range(3):
        box = list(step_all(*box))
    jax.block_until_ready(box[0])

    def ten_steps() -> int:
        for _ in range(10):
            box[:] = step_all(*box)
        jax.block_until_ready(box[0].observation)
        return 10 * num_envs

    wall, cpu, _ = timed(ten_steps, seconds)
    return wall, cpu


def openspiel_loop(seconds: float) -> tuple[float, float]:
    """Steps/s (wall, per CPU-second) of OpenSpiel's C++ ``tic_tac_toe`` through pyspiel, one
    game at a time: observation tensor, legal actions, a random pick, apply."""
    import pyspiel

    game = pyspiel.load_game("tic_tac_toe")
    rng = random.Random(0)
    box = [game.new_initial_state()]

    def one_step() -> int:
        state = box[0]
        if state.is_terminal():
            state = box[0] = game.new_initial_state()
        state.observation_tensor()
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        return 1

    wall, cpu, _ = timed(one_step, seconds)
    return wall, cpu


def bytes_per_row_step(env_id: str, form: str, mean_legal: float) -> float:
    """The model of the module docstring: bytes one row step writes."""
    env = fox_envs.batch.make(env_id, 1, seed=0, **form_options(form))
    observation = env._arrays["obs"][0].nbytes
    mask = 2 * mean_legal if env.has_action_mask else 0
    return observation + mask + 4 * mean_legal + 16


STARTUP = """
import time
start = time.perf_counter()
import fox_envs.batch
env = fox_envs.batch.make({env_id!r}, 4, seed=0)
env.step_random()
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


def threads_table(env_ids, seconds: float, rounds: int) -> None:
    """threads=2 against threads=1 at ``THREAD_SIZES``: with each game's own
    ``min_rows_per_thread`` (what users get) and with threads forced on every B (to choose it)."""
    kernels = {env_id: fox_envs.batch.env.kernels_class(env_id) for env_id in env_ids}
    print("\n| game | min_rows_per_thread | " + " | ".join(f"B={b}: 2 threads ÷ 1 (forced)" for b in THREAD_SIZES)
          + " |\n|" + "---|" * (2 + len(THREAD_SIZES)))
    for env_id in env_ids:
        own = kernels[env_id].min_rows_per_thread
        cells = []
        for size in THREAD_SIZES:
            best = {}
            for _ in range(rounds):
                for label, floor in (("one", own), ("two", own), ("forced", 1)):
                    kernels[env_id].min_rows_per_thread = floor
                    threads = 1 if label == "one" else 2
                    best[label] = max(best.get(label, 0.0), batch_loop(env_id, size, threads, seconds)[0])
            kernels[env_id].min_rows_per_thread = own
            cells.append(f"{best['two'] / best['one']:.2f} ({best['forced'] / best['one']:.2f})")
        print(f"| {env_id} | {own} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(fox_envs.batch.ENV_IDS))
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--forms", nargs="*", default=list(FORMS), choices=FORMS)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best is kept")
    parser.add_argument("--no-pgx", action="store_true", help="skip Pgx even where it is installed")
    parser.add_argument("--compile", action="store_true", help="also time compiling and start-up from the cache")
    parser.add_argument("--threads-table", action="store_true",
                        help="only compare threads=2 with threads=1 (wall) at B = 64, 1024, 4096, 16384")
    parser.add_argument("--json", help="write the results to this JSON file")
    args = parser.parse_args(argv)

    print(f"# {platform.processor() or platform.machine()}, {fox_envs.batch.threads_all_cores()} cores, "
          f"Python {platform.python_version()}, best of {args.rounds} rounds of {args.seconds:g} s")
    if args.threads_table:
        threads_table(args.games, args.seconds, args.rounds)
        return {}
    have_pgx = have_spiel = False
    try:
        import pgx  # noqa: F401
        have_pgx = not args.no_pgx
    except ImportError:
        pass
    try:
        import pyspiel  # noqa: F401
        have_spiel = True
    except ImportError:
        pass
    legal: dict[str, list] = {env_id: [] for env_id in args.games}
    jobs: dict[str, callable] = {}
    for env_id in args.games:
        jobs[f"{env_id} core"] = lambda s, e=env_id: (bench.core_loop(e, s)[0],) * 2
        jobs[f"{env_id} B=1 step(random_actions())"] = lambda s, e=env_id: batch_loop(e, 1, 1, s, fused=False)
        for form in forms_of(env_id, args.forms):
            for size in args.sizes:
                jobs[f"{env_id} {form} B={size}"] = (
                    lambda s, e=env_id, b=size, f=form: batch_loop(e, b, 1, s, f, legal_counts=legal[e]))
    if have_pgx:
        for name in PGX_GAMES:
            for size in args.sizes:
                jobs[f"pgx:{name} B={size}"] = lambda s, n=name, b=size: pgx_loop(n, b, s)
    if have_spiel:
        jobs["openspiel:tic_tac_toe"] = openspiel_loop
    for job in jobs.values():  # compile, warm up
        job(0.05)
    best = {name: (0.0, 0.0) for name in jobs}
    for _ in range(args.rounds):
        for name, job in jobs.items():
            wall, cpu = job(args.seconds)
            best[name] = (max(best[name][0], wall), max(best[name][1], cpu))

    def rate(name: str, kind: int) -> str:
        return f"{best[name][kind] / 1e6:.2f}M" if name in best else "–"

    print("\nRow steps per second, one thread: wall / per CPU-second (M = million)\n")
    print("| game | form | bytes/row step | " + " | ".join(f"B={b}" for b in args.sizes) + " |")
    print("|" + "---|" * (3 + len(args.sizes)))
    mean_legal = {env_id: float(np.mean(counts)) if counts else 0.0 for env_id, counts in legal.items()}
    for env_id in args.games:
        for form in forms_of(env_id, args.forms):
            written = bytes_per_row_step(env_id, form, mean_legal[env_id])
            cells = [f"{rate(f'{env_id} {form} B={b}', 0)} / {rate(f'{env_id} {form} B={b}', 1)}" for b in args.sizes]
            print(f"| {env_id} | {form} | {written:,.0f} | " + " | ".join(cells) + " |")
    print("\n| game | rules core | B=1 `step(random_actions())` wall / CPU |\n|---|---|---|")
    for env_id in args.games:
        name = f"{env_id} B=1 step(random_actions())"
        print(f"| {env_id} | {best[f'{env_id} core'][0] / 1e3:.0f}k | {rate(name, 0)} / {rate(name, 1)} |")
    if have_pgx:
        print("\n| Pgx (CPU) | " + " | ".join(f"B={b}" for b in args.sizes) + " |\n|" + "---|" * (1 + len(args.sizes)))
        for name in PGX_GAMES:
            print(f"| {name} | " + " | ".join(f"{rate(f'pgx:{name} B={b}', 0)} / {rate(f'pgx:{name} B={b}', 1)}"
                                           for b in args.sizes) + " |")
    if have_spiel:
        print(f"\nOpenSpiel tic_tac_toe through pyspiel, one game: {rate('openspiel:tic_tac_toe', 0)} / "
              f"{rate('openspiel:tic_tac_toe', 1)}")
    print("\nRatios per CPU-second:")
    for env_id in args.games:
        for form in forms_of(env_id, args.forms):
            for size in args.sizes:
                mine = best[f"{env_id} {form} B={size}"][1]
                parts = [f"{mine / best[f'{env_id} float32 B={size}'][1]:.2f}x float32"] if form != "float32" else []
                parts += [f"{mine / best[f'pgx:{n} B={size}'][1]:.2f}x pgx {n}" for n in PGX_GAMES
                          if have_pgx and size > 1]
                if size == 1 and have_spiel:
                    parts.append(f"{mine / best['openspiel:tic_tac_toe'][1]:.2f}x OpenSpiel tic_tac_toe")
                print(f"- {env_id} {form} B={size}: " + ", ".join(parts))
    results = {"steps_per_second": {name: {"wall": w, "cpu": c} for name, (w, c) in best.items()},
               "cores": fox_envs.batch.threads_all_cores()}
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
