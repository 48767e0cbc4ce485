"""fox_envs.integrations.openspiel with the real OpenSpiel (pyspiel).

The tests marked ``integration`` need the ``openspiel`` extra and run with
``python -m pytest -q -m integration``; the two import tests run in the default suite.

Every OpenSpiel state is held to an independent rules-core state replaying the same actions.
"""
from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fox_envs
from fox_envs.core.game import TERMINAL
from conftest import conformance_cases

integration = pytest.mark.integration

CASES = conformance_cases() + [
    pytest.param("bye_bye_mr_fox_v0", {"num_players": 3}, id="bye_bye_mr_fox_v0-num_players=3"),
    pytest.param("bye_bye_mr_fox_v0", {"num_players": 4}, id="bye_bye_mr_fox_v0-num_players=4"),
]


def adapter():
    from fox_envs.integrations import openspiel

    return openspiel


def random_action(state, rng: np.random.Generator) -> int:
    """A chance outcome with its probability, else a uniformly random legal action."""
    if state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        return int(rng.choice(actions, p=probabilities))
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


@integration
@pytest.mark.parametrize("env_id,params", CASES)
def test_random_sim_test(env_id: str, params: dict) -> None:
    import pyspiel

    game = adapter().load_game(env_id, **params)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


@integration
@pytest.mark.parametrize("env_id,params", CASES)
def test_states_agree_with_the_core_along_random_play(env_id: str, params: dict) -> None:
    import pyspiel

    game = adapter().load_game(env_id, **params)
    core_game = fox_envs.make_game(env_id, **params)
    assert game.num_players() == core_game.num_players
    assert game.num_distinct_actions() == core_game.num_actions
    assert game.observation_tensor_shape() == list(core_game.observation_shape)
    assert game.max_game_length() == core_game.max_moves_default
    limit = core_game.max_moves_default
    rng = np.random.default_rng(3)
    for _ in range(3):
        state, core = game.new_initial_state(), core_game.new_initial_state()
        decisions = 0
        while True:
            truncated = decisions == limit and not core.is_terminal()  # a draw at max_moves
            over = core.is_terminal() or truncated
            player = TERMINAL if truncated else core.current_player()
            assert state.current_player() == (pyspiel.PlayerId.TERMINAL if player == TERMINAL else player)
            assert state.is_terminal() == over
            assert state.legal_actions() == ([] if over else core.legal_actions())
            assert state.returns() == ([0.0] * core_game.num_players if truncated else list(core.returns()))
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert outcomes == core.chance_outcomes()
                assert math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-12)
            for p in range(core_game.num_players):
                expected = core.observation_tensor(p).ravel()
                np.testing.assert_array_equal(state.observation_tensor(p), expected)
                np.testing.assert_array_equal(state.information_state_tensor(p), expected)
                assert state.observation_string(p) == core.render_text(p)
            if over:
                break
            decisions += not core.is_chance_node()
            action = random_action(core, rng)
            state.apply_action(action)
            core.apply_action(action)
        assert state.history() == core.history()


@integration
def test_max_moves_ends_the_game_as_a_draw() -> None:
    game = adapter().load_game("outwit_v0", max_moves=7)
    assert game.max_game_length() == 7
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(7):
        assert not state.is_terminal()
        state.apply_action(random_action(state, rng))
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [0.0, 0.0]
    assert not state.core.is_terminal()  # the rules had not ended it
    before = state.core.history()
    with pytest.raises(fox_envs.IllegalActionError, match="max_moves"):
        state.apply_action(state.core.legal_actions()[0])
    assert state.core.history() == before == state.history()


