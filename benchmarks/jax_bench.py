"""Throughput of the JAX backend (``fox_envs.jax``) beside Pgx and the numba batched core, in one
run. No timed assertions anywhere: this script only measures.

    python benchmarks/jax_bench.py                          # every game, B = 1 .. 65,536, on the CPU
    python benchmarks/jax_bench.py --sizes 4096 --games xceter_o_v0 outwit_v0
    python benchmarks/jax_bench.py --sizes 4096 --games outwit_v0 --pgx-games othello --no-numba
    python benchmarks/jax_bench.py --device gpu             # wherever jax sees a GPU
    python benchmarks/jax_bench.py --sizes 4096 --scan 16   # 16 batch steps per call, in a lax.scan

A step is the same for every env, ours and Pgx's (the API is the same): a uniformly random legal
action per row (``fox_envs.jax.random_legal_action``: one uniform draw per row picks a legal
action by rank, the same distribution as ``jax.random.categorical`` over the mask without a
random number per action), ``step`` with auto-reset (Pgx's
``auto_reset`` for Pgx, ours for ours), inside one ``jit(vmap(...))`` call per batch step; the
state, observation included, is produced by every step. With ``--scan T`` each call runs T
batch steps in a ``lax.scan``, as a training rollout does: XLA then reuses the state's buffers
from step to step, where one call per step allocates them anew (on a CPU, large new arrays can
cost page faults, more or fewer from one process to the next). Steps/s counts row steps (player
decisions), ``B`` per call, after a warm-up that compiles and plays for ``--warmup`` seconds
(default 1), so that the games are at every stage, as in a long run, not all in their opening
at once. Each configuration is measured
``--rounds`` times, alternating, and the best round is kept; the rate per CPU-second (process
CPU time, all threads) is printed beside the wall rate.

Beside it, in the same run: Pgx ``tic_tac_toe``, ``connect_four`` and ``othello`` on the same
jax and device (when ``pgx`` is installed), and the numba batched core
(``env.step(env.random_actions())``, one thread) on the CPU.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable

import jax

import fox_envs
import fox_envs.jax

SIZES = (1, 64, 1024, 4096, 16384, 65536)
PGX_GAMES = ("tic_tac_toe", "connect_four", "othello")
CALLS_PER_CHECK = 10


def random_play_step(env: Any, auto_reset: Callable, num_envs: int, scan: int = 0) -> Callable:
    """One jitted call of random legal play with auto-reset over ``num_envs`` rows: one batch
    step, or ``scan`` batch steps in a ``lax.scan`` (as a training rollout runs them)."""
    step_with_reset = auto_reset(env.step, env.init)

    def one_row(state, key):
        key_action, key_step = jax.random.split(key)
        return step_with_reset(state, fox_envs.jax.random_legal_action(key_action, state.legal_action_mask), key_step)

    def batch_step(state, key):
        key, sub = jax.random.split(key)
        return jax.vmap(one_row)(state, jax.random.split(sub, num_envs)), key

    if not scan:
        return jax.jit(batch_step)

    @jax.jit
    def steps(state, key):
        return jax.lax.scan(lambda carry, _: (batch_step(*carry), None), (state, key), None, length=scan)[0]

    return steps


def measure_jax(env: Any, auto_reset: Callable, num_envs: int, seconds: float, scan: int = 0,
                warmup: float = 0.0) -> tuple[float, float]:
    """(row steps per wall second, per CPU second) of random legal play on ``env``, timed after
    three calls (they compile) and ``warmup`` seconds of play."""
    step_all = random_play_step(env, auto_reset, num_envs, scan)
    steps_per_call = max(scan, 1)
    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
    for _ in range(3):
        state, key = step_all(state, key)
    jax.block_until_ready(state)
    warm_until = time.perf_counter() + warmup
    while time.perf_counter() < warm_until:
        state, key = step_all(state, key)
        jax.block_until_ready(state.observation)
    calls = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(CALLS_PER_CHECK):
            state, key = step_all(state, key)
        jax.block_until_ready(state.observation)
        calls += CALLS_PER_CHECK
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    steps = calls * steps_per_call * num_envs
    return steps / wall, steps / max(cpu, 1e-9)


def measure_numba(env_id: str, num_envs: int, seconds: float) -> tuple[float, float]:
    """(row steps per wall second, per CPU second) of the numba batched core, one thread."""
    import fox_envs.batch

    env = fox_envs.batch.make(env_id, num_envs, seed=0)
    for _ in range(3):
        env.step(env.random_actions())
    calls = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.step(env.random_actions())
        calls += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    env.close()
    return calls * num_envs / wall, calls * num_envs / max(cpu, 1e-9)


def pgx_env(name: str) -> tuple[Any, Callable] | None:
    try:
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    return pgx.make(name), auto_reset


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(fox_envs.jax.env_ids()))
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best is kept")
    parser.add_argument("--warmup", type=float, default=1.0,
                        help="seconds of play before each measurement (default 1), so that the games are at "
                             "every stage, as in a long run, not all in their opening")
    parser.add_argument("--device", default="cpu", help="jax platform to run on: cpu (default), gpu or tpu")
    parser.add_argument("--pgx-games", nargs="*", default=list(PGX_GAMES), choices=PGX_GAMES,
                        help="the Pgx anchors to run (default: all three)")
    parser.add_argument("--no-pgx", action="store_true", help="skip Pgx even where it is installed")
    parser.add_argument("--no-numba", action="store_true", help="skip the numba batched core")
    parser.add_argument("--scan", type=int, default=0, metavar="T",
                        help="run T batch steps per jitted call in a lax.scan, as a training rollout does "
                             "(default 0: one batch step per call)")
    parser.add_argument("--json", help="write the results to this JSON file")
    args = parser.parse_args(argv)
    try:
        device = jax.devices(args.device)[0]
    except RuntimeError as error:
        parser.error(f"no jax device of kind {args.device!r} here ({error}); jax sees: {jax.devices()}")
    print(f"jax {jax.__version__} on {device.platform}: {device.device_kind} ({device}); "
          f"python {platform.python_version()}, {platform.machine()}; "
          + (f"{args.scan} batch steps per call (lax.scan)" if args.scan else "one batch step per call"))

    entries: list[tuple[str, str, Callable[[int], tuple[float, float]]]] = []
    for env_id in args.games:
        env = fox_envs.jax.make(env_id)
        entries.append((env_id, "fox_envs.jax", lambda b, env=env: measure_jax(env, fox_envs.jax.auto_reset, b,
                                                                               args.seconds, args.scan, args.warmup)))
    if not args.no_pgx:
        for name in args.pgx_games:
            made = pgx_env(name)
            if made is None:
                print("pgx is not installed: no Pgx anchors")
                break
            entries.append((f"pgx {name}", "pgx", lambda b, made=made: measure_jax(*made, b, args.seconds,
                                                                                            args.scan, args.warmup)))
    if not args.no_numba:
        for env_id in args.games:
            entries.append((env_id, "numba (CPU, 1 thread)", lambda b, env_id=env_id: measure_numba(env_id, b,
                                                                                                    args.seconds)))
    results: dict[str, dict[int, tuple[float, float]]] = {}
    with jax.default_device(device):
        for _ in range(args.rounds):
            for name, backend, measure in entries:
                for size in args.sizes:
                    rate = measure(size)
                    best = results.setdefault(f"{name} | {backend}", {}).get(size, (0.0, 0.0))
                    results[f"{name} | {backend}"][size] = max(best, rate)
                    print(f"  {name:<20} {backend:<22} B={size:<6} {rate[0] / 1e6:9.3f} M steps/s wall, "
                          f"{rate[1] / 1e6:9.3f} M per CPU-s", flush=True)
    print_table(results, args.sizes, device)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": str(device), "results": {
            k: {str(b): r for b, r in v.items()} for k, v in results.items()}}, indent=1))
    return results


def print_table(results: dict, sizes: list[int], device: Any) -> None:
    """Millions of row steps per wall second, the best round, and ratios to Pgx."""
    print(f"\nM steps/s (wall), best of the rounds, on {device.platform} ({device.device_kind}):")
    header = "| env | backend | " + " | ".join(f"B={b}" for b in sizes) + " |"
    print(header)
    print("|" + "---|" * (len(sizes) + 2))
    for key, by_size in results.items():
        name, backend = key.split(" | ")
        cells = " | ".join(f"{by_size[b][0] / 1e6:.3f}" if b in by_size else "-" for b in sizes)
        print(f"| {name} | {backend} | {cells} |")
    anchors = {k.split(" | ")[0]: v for k, v in results.items() if k.endswith("| pgx")}
    if anchors:
        print("\nratios to Pgx (wall):")
        for key, by_size in results.items():
            if not key.endswith("| fox_envs.jax"):
                continue
            name = key.split(" | ")[0]
            parts = []
            for anchor, anchor_rates in anchors.items():
                ratio = [f"{by_size[b][0] / anchor_rates[b][0]:.2f}" for b in sizes if b in anchor_rates]
                parts.append(f"{anchor.removeprefix('pgx ')} " + "/".join(ratio))
            print(f"  {name}: " + "; ".join(parts))


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
