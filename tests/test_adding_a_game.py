"""docs/adding_a_game.md works as written: its blocks run in order in a fresh interpreter, its
example game (Nim, no kernels, env module or heuristic) plays through the command line, in
worker processes and in OpenSpiel. The conformance suite runs on it too (tests/test_conformance.py
adds its cases, see ``conftest.example_cases``)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ADDING_A_GAME, EXAMPLE_MODULE, doc_blocks, example_spec

EXTRA_LINE = re.compile(r"#\s*extra:\s*(\w+)")
CLI = f"import {EXAMPLE_MODULE}; from fox_envs.ui.cli import main; raise SystemExit(main())"


def run_python(args: list[str], cwd: Path, timeout: float = 240) -> str:
    """Run ``python args`` in ``cwd`` and return its output (stdout then stderr); it must succeed."""
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output


def save_example(directory: Path) -> Path:
    """The doc's first block saved as the module the doc names (``nim_game.py``)."""
    path = directory / f"{EXAMPLE_MODULE}.py"
    path.write_text(doc_blocks()[0])
    return path


def test_the_doc_saves_its_example_under_the_module_name_it_uses():
    text = ADDING_A_GAME.read_text()
    assert f"Save this block as `{EXAMPLE_MODULE}.py`" in text and f"import {EXAMPLE_MODULE};" in text
    assert len(doc_blocks()[0].splitlines()) <= 100
    assert example_spec().env_id == "nim_v0" and example_spec().kernels is None


def test_the_docs_blocks_run_in_order_in_a_fresh_interpreter(tmp_path):
    blocks = [code for code in doc_blocks() if not EXTRA_LINE.match(code)]
    assert len(blocks) >= 4
    script = tmp_path / "adding_a_game_blocks.py"
    script.write_text("\n\n".join(blocks))
    output = run_python([str(script)], tmp_path)
    assert "Passed API test" in output
    games = re.search(r"nim_v0 .*: (\d+) games, seed 0", output)
    assert games and int(games.group(1)) == 20
    wins = [int(w) for w in re.findall(r"^random(?:#2)?\s+(\d+)\s+0\s+\d+", output, re.M)]
    assert len(wins) == 2 and sum(wins) == 20  # Nim has no draws
    vector = re.search(r"^FoxVectorEnv \(4, 22\) (\d+) wins in (\d+) episodes$", output, re.M)
    assert vector and int(vector.group(2)) > 0


def test_the_command_line_plays_the_example_game(tmp_path):
    """``list``, ``arena`` (the doc's command line), ``tournament`` and ``play`` with agents in
    every seat, on a game registered by the user's module."""
    save_example(tmp_path)
    listing = run_python(["-c", CLI, "list"], tmp_path)
    assert "nim_v0  (fox_envs/Nim-v0): 2 players" in listing
    arena = run_python(["-c", CLI, "arena", "nim_v0", "random", "mcts", "--games", "4"], tmp_path)
    rows = {name: int(wins) for name, wins in re.findall(r"^(random|mcts)\s+(\d+)\s+\d+\s+\d+", arena, re.M)}
    assert "4 games, seed 0" in arena and set(rows) == {"random", "mcts"} and sum(rows.values()) == 4
    tournament = run_python(["-c", CLI, "tournament", "nim_v0", "random", "heuristic", "mcts", "--games", "2"],
                            tmp_path)
    assert "round robin, 2 games per match" in tournament and "cross table" in tournament
    play = run_python(["-c", CLI, "play", "nim_v0", "--seats", "random,mcts", "--seed", "3", "--plain"], tmp_path)
    assert re.search(r"result: player_0 \(random\) [+-]1, player_1 \(mcts\) [+-]1", play)


WORKERS_SCRIPT = f"""
import gymnasium
import numpy as np

import {EXAMPLE_MODULE}  # registers nim_v0
import fox_envs

def outcomes(workers):
    result = fox_envs.evaluate("nim_v0", ["random", "mcts:simulations=20"], num_games=8, seed=4, workers=workers)
    return [(r.name, r.wins, r.losses) for r in result.results]

def rewards(**kwargs):
    envs = gymnasium.make_vec("fox_envs/Nim-v0", num_envs=4, **kwargs)
    _, infos = envs.reset(seed=2)
    total = np.zeros(4)
    for _ in range(30):
        actions = np.array([np.flatnonzero(mask)[0] for mask in infos["action_mask"]])
        _, reward, _, _, infos = envs.step(actions)
        total += reward
    envs.close()
    return total.tolist()

if __name__ == "__main__":
    assert outcomes(2) == outcomes(1), (outcomes(2), outcomes(1))
    assert rewards(workers=2, context="spawn") == rewards(workers=0)
    print("workers ok", outcomes(1))
"""


def test_worker_processes_register_the_users_game(tmp_path):
    """Spawned workers (``evaluate(workers=2)``, ``FoxVectorEnv`` with ``context="spawn"``) get
    the parent's registered game and play exactly what one process plays."""
    save_example(tmp_path)
    (tmp_path / "workers.py").write_text(WORKERS_SCRIPT)
    assert "workers ok" in run_python(["workers.py"], tmp_path)


def test_the_batch_backend_says_a_game_without_kernels_has_none(example_registered):
    import gymnasium

    from fox_envs import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="nim_v0 has no batched kernels.*backend='processes'"):
        gymnasium.make_vec("fox_envs/Nim-v0", num_envs=2, backend="batch")
    envs = gymnasium.make_vec("fox_envs/Nim-v0", num_envs=2)
    assert type(envs).__name__ == "FoxVectorEnv"
    envs.close()


@pytest.mark.integration
def test_openspiel_runs_random_sim_test_on_the_example(tmp_path):
    """The doc's OpenSpiel block (``pyspiel.random_sim_test``) after its game block, in a fresh
    interpreter."""
    pytest.importorskip("pyspiel")
    blocks = doc_blocks()
    openspiel_blocks = [code for code in blocks if EXTRA_LINE.match(code) and "openspiel" in code.splitlines()[0]]
    assert len(openspiel_blocks) == 1
    script = tmp_path / "openspiel_block.py"
    script.write_text(blocks[0] + "\n\n" + openspiel_blocks[0] + """
pyspiel.random_sim_test(pyspiel.load_game("fox_nim(stones=30,max_take=4)"), num_sims=10, serialize=False,
                        verbose=False)
print("random_sim_test ok")
""")
    output = run_python([str(script)], tmp_path)
    assert "fox_nim(max_moves=100,max_take=3,stones=21)" in output and "random_sim_test ok" in output
