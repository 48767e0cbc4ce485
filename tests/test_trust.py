"""A policy file from someone else runs no code: only the package's trained agents are called,
with the file's data; pickles and other factories need ``trust_code=True`` / ``--trust-code``.

Each crafted file below did harm before (ran a command through a pickle, truncated or
overwrote a file, imported a module placed beside it); each is refused and leaves no trace.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fox_envs.agents import RandomAgent, load_policy, make_agent, save_policy, trusted
from fox_envs.agents.policy_files import TrustedSpec, data_factories
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import load_object, make_game
from fox_envs.ui.cli import main

FORMAT = "fox_envs.policy/1"
ROOT = Path(__file__).resolve().parents[1]


class Touches:
    """Unpickling it creates the file ``path`` (what a malicious pickle could do, harmlessly)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return open, (self.path, "w")


def first_legal_factory(env_id, seed=None, offset=0, arrays=None):
    """A factory of this module (for a file that names one: it needs trust)."""
    agent = RandomAgent(seed)
    agent.act = lambda state, player: state.legal_actions()[offset]
    return agent


@pytest.fixture
def crafted(tmp_path: Path) -> dict:
    """The attack files in ``others/`` and what they would touch."""
    others = tmp_path / "others"
    others.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    markers = {"pickle": tmp_path / "PICKLE_RAN", "helper": tmp_path / "HELPER_RAN"}
    with open(others / "weights.pkl", "wb") as handle:
        pickle.dump(Touches(str(markers["pickle"])), handle)
    (others / "helper.py").write_text(f"open({str(markers['helper'])!r}, 'w').write('ran')\n"
                                      "def make(**_):\n    return None\n")
    files = {
        "pickle via make_agent": {"factory": "fox_envs.agents:make_agent", "kwargs": {"spec": str(others / "weights.pkl")}},
        "truncate via logging": {"factory": "logging:basicConfig", "kwargs": {"filename": str(victim), "filemode": "w"}},
        "overwrite via save_policy": {"factory": "fox_envs.agents.registry:save_policy",
                                      "kwargs": {"path": str(victim), "factory": "a:b"}},
        "module beside the file": {"factory": "helper:make", "kwargs": {}},
    }
    paths = {}
    for k, (name, record) in enumerate(files.items()):
        paths[name] = others / f"attack{k}.json"
        paths[name].write_text(json.dumps({"format": FORMAT, **record}))
    paths["truncate via an npz"] = others / "attack.npz"
    np.savez(paths["truncate via an npz"], __format__=np.array(FORMAT), __factory__=np.array("logging:basicConfig"),
             __env_id__=np.array(""), __kwargs__=np.array(json.dumps({"filename": str(victim), "filemode": "w"})))
    paths["a pickle"] = others / "weights.pkl"
    return {"dir": others, "paths": paths, "victim": victim, "markers": markers}


def assert_untouched(crafted: dict) -> None:
    assert crafted["victim"].read_text() == "precious"
    assert not any(marker.exists() for marker in crafted["markers"].values())
    assert "helper" not in sys.modules


def test_crafted_files_are_refused_by_make_agent_and_load_policy(crafted, monkeypatch):
    monkeypatch.chdir(crafted["dir"])  # helper.py is in the current directory too
    for name, path in crafted["paths"].items():
        with pytest.raises(InvalidParameterError, match="trust_code=True") as error:
            make_agent(str(path), "xceter_o_v0", seed=0)
        assert "\n" not in str(error.value) and len(str(error.value)) < 400, name
        with pytest.raises(InvalidParameterError, match="--trust-code"):
            load_policy(path, "xceter_o_v0")
    assert_untouched(crafted)


