"""Evaluation: confidence intervals, seat rotation, reproducibility, truncation, records and
replay, ratings and tournaments, saved policies. Generic tests run on every registered id."""
from __future__ import annotations

import itertools
import json
import math
import pickle
import re

import numpy as np
import pytest

import fox_envs
from fox_envs.agents import RandomAgent, load_policy, make_agent, save_policy, trusted
from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.registry import make_game, state_from_json
from fox_envs.evaluation import (
    GameRecord, evaluate, fit_bradley_terry, mean_interval, rate, record_from_state, replay_states,
    round_robin, seat_rotations, wilson_interval,
)


def seats(env_id: str, params: dict | None = None) -> int:
    return make_game(env_id, **(params or {})).num_players


# ----- confidence intervals (values computed by hand) ----------------------------------------
def test_wilson_interval_known_values():
    # 8/10: p=0.8, z^2=3.8415, centre=(0.8+0.19207)/1.38415=0.71674,
    # half=1.96/1.38415*sqrt(0.016+0.0096037)=0.22658
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    # 0/10: centre = half = 0.19207/1.38415 = 0.13876 -> (0, 0.27753)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.27753, abs=1e-4)
    # 50/100: centre 0.5, half = 1.96/1.038415*sqrt(0.0025+0.00009604) = 0.09617
    low, high = wilson_interval(50, 100)
    assert (low, high) == (pytest.approx(0.40383, abs=1e-4), pytest.approx(0.59617, abs=1e-4))
    assert wilson_interval(10, 10)[1] == 1.0
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_mean_interval_known_values():
    # mean 3, s = sqrt(2.5) = 1.58114, half = 1.96 * 1.58114 / sqrt(5) = 1.38590
    mean, low, high = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3 and low == pytest.approx(1.61410, abs=1e-4) and high == pytest.approx(4.38590, abs=1e-4)
    assert mean_interval([0.5]) == (0.5, 0.5, 0.5)
    assert all(math.isnan(x) for x in mean_interval([]))
    assert mean_interval([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0)


# ----- seat rotation --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_seat_rotations_balance_every_seat(n):
    for rotation, count in (("permutations", math.factorial(n)), ("cyclic", n)):
        orders = seat_rotations(n, rotation)
        assert len(orders) == count and len(set(orders)) == count
        for agent, seat in itertools.product(range(n), range(n)):
            assert sum(order[seat] == agent for order in orders) == count // n


def _cases():
    cases = []
    for env_id in fox_envs.ENV_IDS:
        cases.append(pytest.param(env_id, {}, id=env_id))
    if "outfox_v0" in fox_envs.ENV_IDS:
        cases.append(pytest.param("outfox_v0", {"num_players": 3}, id="outfox_v0-3p"))
    return cases


@pytest.mark.parametrize("env_id,params", _cases())
def test_every_agent_plays_every_seat_equally(env_id, params):
    n = seats(env_id, params)
    specs = (["heuristic", "random", "random", "random"])[:n]
    games = math.factorial(n) if n <= 3 else n
    rotation = "permutations" if n <= 3 else "cyclic"
    result = evaluate(env_id, specs, games, seed=3, params=params, rotation=rotation, keep_records=True)
    assert result.seat_balanced
    for agent in result.results:
        assert agent.seat_games == [games // n] * n
        assert agent.games == games and agent.wins + agent.draws + agent.losses == games
    orders = seat_rotations(n, rotation)
    for index, record in enumerate(result.records):
        assert record.agents == [result.agents[k] for k in orders[index % len(orders)]]
        assert record.game_index == index and record.seed == 3
    assert sum(result.lengths) == sum(r.length for r in result.records)


def test_unbalanced_games_are_flagged():
    result = evaluate("xceter_o_v0", ["random", "random"], 3, seed=0)
    assert not result.seat_balanced
    assert result.agents == ["random", "random#2"]
    assert result.results[0].seat_games == [2, 1]


# ----- reproducibility ------------------------------------------------------------------------
def test_results_do_not_depend_on_workers():
    one = evaluate("xceter_o_v0", ["heuristic", "mcts:simulations=20"], 12, seed=7, workers=1, keep_records=True)
    two = evaluate("xceter_o_v0", ["heuristic", "mcts:simulations=20"], 12, seed=7, workers=2, keep_records=True)
    assert one.to_dict() == two.to_dict()
    assert [r.to_dict() for r in one.records] == [r.to_dict() for r in two.records]
    assert one.summary() == two.summary()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_results_do_not_depend_on_workers_on_every_game(env_id):
    specs = ["heuristic"] + ["random"] * (seats(env_id) - 1)
    one = evaluate(env_id, specs, 6, seed=11, workers=1, keep_records=True)
    two = evaluate(env_id, specs, 6, seed=11, workers=2, keep_records=True)
    assert [r.to_dict() for r in one.records] == [r.to_dict() for r in two.records]
    assert one.to_dict() == two.to_dict()


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_each_game_depends_only_on_seed_and_index(env_id):
    specs = ["random"] * seats(env_id)
    short = evaluate(env_id, specs, 2, seed=5, keep_records=True)
    longer = evaluate(env_id, specs, 3, seed=5, keep_records=True)
    assert [r.history for r in short.records] == [r.history for r in longer.records[:2]]
    other = evaluate(env_id, specs, 2, seed=6, keep_records=True)
    assert [r.history for r in other.records] != [r.history for r in short.records]


# ----- outcomes, truncation, cooperative games ------------------------------------------------
def test_truncated_games_are_counted_as_draws():
    # No X-Ceter-O line can exist before the fifth ply, so 4 decisions always truncate.
    result = evaluate("xceter_o_v0", ["random", "random"], 4, seed=0, max_moves=4, keep_records=True)
    assert result.truncations == 4 and result.mean_length == 4
    assert all(r.draws == 4 and r.wins == 0 for r in result.results)
    assert all(rec.truncated and rec.returns == [0.0, 0.0] and len(rec.history) == 4 for rec in result.records)


def test_heuristic_beats_random_in_xceter_o():
    result = evaluate("xceter_o_v0", ["heuristic", "random"], 20, seed=1)
    heuristic = result["heuristic"]
    assert heuristic.wins >= 18
    d = result.to_dict()["results"][0]
    assert d["win_rate_ci95"] == list(wilson_interval(heuristic.wins, 20))
    assert d["mean_return"] == pytest.approx(np.mean(heuristic.returns))


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_every_game_with_every_builtin_agent(env_id):
    n = seats(env_id)
    for spec in ("random", "heuristic", "mcts:simulations=4,rollout_limit=20"):
        result = evaluate(env_id, [spec] + ["random"] * (n - 1), 2 if n > 1 else 1, seed=0)
        data = result.to_dict()
        assert sum(r["games"] for r in data["results"]) == 2 * n if n > 1 else 1
        json.dumps(data)
        if not result.zero_sum:
            assert data["team"]["wins"] + data["team"]["losses"] == result.num_games


def test_one_agent_in_every_seat():
    result = evaluate("xceter_o_v0", ["heuristic"], 4, seed=2)
    (agent,) = result.results
    assert agent.games == 8 and agent.wins == agent.losses  # zero-sum self-play: each seat counted
    with pytest.raises(InvalidParameterError):
        evaluate("xceter_o_v0", ["random", "random", "random"], 2)
    with pytest.raises(InvalidParameterError):
        evaluate("xceter_o_v0", ["random", "nonsense"], 2)
    with pytest.raises(InvalidParameterError):
        evaluate("xceter_o_v0", ["random", "random"], 0)


# ----- records --------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_record_replay_round_trip(env_id, tmp_path):
    result = evaluate(env_id, ["random"] * seats(env_id), 2, seed=4, keep_records=True)
    for record in result.records:
        path = tmp_path / "game.json"
        record.save(path)
        loaded = GameRecord.load(path)
        assert loaded == record
        states = replay_states(loaded)
        assert len(states) == len(record.history) + 1
        final = states[-1]
        assert final.history() == record.history
        assert final == state_from_json(path.read_text())  # a record loads as a saved state too
        if not record.truncated:
            assert final.is_terminal() and list(final.returns()) == record.returns
        decisions = sum(p >= 0 for p in record.players)
        assert decisions == record.length
        for before, action, move, mover in zip(states, record.history, record.moves, record.players):
            assert before.action_to_string(action) == move and before.current_player() == mover


def test_replay_reproduces_every_state_of_a_notation_game():
    game = make_game("xceter_o_v0")
    state = game.new_initial_state()
    seen = [state.clone()]
    for move in "b2 a1 c3 a3 a2 c1 b1".split():
        state.apply_string(move)
        seen.append(state.clone())
    record = record_from_state(state, agents=["me", "you"])
    assert record.moves == "b2 a1 c3 a3 a2 c1 b1".split() and record.players == [0, 1, 0, 1, 0, 1, 0]
    replayed = replay_states(GameRecord.from_json(record.to_json()))
    assert replayed == seen


def test_tampered_records_are_rejected():
    game = make_game("xceter_o_v0")
    state = game.new_initial_state()
    for move in "b2 a1 c3".split():
        state.apply_string(move)
    data = record_from_state(state).to_dict()
    with pytest.raises(InvalidStateError, match="diverges at index 1"):
        replay_states(GameRecord.from_dict({**data, "moves": ["b2", "c1", "c3"]}))
    with pytest.raises(InvalidStateError, match="illegal"):
        replay_states(GameRecord.from_dict({**data, "history": [4, 4]}))
    with pytest.raises(InvalidStateError):
        GameRecord.from_json("{not json")
    with pytest.raises(InvalidStateError):
        GameRecord.from_dict({"game": "xceter_o_v0", "params": {}})


@pytest.mark.parametrize("change", [
    {"game": [1]}, {"game": 5}, {"params": None}, {"params": [1]}, {"params": {"env_id": 1}},
    {"params": {"self": 1}}, {"history": None}, {"history": [True]}, {"moves": 5}, {"moves": [1, 2]},
    {"moves": None}, {"players": "0"}, {"agents": [1]}, {"agents": "ab"}, {"seed": "x"}, {"game_index": 1.5},
    {"returns": ["1"]}, {"length": None}, {"truncated": "no"}, {"max_moves": []}, {"format": 1},
], ids=lambda change: json.dumps(change))
def test_malformed_records_raise_invalid_state_error(change, tmp_path, capsys):
    from fox_envs.ui.cli import main

    state = make_game("xceter_o_v0").new_initial_state()
    state.apply_string("b2")
    data = {**record_from_state(state, agents=["a", "b"]).to_dict(), **change}
    with pytest.raises(InvalidStateError):
        replay_states(GameRecord.from_dict(data))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_replay_of_unreadable_files_is_an_error_not_a_traceback(tmp_path, capsys):
    from fox_envs.ui.cli import main

    for name, content in [("deep.json", "[" * 100_000 + "]" * 100_000), ("null.json", "null"),
                          ("binary.json", b"\xff\xfe\x00"), ("bad.json", "{")]:
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(InvalidStateError):
            GameRecord.load(path)
        assert main(["replay", str(path)]) == 2, name
        assert capsys.readouterr().err.startswith("error: "), name


# ----- ratings and tournaments ----------------------------------------------------------------
def test_bradley_terry_recovers_a_known_rating_gap():
    # A beats B 3:1 -> gamma ratio 3 -> 400 * log10(3) = 190.85 Elo apart.
    ratings = fit_bradley_terry(np.array([[0, 300], [100, 0]]), np.array([[0, 400], [400, 0]]), prior=0)
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert ratings.sum() == pytest.approx(0, abs=1e-9)


def test_ratings_order_a_synthetic_result_set():
    names = ["C", "A", "B"]  # true strength A > B > C
    wins = np.zeros((3, 3), dtype=int)
    draws = np.zeros((3, 3), dtype=int)
    c, a, b = 0, 1, 2
    wins[a, b], wins[b, a] = 70, 25
    draws[a, b] = draws[b, a] = 5
    wins[b, c], wins[c, b] = 72, 28
    wins[a, c], wins[c, a] = 90, 10
    result = rate(names, wins, draws, bootstrap=100, seed=0)
    assert [row["name"] for row in result.to_list()] == ["A", "B", "C"]
    for row in result.to_list():
        assert row["ci95"][0] <= row["rating"] <= row["ci95"][1] and row["std_error"] > 0
    again = rate(names, wins, draws, bootstrap=100, seed=0)
    assert np.array_equal(again.ci_low, result.ci_low)


def test_perfect_records_stay_finite():
    ratings = fit_bradley_terry(np.array([[0, 10], [0, 0]]), np.array([[0, 10], [10, 0]]))
    assert np.all(np.isfinite(ratings)) and ratings[0] > ratings[1]


def test_round_robin_cross_table_and_outputs(tmp_path):
    result = round_robin("xceter_o_v0", ["random", "heuristic", "mcts:simulations=30"], 6, seed=1, bootstrap=50)
    assert len(result.matches) == 3
    ratings = {row["name"]: row["rating"] for row in result.ratings.to_list()}
    assert ratings["heuristic"] > ratings["random"] and ratings["mcts:simulations=30"] > ratings["random"]
    table = result.cross_table()
    for i, j in itertools.permutations(range(3), 2):
        cell = table[result.agents[i]][result.agents[j]]
        assert cell["wins"] + cell["draws"] + cell["losses"] == 6
        assert cell["wins"] == table[result.agents[j]][result.agents[i]]["losses"]
    result.save(tmp_path / "t.json", tmp_path / "t.csv")
    data = json.loads((tmp_path / "t.json").read_text())
    assert set(data["cross_table"]) == set(result.agents) and len(data["ratings"]) == 3
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0].startswith("agent,rating,std_error,ci_low,ci_high,score_vs_random") and len(rows) == 4


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_round_robin_on_every_game(env_id):
    n = seats(env_id)
    agents = ["random", "heuristic", "random"][: max(2, n)] if n <= 2 else ["random", "heuristic"] + ["random"] * (n - 1)
    result = round_robin(env_id, agents, 2, seed=0, bootstrap=10)
    data = json.loads(result.to_json())
    if result.zero_sum:
        assert len(data["ratings"]) == len(agents)
    else:
        assert len(data["team"]) == len(agents)
    assert result.to_csv().count("\n") == len(agents) + 1


def test_three_player_round_robin_rates_every_pair():
    if "outfox_v0" not in fox_envs.ENV_IDS:
        pytest.skip("outfox_v0 not registered")
    result = round_robin("outfox_v0", ["random", "heuristic", "random", "random"], 6,
                         params={"num_players": 3}, seed=0, bootstrap=10)
    assert len(result.matches) == 4  # C(4, 3) groups
    # every game yields 3 pairwise results: 4 groups * 6 games * 3 pairs
    assert (result.wins.sum() + result.draws.sum() / 2) == 4 * 6 * 3


# ----- saved policies -------------------------------------------------------------------------
class FirstLegal:
    name = "first-legal"

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset

    def act(self, state, player):
        legal = state.legal_actions()
        return legal[min(self.offset, len(legal) - 1)]


def first_legal_factory(env_id, seed=None, offset=0, arrays=None):
    agent = FirstLegal(offset if arrays is None else int(arrays["offset"][0]))
    agent.env_id = env_id
    return agent


def test_saved_policy_files(tmp_path):
    factory = f"{__name__}:first_legal_factory"
    state = make_game("xceter_o_v0").new_initial_state()
    json_path = save_policy(tmp_path / "p.json", factory, "xceter_o_v0", offset=2)
    npz_path = save_policy(tmp_path / "p.npz", factory, "xceter_o_v0", arrays={"offset": np.array([3])})
    pkl_path = save_policy(tmp_path / "p.pkl", factory, None, offset=4)
    for path, expected in ((json_path, 2), (npz_path, 3), (pkl_path, 4)):  # a factory of this module: trusted
        agent = make_agent(str(path), "xceter_o_v0", seed=0, trust_code=True)
        assert agent.act(state, 0) == expected and agent.env_id == "xceter_o_v0"
    with open(tmp_path / "obj.pkl", "wb") as handle:
        pickle.dump(RandomAgent(0), handle)
    assert isinstance(make_agent(str(tmp_path / "obj.pkl"), "xceter_o_v0", seed=1, trust_code=True), RandomAgent)
    with pytest.raises(InvalidParameterError, match="saved for xceter_o_v0"):
        load_policy(json_path, "outwit_v0")
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(InvalidParameterError, match="not a fox_envs.policy/1"):
        make_agent(str(tmp_path / "bad.json"), "xceter_o_v0")
    with pytest.raises(InvalidParameterError, match="does not exist"):
        make_agent(str(tmp_path / "missing.json"), "xceter_o_v0")
    result = evaluate("xceter_o_v0", [trusted(str(json_path)), "random"], 2, seed=0)
    assert result.agents == [str(json_path), "random"]


def test_agents_by_name_keep_their_old_behaviour():
    assert isinstance(make_agent("random", "xceter_o_v0", seed=1), RandomAgent)
    heuristic = make_agent("heuristic", "xceter_o_v0", seed=1)
    assert type(heuristic).__name__ == "XCeterOHeuristic"
    agent = RandomAgent(0)
    assert make_agent(agent, "xceter_o_v0") is agent
    assert make_agent(f"{__name__}:first_legal_factory", "xceter_o_v0").act(
        make_game("xceter_o_v0").new_initial_state(), 0) == 0
    with pytest.raises(InvalidParameterError):
        make_agent("no_such_agent", "xceter_o_v0")
    with pytest.raises(InvalidParameterError):
        make_agent("no.such.module:thing", "xceter_o_v0")


# ----- agents that return bad actions ---------------------------------------------------------
class ReturnsThis:
    """Plays the first legal action, except in its ``turn``-th decision of a game, where it
    returns ``bad``."""

    name = "returns-this"

    def __init__(self, bad, turn: int = 1) -> None:
        self.bad, self.turn, self.count = bad, turn, 0

    def reset(self, seed=None):
        self.count = 0

    def act(self, state, player):
        self.count += 1
        return self.bad if self.count == self.turn else state.legal_actions()[0]


BAD_ACTIONS = [9, -1, 0, "a1", None, 1.0, np.float32(2.0), [0]]  # 0: a1, taken by seat 0's first move


@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=lambda bad: f"{type(bad).__name__}-{bad}")
def test_a_bad_action_is_an_illegal_action_error_naming_agent_seat_and_game(bad):
    from fox_envs.evaluation import play_game

    game = make_game("xceter_o_v0")
    with pytest.raises(IllegalActionError) as caught:
        play_game(game, [FirstLegal(), ReturnsThis(bad)], np.random.default_rng(0), 50, names=["first", "bad"],
                  game_index=17)
    message = str(caught.value)
    assert "game 17, agent 'bad' in seat 1" in message and "legal actions for player_1" in message, message
    for workers in (1, 2):  # even games seat the bad agent in seat 1, odd ones in seat 0
        with pytest.raises(IllegalActionError) as caught:
            evaluate("xceter_o_v0", [FirstLegal(), ReturnsThis(bad)], 4, seed=0, workers=workers)
        message = str(caught.value)
        found = re.search(r"^game (\d+), agent 'returns-this' in seat (\d) returned an illegal action", message)
        assert found and int(found[2]) == 1 - int(found[1]) % 2, message
        assert workers == 2 or found[1] == "0"
