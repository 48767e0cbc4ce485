"""``gymnasium.make_vec(id, n, opponent="heuristic")`` runs on the batched core.

Its episodes follow the semantics of ``FoxVectorEnv`` with the heuristic opponent: each row is
checked against a rules-core reference, every opponent move must be one of the Python
heuristic's best moves (exactly it when that move is unique), and the learner's observations,
masks, rewards, flags and final observations must be the reference's.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import fox_envs
from fox_envs.agents.registry import make_agent
from fox_envs.batch.env import batched_env_ids, has_batched_heuristic
from fox_envs.vector.batched import BatchVectorEnv
from fox_envs.core.registry import GAMES
from fox_envs.vector.process import FoxVectorEnv

CASES = [
    pytest.param("xceter_o_v0", {"opponent": "heuristic", "seat": 0}, id="XCeterO-seat0"),
    pytest.param("xceter_o_v0", {"opponent": "heuristic", "seat": 1, "ordered_rows": True}, id="XCeterO-seat1"),
    pytest.param("outwit_v0", {"opponent": "heuristic", "seat": 1, "max_moves": 60}, id="Outwit-seat1-truncated"),
    pytest.param("bye_bye_mr_fox_v0", {"opponent": "heuristic", "seat": 0}, id="ByeBye"),
    pytest.param("bye_bye_mr_fox_v0", {"opponent": ["heuristic", "random", "heuristic"], "num_players": 4, "seat": 1},
                 id="ByeBye-4-mixed"),
]


def gym_id(env_id: str) -> str:
    return "fox_envs/" + GAMES[env_id].gym_id


class Follower:
    """A rules-core reference of one row: replays the moves the batch made, checking each."""

    def __init__(self, env_id: str, game, seat: int, opponents: list[str]) -> None:
        self.game, self.seat = game, seat
        self.heuristic = make_agent("heuristic", env_id)
        others = [s for s in range(game.num_players) if s != seat]
        self.kinds = dict(zip(others, opponents * (len(others) // len(opponents))))
        self.state = game.new_initial_state()
        self.counts = {"unique": 0, "tied": 0}

    def follow(self, moves, learner_action: int | None = None) -> None:
        """Apply ``moves`` (the batch's history tail): chance outcomes, the learner's action, and
        the opponents' moves, each checked against the seat's rule."""
        state = self.state
        for move in [int(m) for m in moves]:
            player = state.current_player()
            if state.is_chance_node():
                assert move in dict(state.chance_outcomes())
            elif player == self.seat:
                assert move == learner_action, (move, learner_action)
                learner_action = None
            elif self.kinds[player] == "heuristic":
                best = self.heuristic.best_actions(state, player)
                assert move in best, (move, best, str(state))
                self.counts["unique" if len(best) == 1 else "tied"] += 1
            else:
                assert state.is_legal(move)
            state.apply_action(move)
        assert learner_action is None, "the learner's action was not played"

    def restart(self, moves) -> None:
        self.state = self.game.new_initial_state()
        self.follow(moves)


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_heuristic_opponents_play_inside_the_batch_as_the_python_heuristic(env_id, kwargs):
    env = gymnasium.make_vec(gym_id(env_id), num_envs=16, **kwargs)
    assert isinstance(env, BatchVectorEnv)
    seat = kwargs["seat"]
    opponents = kwargs["opponent"] if isinstance(kwargs["opponent"], list) else [kwargs["opponent"]]
    batch = env.batch
    arrays = batch._arrays
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=3)
    refs = [Follower(env_id, batch.game, seat, opponents) for _ in range(16)]
    for i, ref in enumerate(refs):
        ref.follow(arrays["hist"][i, :arrays["hlen"][i]])
    ended = truncated = 0
    for _ in range(60):
        for i, ref in enumerate(refs):
            np.testing.assert_array_equal(obs[i], ref.state.observation_tensor(seat))
            np.testing.assert_array_equal(infos["action_mask"][i], ref.state.legal_actions_mask())
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in infos["action_mask"]])
        obs, rewards, term, trunc, infos = env.step(actions)
        for i, ref in enumerate(refs):
            if term[i] or trunc[i]:
                done = len(ref.state.history())
                ref.follow(arrays["last_hist"][i, done:arrays["last_hlen"][i]], int(actions[i]))
                assert ref.state.is_terminal() == bool(term[i])
                want = ref.state.returns()[seat] if term[i] else 0.0
                assert rewards[i] == want
                assert infos["_final_obs"][i]
                np.testing.assert_array_equal(infos["final_obs"][i], ref.state.observation_tensor(seat))
                ended += 1
                truncated += bool(trunc[i])
                ref.restart(arrays["hist"][i, :arrays["hlen"][i]])
            else:
                ref.follow(arrays["hist"][i, len(ref.state.history()):arrays["hlen"][i]], int(actions[i]))
                assert rewards[i] == 0 and not infos.get("_final_obs", np.zeros(16, bool))[i]
    assert ended > 0
    if "max_moves" in kwargs:
        assert truncated > 0
    counts = {k: sum(r.counts[k] for r in refs) for k in ("unique", "tied")}
    assert counts["unique"] > 0
    env.close()


@pytest.mark.parametrize("env_id, seat", [("xceter_o_v0", 1), ("bye_bye_mr_fox_v0", 1), ("outwit_v0", 0)])
def test_rows_do_not_depend_on_num_envs(env_id, seat):
    """The first rows of 3 and of 40 envs with the same seed and learner actions are equal:
    heuristic ties come from each row's own stream whichever rows wait for an opponent."""
    small = BatchVectorEnv(env_id, 3, opponent="heuristic", seat=seat)
    large = BatchVectorEnv(env_id, 40, opponent="heuristic", seat=seat)
    a, info_a = small.reset(seed=8)
    b, info_b = large.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(80):
        np.testing.assert_array_equal(a, b[:3])
        np.testing.assert_array_equal(info_a["action_mask"], info_b["action_mask"][:3])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info_b["action_mask"]])
        a, ra, ta, _, info_a = small.step(actions[:3])
        b, rb, tb, _, info_b = large.step(actions)
        np.testing.assert_array_equal(ra, rb[:3])
        np.testing.assert_array_equal(ta, tb[:3])


