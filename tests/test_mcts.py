"""MCTS baseline: tactics in X-Ceter-O and Outfox positions set up by notation, the search hooks
(leaf evaluator, rollout policy, decisive moves, root safety, tree reuse, anchor), the game
knowledge in the games' ``knowledge`` modules checked against brute force on the rules, and
generic behaviour on every registered game (legal moves, no mutation, seeding, chance,
determinisation). A small measured strength test is marked slow."""
from __future__ import annotations

import random

import numpy as np
import pytest

import fox_envs
from fox_envs.agents import MCTSAgent, make_agent
from fox_envs.agents.mcts import search_defaults
from fox_envs.games.outfox.knowledge import OutfoxKnowledge, winning_turn
from fox_envs.games.outwit.knowledge import OutwitKnowledge
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, sample_chance
from fox_envs.core.registry import make_game
from conftest import play_random_states


def xceter_o(moves: str):
    state = make_game("xceter_o_v0").new_initial_state()
    for move in moves.split():
        state.apply_string(move)
    return state


def wins_now(state, action) -> bool:
    after = state.clone()
    mover = after.current_player()
    after.apply_action(action)
    return after.winner == mover


def safe_moves(state) -> list[str]:
    """Moves after which the opponent has no immediate win (brute force from the rules)."""
    safe = []
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal() or not any(wins_now(after, reply) for reply in after.legal_actions()):
            safe.append(state.action_to_string(action))
    return safe


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_takes_a_one_move_win(seed):
    # X1 a1, O2 c3, X3 b1, O4 b3: X5 on c1 completes a1-b1-c1; O threatens a3 (a3-b3-c3).
    state = xceter_o("a1 c3 b1 b3")
    assert state.current_player() == 0
    winning = [state.action_to_string(a) for a in state.legal_actions() if wins_now(state, a)]
    assert winning == ["c1"]
    agent = MCTSAgent(seed=seed, simulations=200)
    assert state.action_to_string(agent.act(state, 0)) == "c1"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_blocks_a_one_move_loss_in_placement(seed):
    # X1 a1, O2 b2, X3 c3, O4 a3: O threatens c1 (a3-b2-c1); X has no win now.
    state = xceter_o("a1 b2 c3 a3")
    assert not any(wins_now(state, a) for a in state.legal_actions())
    assert safe_moves(state) == ["c1"]
    agent = MCTSAgent(seed=seed, simulations=300)
    assert state.action_to_string(agent.act(state, 0)) == "c1"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_blocks_a_one_move_loss_by_a_jump(seed):
    # Movement phase: X3 (b2) must jump to c3, where O4 (c2) would complete a3-b3-c3.
    state = xceter_o("a1 c3 b2 c2 b1 a3 a2 b3")
    assert state.current_player() == 0 and state.next_piece() == 3
    assert not any(wins_now(state, a) for a in state.legal_actions())
    assert safe_moves(state) == ["c3"]
    agent = MCTSAgent(seed=seed, simulations=300)
    assert state.action_to_string(agent.act(state, 0)) == "c3"


def test_mcts_is_seeded_and_does_not_mutate():
    state = xceter_o("a1")
    before = state.clone()
    first = [MCTSAgent(seed=5, simulations=60).act(state, 1) for _ in range(2)]
    agent = MCTSAgent(seed=99, simulations=60)
    agent.reset(5)
    assert first[0] == first[1] == agent.act(state, 1)
    assert state == before and state.history() == before.history()


