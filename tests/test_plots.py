"""PNG plots of tournaments and learning curves (``fox_envs.evaluation.plots``). Drawing needs
matplotlib (the ``plot`` extra): those tests are ``integration``. Without it, the message must
name the extra; that is checked in a subprocess whose imports of matplotlib are refused by a
meta path hook (the library is installed here, so its absence is simulated)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fox_envs.evaluation import round_robin

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

BLOCK_MATPLOTLIB = textwrap.dedent("""
    import sys

    class BlockMatplotlib:
        def find_spec(self, name, path=None, target=None):
            if name == "matplotlib" or name.startswith("matplotlib."):
                raise ImportError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, BlockMatplotlib())
""")


def run_without_matplotlib(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK_MATPLOTLIB + textwrap.dedent(code)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_tournament_plot_without_matplotlib_names_the_extra(tmp_path):
    """``tournament --plot`` without matplotlib stops before playing (exit 2) and says which
    extra installs it; the library functions raise ImportError with the same text."""
    run = run_without_matplotlib(f"""
        from fox_envs.ui.cli import main
        from fox_envs.evaluation import plot_learning_curve
        code = main(["tournament", "xceter_o_v0", "random", "heuristic", "--games", "2", "--quiet",
                     "--plot", {str(tmp_path / 't.png')!r}])
        print("exit", code)
        try:
            plot_learning_curve([{{"step": 0, "random": {{"win_rate": 0.5, "ci95": [0.4, 0.6]}}}}], "c.png")
        except ImportError as error:
            print("ImportError:", error)
    """, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "exit 2" in run.stdout
    assert "pip install 'fox_envs[plot]'" in run.stderr and "matplotlib" in run.stderr
    assert "round robin" not in run.stdout  # no games were played before the error
    assert "ImportError: matplotlib is not installed" in run.stdout and "fox_envs[plot]" in run.stdout
    assert not (tmp_path / "t.png").exists() and not (tmp_path / "c.png").exists()


def test_a_learning_curve_needs_a_point():
    from fox_envs.core.errors import InvalidParameterError
    from fox_envs.evaluation import plot_learning_curve

    with pytest.raises(InvalidParameterError, match="at least one evaluation point"):
        plot_learning_curve([], "never.png")


def assert_png(path: Path, min_width: int = 300, min_height: int = 150) -> None:
    from PIL import Image

    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert 5_000 < len(data) < 2_000_000, len(data)
    with Image.open(path) as image:
        width, height = image.size
    assert min_width <= width <= 4000 and min_height <= height <= 4000, (width, height)


@pytest.fixture(scope="module")
def tournament():
    return round_robin("xceter_o_v0", ["random", "heuristic", "perfect"], games_per_match=6, seed=1, bootstrap=20)


@pytest.mark.integration
def test_ratings_and_cross_table_plots(tmp_path, tournament):
    pytest.importorskip("matplotlib")
    from fox_envs.evaluation import plot_cross_table, plot_ratings, plot_tournament
    from fox_envs.evaluation.plots import rating_rows

    names, values, intervals, _ = rating_rows(tournament)
    assert values == sorted(values, reverse=True) and names[0] == "perfect" and names[-1] == "random"
    assert all(low <= value <= high for value, (low, high) in zip(values, intervals))
    for plot, name in ((plot_ratings, "ratings.png"), (plot_cross_table, "cross.png"), (plot_tournament, "both.png")):
        assert plot(tournament, tmp_path / name) == tmp_path / name
        assert_png(tmp_path / name)


@pytest.mark.integration
def test_cooperative_tournament_plots_team_win_rates(tmp_path):
    pytest.importorskip("matplotlib")
    from fox_envs.core.errors import InvalidParameterError
    from fox_envs.evaluation import plot_cross_table, plot_tournament

    result = round_robin("bye_bye_mr_fox_v0", ["random", "heuristic"], games_per_match=4, seed=0)
    plot_tournament(result, tmp_path / "team.png")
    assert_png(tmp_path / "team.png", min_height=100)
    with pytest.raises(InvalidParameterError, match="no cross table"):
        plot_cross_table(result, tmp_path / "cross.png")


@pytest.mark.integration
def test_learning_curve_png(tmp_path):
    pytest.importorskip("matplotlib")
    from fox_envs.evaluation import plot_learning_curve, wilson_interval

    def record(wins: int, games: int) -> dict:
        return {"win_rate": wins / games, "ci95": wilson_interval(wins, games)}

    points = [{"games": g, "random": record(w, 40), "heuristic": record(h, 40)}
              for g, w, h in ((0, 20, 1), (500, 30, 5), (1000, 36, 12))]
    path = plot_learning_curve(points, tmp_path / "curve.png", title="test", x="games", x_label="training games")
    assert_png(path)


@pytest.mark.integration
def test_cli_tournament_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "t.json"
    run = subprocess.run([sys.executable, "-m", "fox_envs", "tournament", "xceter_o_v0", "random", "heuristic",
                          "--games", "4", "--bootstrap", "10", "--quiet", "--out", str(out),
                          "--plot", str(tmp_path / "t.png")], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert run.returncode == 0, run.stderr
    assert f"plot written to {tmp_path / 't.png'}" in run.stderr
    assert len(json.loads(out.read_text())["ratings"]) == 2
    assert_png(tmp_path / "t.png")
