"""A time limit on each move (``move_time`` / ``--move-time``): an agent that takes longer loses
that game (a forfeit, counted and recorded) or stops the match (``on_timeout="error"``); a move
that never returns has its worker process killed and replaced, and nothing is left running.

Scenarios with hung agents run in a subprocess in its own session, with a timeout (a hang fails
the test, not the suite); after it ends, no process of that session may be left."""
from __future__ import annotations

import json
import os
import subprocess
import time

import numpy as np
import pytest
from python_runs import kill_group, run_in_session

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import make_game
from fox_envs.evaluation import MatchSettings, MoveTimeError, evaluate, play_game, replay_states
from fox_envs.evaluation import match as match_module
from fox_envs.evaluation.records import GameRecord

LIMIT = 120  # seconds: only a guard against a hang


def session_gone(pgid: int, wait: float = 10.0) -> bool:
    """Whether every process of the process group ``pgid`` has ended (within ``wait`` seconds)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def run_python(code: str = "", *args: str) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``python -c code`` (``python -m fox_envs args`` when code is empty) in its own session
    with the tests' folder importable; returns the result and the seconds it took. Fails the
    test if it hangs or leaves any process of its session running."""
    result, took, pgid = run_in_session(code, args, LIMIT)
    left = not session_gone(pgid)
    kill_group(pgid)
    assert not left, "processes of the run were still running after it ended"
    return result, took


# ----- settings and the default path ---------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1, "1", True, float("inf"), float("nan")])
def test_a_bad_move_time_is_refused(bad):
    with pytest.raises(InvalidParameterError, match="move_time"):
        MatchSettings(move_time=bad)


def test_a_bad_on_timeout_and_move_time_on_ray_are_refused():
    with pytest.raises(InvalidParameterError, match="on_timeout.*'forfeit', 'error'"):
        MatchSettings(on_timeout="ignore")
    with pytest.raises(InvalidParameterError, match="backend='process'"):
        MatchSettings(move_time=1, backend="ray")
    assert MatchSettings(move_time=2).move_time == 2.0 and MatchSettings().on_timeout == "forfeit"


def test_without_move_time_one_worker_plays_here_and_times_nothing(monkeypatch):
    def no_workers(*args, **kwargs):
        raise AssertionError("worker processes were started")

    monkeypatch.setattr(match_module, "run_parallel", no_workers)
    monkeypatch.setattr(match_module, "_timed_act", no_workers)
    result = evaluate("xceter_o_v0", ["heuristic", "random"], 4, seed=0)
    assert result.forfeits == 0 and result.move_time is None and "forfeits" not in result.summary()


class Slow:
    """Plays its first legal action after ``seconds`` (returns: a slow move, not a hung one)."""

    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def act(self, state, player):
        time.sleep(self.seconds)
        return state.legal_actions()[0]


class First:
    name = "first"

    def act(self, state, player):
        return state.legal_actions()[0]


def test_a_move_that_returns_too_late_forfeits_the_game_in_its_record():
    game = make_game("xceter_o_v0")
    record = play_game(game, [First(), Slow(0.05)], np.random.default_rng(0), 200, ["first", "slow"],
                       move_time=0.01, seed=0, game_index=7)
    assert record.forfeit == 1 and record.returns == [1.0, -1.0] and not record.truncated
    assert record.length == 1 and record.players == [0]  # the game ends at the late move, not played
    again = GameRecord.from_json(record.to_json())
    assert again.forfeit == 1 and len(replay_states(again)) == 2


def test_a_move_that_returns_too_late_raises_with_on_timeout_error():
    game = make_game("xceter_o_v0")
    with pytest.raises(MoveTimeError, match=r"game 7: agent 'slow' in seat 1 took more than 0.01 s") as caught:
        play_game(game, [First(), Slow(0.05)], np.random.default_rng(0), 200, ["first", "slow"],
                  move_time=0.01, on_timeout="error", game_index=7)
    error = caught.value
    assert (error.agent, error.seat, error.game_index, error.move_time) == ("slow", 1, 7, 0.01)


def test_forfeit_returns_follow_the_game():
    assert match_module.forfeit_returns(make_game("xceter_o_v0"), 0) == [-1.0, 1.0]
    assert match_module.forfeit_returns(make_game("outfox_v0", num_players=3), 1) == [0.5, -1.0, 0.5]
    cooperative = make_game("bye_bye_mr_fox_v0")
    assert match_module.forfeit_returns(cooperative, 0) == [-1.0] * cooperative.num_players


