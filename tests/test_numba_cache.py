"""The batched kernels' disk cache (fox_envs/batch/_cache.py): unreadable entries are dropped
and compiled afresh, an entry goes stale with the package files it imports, and a process with
no writable cache directory still runs.

Every scenario runs in a fresh process on a copy of the package (so that its in-tree
``__pycache__`` folders can be blocked and a small probe kernel added) with its own
``NUMBA_CACHE_DIR``, ``HOME`` and temporary directory.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "fox_envs"
LIMIT = 300  # seconds: only a guard against a hang
slow = pytest.mark.slow  # every scenario starts numba in two or three fresh processes (4 s each)

PROBE = """
import fox_envs.batch  # noqa: F401  (the package's cache, before any kernel)
from numba import njit

from fox_envs.batch._probe_factor import FACTOR


@njit(cache=True)
def scaled(x):
    return FACTOR * x
"""
USE_PROBE = """
import json, tempfile, sys
if len(sys.argv) > 1:
    tempfile.tempdir = sys.argv[1]  # the temporary directory this process sees
from fox_envs.batch._probe import scaled
value = scaled(2)
cache = scaled._cache
print(json.dumps({"value": value, "cache": type(cache).__name__, "path": getattr(cache, "cache_path", None),
                  "hits": sum(scaled._cache_hits.values()), "misses": sum(scaled._cache_misses.values())}))
