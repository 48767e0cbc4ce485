"""Every ```python block of README.md and docs/*.md runs as written (a new user copies them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCKS = [(path, k, code) for path in DOCS
          for k, code in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))]


def test_the_docs_have_python_examples() -> None:
    assert sum(path.name == "README.md" for path, _, _ in BLOCKS) >= 4


@pytest.mark.parametrize("path, index, code", BLOCKS,
                         ids=[f"{path.relative_to(ROOT)}#{k}" for path, k, _ in BLOCKS])
def test_python_example_runs(path: Path, index: int, code: str, capsys) -> None:
    namespace: dict = {"__name__": "__docs__"}
    try:
        exec(compile(code, f"{path.name} block {index}", "exec"), namespace)
    finally:
        for value in list(namespace.values()):  # close what the example opened (vector env workers)
            close = getattr(value, "close", None)
            if callable(close) and type(value).__module__.startswith(("fox_envs", "gymnasium")):
                close()
