"""The training examples (issue 8): each numpy example trains in ``--quick`` mode (with fewer
training games in the default run; the exact ``--quick`` settings in the ``slow`` tests) and the
learned policy must beat random play, judged on a measured rate with its Wilson 95 % interval.

The examples are imported and their ``main(argv)`` called in this process (they live in the
``examples`` namespace package at the repository root)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ----- 1. X-Ceter-O tabular Q-learning through the AEC API ----------------------------------------
def check_xceter_o(result: dict) -> None:
    before, after = result["before"]["random"], result["after"]["random"]
    # An empty table plays uniformly at random: about even against random.
    assert 0.3 < before["win_rate"] < 0.7
    # Clearly stronger than random: the whole 95 % interval above 0.7, and far above before.
    assert after["ci95"][0] > 0.7, after
    assert after["win_rate"] > before["ci95"][1] + 0.2
    # and not worse against the heuristic than the untrained table
    assert result["after"]["heuristic"]["win_rate"] >= result["before"]["heuristic"]["win_rate"]


def test_xceter_o_qlearning_beats_random(capsys, tmp_path):
    from examples.train_xceter_o_qlearning import main

    result = main(["--quick", "--episodes", "6000", "--eval-games", "200", "--seed", "3",
                   "--plot", str(tmp_path / "curve.png")])
    check_xceter_o(result)
    out = capsys.readouterr().out
    assert "before training" in out and "after training" in out and "vs heuristic" in out
    # progress throughout: a line per fifth of training, with the greedy table's win rates
    assert out.count("greedy on the table (50 games each): vs random") == 4
    assert [p["games"] for p in result["curve"]] == [0, 1200, 2400, 3600, 4800, 6000]
    assert result["curve"][-1]["random"] == result["after"]["random"]
    check_curve_file(tmp_path / "curve.png", out)


def check_curve_file(path: Path, out: str) -> None:
    """The learning curve is a PNG when matplotlib is there, else the output names the extra."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "pip install 'fox_envs[plot]'" in out
        return
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    assert f"learning curve written to {path}" in out


@pytest.mark.slow
def test_xceter_o_qlearning_quick_setting(tmp_path):
    from examples.train_xceter_o_qlearning import main

    result = main(["--quick", "--plot", str(tmp_path / "curve.png")])
    check_xceter_o(result)
    assert result["after"]["random"]["games"] == 200


def test_xceter_o_encoding_is_symmetric():
    """The 8 symmetric images of a position share one key, and the canonical action maps back to
    the same real square."""
    import numpy as np

    import fox_envs
    from examples.train_xceter_o_qlearning import SYM, encode

    game = fox_envs.make_game("xceter_o_v0")
    state = game.new_initial_state()
    for move in ("a1", "b1", "c3"):
        state.apply_action(state.string_to_action(move))
    observation = state.observation_tensor(state.current_player())
    keys = set()
    for v in range(8):
        image = observation.reshape(9, -1)[SYM[v]].reshape(3, 3, -1)  # board shown through symmetry v
        keys.add(encode(image)[0])
    assert len(keys) == 1
    # a different position (piece 1 moved from a corner to the centre) has another key
    other = game.new_initial_state()
    for move in ("b2", "b1", "c3"):
        other.apply_action(other.string_to_action(move))
    assert encode(other.observation_tensor(other.current_player()))[0] not in keys
    assert np.array_equal(np.sort(SYM, axis=1), np.tile(np.arange(9), (8, 1)))


# ----- 2. Bye Bye Mr. Fox! afterstate TD(lambda) -------------------------------------------------
def check_bye_bye(result: dict, margin: float) -> None:
    random_team = result["baselines"]["random team"]
    after = result["after"]["alone"]
    # the learner's team beats an all-random team: the 95 % intervals are apart by ``margin``
    assert after["ci95"][0] > random_team["ci95"][1] + margin, (after, random_team)
    assert after["win_rate"] > result["before"]["alone"]["win_rate"] + 0.1


def test_bye_bye_mr_fox_learner_beats_random_team(tmp_path, capsys):
    from examples.train_bye_bye_mr_fox import main

    result = main(["--quick", "--episodes", "1500", "--eval-games", "200", "--seed", "1",
                   "--plot", str(tmp_path / "curve.png")])
    check_bye_bye(result, margin=0.0)
    assert [p["games"] for p in result["curve"]] == [0, 300, 600, 900, 1200, 1500]
    check_curve_file(tmp_path / "curve.png", capsys.readouterr().out)


