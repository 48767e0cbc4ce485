"""Bad input gets a one-line message of bounded length and the right exception type, and nothing
is half done: no traceback from the command line (exit code 2), no game played before an output
path is found unusable, no key of a saved file silently dropped."""
from __future__ import annotations

import json

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from fox_envs.agents import load_policy, make_agent, save_policy
from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.params import short_repr
from fox_envs.core.registry import state_from_json
from fox_envs.evaluation import GameRecord, replay_states
from fox_envs.ui.cli import main

HUGE = 10**5000  # formatting it as decimal raises ValueError (Python's 4300-digit limit)


def one_line(message: str, limit: int = 400) -> None:
    assert "\n" not in message and len(message) < limit, message[:500]


def cli(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def fails_in_factory(env_id, seed=None):
    raise RuntimeError("the model server is down\nsecond line")


def returns_a_number(env_id, seed=None):
    return 42


# ----- agents made by name ---------------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("os:getcwd", "failed: TypeError"),
    (f"{__name__}:fails_in_factory", "failed: RuntimeError: the model server is down"),
    (f"{__name__}:returns_a_number", "returned 42, not an agent"),
])
def test_a_bad_agent_factory_is_an_invalid_parameter(spec, message, capsys):
    with pytest.raises(InvalidParameterError, match=message) as error:
        make_agent(spec, "xceter_o_v0")
    one_line(str(error.value))
    code, out, err = cli(["arena", "xceter_o_v0", spec, "random", "--games", "2", "--quiet"], capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


# ----- the batched core --------------------------------------------------------------------------
@pytest.mark.parametrize("name, kwargs", [
    ("num_envs", {"num_envs": HUGE}), ("max_moves", {"max_moves": HUGE}), ("auto_reset", {"auto_reset": HUGE}),
    ("num_envs", {"num_envs": 0}), ("threads", {"threads": HUGE}),
])
def test_batch_make_names_a_bad_huge_value(name, kwargs):
    arguments = {"num_envs": 2, **kwargs}
    with pytest.raises(InvalidParameterError, match=f"bad {name} ") as error:
        fox_envs.batch.make("xceter_o_v0", **arguments)
    one_line(str(error.value))


def test_batch_env_ids_and_rows_are_checked_with_bounded_messages():
    for env_id in (["outwit_v0"], "x" * 200_000, {"a": 1}):
        with pytest.raises(InvalidParameterError, match="unknown env id") as error:
            fox_envs.batch.make(env_id, 2)
        one_line(str(error.value))
    env = fox_envs.batch.make("xceter_o_v0", 2, seed=0)
    for row in (HUGE, -HUGE, 2):
        with pytest.raises(IndexError, match="out of range 0..1") as error:
            env.core_state(row)
        one_line(str(error.value))


def test_batch_step_names_a_huge_unsigned_action_as_given():
    env = fox_envs.batch.make("xceter_o_v0", 2, seed=0)
    before = env.observation.copy()
    actions = np.array([0, 2**64 - 1], np.uint64)
    with pytest.raises(IllegalActionError, match="row 1: xceter_o_v0: action 18446744073709551615 is out of range"):
        env.step(actions)
    assert np.array_equal(env.observation, before)  # nothing stepped
    rewards, _, _ = env.step(np.array([0, 1], np.uint64))  # small unsigned actions still play
    assert rewards.shape == (2, 2)


def test_short_repr_never_formats_a_huge_int():
    assert short_repr(HUGE) == "<int of about 5001 digits>"
    assert short_repr([HUGE]) == "<list of 1 items>"
    assert len(short_repr("y" * 200_000)) == 80


# ----- records and saved states ------------------------------------------------------------------
def _record() -> GameRecord:
    state = fox_envs.make_game("xceter_o_v0").new_initial_state()
    state.apply_action(4)
    from fox_envs.evaluation.records import record_from_state

    return record_from_state(state)


def test_a_replay_error_does_not_repeat_the_recorded_text():
    record = _record()
    record.moves = ["z" * 100_000]
    with pytest.raises(InvalidStateError, match="record diverges at index 0") as error:
        replay_states(record)
    one_line(str(error.value))
    record = _record()
    record.history, record.moves = [HUGE], []
    with pytest.raises(InvalidStateError, match="is illegal") as error:
        replay_states(record)
    one_line(str(error.value))


def test_a_saved_state_or_record_with_a_key_twice_is_refused(tmp_path, capsys):
    text = '{"game": "xceter_o_v0", "params": {}, "history": [4], "game": "outwit_v0"}'
    with pytest.raises(InvalidStateError, match="duplicate key 'game'") as error:
        state_from_json(text)
    one_line(str(error.value))
    nested = '{"game": "bye_bye_mr_fox_v0", "params": {"num_players": 2, "num_players": 4}, "history": []}'
    with pytest.raises(InvalidStateError, match="duplicate key 'num_players'"):
        state_from_json(nested)
    with pytest.raises(InvalidStateError, match="game record has a duplicate key 'history'"):
        GameRecord.from_json('{"game": "xceter_o_v0", "params": {}, "history": [4], "history": [0]}')
    path = tmp_path / "twice.json"
    path.write_text(text)
    code, out, err = cli(["replay", str(path)], capsys)
    assert code == 2 and out == "" and "duplicate key 'game'" in err
    assert state_from_json('{"game": "xceter_o_v0", "params": {}, "history": [4]}').history() == [4]


def test_a_policy_file_with_a_key_twice_is_refused(tmp_path):
    path = tmp_path / "q.json"
    path.write_text('{"format": "fox_envs.policy/1", "factory": "fox_envs.agents.learned:make_learned", '
                    '"env_id": "outwit_v0", "env_id": "xceter_o_v0", "kwargs": {}}')
    with pytest.raises(InvalidParameterError, match="duplicate key 'env_id'") as error:
        load_policy(path, "xceter_o_v0")
    one_line(str(error.value))
    npz = save_policy(tmp_path / "q.npz", "fox_envs.games.xceter_o.trained_q:load_agent", "xceter_o_v0",
                      arrays={"keys": np.zeros(1, np.int64), "values": np.zeros((1, 9))})
    with np.load(npz) as data:
        entries = {k: data[k] for k in data.files}
    entries["__kwargs__"] = np.array('{"margin": 1, "margin": 2}')
    np.savez(npz, **entries)
    with pytest.raises(InvalidParameterError, match="duplicate key 'margin'"):
        load_policy(npz, "xceter_o_v0")


# ----- command-line output paths and workers -----------------------------------------------------
# the summary (stdout) is printed after the games: an empty stdout means none was played
ARENA = ["arena", "xceter_o_v0", "heuristic", "random", "--games", "2000", "--quiet"]


def test_arena_checks_out_before_playing(tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    for bad, message in ((tmp_path / "missing" / "r.json", "is not a directory"),
                         (tmp_path / "a_file" / "r.json", "is not a directory"),
                         (tmp_path, "is a directory; give a file name")):
        code, out, err = cli(ARENA + ["--out", str(bad)], capsys)
        assert code == 2 and out == "" and err.startswith("error: --out ") and err.count("\n") == 1, err
        assert message in err


def test_arena_checks_record_dir_before_playing(tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    for bad, message in ((tmp_path / "a_file", "is a file, not a directory"),
                         (tmp_path / "a_file" / "records", "is not a directory")):
        code, out, err = cli(ARENA + ["--record-dir", str(bad)], capsys)
        assert code == 2 and out == "" and err.startswith("error: --record-dir ") and err.count("\n") == 1, err
        assert message in err
    made = tmp_path / "new" / "records"  # a directory that can be made still is
    code, _, err = cli(["arena", "xceter_o_v0", "random", "--games", "2", "--quiet", "--record-dir", str(made)], capsys)
    assert code == 0 and len(list(made.glob("game_*.json"))) == 2


@pytest.mark.parametrize("option", ["--out", "--csv", "--plot"])
def test_tournament_checks_its_output_paths_before_playing(option, tmp_path, capsys):
    argv = ["tournament", "xceter_o_v0", "heuristic", "random", "--games", "2000", "--quiet",
            option, str(tmp_path / "missing" / "t.out")]
    code, out, err = cli(argv, capsys)
    assert code == 2 and out == "" and f"{option} " in err and "is not a directory" in err, err


def test_replay_checks_the_gif_path_before_replaying(tmp_path, capsys):
    record = tmp_path / "game.json"
    _record().save(record)
    (tmp_path / "adir").mkdir()
    for gif, message in ((tmp_path / "adir", "--gif must name a .gif file"),
                         (tmp_path / "picture.png", "--gif must name a .gif file"),
                         (tmp_path / "missing" / "g.gif", "is not a directory")):
        code, out, err = cli(["replay", str(record), "--gif", str(gif)], capsys)
        assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    code, _, err = cli(["replay", str(record), "--gif", str(tmp_path / "g.GIF"), "--quiet"], capsys)
    assert code == 0 and (tmp_path / "g.GIF").exists()


def test_workers_beyond_the_cores_are_capped_with_a_note(capsys):
    from fox_envs.ui.cli import capped_workers

    cores = capped_workers(10**6, "process")
    capsys.readouterr()
    assert 1 <= cores < 10**6
    code, out, err = cli(["arena", "xceter_o_v0", "random", "--games", "2", "--quiet", "--workers", "100000"], capsys)
    assert code == 0 and "random" in out
    assert f"note: --workers 100000 is more than the {cores} cores here; using {cores}" in err
    assert f"with {cores} worker(s)" in err
    assert capped_workers(100000, "ray") == 100000  # a Ray cluster has its own cores
    assert capped_workers(1, "process") == 1 and capsys.readouterr().err == ""