def test_mcts_clones_once_per_simulation(monkeypatch):
    state = xceter_o("a1 b2")
    calls = []
    original = type(state).clone

    def counting_clone(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(type(state), "clone", counting_clone)
    MCTSAgent(seed=0, simulations=37).act(state, 0)
    assert len(calls) == 37


def test_mcts_options_by_name():
    agent = make_agent("mcts:simulations=17,c=0.5,rollout_limit=3", "xceter_o_v0", seed=1)
    assert (agent.simulations, agent.c, agent.rollout_limit, agent.rollout) == (17, 0.5, 3, "random")
    heuristic_rollouts = make_agent("mcts:simulations=5,rollout=heuristic", "xceter_o_v0", seed=1)
    state = xceter_o("a1")
    assert heuristic_rollouts.act(state, 1) in state.legal_actions()
    for bad in ("mcts:simulations=0", "mcts:c=-1", "mcts:rollout=smart", "mcts:nonsense=1", "mcts:simulations",
                "mcts:evaluator=magic", "mcts:safety=2", "mcts:anchor=-1", "mcts:preset=fast"):
        with pytest.raises(InvalidParameterError):
            make_agent(bad, "xceter_o_v0")
    with pytest.raises(InvalidParameterError):  # X-Ceter-O has no leaf evaluator
        make_agent("mcts:evaluator=game", "xceter_o_v0")


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_mcts_by_name_uses_the_game_defaults(env_id):
    agent = make_agent("mcts", env_id, seed=0)
    for key, value in search_defaults(env_id).items():
        if key == "evaluator":
            assert (agent.evaluator is not None) == (value == "game")
        else:
            assert getattr(agent, key) == value, key
    overridden = make_agent("mcts:simulations=7,safety=false", env_id)
    assert (overridden.simulations, overridden.safety) == (7, False)
    plain = make_agent("mcts:preset=plain", env_id)
    assert (plain.simulations, plain.c, plain.rollout, plain.rollout_limit, plain.evaluator, plain.decisive,
            plain.safety, plain.reuse, plain.anchor) == (200, 1.4, "random", 200, None, False, False, False, 0.0)


# ----- hooks -------------------------------------------------------------------------------------
def test_leaf_evaluator_is_backed_up_for_the_mover():
    # rollout_limit=0: every new leaf is valued by the evaluator alone. It says the player who
    # just moved wins when its piece stands on b2 (the centre), loses otherwise.
    calls = []

    def value(state):
        calls.append(state.move_number())
        mover = (state.move_number() - 1) % 2
        result = np.full(2, -1.0)
        result[mover] = 1.0 if state.board[4] == state.move_number() else -1.0
        result[1 - mover] = -result[mover]
        return result

    state = xceter_o("a1")  # O to place piece 2
    agent = MCTSAgent(seed=0, simulations=40, rollout_limit=0, evaluator=value)
    assert state.action_to_string(agent.act(state, 1)) == "b2"
    assert calls and min(calls) == 2  # called on the leaves, never on the root


def test_evaluator_returning_none_lets_the_rollout_play_on():
    seen = []

    def value(state):  # only values positions after an even number of moves
        seen.append(state.move_number())
        return np.zeros(2) if state.move_number() % 2 == 0 else None

    state = xceter_o("a1")
    MCTSAgent(seed=0, simulations=30, rollout_limit=0, evaluator=value).act(state, 1)
    assert any(n % 2 for n in seen) and any(n % 2 == 0 for n in seen)


def test_rollout_policy_object_is_used():
    class FirstLegal:
        name = "first"

        def __init__(self):
            self.calls = 0

        def act(self, state, player):
            self.calls += 1
            return state.legal_actions()[0]

    policy = FirstLegal()
    agent = MCTSAgent(seed=0, simulations=20, rollout=policy)
    state = xceter_o("a1")
    assert agent.act(state, 1) in state.legal_actions() and policy.calls > 0 and agent.rollout == "first"


# A late Outfox position (player_1 to move, 18 placements): only TY@c3 has a slide completing a
# line (b2-a1, b2-c2 or b3-c4 each leave a line through c3); player_0 then has SR and TR left.
OUTFOX_WIN = ("CY@c4 CR@b3 c4-e2 CR@d3 e2-b1 SR@d2 d3-d4 TY@e1 d2-d1 CY@e3 d4-c5 SY@a1 b1-c1 SY@d4 c5-a3 "
              "SB@b1 a1-a2 CB@b2 b1-c2 CB@b1 c2-e2 TB@c4 d4-d3 TB@d4 c4-b4")


def outfox(moves: str, **params):
    state = make_game("outfox_v0", **params).new_initial_state()
    for move in moves.split():
        state.apply_string(move)
    return state


def turn_wins(state, action) -> bool:
    """Whether placing ``action`` lets the mover finish its turn with a win (brute force)."""
    after = state.clone()
    after.apply_action(action)
    return any(wins_now(after, slide) for slide in after.legal_actions())


def test_outfox_position_has_exactly_one_winning_placement():
    state = outfox(OUTFOX_WIN)
    assert state.current_player() == 1 and len(state.legal_actions()) == 18
    assert [state.action_to_string(a) for a in state.legal_actions() if turn_wins(state, a)] == ["TY@c3"]
    after = state.clone()
    after.apply_string("TY@c3")
    assert sorted(after.action_to_string(a) for a in after.legal_actions() if wins_now(after, a)) == [
        "b2-a1", "b2-c2", "b3-c4"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plain_search_backs_up_a_two_decision_turn_for_its_mover(seed):
    # No decisive check, random rollouts: the win is two tree levels deep, both played by
    # player_1, so the placement is only found if both levels back up player_1's return.
    state = outfox(OUTFOX_WIN)
    agent = MCTSAgent(seed=seed, simulations=300)
    action = agent.act(state, 1)
    assert state.action_to_string(action) == "TY@c3"
    state.apply_action(action)
    assert wins_now(state, agent.act(state, 1))


def test_decisive_plays_a_two_decision_win_without_search(monkeypatch):
    state = outfox(OUTFOX_WIN)
    agent = MCTSAgent(seed=0, simulations=5, decisive=True)
    monkeypatch.setattr(agent, "search", lambda *args: pytest.fail("searched although a win was known"))
    assert state.action_to_string(agent.act(state, 1)) == "TY@c3"
    assert agent.winning_action(xceter_o("a1 c3 b1 b3"), 0) == xceter_o("").string_to_action("c1")
    assert agent.winning_action(xceter_o("a1 b2 c3 a3"), 0) is None


def test_decisive_random_rollouts_take_a_win():
    from fox_envs.agents.mcts import _first_win

    state = xceter_o("a1 c3 b1 b3")
    c1 = state.string_to_action("c1")
    assert _first_win(state, 0, state.legal_actions(), state.string_to_action("a3")) == c1
    quiet = xceter_o("a1 b2 c3 a3")
    assert _first_win(quiet, 0, quiet.legal_actions(), 7) == 7


@pytest.mark.parametrize("moves", ["a1 b2 c3 a3", "a1 c3 b2 c2 b1 a3 a2 b3", "a1 c3 b1 b3", "a1 b2"])
def test_safe_actions_match_brute_force_xceter_o(moves):
    state = xceter_o(moves)
    agent = MCTSAgent(seed=0, safety=True)
    player = state.current_player()
    expected = safe_moves(state)
    assert [state.action_to_string(a) for a in agent.safe_actions(state, player)] == expected
    if len(expected) == 1:  # a single safe move is played without search
        assert state.action_to_string(MCTSAgent(seed=0, simulations=1, safety=True).act(state, player)) == expected[0]


def test_outfox_safety_hook_agrees_with_enumeration(monkeypatch):
    # The knowledge's wins_now answers what the generic enumeration finds, so the safe sets agree
    # (the enumeration gets an unlimited budget here).
    monkeypatch.setattr("fox_envs.agents.mcts.CHECK_BUDGET", 10**9)
    knowing = make_agent("mcts:simulations=1", "outfox_v0", seed=0)
    generic = MCTSAgent(seed=0, safety=True)
    assert knowing._wins_now is not None and generic._wins_now is None
    filtered = 0
    for state in _heuristic_states("outfox_v0", seed=3, every=4):
        if state.turns == 0:
            continue
        player = state.current_player()
        safe = knowing.safe_actions(state, player)
        assert safe == generic.safe_actions(state, player)
        filtered += len(safe) < len(state.legal_actions())
    assert filtered  # some positions had unsafe actions


def test_tree_reuse_keeps_the_subtree_of_the_same_turn():
    state = outfox(OUTFOX_WIN)
    agent = MCTSAgent(seed=0, simulations=200, reuse=True)
    state.apply_action(agent.act(state, 1))
    node = agent._reused_root(state)
    assert node is not None and node.visits > 0
    agent.reset(0)
    assert agent._reused_root(state) is None
    fresh = MCTSAgent(seed=0, simulations=50)
    assert fresh._reused_root(state) is None


def test_anchor_keeps_the_rollout_policy_move_unless_search_is_sure():
    from fox_envs.games.bye_bye_mr_fox.heuristic import ByeByeMrFoxHeuristic

    for state in _positions("bye_bye_mr_fox_v0", 6, seed=4):
        player = state.current_player()
        stubborn = make_agent("mcts:anchor=1000000,simulations=30", "bye_bye_mr_fox_v0", seed=9)
        assert stubborn.act(state, player) == ByeByeMrFoxHeuristic(seed=9).act(state, player)
    agent = MCTSAgent(seed=0, anchor=2.0)
    sure, unsure = _node(100, 0.9, 0.1), _node(100, 0.1, 0.1)
    assert agent._confidently_better(sure, unsure) and not agent._confidently_better(unsure, sure)
    assert not agent._confidently_better(_node(3, 0.5, 1.0), _node(3, 0.3, 1.0))
    assert agent._confidently_better(sure, None)


def _node(visits, mean, spread):
    """A root child with ``visits`` returns of mean ``mean`` and standard deviation ``spread``."""
    from fox_envs.agents.mcts import _Node

    node = _Node()
    node.visits = visits
    node.value = visits * mean
    node.square = visits * (mean * mean + spread * spread)
    return node


# ----- game knowledge (fox_envs/games/<game>/knowledge.py) against the rules ------------------------
def _heuristic_states(env_id: str, seed: int, every: int = 1, games: int = 2, **params):
    """Decision states of heuristic self-play games (clones), every ``every``-th one."""
    game = make_game(env_id, **params)
    found = []
    for g in range(games):
        players = [make_agent("heuristic", env_id, seed=seed + 10 * g + k) for k in range(game.num_players)]
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state()
        count = 0
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            if count % every == 0:
                found.append(state.clone())
            count += 1
            state.apply_action(players[player].act(state, player))
    return found


def _brute_wins_now(state) -> bool:
    """Whether the player to move can end its own turn with a win (enumerating the rules)."""
    mover = state.current_player()

    def search(s) -> bool:
        for action in s.legal_actions():
            after = s.clone()
            after.apply_action(action)
            if after.is_terminal():
                if after.returns()[mover] > 0:
                    return True
            elif after.current_player() == mover and search(after):
                return True
        return False

    return search(state)


@pytest.mark.parametrize("players", [2, 3])
def test_outfox_wins_now_matches_brute_force(players):
    knowledge = OutfoxKnowledge()
    states = [s.clone() for seed in range(1, 7)
              for s in play_random_states(make_game("outfox_v0", num_players=players), seed) if not s.is_terminal()]
    checked = sum(1 for s in states if knowledge.wins_now(s) == _brute_wins_now(s) or pytest.fail(str(s)))
    assert checked == len(states) and any(knowledge.wins_now(s) for s in states)


def test_outfox_winning_turn_is_a_real_win():
    state = outfox(OUTFOX_WIN)
    turn = winning_turn(state.board[:], sum(1 << t for t in range(9) if state.hands[1][t]))
    assert turn is not None
    t, p, frm, to = turn
    state.apply_action(t * 19 + p)
    state.apply_action(171 + frm * 19 + to)
    assert state.winner == 1
    assert winning_turn(outfox("CY@c4").board[:], 0b111111111) is None


@pytest.mark.parametrize("players", [2, 3])
def test_outfox_rollout_policy_is_legal_and_takes_wins(players):
    knowledge = OutfoxKnowledge()
    rng = random.Random(0)
    for seed in (5, 6):
        for state in play_random_states(make_game("outfox_v0", num_players=players), seed):
            if state.is_terminal():
                break
            assert knowledge.rollout_action(state.clone(), state.current_player(), rng) in state.legal_actions()
    state = outfox(OUTFOX_WIN)
    for seed in range(3):
        rng = random.Random(seed)
        after = state.clone()
        after.apply_action(knowledge.rollout_action(after, 1, rng))
        after.apply_action(knowledge.rollout_action(after, 1, rng))
        assert after.winner == 1


def test_outwit_knowledge():
    knowledge = OutwitKnowledge()
    start = make_game("outwit_v0").new_initial_state()
    value = knowledge.value(start)
    assert value.shape == (2,) and value[0] == -value[1] and 0 < value[0] < 0.5  # symmetric start, tempo
    checked = positive = 0
    for state in _heuristic_states("outwit_v0", seed=0, every=1):
        assert knowledge.wins_now(state) == _brute_wins_now(state)
        positive += knowledge.wins_now(state)
        v = knowledge.value(state)
        assert np.all(np.abs(v) <= 1) and v[0] == -v[1]
        if state.home[0] >= state.home[1] + 3:
            assert v[0] > 0
        checked += 1
    assert checked > 30 and positive > 0


def _positions(env_id: str, count: int, seed: int = 0):
    """A few decision states from one random game (params: defaults)."""
    game = make_game(env_id)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal() and len(found) < count:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if rng.random() < 0.3:
            found.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return found


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_mcts_plays_legal_moves_on_every_game(env_id, monkeypatch):
    positions = _positions(env_id, 2)
    assert positions
    imperfect = not positions[0].game.perfect_information
    calls = []
    if imperfect:  # determinisation: every simulation starts from sample_determinisation
        cls = type(positions[0])
        original = cls.sample_determinisation

        def spy(self, player, rng):
            calls.append(player)
            return original(self, player, rng)

        monkeypatch.setattr(cls, "sample_determinisation", spy)
    for state in positions:
        player = state.current_player()
        before = state.clone()
        agent = MCTSAgent(seed=3, simulations=8, rollout_limit=30)
        action = agent.act(state, player)
        assert action in state.legal_actions()
        assert state == before and state.history() == before.history()
        again = MCTSAgent(seed=3, simulations=8, rollout_limit=30).act(state, player)
        assert again == action
    if imperfect and any(len(s.legal_actions()) > 1 for s in positions):
        assert calls and set(calls) <= {s.current_player() for s in positions}


# ----- measured strength (slow) ------------------------------------------------------------------
@pytest.mark.slow
def test_mcts_defaults_beat_the_heuristic_outwit_and_outfox():
    from fox_envs.evaluation import evaluate

    outwit = evaluate("outwit_v0", ["mcts", "heuristic"], 6, seed=3, workers=1).to_dict()["results"][0]
    assert outwit["wins"] >= 5
    outfox = evaluate("outfox_v0", ["mcts:simulations=300", "heuristic"], 12, seed=3, workers=1).to_dict()["results"][0]
    assert outfox["wins"] >= 7