@pytest.mark.slow
def test_bye_bye_mr_fox_quick_setting(tmp_path):
    from examples.train_bye_bye_mr_fox import main

    result = main(["--quick", "--plot", str(tmp_path / "curve.png")])
    check_bye_bye(result, margin=0.15)


# ----- 4. train, save, round robin, load by path -------------------------------------------------
def test_train_and_tournament_saves_a_loadable_policy(tmp_path, capsys):
    from examples.train_and_tournament import main
    from fox_envs.ui.cli import main as cli_main

    path = tmp_path / "q.npz"
    result = main(["--quick", "--episodes", "5000", "--eval-games", "100", "--bootstrap", "20",
                   "--out", str(path), "--seed", "2", "--plot", str(tmp_path / "curve.png")])
    assert path.exists()
    vs_random = result["rates"]["random"]
    assert vs_random["games"] == 100 and vs_random["ci95"][0] > 0.65, vs_random
    ratings = {row["name"]: row["rating"] for row in result["tournament"].ratings.to_list()}
    assert ratings[str(path)] > ratings["random"]
    capsys.readouterr()
    # the printed command works: the arena loads the file by its path
    assert cli_main(["arena", "xceter_o_v0", str(path), "random", "--games", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert str(path) in out and "random" in out
    # the console script (whose sys.path does not hold the current directory, unlike python -m)
    # loads it: the factory is in the package
    script = Path(sys.executable).with_name("fox-envs")
    if script.exists():
        import subprocess

        run = subprocess.run([str(script), "arena", "xceter_o_v0", str(path), "random", "--games", "4", "--quiet"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert str(path) in run.stdout


@pytest.mark.slow
def test_train_and_tournament_quick_setting(tmp_path):
    from examples.train_and_tournament import main

    result = main(["--quick", "--out", str(tmp_path / "q.npz"), "--plot", str(tmp_path / "curve.png")])
    assert result["rates"]["random"]["ci95"][0] > 0.8


# ----- 3. MaskablePPO (optional 'train' extra) ---------------------------------------------------
@pytest.mark.integration  # needs the sb3 extra: runs with -m integration
def test_maskable_ppo_smoke(tmp_path):
    """A few hundred steps per phase: the masked policy only ever plays legal moves (evaluate
    would raise otherwise) and every rate is reported with its interval."""
    pytest.importorskip("sb3_contrib")
    from examples.train_maskable_ppo import main

    result = main(["--quick", "--random-steps", "256", "--heuristic-steps", "256", "--envs", "2",
                   "--eval-games", "10", "--seed", "0", "--save", str(tmp_path / "ppo.zip"),
                   "--plot", str(tmp_path / "curve.png")])
    for key in ("before", "after random", "after heuristic"):
        for opponent in ("random", "heuristic"):
            record = result[key][opponent]
            assert record["games"] == 10 and record["wins"] + record["draws"] + record["losses"] == 10
    # the saved policy file plays the same greedy moves as the trained model
    import fox_envs
    from fox_envs.agents import load_policy

    agent = load_policy(tmp_path / "ppo.json", "outfox_v0", trust_code=True)  # the SB3 model is unpickled
    state = fox_envs.make_game("outfox_v0").new_initial_state()
    trained = result["agent"]
    while not state.is_terminal():
        player = state.current_player()
        action = agent.act(state, player)
        assert action == trained.act(state, player) and state.is_legal(action)
        state.apply_action(action)


def test_outfox_completion_planes_match_the_rules_core():
    """Plane t is on at an empty point exactly when type t there makes a winning line (checked with
    the rules core's own line test), plane 9 exactly on the pieces of a winning line; the
    Gymnasium wrapper appends them to the learner's observation. Numpy only (runs in CI)."""
    import gymnasium
    import numpy as np

    import fox_envs
    from fox_envs.games.outfox.planes import GRID_CELLS, LinePlanes, completion_planes, with_completion_planes
    from fox_envs.games.outfox.rules import LINES, WINS, line_through

    game = fox_envs.make_game("outfox_v0")
    rng = np.random.default_rng(0)
    completions = lines_seen = 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            board = state.board
            planes = completion_planes(board)
            in_line = {p for line in LINES if min(board[q] for q in line) >= 0
                       and WINS[board[line[0]] * 81 + board[line[1]] * 9 + board[line[2]]] for p in line}
            for p, cell in enumerate(GRID_CELLS):
                for t in range(9):
                    completes = board[p] < 0 and line_through(board[:p] + [t] + board[p + 1:], p)
                    assert planes[cell][t] == completes
                    completions += completes
                assert planes[cell][9] == (p in in_line)
            lines_seen += bool(in_line)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert completions > 1000 and lines_seen > 20  # both kinds of plane were exercised

    view = LinePlanes(gymnasium.make("fox_envs/Outfox-v0", opponent="random", seat=1))
    obs, _ = view.reset(seed=3)
    state = view.unwrapped.state
    assert view.observation_space.shape == (5, 5, 50) and obs.shape == (5, 5, 50)
    assert np.array_equal(obs, with_completion_planes(state, 1))
    assert np.array_equal(obs[:, :, 40:], completion_planes(state.board))


@pytest.mark.integration  # needs the sb3 extra: runs with -m integration
def test_board_policy_logits_follow_the_outfox_action_layout():
    """The board policy reads point p from obs[r + 2, q + 2] and scores action t*19 + p from that
    point's features and 171 + f*19 + g from the features of f and g."""
    pytest.importorskip("sb3_contrib")
    import numpy as np
    import torch

    import fox_envs
    from fox_envs.games.outfox.board_policy import POINT_CELLS, BoardPolicy
    from fox_envs.games.outfox.rules import NUM_PLACE, NUM_POINTS, NUM_TYPES

    state = fox_envs.make_game("outfox_v0").new_initial_state()
    for p in range(NUM_POINTS):  # the valid-point plane is on exactly the gathered cells
        obs = state.observation_tensor(0)
        assert obs.reshape(25, -1)[POINT_CELLS[p], 16] == 1.0
    assert sorted(np.flatnonzero(obs[:, :, 16].reshape(-1))) == sorted(POINT_CELLS)
    state.apply_string("TR@c3")  # point 9: its cell now holds plane 6 (TR = triangle*3 + red)
    assert state.observation_tensor(0).reshape(25, -1)[POINT_CELLS[9], 6] == 1.0

    import gymnasium
    from gymnasium import spaces

    env = gymnasium.make("fox_envs/Outfox-v0")
    policy = BoardPolicy(env.observation_space, env.action_space, lambda _: 3e-4,
                         features_extractor_kwargs={"channels": 8, "layers": 2})
    heads = policy.mlp_extractor
    assert heads.channels == 8 + env.observation_space.shape[2]  # convolutions, then the input planes
    torch.manual_seed(0)
    features = torch.randn(1, NUM_POINTS * heads.channels)
    logits = heads.forward_actor(features)
    assert logits.shape == (1, env.action_space.n)
    points = features.view(1, NUM_POINTS, heads.channels)
    t, p, f, g = 4, 11, 3, 17
    assert torch.allclose(logits[0, t * NUM_POINTS + p], heads.place(points[0, p])[t])
    slide = (heads.origin(points[0, f]) @ heads.destination(points[0, g])) * heads.scale
    assert torch.allclose(logits[0, NUM_PLACE + f * NUM_POINTS + g], slide)
    assert NUM_PLACE == NUM_TYPES * NUM_POINTS and isinstance(env.action_space, spaces.Discrete)
    obs, info = env.reset(seed=0)
    action, _ = policy.predict(obs, deterministic=True, action_masks=info["action_mask"].astype(bool))
    assert info["action_mask"][int(action)] == 1


@pytest.mark.slow
def test_maskable_ppo_quick_learns_outfox():
    """The exact --quick setting on the default game (Outfox: board policy, line feature planes,
    gamma 0.9) clearly beats random after the random phase, with 100 evaluation games."""
    pytest.importorskip("sb3_contrib")
    from examples.train_maskable_ppo import main

    result = main(["--quick", "--plot", ""])
    before, after = result["before"]["random"], result["after random"]["random"]
    assert after["games"] == 100
    assert after["ci95"][0] > 0.65, after
    assert after["ci95"][0] > before["ci95"][1], (before, after)


@pytest.mark.slow
def test_maskable_ppo_quick_learns_xceter_o():
    """The same pipeline learns X-Ceter-O against random at the --quick budget."""
    pytest.importorskip("sb3_contrib")
    from examples.train_maskable_ppo import main

    result = main(["--quick", "--env", "xceter_o_v0", "--plot", ""])
    before, after = result["before"]["random"], result["after random"]["random"]
    assert after["ci95"][0] > 0.6, after
    assert after["ci95"][0] > before["ci95"][1], (before, after)


def test_maskable_ppo_without_the_extra_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # import sb3_contrib now fails
    from examples.train_maskable_ppo import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--quick"])
    message = str(exit_info.value)
    assert "pip install -e '.[train]'" in message and "sb3-contrib" in message
    assert "(missing: " in message  # names what is missing: torch first on a machine without it