"""


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """A copy of the package with the probe kernel in it (``FACTOR = 3``)."""
    root = tmp_path / "site"
    shutil.copytree(PACKAGE, root / "fox_envs", ignore=shutil.ignore_patterns("__pycache__", "*.nb[ic]", "*.pyc"))
    (root / "fox_envs" / "batch" / "_probe.py").write_text(PROBE)
    (root / "fox_envs" / "batch" / "_probe_factor.py").write_text("FACTOR = 3\n")
    return root


def block_in_tree_caches(site: Path) -> None:
    """A file named ``__pycache__`` in every folder: no cache directory can be made there."""
    for folder in [site / "fox_envs", *(site / "fox_envs").rglob("*")]:
        if folder.is_dir():
            (folder / "__pycache__").write_text("")


def run(site: Path, code: str, cache_dir: Path | str, home: Path | str, temp: Path, *args: str) -> tuple[dict, str]:
    """Run ``code`` on the copy; returns its last stdout line as JSON, and its stderr."""
    temp.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(cache_dir), HOME=str(home), TMPDIR=str(temp))
    done = subprocess.run([sys.executable, "-W", "always", "-c", textwrap.dedent(code), *args], cwd=site, env=env,
                          capture_output=True, text=True, timeout=LIMIT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def only_file(folder: Path, pattern: str) -> Path:
    files = list(folder.rglob(pattern))
    assert len(files) == 1, files
    return files[0]


@slow
def test_entries_are_cached_then_loaded(site, tmp_path):
    first, _ = run(site, USE_PROBE, tmp_path / "cache", tmp_path, tmp_path / "tmp")
    again, err = run(site, USE_PROBE, tmp_path / "cache", tmp_path, tmp_path / "tmp")
    assert (first["value"], first["misses"]) == (6, 1)
    assert (again["value"], again["hits"], again["misses"]) == (6, 1, 0)
    assert Path(first["path"]).is_relative_to(tmp_path / "cache") and "KernelCacheWarning" not in err


@slow
@pytest.mark.parametrize("damage", ["truncated data", "garbage index", "empty index"])
def test_an_unreadable_entry_is_dropped_and_compiled_afresh(site, tmp_path, damage):
    cache = tmp_path / "cache"
    run(site, USE_PROBE, cache, tmp_path, tmp_path / "tmp")
    data, index = only_file(cache, "_probe.scaled-*.nbc"), only_file(cache, "_probe.scaled-*.nbi")
    if damage == "truncated data":
        data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    else:
        index.write_bytes(b"" if damage == "empty index" else b"\x80\x04garbage" * 7)
    repaired, err = run(site, USE_PROBE, cache, tmp_path, tmp_path / "tmp")
    assert (repaired["value"], repaired["misses"]) == (6, 1), err
    assert err.count("KernelCacheWarning") == 1 and "unreadable" in err, err
    again, err = run(site, USE_PROBE, cache, tmp_path, tmp_path / "tmp")
    assert (again["value"], again["hits"]) == (6, 1) and "KernelCacheWarning" not in err, err


@slow
def test_an_entry_goes_stale_when_a_file_it_imports_changes(site, tmp_path):
    """numba checks only the function's own file; a kernel compiles the constants and helpers
    it imports into itself, so a change to those must not load the old code."""
    first, _ = run(site, USE_PROBE, tmp_path / "cache", tmp_path, tmp_path / "tmp")
    (site / "fox_envs" / "batch" / "_probe_factor.py").write_text("FACTOR = 4\n")
    changed, _ = run(site, USE_PROBE, tmp_path / "cache", tmp_path, tmp_path / "tmp")
    assert first["value"] == 6 and (changed["value"], changed["misses"]) == (8, 1)


@slow
def test_no_writable_cache_directory_falls_back_to_a_private_temporary_one(site, tmp_path):
    """A read-only install (in-tree __pycache__ impossible), NUMBA_CACHE_DIR and HOME not
    writable (under a regular file: unwritable even for root): the kernels are cached in a
    private directory under the temporary directory, and loaded from it the next time."""
    block_in_tree_caches(site)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    first, err = run(site, USE_PROBE, blocker / "numba", blocker / "home", tmp_path / "tmp")
    again, err = run(site, USE_PROBE, blocker / "numba", blocker / "home", tmp_path / "tmp")
    assert (first["value"], first["misses"], again["hits"]) == (6, 1, 1), err
    private = tmp_path / "tmp" / f"fox_envs-numba-{os.getuid()}"
    assert Path(first["path"]).is_relative_to(private), first
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert "KernelCacheWarning" not in err, err


@slow
def test_no_writable_directory_at_all_compiles_in_every_process_after_one_warning(site, tmp_path):
    block_in_tree_caches(site)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for _ in range(2):
        result, err = run(site, USE_PROBE, blocker / "numba", blocker / "home", tmp_path / "tmp", str(blocker / "tmp"))
        assert (result["value"], result["cache"], result["misses"]) == (6, "NullCache", 1), err
        assert err.count("KernelCacheWarning") == 1 and "NUMBA_CACHE_DIR" in err, err


def test_a_kernel_entry_depends_on_the_files_it_imports_from_its_folder_and_the_batch_helpers():
    from fox_envs.batch import _cache

    kernel = str(PACKAGE / "games" / "outwit" / "kernels_heuristic.py")
    files = {str(path.relative_to(PACKAGE)) for path in _cache.source_files(kernel)}
    assert {"batch/_rows.py", "batch/_rng.py", "batch/_heuristic_rows.py", "games/outwit/kernels.py",
            "games/outwit/heuristic.py", "games/outwit/rules.py", "games/outwit/kernels_heuristic.py"} <= files
    assert all(name.startswith(("batch/", "games/outwit/")) for name in files), files


USE_VECTOR = """
import json, gymnasium, fox_envs
env = gymnasium.make_vec("fox_envs/XCeterO-v0", 16, seat=0)  # the batched vector env
obs, infos = env.reset(seed=0)
obs, rewards, terms, truncs, infos = env.step(infos["action_mask"].argmax(axis=1))
print(json.dumps({"obs": float(obs.sum()), "rewards": rewards.tolist()}))
"""


@pytest.mark.slow
def test_a_corrupt_cache_and_no_writable_cache_leave_the_batched_vector_env_working(site, tmp_path):
    """End to end (the kernels compile twice, about a minute): a damaged NUMBA_CACHE_DIR is
    repaired by the next run; with nothing writable but the temporary directory, make_vec works."""
    cache = tmp_path / "cache"
    want, _ = run(site, USE_VECTOR, cache, tmp_path, tmp_path / "tmp")
    data = only_file(cache, "kernels.step_rows-*.nbc")
    data.write_bytes(data.read_bytes()[:100])
    only_file(cache, "kernels.reset_rows-*.nbi").write_bytes(b"garbage")
    got, err = run(site, USE_VECTOR, cache, tmp_path, tmp_path / "tmp")
    assert got == want and err.count("KernelCacheWarning") == 1, err
    block_in_tree_caches(site)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    got, err = run(site, USE_VECTOR, blocker / "numba", blocker / "home", tmp_path / "tmp")
    assert got == want and "KernelCacheWarning" not in err, err