# ----- hung agents ------------------------------------------------------------------------------------
HUNG = """
import json, multiprocessing, time
from fault_agents import SleepingAgent, SpinningAgent
from fox_envs.evaluation import evaluate, replay_states
if __name__ == "__main__":
    start = time.monotonic()
    result = evaluate("xceter_o_v0", [{agent}(after=2), "random"], 6, seed=2, workers={workers}, move_time=0.5,
                      keep_records=True)
    took = time.monotonic() - start
    sleeper = {{r.game_index: r.agents.index("{name}") for r in result.records}}
    print(json.dumps({{"took": took, "forfeits": result.forfeits, "per_agent": [r.forfeits for r in result.results],
                      "records": [[r.game_index, r.forfeit, r.returns, r.length, len(replay_states(r)) - 1,
                                   len(r.history), sleeper[r.game_index]] for r in result.records],
                      "losses": result["{name}"].losses, "children": len(multiprocessing.active_children()),
                      "summary": result.summary(), "json": result.to_dict()["forfeits"]}}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("agent, name, workers", [("SleepingAgent", "sleeping", 1), ("SleepingAgent", "sleeping", 2),
                                                  ("SpinningAgent", "spinning", 1)])
def test_a_hung_agent_forfeits_and_its_worker_is_replaced(agent, name, workers):
    """A move that never returns (asleep, or spinning with SIGTERM ignored): its worker is
    killed and replaced, the game is a forfeit recorded with the moves played before it, and
    the other games are played."""
    done, took = run_python(HUNG.format(agent=agent, name=name, workers=workers))
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    records = data["records"]
    assert sorted(r[0] for r in records) == list(range(6)) and data["children"] == 0
    forfeited = [r for r in records if r[1] is not None]
    assert forfeited and data["forfeits"] == len(forfeited) == data["per_agent"][0] == data["json"]
    assert data["per_agent"][1] == 0 and data["losses"] >= data["forfeits"]
    for index, seat, returns, length, states, history, sleeper_seat in forfeited:
        assert seat == sleeper_seat and returns[seat] == -1.0 and returns[1 - seat] == 1.0
        assert states == history and length >= 1  # the moves before the forfeit replay
    assert f"forfeits {data['forfeits']} (move_time 0.5 s): {name} {data['forfeits']}, random 0" in data["summary"]
    assert took < 90, took


@pytest.mark.slow
def test_on_timeout_error_stops_the_match_naming_agent_seat_and_game():
    done, _ = run_python("""
        import multiprocessing
        from fault_agents import SleepingAgent
        from fox_envs.evaluation import MoveTimeError, evaluate
        if __name__ == "__main__":
            try:
                evaluate("xceter_o_v0", ["random", SleepingAgent(after=0)], 4, seed=0, move_time=0.3, on_timeout="error")
            except MoveTimeError as error:
                print(repr((str(error), error.agent, error.seat, error.game_index, len(multiprocessing.active_children()))))
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    message, agent, seat, game, children = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307  (our own output)
    assert (agent, seat, game, children) == ("sleeping", 1, 0, 0)
    assert message.startswith("game 0: agent 'sleeping' in seat 1 took more than 0.3 s for a move"), message


@pytest.mark.slow
def test_round_robin_counts_forfeits_per_agent_in_every_output(tmp_path):
    done, _ = run_python(f"""
        import json
        from fault_agents import SleepingAgent
        from fox_envs.evaluation import round_robin
        if __name__ == "__main__":
            result = round_robin("xceter_o_v0", ["random", SleepingAgent(after=1), "heuristic"], 2, seed=0,
                                 workers=2, move_time=0.3, bootstrap=10)
            result.save({str(tmp_path / "t.json")!r}, {str(tmp_path / "t.csv")!r})
            print(json.dumps({{"forfeits": result.forfeits, "summary": result.summary()}}))
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["forfeits"][0] == data["forfeits"][2] == 0 and data["forfeits"][1] > 0
    assert f"sleeping {data['forfeits'][1]}" in data["summary"]
    saved = json.loads((tmp_path / "t.json").read_text())
    assert saved["forfeits"] == {"random": 0, "sleeping": data["forfeits"][1], "heuristic": 0}
    assert saved["move_time"] == 0.3
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0].split(",")[-1] == "forfeits"
    assert {row.split(",")[0]: row.split(",")[-1] for row in rows[1:]}["sleeping"] == str(data["forfeits"][1])


@pytest.mark.slow
def test_cli_arena_with_a_sleeping_agent_finishes_reports_the_forfeits_and_leaves_no_process(tmp_path):
    out = tmp_path / "arena.json"
    done, took = run_python("", "arena", "xceter_o_v0", "fault_agents:sleeping", "random", "--move-time", "1",
                            "--games", "4", "--quiet", "--out", str(out), "--record-dir", str(tmp_path / "records"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "forfeits 4 (move_time 1 s): fault_agents:sleeping 4, random 0" in done.stdout, done.stdout
    data = json.loads(out.read_text())
    assert data["forfeits"] == 4 and data["results"][0]["forfeits"] == 4 and data["results"][0]["losses"] == 4
    records = [json.loads(path.read_text()) for path in sorted((tmp_path / "records").iterdir())]
    assert [r["forfeit"] for r in records] == [r["agents"].index("fault_agents:sleeping") for r in records]
    assert took < 60, took


@pytest.mark.slow
def test_cli_on_timeout_error_exits_1_naming_the_agent():
    done, _ = run_python("", "tournament", "xceter_o_v0", "random", "fault_agents:sleeping", "--move-time", "0.5",
                         "--on-timeout", "error", "--games", "2", "--quiet")
    assert done.returncode == 1, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: game 0: agent 'fault_agents:sleeping' in seat 1 took more than 0.5 s"), done.stderr