def test_make_vec_routes_heuristic_opponents_to_the_batch_when_the_game_has_kernels():
    for env_id in batched_env_ids():
        env = gymnasium.make_vec(gym_id(env_id), num_envs=2, opponent="heuristic")
        assert isinstance(env, BatchVectorEnv if has_batched_heuristic(env_id) else FoxVectorEnv), env_id
        env.close()
    for env_id in ("xceter_o_v0", "outwit_v0", "bye_bye_mr_fox_v0"):
        assert has_batched_heuristic(env_id)
    mixed = gymnasium.make_vec(gym_id("bye_bye_mr_fox_v0"), num_envs=2, num_players=3,
                               opponent=["random", "heuristic"])
    assert isinstance(mixed, BatchVectorEnv)
    other = gymnasium.make_vec(gym_id("xceter_o_v0"), num_envs=2, opponent=["mcts"])
    assert isinstance(other, FoxVectorEnv)
    other.close()
    with pytest.raises(fox_envs.InvalidParameterError, match="opponents"):
        BatchVectorEnv("xceter_o_v0", 2, opponent="mcts")
    with pytest.raises(fox_envs.InvalidParameterError, match="2 opponents given for 1 other seats"):
        BatchVectorEnv("xceter_o_v0", 2, opponent=["heuristic", "random"])


def test_illegal_actions_end_the_episode_against_the_heuristic_too():
    env = BatchVectorEnv("xceter_o_v0", 4, opponent="heuristic", seat=1)
    _, infos = env.reset(seed=0)
    occupied = np.array([np.flatnonzero(m == 0)[0] for m in infos["action_mask"]])  # the heuristic took a square
    _, rewards, term, _, infos = env.step(occupied)
    assert term.all() and (rewards == -1).all() and infos["illegal_action"].all()
    assert (infos["action_mask"].sum(axis=1) == 8).all()  # a new game, the heuristic moved first