def test_crafted_files_are_refused_by_the_command_line(crafted, monkeypatch, capsys):
    monkeypatch.chdir(crafted["dir"])
    for name, path in crafted["paths"].items():
        for command in (["arena", "xceter_o_v0", str(path), "random", "--games", "2", "--quiet"],
                        ["tournament", "xceter_o_v0", str(path), "random", "--games", "2", "--quiet"],
                        ["play", "xceter_o_v0", "--seats", f"{path},random", "--plain", "--seed", "0"]):
            assert main(command) == 2, (name, command[0])
            err = capsys.readouterr().err
            assert err.startswith("error: ") and err.count("\n") == 1 and "--trust-code" in err, (name, err)
    assert_untouched(crafted)


def test_python_m_fox_envs_runs_no_module_beside_the_file(crafted):
    """``python -m`` puts the current directory on sys.path: the allow-list still refuses it."""
    run = subprocess.run([sys.executable, "-m", "fox_envs", "arena", "xceter_o_v0",
                          str(crafted["paths"]["module beside the file"]), "random", "--games", "2", "--quiet"],
                         cwd=crafted["dir"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and "not one of the package's trained agents" in run.stderr, run.stderr
    assert_untouched(crafted)


def test_the_current_directory_is_not_added_to_sys_path(tmp_path, monkeypatch):
    (tmp_path / "fox_trust_probe.py").write_text("def make(**_):\n    return None\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    before = list(sys.path)
    with pytest.raises(ModuleNotFoundError):
        load_object("fox_trust_probe:make")
    assert sys.path == before and "fox_trust_probe" not in sys.modules
    with pytest.raises(InvalidParameterError, match="cannot load agent"):
        make_agent("fox_trust_probe:make", "xceter_o_v0")
    monkeypatch.syspath_prepend(str(tmp_path))  # on PYTHONPATH it is the user's own module: no opt-in
    with pytest.raises(InvalidParameterError, match="not an agent"):  # (it returns None)
        make_agent("fox_trust_probe:make", "xceter_o_v0")


def _q_table_policy(path: Path) -> Path:
    """A Q-table policy file written by the package's own save path."""
    from fox_envs.games.xceter_o.trained_q import QTable, save_q_table

    table = QTable()
    table.row(0)[4] = 1.0
    return save_q_table(table, path)


def test_a_saved_trained_policy_loads_from_another_directory(tmp_path, monkeypatch):
    from fox_envs.agents.learned import packaged_arrays

    saved = tmp_path / "saved"
    saved.mkdir()
    q_table = _q_table_policy(saved / "q.npz")
    learned = save_policy(saved / "outwit.npz", "fox_envs.agents.learned:make_learned", "outwit_v0",
                          arrays=packaged_arrays("outwit_v0"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    state = make_game("xceter_o_v0").new_initial_state()
    agent = make_agent(str(q_table), "xceter_o_v0", seed=0)
    assert type(agent).__name__ == "QAgent" and state.is_legal(agent.act(state, 0))
    assert type(make_agent(str(learned), "outwit_v0", seed=0)).__name__ == "OutwitLearned"
    # the same arrays under an old factory name and an old module path load through the same class
    with np.load(q_table) as data:
        arrays = {k: data[k] for k in ("keys", "values")}
    for old in ("examples.train_xceter_o_qlearning:load_agent", "fox_envs.agents.trained.xceter_o_q:load_agent"):
        path = save_policy(saved / "old.npz", old, "xceter_o_v0", arrays=arrays)
        assert type(load_policy(path, "xceter_o_v0")).__name__ == "QAgent"
    assert main(["arena", "xceter_o_v0", str(q_table), "random", "--games", "2", "--quiet"]) == 0


def test_data_factories_are_the_trained_agents():
    assert {"fox_envs.games.xceter_o.trained_q:load_agent", "fox_envs.games.bye_bye_mr_fox.trained_td:load_agent",
            "fox_envs.agents.learned:make_learned", "fox_envs.games.outwit.learned:make_learned"} <= data_factories()
    assert "fox_envs.agents.trained.sb3_policy:load_agent" not in data_factories()


def test_a_maskable_ppo_file_needs_trust_before_anything_loads(tmp_path):
    path = save_policy(tmp_path / "ppo.json", "fox_envs.agents.trained.sb3_policy:load_agent", "outfox_v0",
                       model=str(tmp_path / "missing.zip"))
    with pytest.raises(InvalidParameterError, match="Stable-Baselines3 model file, which is unpickled"):
        load_policy(path, "outfox_v0")
    with pytest.raises((InvalidParameterError, ImportError), match="does not exist|train"):
        load_policy(path, "outfox_v0", trust_code=True)  # trusted: the factory runs (and finds no model)


def test_a_data_file_may_carry_only_plain_kwargs(tmp_path):
    path = tmp_path / "q.json"
    for kwargs, message in (([1, 2], "kwargs must be an object"), ({"seed": 3}, "may not set seed"),
                            ({"env_id": "outwit_v0"}, "may not set env_id")):
        path.write_text(json.dumps({"format": FORMAT, "factory": "fox_envs.agents.learned:make_learned",
                                    "env_id": "outwit_v0", "kwargs": kwargs}))
        with pytest.raises(InvalidParameterError, match=message):
            load_policy(path, "outwit_v0")
    path.write_text(json.dumps({"format": FORMAT, "factory": "fox_envs.agents.learned:make_learned",
                                "env_id": "outwit_v0", "kwargs": {"colour": "red"}}))
    with pytest.raises(InvalidParameterError, match="failed: TypeError"):  # the class has no such option
        load_policy(path, "outwit_v0")


def test_trust_code_allows_a_pickle_and_a_module_factory(tmp_path):
    with open(tmp_path / "agent.pkl", "wb") as handle:
        pickle.dump(RandomAgent(0), handle)
    dict_pkl = save_policy(tmp_path / "dict.pkl", f"{__name__}:first_legal_factory", None, offset=1)
    factory_json = save_policy(tmp_path / "mine.json", f"{__name__}:first_legal_factory", "xceter_o_v0", offset=2)
    state = make_game("xceter_o_v0").new_initial_state()
    assert isinstance(make_agent(str(tmp_path / "agent.pkl"), "xceter_o_v0", seed=1, trust_code=True), RandomAgent)
    assert load_policy(dict_pkl, "xceter_o_v0", trust_code=True).act(state, 0) == 1
    assert make_agent(str(factory_json), "xceter_o_v0", trust_code=True).act(state, 0) == 2
    assert make_agent(trusted(str(factory_json)), "xceter_o_v0").act(state, 0) == 2  # the mark is the opt-in


def test_a_trusted_spec_stays_trusted():
    spec = trusted("  mine.pkl ")
    assert isinstance(str(spec), TrustedSpec) and isinstance(spec.strip(), TrustedSpec) and spec.strip() == "mine.pkl"
    copy = pickle.loads(pickle.dumps(spec))
    assert isinstance(copy, TrustedSpec) and copy == spec
    agent = RandomAgent(0)
    assert trusted(agent) is agent
    assert json.dumps([spec]) == json.dumps(["  mine.pkl "])


def test_trust_code_on_the_command_line(tmp_path, capsys):
    with open(tmp_path / "agent.pkl", "wb") as handle:
        pickle.dump(RandomAgent(0), handle)
    pkl = str(tmp_path / "agent.pkl")
    assert main(["arena", "xceter_o_v0", pkl, "random", "--games", "2", "--quiet"]) == 2
    assert "--trust-code" in capsys.readouterr().err
    # the opt-in reaches the worker processes
    assert main(["arena", "xceter_o_v0", pkl, "random", "--games", "2", "--quiet", "--workers", "2",
                 "--trust-code"]) == 0
    assert pkl in capsys.readouterr().out
    assert main(["tournament", "xceter_o_v0", pkl, "random", "--games", "2", "--quiet", "--bootstrap", "5",
                 "--trust-code"]) == 0
    assert pkl in capsys.readouterr().out
    assert main(["play", "xceter_o_v0", "--seats", f"{pkl},random", "--plain", "--seed", "0", "--trust-code"]) == 0
