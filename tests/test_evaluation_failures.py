"""Evaluation with workers that die or raise: a clear error at once, never a hang, and the
finished games kept. Each scenario runs in a subprocess with a timeout (a hang would fail the
test, not the suite) in its own session, killed with everything it started on a timeout."""
from __future__ import annotations

import json
import subprocess

import pytest
from python_runs import kill_group, run_in_session

LIMIT = 180  # seconds: only a guard against a hang, never a measured time


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``python -c code`` (or ``python -m fox_envs args`` when code is empty) with the tests'
    folder importable; its whole process group is killed once it ends or after LIMIT seconds."""
    result, _, pgid = run_in_session(code, args, LIMIT)
    kill_group(pgid)  # nothing it started may outlive it
    return result


EVALUATE = """
import json
from fault_agents import {agent}
from fox_envs.evaluation import WorkerLostError, evaluate
try:
    evaluate("xceter_o_v0", ["heuristic", {agent}(after={after})], 40, seed=3, workers=2, keep_records=True)
except WorkerLostError as error:
    p = error.partial
    print(json.dumps({{"message": str(error), "lost": error.lost_games, "unplayed": error.unplayed_games,
                      "partial_games": p.num_games, "partial_lost": p.lost_games,
                      "records": sorted(r.game_index for r in p.records), "balanced": p.seat_balanced}}))
else:
    print(json.dumps({{"message": "no error"}}))
"""


@pytest.mark.parametrize("agent, reason", [("KilledAgent", "signal SIGKILL"), ("ExitingAgent", "SystemExit(3)")])
def test_evaluate_raises_when_a_worker_dies(agent, reason):
    done = run_python(EVALUATE.format(agent=agent, after=25))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout.strip().splitlines()[-1])
    message = data["message"]
    assert reason in message and "xceter_o_v0" in message and "lost" in message
    assert data["lost"], message
    lost = set(data["lost"]) | set(data["unplayed"])
    assert set(data["records"]) | lost == set(range(40)) and not set(data["records"]) & lost
    assert data["partial_games"] == len(data["records"]) and data["partial_lost"] == sorted(lost)
    assert not data["balanced"]


def test_evaluate_reraises_an_agents_exception_with_its_type():
    done = run_python("""
        from fault_agents import RaisingAgent
        from fox_envs.evaluation import evaluate
        try:
            evaluate("xceter_o_v0", ["heuristic", RaisingAgent(after=5)], 20, seed=0, workers=2)
        except ZeroDivisionError as error:
            print("ZeroDivisionError", error, getattr(error, "__notes__", []))
    """)
    assert done.returncode == 0, done.stderr
    assert "ZeroDivisionError the agent divided by zero" in done.stdout and "while playing game" in done.stdout


def test_a_worker_that_cannot_start_is_an_error_not_a_hang(tmp_path):
    done = run_python("""
        from fox_envs.evaluation import WorkerLostError, evaluate
        from fox_envs.evaluation import match
        try:  # the worker's start-up fails: the parent checked the spec, the spawned process cannot import it
            match.run_parallel(match._init_worker, ("xceter_o_v0", {}, ["no_such_module_xyz:agent", "random"],
                               ["a", "b"], 0, 50, "permutations"), match._play_indexed, 8, 2, 2, print)
        except WorkerLostError as error:
            print("lost:", error)
    """)
    assert done.returncode == 0, done.stderr
    assert "lost: a worker process could not start" in done.stdout and "not played: games" in done.stdout


def test_round_robin_keeps_finished_games_and_names_the_lost_ones():
    done = run_python("""
        import json
        from fault_agents import KilledAgent
        from fox_envs.evaluation import WorkerLostError, round_robin
        try:
            round_robin("xceter_o_v0", ["random", "heuristic", KilledAgent(after=30)], 12, seed=0, workers=2,
                        bootstrap=10)
        except WorkerLostError as error:
            p = error.partial
            print(json.dumps({"message": str(error), "matches": [m.num_games for m in p.matches],
                              "lost": p.lost, "table": p.cross_table(), "summary": p.summary(),
                              "data": json.loads(p.to_json())["lost"]}))
    """)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert "match 1 (random vs killed)" in data["message"] and "signal SIGKILL" in data["message"]
    assert data["matches"][0] == 12 and len(data["matches"]) == 2  # match 0 complete, match 1 partial
    lost = {row["match"]: row["lost_games"] for row in data["lost"]}
    assert set(lost) == {1, 2} and lost[2] == list(range(12)) and lost[1]
    assert data["matches"][1] + len(lost[1]) == 12
    cell = data["table"]["random"]["heuristic"]
    assert cell["wins"] + cell["draws"] + cell["losses"] == 12
    cell = data["table"]["random"]["killed"]
    assert cell["wins"] + cell["draws"] + cell["losses"] == data["matches"][1]
    assert "PARTIAL RESULT: match 1" in data["summary"] and data["data"] == data["lost"]


@pytest.mark.parametrize("command", ["arena", "tournament"])
def test_cli_reports_lost_games_and_exits(command, tmp_path):
    out = tmp_path / "out.json"
    agents = ["heuristic", "fault_agents:killed"] if command == "arena" else ["random", "heuristic", "fault_agents:exiting"]
    done = run_python("", command, "xceter_o_v0", *agents, "--games", "12", "--workers", "2", "--quiet",
                      "--out", str(out))
    assert done.returncode == 1, done.stderr
    assert "error:" in done.stderr and "lost" in done.stderr and "Traceback" not in done.stderr
    assert "PARTIAL RESULT" in done.stdout
    data = json.loads(out.read_text())
    assert data.get("lost_games") or data.get("lost")
