"""The command line, driven through ``fox_envs.ui.cli.main`` (play is fed a scripted stdin)."""
from __future__ import annotations

import io
import json

import pytest

import fox_envs
from fox_envs.ui.cli import main, parse_params
from fox_envs.core.registry import make_game
from fox_envs.evaluation import GameRecord, replay_states


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_game_param_and_agent(capsys):
    code, out, _ = run(["list"], capsys)
    assert code == 0
    for env_id in fox_envs.ENV_IDS:
        assert env_id in out
        for name in type(make_game(env_id)).PARAMS:
            assert f"--param {name}=" in out
    for agent in ("random", "heuristic", "mcts", "module:callable", "human"):
        assert agent in out
    code, out, _ = run(["list", "--json"], capsys)
    data = json.loads(out)
    assert [g["env_id"] for g in data["games"]] == list(fox_envs.ENV_IDS) and "mcts" in [a["name"] for a in data["agents"]]


def test_arena_output_is_identical_for_one_and_two_workers(capsys, tmp_path):
    argv = ["arena", "xceter_o_v0", "heuristic", "random", "--games", "20", "--seed", "1"]
    code1, out1, err1 = run(argv + ["--workers", "1", "--out", str(tmp_path / "r1.json")], capsys)
    code2, out2, _ = run(argv + ["--workers", "2", "--out", str(tmp_path / "r2.json")], capsys)
    assert code1 == code2 == 0 and out1 == out2
    assert "heuristic" in out1 and "win rate" in out1 and "truncated games 0" in out1
    assert "20/20 games" in err1  # the progress bar, on stderr
    assert json.loads((tmp_path / "r1.json").read_text()) == json.loads((tmp_path / "r2.json").read_text())


@pytest.mark.slow
def test_arena_acceptance_200_games(capsys):
    argv = ["arena", "xceter_o_v0", "heuristic", "random", "--games", "200", "--seed", "1", "--quiet"]
    _, out1, _ = run(argv + ["--workers", "1"], capsys)
    _, out2, _ = run(argv + ["--workers", "2"], capsys)
    assert out1 == out2


def _arena_records(env_id, capsys, tmp_path):
    n = make_game(env_id).num_players
    agents = ["heuristic"] + ["random"] * (n - 1)
    code, out, _ = run(["arena", env_id, *agents, "--games", "2", "--quiet", "--record-dir", str(tmp_path)], capsys)
    assert code == 0 and env_id in out
    files = sorted(tmp_path.glob("game_*.json"))
    assert [f.name for f in files] == ["game_00000.json", "game_00001.json"]
    return files


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_arena_records_and_replay_on_every_game(env_id, capsys, tmp_path):
    files = _arena_records(env_id, capsys, tmp_path)
    record = GameRecord.load(files[0])
    code, out, _ = run(["replay", str(files[0])], capsys)
    assert code == 0 and "result:" in out
    assert f"{len(record.history)}. " in out  # every action listed


def _check_gif(env_id, capsys, tmp_path):
    from PIL import Image

    files = _arena_records(env_id, capsys, tmp_path)
    record = GameRecord.load(files[0])
    gif = tmp_path / "game.gif"
    code, out, err = run(["replay", str(files[0]), "--gif", str(gif), "--quiet"], capsys)
    assert code == 0 and "frames written" in err
    with Image.open(gif) as image:
        frames = image.n_frames
    states = replay_states(record)
    assert 2 <= frames <= sum(not s.is_chance_node() for s in states)
    return record, frames


def test_replay_gif_has_a_frame_per_state(capsys, tmp_path):
    record, frames = _check_gif("xceter_o_v0", capsys, tmp_path)
    assert frames == len(record.history) + 1  # no chance: every state differs


@pytest.mark.slow
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_replay_gif_on_every_game(env_id, capsys, tmp_path):
    _check_gif(env_id, capsys, tmp_path)


def test_replay_shows_every_move_in_notation(capsys, tmp_path):
    state = make_game("xceter_o_v0").new_initial_state()
    for move in "a1 b1 b2 c1 c3".split():  # X completes the a1-b2-c3 diagonal
        state.apply_string(move)
    path = tmp_path / "state.json"
    path.write_text(state.to_json())  # a plain saved state replays too
    code, out, _ = run(["replay", str(path)], capsys)
    assert code == 0
    assert "1. player_0: a1" in out and "4. player_1: c1" in out and "5. player_0: c3" in out
    assert out.count("a   b   c") == 6  # the initial board and one per move
    assert "result: player_0 +1, player_1 -1" in out
    assert len(replay_states(GameRecord.load(path))) == 6


def test_tournament_writes_json_and_csv(capsys, tmp_path):
    code, out, err = run(["tournament", "xceter_o_v0", "random", "heuristic", "mcts:simulations=20", "--games", "2",
                          "--bootstrap", "20", "--out", str(tmp_path / "t.json"), "--csv", str(tmp_path / "t.csv"),
                          "--plot", str(tmp_path / "t.png")], capsys)
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # --plot without the extra: an error before any game
        assert code == 2 and "pip install 'fox_envs[plot]'" in err and not (tmp_path / "t.json").exists()
        return
    assert code == 0 and "cross table" in out and "ratings" in out
    data = json.loads((tmp_path / "t.json").read_text())
    assert len(data["ratings"]) == 3 and len(data["matches"]) == 3
    assert (tmp_path / "t.csv").read_text().startswith("agent,rating")
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_play_quit_and_bad_arguments(capsys, monkeypatch):
    code, out, _ = run(["play", "xceter_o_v0", "--seats", "human,random"], capsys, "quit\n", monkeypatch)
    assert code == 1 and "game abandoned" in out
    code, _, err = run(["play", "xceter_o_v0", "--seats", "human"], capsys)
    assert code == 2 and "has 2 seats" in err
    code, _, err = run(["arena", "no_such_game", "random", "random"], capsys)
    assert code == 2 and "unknown env id" in err
    code, _, err = run(["arena", "xceter_o_v0", "random", "bogus"], capsys)
    assert code == 2 and "unknown agent 'bogus'" in err
    code, _, err = run(["arena", "xceter_o_v0", "random", "random", "--param", "ordered_rows=3"], capsys)
    assert code == 2 and "ordered_rows" in err
    code, _, err = run(["replay", "/nonexistent/file.json"], capsys)
    assert code == 2 and "error:" in err


def test_bench_reports_steps_per_second(capsys):
    code, out, _ = run(["bench", "xceter_o_v0", "--steps", "300"], capsys)
    assert code == 0 and "xceter_o_v0" in out and "steps/s" in out


def test_parse_params():
    assert parse_params(["num_players=3", "ordered_rows=true", "x=True", 'layout=["a","b"]', "name=text"]) == {
        "num_players": 3, "ordered_rows": True, "x": True, "layout": ["a", "b"], "name": "text"}
    with pytest.raises(ValueError):
        parse_params(["novalue"])
