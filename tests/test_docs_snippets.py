"""Every ```python block of README.md and docs/*.md runs as written (a new user copies them).

A block whose first line is ``# extra: <name>`` needs that optional extra
(``pip install 'fox_envs[<name>]'``): it runs with the integration tests (``-m integration``).
A block that starts worker processes (``workers=2``, an async vector env, Ray) runs as a user
would run it, saved as a script and started with ``python script.py`` in an empty directory:
spawned workers import the main script again, which only a script guarded by
``if __name__ == "__main__":`` survives.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# adding_a_game.md's blocks build on each other (the first registers a game): they run in order in
# a fresh interpreter in tests/test_adding_a_game.py, not one by one in this process
RUN_ELSEWHERE = (ROOT / "docs" / "adding_a_game.md",)
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p not in RUN_ELSEWHERE)]
BLOCKS = [(path, k, code) for path in DOCS
          for k, code in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))]


def test_the_docs_have_python_examples() -> None:
    assert sum(path.name == "README.md" for path, _, _ in BLOCKS) >= 4


EXTRA_LINE = re.compile(r"#\s*extra:\s*(\w+)")
STARTS_WORKERS = re.compile(r"workers\s*=\s*(?:[2-9]|\d{2,})|vectorization_mode\s*=\s*[\"']async|backend\s*=\s*[\"']ray")


def starts_workers(code: str) -> bool:
    """Whether a block starts worker processes (and so must run as a saved script)."""
    return bool(STARTS_WORKERS.search(code))


def test_blocks_that_start_workers_are_found() -> None:
    assert starts_workers('evaluate("x", ["a", "b"], workers=2)') and starts_workers('make_vec("x", 4, vectorization_mode="async")')
    assert not starts_workers('evaluate("x", ["a", "b"], workers=1)')
    assert any(path.name == "evaluation.md" and starts_workers(code) for path, _, code in BLOCKS)


def run_as_script(path: Path, index: int, code: str, directory: Path) -> subprocess.CompletedProcess:
    """``python <block>.py`` in ``directory`` (the repository on ``PYTHONPATH``)."""
    script = directory / f"{path.stem}_block{index}.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, script.name], cwd=directory, env=env, capture_output=True, text=True,
                          timeout=900)


OPTIONAL_IMPORT = re.compile(r"^\s*(?:import|from)\s+(jax|torch|ray|stable_baselines3|sb3_contrib|pyspiel|open_spiel|"
                             r"matplotlib|optax|mctx|fox_envs\.jax)\b", re.M)


def test_blocks_that_import_an_extra_are_marked() -> None:
    """A block importing an optional extra's library runs only with the integration tests."""
    unmarked = [f"{path.relative_to(ROOT)}#{k}" for path, k, code in BLOCKS
                if OPTIONAL_IMPORT.search(code) and not EXTRA_LINE.match(code)]
    assert not unmarked, f"blocks that import an optional extra without '# extra: <name>': {unmarked}"


def _param(path: Path, index: int, code: str):
    """A block as a test case; one that names an extra is an integration test."""
    marks = [pytest.mark.integration] if EXTRA_LINE.match(code) else []
    return pytest.param(path, index, code, marks=marks, id=f"{path.relative_to(ROOT)}#{index}")


@pytest.mark.slow
def test_a_worker_block_without_the_main_guard_fails_as_a_script(tmp_path: Path) -> None:
    """What the script runs catch: spawned workers re-running an unguarded ``evaluate``."""
    code = 'import fox_envs\nfox_envs.evaluate("xceter_o_v0", ["random"], num_games=2, workers=2)\n'
    assert starts_workers(code)
    assert run_as_script(Path("unguarded.md"), 0, code, tmp_path).returncode != 0
    guarded = "if __name__ == '__main__':\n    " + code.replace("\n", "\n    ").rstrip() + "\n"
    run = run_as_script(Path("guarded.md"), 0, guarded, tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.parametrize("path, index, code", [_param(*block) for block in BLOCKS])
def test_python_example_runs(path: Path, index: int, code: str, capsys, tmp_path: Path) -> None:
    if starts_workers(code):
        run = run_as_script(path, index, code, tmp_path)
        assert run.returncode == 0, f"{path.name} block {index} fails as a script:\n{run.stderr[-3000:]}"
        return
    namespace: dict = {"__name__": "__docs__"}
    try:
        exec(compile(code, f"{path.name} block {index}", "exec"), namespace)
    finally:
        for value in list(namespace.values()):  # close what the example opened (vector env workers)
            close = getattr(value, "close", None)
            if callable(close) and type(value).__module__.startswith(("fox_envs", "gymnasium")):
                close()
