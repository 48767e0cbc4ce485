"""The rules core itself, on a tiny chance game defined here (independent of the five games)."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs import CHANCE, TERMINAL, IllegalActionError, InvalidParameterError
from fox_envs.core.spec import GameSpec
from fox_envs.core import registry
from fox_envs.core.aec import FoxEnv, wrap
from fox_envs.core.game import Game, State, action_as_int, resolve_chance, sample_chance
from fox_envs.core.params import Param, int_range, one_of


class CoinGame(Game):
    """A chance node flips a biased coin (heads 0.75); then player_0 guesses it (0/1)."""

    name = "coin_test_v0"
    PARAMS = {"bias": Param(3, int_range(1, 9), "an integer 1..9 (heads weight out of 10... scaled)"),
              "mode": Param("a", one_of("a", "b"), "'a' or 'b'")}
    max_moves_default = 5

    def _setup(self) -> None:
        self.num_players, self.num_actions, self.observation_shape = 2, 2, (2,)

    def new_initial_state(self) -> "CoinState":
        return CoinState(self)


class CoinState(State):
    def __init__(self, game: CoinGame) -> None:
        super().__init__(game)
        self.coin = -1
        self.guess = -1

    def current_player(self) -> int:
        if self.coin < 0:
            return CHANCE
        return 0 if self.guess < 0 else TERMINAL

    def _legal_actions(self) -> list[int]:
        return [0, 1]

    def chance_outcomes(self):
        if self.coin >= 0:
            return []
        heads = self.game.params["bias"] / (self.game.params["bias"] + 1)
        return [(0, heads), (1, 1 - heads)]

    def _apply_action(self, action: int) -> None:
        if self.coin < 0:
            self.coin = action
        else:
            self.guess = action

    def returns(self) -> np.ndarray:
        if self.guess < 0:
            return np.zeros(2)
        sign = 1.0 if self.guess == self.coin else -1.0
        return np.array([sign, -sign])

    def observation_tensor(self, player: int) -> np.ndarray:
        return np.array([self.guess >= 0, 0], dtype=np.float32)

    def action_to_string(self, action: int) -> str:
        return ("flip " if self.coin < 0 else "guess ") + ("heads", "tails")[action]

    def _full_key(self):
        return (self.coin, self.guess)

    def __str__(self) -> str:
        return f"coin={self.coin} guess={self.guess}"


@pytest.fixture
def coin_registered(monkeypatch):
    entry = GameSpec("coin_test_v0", CoinGame, title="Coin", gym_id="Coin-v0")
    monkeypatch.setitem(registry.GAMES, "coin_test_v0", entry)
    yield


class CoinEnv(FoxEnv):
    game_id = "coin_test_v0"


def test_params_are_validated_with_named_errors():
    assert CoinGame().params == {"bias": 3, "mode": "a"}
    with pytest.raises(InvalidParameterError, match="bias.*allowed"):
        CoinGame(bias=0)
    with pytest.raises(InvalidParameterError, match="bias"):
        CoinGame(bias=2.0)
    with pytest.raises(InvalidParameterError, match="mode"):
        CoinGame(mode="c")
    with pytest.raises(InvalidParameterError, match="unknown parameter.*colour.*allowed parameters: bias, mode"):
        CoinGame(colour=1)
    assert CoinGame(bias=np.int64(4)).params["bias"] == 4


def test_chance_node_api_and_explicit_outcomes():
    state = CoinGame().new_initial_state()
    assert state.current_player() == CHANCE and state.is_chance_node()
    assert state.legal_actions() == [0, 1]
    assert state.chance_outcomes() == [(0, 0.75), (1, 0.25)]
    state.apply_action(1)  # the test drives chance explicitly
    assert state.current_player() == 0 and state.chance_outcomes() == []
    state.apply_action(1)
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]
    assert state.history() == [1, 1]


def test_sampled_chance_follows_the_probabilities():
    rng = np.random.default_rng(0)
    state = CoinGame().new_initial_state()
    draws = [sample_chance(state, rng) for _ in range(20000)]
    assert abs(np.mean(np.array(draws) == 0) - 0.75) < 0.015


def test_action_as_int_accepts_integers_only():
    assert action_as_int(3) == 3 and action_as_int(np.int8(2)) == 2 and action_as_int(np.array(5)) == 5
    for bad in (True, 1.0, float("nan"), None, "1", [1], np.array([1]), np.float32(1)):
        assert action_as_int(bad) is None


def test_messages_about_huge_or_unprintable_values_never_fail():
    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no repr")

    state = CoinGame().new_initial_state()
    state.apply_action(0)
    for bad, shown in [(10**5000, "int of about 5001 digits"), (Unprintable(), "Unprintable object"),
                       ("x" * 10**6, "'xxx")]:
        with pytest.raises(IllegalActionError, match=shown):
            state.apply_action(bad)
        with pytest.raises(IllegalActionError, match=shown):
            state.string_to_action(bad)
    with pytest.raises(IllegalActionError) as error:
        state.string_to_action("y" * 10**6)
    assert len(str(error.value)) < 300
    for bad in (10**5000, Unprintable()):
        with pytest.raises(InvalidParameterError, match="bad value .* for parameter 'bias'"):
            CoinGame(bias=bad)


def test_illegal_action_message_names_action_and_legal_moves():
    state = CoinGame().new_initial_state()
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match=r"action 7 is out of range 0..1; legal actions for player_0: 0 \(guess heads\)"):
        state.apply_action(7)
    with pytest.raises(IllegalActionError, match="malformed action 'x'"):
        state.apply_action("x")
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(0)


def test_clone_is_independent_and_equal():
    state = CoinGame().new_initial_state()
    state.apply_action(0)
    clone = state.clone()
    assert clone == state and clone.game is state.game
    clone.apply_action(1)
    assert state.history() == [0] and clone != state


def test_json_round_trip_and_notation(coin_registered):
    state = fox_envs.make_game("coin_test_v0", bias=5).new_initial_state()
    state.apply_string("flip tails")
    loaded = fox_envs.state_from_json(state.to_json())
    assert loaded == state and loaded.game.params["bias"] == 5
    assert loaded.string_to_action("guess heads") == 0


def test_env_resolves_chance_with_its_seed(coin_registered):
    coins = set()
    for seed in range(40):
        env = wrap(CoinEnv())
        env.reset(seed=seed)
        again = wrap(CoinEnv())
        again.reset(seed=seed)
        assert env.unwrapped.game_state.history() == again.unwrapped.game_state.history()
        assert env.agent_selection == "player_0"
        coins.add(env.unwrapped.game_state.coin)
    assert coins == {0, 1}


def test_env_rewards_and_leaving_agents(coin_registered):
    env = wrap(CoinEnv())
    env.reset(seed=1)
    coin = env.unwrapped.game_state.coin
    env.step(coin)  # guess right
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    seen = {}
    for agent in env.agent_iter():
        seen[agent] = env.last()[1]
        env.step(None)
    assert seen == {"player_0": 1.0, "player_1": -1.0} and env.agents == []


def test_resolve_chance_stops_at_players():
    state = CoinGame().new_initial_state()
    resolve_chance(state, np.random.default_rng(3))
    assert state.current_player() == 0 and len(state.history()) == 1


def test_public_names():
    for name in ("make", "make_game", "ENV_IDS", "state_from_json", "CHANCE", "TERMINAL",
                 "IllegalActionError", "InvalidParameterError"):
        assert hasattr(fox_envs, name)
    assert fox_envs.CHANCE == -1 and fox_envs.TERMINAL == -2
    assert issubclass(IllegalActionError, ValueError) and issubclass(InvalidParameterError, ValueError)
    with pytest.raises(InvalidParameterError, match="unknown env id 'chess_v0'; known ids: xceter_o_v0"):
        fox_envs.make("chess_v0")
