"""``benchmarks/jax_bench.py`` runs, one call per step and with ``--scan`` (integration: needs
the jax extra). It only measures: the test checks that every configuration produced a positive
rate, never how fast."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "jax_bench.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("jax_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.integration
@pytest.mark.parametrize("scan", [0, 3])
def test_jax_bench_measures_every_configuration(scan, tmp_path):
    bench = load_bench()
    out = tmp_path / "jax.json"
    results = bench.main(["--games", "xceter_o_v0", "outfoxed_v0", "--sizes", "1", "8", "--seconds", "0.05",
                          "--rounds", "1", "--warmup", "0.05", "--no-pgx", "--no-numba", "--scan", str(scan),
                          "--json", str(out)])
    assert set(results) == {"xceter_o_v0 | fox_envs.jax", "outfoxed_v0 | fox_envs.jax"}
    for by_size in results.values():
        assert set(by_size) == {1, 8}
        assert all(wall > 0 and cpu > 0 for wall, cpu in by_size.values())
    assert out.exists()


@pytest.mark.integration
def test_jax_floor_times_the_env_and_both_floors():
    """``benchmarks/jax_floor.py``: the env, the floor with and without the picker (and Pgx's env
    where pgx is installed), each a positive time; the floor's step rewrites the mask and the
    observation as documented."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    spec = importlib.util.spec_from_file_location("jax_floor", BENCH.parent / "jax_floor.py")
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)
    results = floor.main(["--game", "xceter_o_v0", "--sizes", "8", "--seconds", "0.05", "--rounds", "2"])
    assert {"xceter_o_v0 (the env)", "floor: mask + observation + picker", "floor: mask + observation"} <= set(results)
    assert all(by_size[8] > 0 for by_size in results.values())
    env = floor.FloorEnv(5, (2, 3))
    state = env.init(jax.random.PRNGKey(0))
    after = env.step(state, jnp.int32(3))
    np.testing.assert_array_equal(np.asarray(after.legal_action_mask),
                                  ~np.asarray(state.legal_action_mask) | (np.arange(5) == 0))
    np.testing.assert_array_equal(np.asarray(after.observation), np.full((2, 3), 3.0, np.float32))