@integration
def test_chance_events_do_not_count_towards_max_moves() -> None:
    game = adapter().load_game("bye_bye_mr_fox_v0", num_players=1, max_moves=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    decisions = 0
    while not state.is_terminal():
        decisions += not state.is_chance_node()
        state.apply_action(random_action(state, rng))
    chance_events = len(state.history()) - decisions
    assert decisions <= 3 and chance_events > decisions
    if not state.core.is_terminal():
        assert decisions == 3 and state.returns() == [0.0]


@integration
def test_game_types_say_what_the_games_are() -> None:
    import pyspiel

    Type = pyspiel.GameType
    openspiel = adapter()
    expected = {
        "xceter_o_v0": (Type.ChanceMode.DETERMINISTIC, Type.Information.PERFECT_INFORMATION, Type.Utility.ZERO_SUM),
        "outwit_v0": (Type.ChanceMode.DETERMINISTIC, Type.Information.PERFECT_INFORMATION, Type.Utility.ZERO_SUM),
        "outfox_v0": (Type.ChanceMode.DETERMINISTIC, Type.Information.PERFECT_INFORMATION, Type.Utility.ZERO_SUM),
        "bye_bye_mr_fox_v0": (Type.ChanceMode.EXPLICIT_STOCHASTIC, Type.Information.PERFECT_INFORMATION,
                              Type.Utility.IDENTICAL),
        "outfoxed_v0": (Type.ChanceMode.EXPLICIT_STOCHASTIC, Type.Information.IMPERFECT_INFORMATION,
                        Type.Utility.ZERO_SUM),
    }
    for env_id, (chance, information, utility) in expected.items():
        kind = openspiel.load_game(env_id).get_type()
        assert (kind.chance_mode, kind.information, kind.utility) == (chance, information, utility)
        assert kind.dynamics == Type.Dynamics.SEQUENTIAL
    three = openspiel.load_game("outfox_v0", num_players=3)
    assert (three.min_utility(), three.max_utility()) == (-0.5, 1.0)
    assert openspiel.load_game("outfox_v0").get_type().max_num_players == 3
    assert openspiel.load_game("bye_bye_mr_fox_v0").get_type().min_num_players == 1


def outfoxed_states(seed: int, count: int):
    """Some Outfoxed states of random games: decision states of several phases."""
    game = adapter().load_game("outfoxed_v0", max_rounds=2)
    rng = np.random.default_rng(seed)
    found = []
    state = game.new_initial_state()
    step = 0
    while len(found) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        if not state.is_chance_node() and step % 17 == 5:
            found.append(state.clone())
        state.apply_action(random_action(state, rng))
        step += 1
    return found


@integration
def test_outfoxed_views_do_not_change_when_only_hidden_facts_change() -> None:
    import pyspiel

    differing = 0
    for state in outfoxed_states(seed=5, count=25):
        player = state.current_player()
        first = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
        second = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(2, 0.0, 1.0))
        for sample in (first, second):
            assert sample.current_player() == player
            assert sample.legal_actions() == state.legal_actions()
            np.testing.assert_array_equal(sample.observation_tensor(player), state.observation_tensor(player))
            np.testing.assert_array_equal(sample.information_state_tensor(player),
                                          state.information_state_tensor(player))
            assert sample.observation_string(player) == state.observation_string(player)
            assert sample.information_state_string(player) == state.information_state_string(player)
        differing += str(first) != str(second)  # the full boards: the hidden facts redrawn
    assert differing >= 10


@integration
def test_outfoxed_information_state_string_hides_the_opponents_facts() -> None:
    game = adapter().load_game("outfoxed_v0")
    state = game.new_initial_state()
    for text in ("keep red", "keep red", "keep pink", "keep white", "keep white", "keep yellow"):
        state.apply_action(state.core.string_to_action(text))
    assert "keep white" in state.information_state_string(1)
    assert "keep white" not in state.information_state_string(0)
    assert "keep red" not in state.information_state_string(1)
    assert state.information_state_string(0).count("keep ?") == 3


