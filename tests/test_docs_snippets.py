"""Every ```python block of README.md and docs/*.md runs as written (a new user copies them).

A block whose first line is ``# extra: <name>`` needs that optional extra
(``pip install 'fox_envs[<name>]'``): it runs with the integration tests (``-m integration``).
"""
from __future__ import annotations

import re
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


def _param(path: Path, index: int, code: str):
    """A block as a test case; one that names an extra is an integration test."""
    marks = [pytest.mark.integration] if EXTRA_LINE.match(code) else []
    return pytest.param(path, index, code, marks=marks, id=f"{path.relative_to(ROOT)}#{index}")


@pytest.mark.parametrize("path, index, code", [_param(*block) for block in BLOCKS])
def test_python_example_runs(path: Path, index: int, code: str, capsys) -> None:
    namespace: dict = {"__name__": "__docs__"}
    try:
        exec(compile(code, f"{path.name} block {index}", "exec"), namespace)
    finally:
        for value in list(namespace.values()):  # close what the example opened (vector env workers)
            close = getattr(value, "close", None)
            if callable(close) and type(value).__module__.startswith(("fox_envs", "gymnasium")):
                close()