def play_out(state, bot, seed: int) -> None:
    """Play ``state`` to its end: chance sampled, every decision by ``bot`` (legal, checked)."""
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        action = random_action(state, rng) if state.is_chance_node() else bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@integration
def test_mcts_bot_finishes_games() -> None:
    from open_spiel.python.algorithms import mcts

    openspiel = adapter()
    for env_id in ("xceter_o_v0", "bye_bye_mr_fox_v0"):
        game = openspiel.load_game(env_id)
        rs = np.random.RandomState(0)
        bot = mcts.MCTSBot(game, 1.4, 10, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
        state = game.new_initial_state()
        play_out(state, bot, seed=0)
        assert state.returns() == list(state.core.returns())


@integration
def test_ismcts_bot_finishes_an_outfoxed_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = adapter().load_game("outfoxed_v0", max_rounds=1)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.0, 8, random_state=rs)
    state = game.new_initial_state()
    play_out(state, bot, seed=0)
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


@integration
def test_rl_environment_runs_an_episode() -> None:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(adapter().load_game("outfox_v0"))
    step = env.reset()
    rng = np.random.default_rng(0)
    while not step.last():
        player = step.observations["current_player"]
        legal = step.observations["legal_actions"][player]
        step = env.step([int(rng.choice(legal))])
    assert sorted(step.rewards) in ([-1.0, 1.0], [0.0, 0.0])


@integration
def test_register_makes_pyspiel_load_game_work() -> None:
    import pyspiel

    adapter().register()
    adapter().register()  # twice is fine
    game = pyspiel.load_game("fox_outwit")
    assert game.get_type().short_name == "fox_outwit" and game.num_distinct_actions() == 8101
    three = pyspiel.load_game("fox_outfox(num_players=3)")
    assert three.num_players() == 3
    rounds = pyspiel.load_game("fox_outfoxed", {"max_rounds": 2, "max_moves": 50})
    assert rounds.max_game_length() == 50 and rounds.new_initial_state().core.game.max_rounds == 2
    layout = "three_hens-fox-black-white-brown-fox"
    fox = pyspiel.load_game("fox_bye_bye_mr_fox", {"layout": layout})
    assert fox.new_initial_state().core.game.params["layout"] == layout.split("-")
    assert adapter().load_game("bye_bye_mr_fox_v0", layout=layout.split("-")).get_parameters()["layout"] == layout


@integration
def test_bad_params_raise_clear_errors() -> None:
    import pyspiel

    openspiel = adapter()
    with pytest.raises(fox_envs.InvalidParameterError, match="num_players"):
        openspiel.load_game("outfox_v0", num_players=5)
    with pytest.raises(fox_envs.InvalidParameterError, match="max_moves"):
        openspiel.load_game("outfox_v0", max_moves=-3)
    with pytest.raises(fox_envs.InvalidParameterError, match="unknown env id"):
        openspiel.load_game("chess_v0")
    openspiel.register()
    with pytest.raises(fox_envs.InvalidParameterError, match="num_players"):
        pyspiel.load_game("fox_outfox(num_players=5)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("fox_outwit", {"board": 3})


# ----- imports (default suite: no OpenSpiel needed) ---------------------------------------------------
def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_importing_fox_envs_never_imports_pyspiel() -> None:
    result = run_python("""
        import sys
        import fox_envs, fox_envs.integrations
        fox_envs.make("outfoxed_v0").reset(seed=0)
        loaded = [name for name in ("pyspiel", "open_spiel") if name in sys.modules]
        assert not loaded, loaded
    """)
    assert result.returncode == 0, result.stderr


def test_missing_pyspiel_names_the_extra() -> None:
    result = run_python("""
        import sys
        sys.modules["pyspiel"] = None  # as if it were not installed
        try:
            import fox_envs.integrations.openspiel
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("imported without pyspiel")
    """)
    assert result.returncode == 0, result.stderr
    assert "pip install 'fox_envs[openspiel]'" in result.stdout


@integration
def test_example_runs_and_reports_win_rates(capsys) -> None:
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from examples.openspiel_mcts import main

    results = main(["--env", "xceter_o_v0", "--games", "2", "--simulations", "5"])
    record = results["xceter_o_v0"]["bot vs heuristic"]
    assert record["games"] == 2 and record["wins"] + record["draws"] + record["losses"] == 2
    assert "bot vs heuristic" in capsys.readouterr().out
