"""The X-Ceter-O solver and the ``perfect`` agent.

The tables are checked three ways: the move graph against the rules core, the optimality
equations on every reachable position (with the plies strictly decreasing along them this
certifies every win, loss and draw of the graph game), and the outcomes of real game states,
histories with repetitions included, against a brute-force search on the rules core with its
own threefold-repetition counting.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from fox_envs import make_game
from fox_envs.agents.base import RandomAgent
from fox_envs.agents.registry import make_agent
from fox_envs.games.xceter_o.solver import (
    MOVES, PIECES, WIN_SCORE, Outcome, XCeterOPerfect, _key_of, make_perfect, outcome_of,
    parent_score, retrograde, solver_for,
)
from fox_envs.core.errors import InvalidParameterError, InvalidStateError
from fox_envs.evaluation import evaluate

VARIANTS = [pytest.param(False, id="plain"), pytest.param(True, id="ordered_rows")]


# ----- helpers -----------------------------------------------------------------------------------
def forced(state, depth: int) -> int:
    """Brute force on the rules core: +1 if the player to move can force a win within ``depth``
    plies, -1 if the opponent can, 0 otherwise (a repetition draw ends a line as a draw)."""
    if state.is_terminal():
        return -1 if state.winner >= 0 else 0  # a winner is always the player who just moved
    if depth == 0:
        return 0
    all_lost = True
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        result = forced(child, depth - 1)
        if result == -1:
            return 1
        all_lost = all_lost and result == 1
    return -1 if all_lost else 0


def within(outcome: Outcome, depth: int) -> int:
    """What ``forced(state, depth)`` must say for a state of this outcome."""
    return outcome.value if outcome.value and outcome.plies <= depth else 0


def check_brute_force(solver, state, depth: int) -> Outcome:
    """The solver's outcome agrees with the brute force at ``depth`` and, for a win or loss
    within it, one ply short of its length (so the length is exact)."""
    outcome = solver.outcome(state)
    assert forced(state, depth) == within(outcome, depth), (str(state), outcome)
    if outcome.value and outcome.plies <= depth:
        assert forced(state, outcome.plies - 1) == 0, (str(state), outcome)
    return outcome


def base_outcome(solver, state) -> Outcome:
    """The outcome the empty-history table gives the state's position (repetitions ignored)."""
    graph = solver.graph
    position = graph.index(state.square_of[1:], state.ply % PIECES)
    children = np.append(solver.movement, -WIN_SCORE)[graph.kids[position]]
    return outcome_of(int(parent_score(children)))


def bfs_path(graph, sources, is_target) -> list[int]:
    """A shortest move path (positions) from one of ``sources`` to a position with
    ``is_target(positions) -> bool mask``."""
    parent = np.full(graph.size, -2, dtype=np.int64)
    frontier = np.unique(np.asarray(sources, dtype=np.int64))
    parent[frontier] = -1
    while frontier.size:
        hit = frontier[is_target(frontier)]
        if hit.size:
            path = [int(hit[0])]
            while parent[path[-1]] >= 0:
                path.append(int(parent[path[-1]]))
            return path[::-1]
        kids, sources_ = graph.children[frontier].ravel(), np.repeat(frontier, MOVES)
        keep = kids >= 0
        kids, sources_ = kids[keep], sources_[keep]
        fresh = parent[kids] == -2
        kids, first = np.unique(kids[fresh], return_index=True)
        parent[kids] = sources_[fresh][first]
        frontier = kids
    raise AssertionError("no path")


def moves_along(graph, path: list[int]) -> list[int]:
    return [int(graph.targets[a, list(graph.children[a]).index(b)]) for a, b in zip(path, path[1:])]


def state_at(solver, position: int):
    """A rules-core state at a movement position, reached by a real game from the start."""
    graph = solver.graph
    path = bfs_path(graph, solver.start_positions(), lambda f: f == position)
    state = solver.game.new_initial_state()
    for action in list(graph.squares(path[0])) + moves_along(graph, path):
        state.apply_action(action)
    return state


def cycle_moves(solver, position: int) -> list[int]:
    """The moves of a shortest cycle from ``position`` back to it."""
    graph = solver.graph
    before = (graph.children == position).any(axis=1)
    kids = graph.children[position]
    path = bfs_path(graph, kids[kids >= 0], lambda f: before[f])
    return moves_along(graph, [position] + path + [position])


def play(state, agents, limit: int = 1000):
    """Play ``state`` on to the end (agents by seat); returns the number of plies played."""
    plies = 0
    while not state.is_terminal() and plies < limit:
        player = state.current_player()
        state.apply_action(agents[player].act(state, player))
        plies += 1
    return plies


# ----- the tables ----------------------------------------------------------------------------------
@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_move_graph_and_repetition_keys_follow_the_rules_core(ordered_rows):
    solver = solver_for(ordered_rows)
    graph = solver.graph
    rng = np.random.default_rng(3)
    checked = 0
    for game_index in range(40):
        state = solver.game.new_initial_state()
        while not state.is_terminal() and state.ply < 60:
            if state.ply >= PIECES:
                position = graph.index(state.square_of[1:], state.ply % PIECES)
                assert graph.squares(position) == tuple(state.square_of[1:])
                assert list(graph.targets[position]) == state.legal_actions()
                for child, target in zip(graph.children[position], graph.targets[position]):
                    after = state.clone()
                    mover = after.current_player()
                    after.apply_action(int(target))
                    assert (child < 0) == (after.winner == mover)
                    if child >= 0:
                        assert child == graph.index(after.square_of[1:], after.ply % PIECES)
                        assert after.seen[_key_of(graph.squares(child), int(child) % PIECES)] >= 1
                checked += 1
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 200


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_every_reachable_position_satisfies_the_optimality_equations(ordered_rows):
    """score = max over moves of (sign(child) - child): a win in n has a move to a loss in
    n - 1 and none better, a loss in n only moves to wins, the slowest in n - 1, a draw no move
    to a loss and one to a draw. With plies decreasing along every win and loss this admits
    only the true values."""
    solver = solver_for(ordered_rows)
    reach = solver.reachable()
    children = np.append(solver.movement, -WIN_SCORE)[solver.graph.kids[reach]]
    assert np.array_equal(solver.movement[reach], parent_score(children))
    assert not solver.graph.over[reach].any()
    scores = solver.movement[reach]
    wins, losses = scores[scores > 0], scores[scores < 0]
    assert ((WIN_SCORE - wins) % 2 == 1).all() and ((losses + WIN_SCORE) % 2 == 0).all()
    assert (losses + WIN_SCORE >= 2).all()
    counts = solver.counts()
    assert counts["movement"] == reach.sum() == counts["wins"] + counts["draws"] + counts["losses"]


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_placement_tables_follow_the_moves(ordered_rows):
    """The placement positions' scores are the best of their moves, read from the next layer
    (a move completing the mover's line scores a win in 1)."""
    solver = solver_for(ordered_rows)
    rng = np.random.default_rng(5)
    for _ in range(40):
        state = solver.game.new_initial_state()
        while not state.is_terminal() and state.ply < PIECES:
            outcomes = solver.action_outcomes(state)
            assert set(outcomes) == set(state.legal_actions())
            for action, outcome in outcomes.items():
                after = state.clone()
                after.apply_action(action)
                if after.winner >= 0:
                    assert outcome == Outcome(1, 1)
                else:
                    reply = solver.outcome(after)
                    assert outcome == (Outcome(-reply.value, reply.plies + 1) if reply.value else reply)
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_start_values():
    """Both variants are a forced win for player_0 (the numbers in docs/rules/xceter_o.md)."""
    assert solver_for(False).start_outcome() == Outcome(1, 13)
    assert solver_for(True).start_outcome() == Outcome(1, 17)
    for ordered_rows, plies in ((False, 13), (True, 17)):
        state = make_game("xceter_o_v0", ordered_rows=ordered_rows).new_initial_state()
        agents = [XCeterOPerfect(seed=1), XCeterOPerfect(seed=2)]
        assert play(state, agents) == plies and state.winner == 0
        assert max(state.seen.values()) == 1


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_draws_on_entry_resolved_locally_equal_a_full_solve(ordered_rows):
    solver = solver_for(ordered_rows)
    reach = solver.reachable()
    decisive = np.flatnonzero(reach & (solver.movement != 0))
    short = np.flatnonzero(reach & (np.abs(solver.movement) > WIN_SCORE - 6))
    rng = np.random.default_rng(11)
    for trial in range(3):
        draws = np.unique(np.concatenate([rng.choice(decisive, 20), rng.choice(short, 10 * trial)]))
        quick = solver.resolver.scores_with(draws)
        assert np.array_equal(quick[reach], retrograde(solver.graph, draws)[reach])
        assert (quick[reach] != solver.movement[reach]).any()


# ----- against the brute force under the real history rule ---------------------------------------
@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_outcomes_match_brute_force_near_the_end(ordered_rows):
    """Real games (each move random or perfect), every movement-phase state checked: the exact
    length of wins and losses within 7 plies, nothing forced within 7 otherwise."""
    solver = solver_for(ordered_rows)
    rng = np.random.default_rng(17)
    perfect, random_agent = XCeterOPerfect(seed=1), RandomAgent(2)
    seen_values = set()
    for _ in range(12):
        state = solver.game.new_initial_state()
        while not state.is_terminal():
            if state.ply >= PIECES:
                outcome = check_brute_force(solver, state, 7)
                seen_values.add((outcome.value, outcome.value != 0 and outcome.plies <= 7))
            agent = perfect if rng.random() < 0.6 else random_agent
            state.apply_action(agent.act(state, state.current_player()))
    assert {(1, True), (-1, True)} <= seen_values


def repetition_states(solver, seed: int, cycles: int) -> list:
    """States on the second lap of a shortest cycle through a position with a short win or
    loss, reached by a real game: their histories hold positions seen twice (fresh copies)."""
    return [state.clone() for state in _repetition_states(solver.ordered_rows, seed, cycles)]


@functools.lru_cache(maxsize=None)
def _repetition_states(ordered_rows: bool, seed: int, cycles: int) -> tuple:
    solver = solver_for(ordered_rows)
    found = []
    reach = solver.reachable()
    near = np.flatnonzero(reach & (np.abs(solver.movement) > WIN_SCORE - 6))
    rng = np.random.default_rng(seed)
    for position in rng.choice(near, cycles, replace=False):
        state = state_at(solver, int(position))
        moves = cycle_moves(solver, int(position))
        for action in moves + moves[:-1]:
            state.apply_action(action)
            if state.is_terminal():  # the path to the cycle crossed it: a third occurrence
                break
            if max(state.seen.values()) == 2:
                found.append(state.clone())
    return tuple(found)


def changed_outcomes_checked(ordered_rows: bool, seed: int, cycles: int, depth: int) -> int:
    """Checks every repetition state against the brute force; returns how many of them have
    an outcome other than the one the empty-history table gives."""
    solver = solver_for(ordered_rows)
    changed = 0
    for state in repetition_states(solver, seed, cycles):
        changed += check_brute_force(solver, state, depth) != base_outcome(solver, state)
    return changed


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_repetitions_match_brute_force(ordered_rows):
    """With positions seen twice the outcome can change (a win becomes a draw or takes longer,
    a loss is escaped); the brute force on the rules core agrees every time."""
    assert changed_outcomes_checked(ordered_rows, seed=4, cycles=3, depth=7) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_repetitions_match_brute_force_many(ordered_rows):
    assert changed_outcomes_checked(ordered_rows, seed=40, cycles=25, depth=8) >= 5


# ----- the perfect agent ---------------------------------------------------------------------------
def test_perfect_never_loses_from_the_start_against_random_and_heuristic():
    """Seats rotated (as player_1 the start is lost: these opponents never find the win)."""
    for opponent in ("random", "heuristic"):
        result = evaluate("xceter_o_v0", ["perfect", opponent], 20, seed=3)
        assert result["perfect"].losses == 0 and result["perfect"].wins == 20


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_perfect_as_player_0_always_wins(ordered_rows):
    """The start is a forced win for player_0 in both variants: the agent takes it against
    anything, within the solved length."""
    game = make_game("xceter_o_v0", ordered_rows=ordered_rows)
    plies = solver_for(ordered_rows).start_outcome().plies
    for index, opponent in enumerate(["random", "heuristic", "mcts", "random", "heuristic"]):
        state = game.new_initial_state()
        assert play(state, [XCeterOPerfect(seed=index), make_agent(opponent, "xceter_o_v0", seed=index)]) <= plies
        assert state.winner == 0


def check_keeps_its_value(ordered_rows: bool, opponent: str, seed: int, limit: int = 400) -> None:
    """One game, the perfect agent in seat ``seed % 2``: its exact value at each of its turns
    never goes down (it keeps what it has and takes what the opponent gives) and the result
    is at least the last of them (a win is won)."""
    solver = solver_for(ordered_rows)
    seat = seed % 2
    agents = [None, None]
    agents[seat], agents[1 - seat] = XCeterOPerfect(seed=seed), make_agent(opponent, "xceter_o_v0", seed=seed)
    state = solver.game.new_initial_state()
    values = []
    while not state.is_terminal() and len(state.history()) < limit:
        player = state.current_player()
        if player == seat:
            values.append(solver.outcome(state).value)
        state.apply_action(agents[player].act(state, player))
    assert values == sorted(values), values
    result = state.returns()[seat] if state.is_terminal() else 0
    assert result >= values[-1] and (values[-1] < 1 or state.winner == seat)


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_perfect_keeps_its_value_against_every_baseline(ordered_rows):
    for seed, opponent in enumerate(["random", "heuristic", "mcts"] * 2):
        check_keeps_its_value(ordered_rows, opponent, seed)


@pytest.mark.slow
def test_perfect_never_loses_from_the_start_many():
    for opponent in ("random", "heuristic"):
        result = evaluate("xceter_o_v0", ["perfect", opponent], 300, seed=8, workers=2)
        assert result["perfect"].losses == 0
    for ordered_rows in (False, True):
        for seed in range(30):
            check_keeps_its_value(ordered_rows, "mcts", seed)


@pytest.mark.parametrize("ordered_rows", VARIANTS)
def test_perfect_converts_wins_in_the_solved_length(ordered_rows):
    """From won positions (real histories) the agent wins against the perfect defender in
    exactly the solved number of plies, and against random play in at most that many."""
    solver = solver_for(ordered_rows)
    reach = solver.reachable()
    won = np.flatnonzero(reach & (solver.movement > 0))
    rng = np.random.default_rng(23)
    for index, position in enumerate(rng.choice(won, 6, replace=False)):
        start = state_at(solver, int(position))
        outcome = solver.outcome(start)
        mover = start.current_player()
        for defender in (XCeterOPerfect(seed=index), RandomAgent(index)):
            state = start.clone()
            agents = [None, None]
            agents[mover], agents[1 - mover] = XCeterOPerfect(seed=index), defender
            plies = play(state, agents)
            assert state.winner == mover
            assert plies == outcome.plies if isinstance(defender, XCeterOPerfect) else plies <= outcome.plies


def test_perfect_keeps_wins_through_repetitions():
    """Where positions seen twice block the plain winning line, the agent still wins when the
    exact outcome is a win (never walking into the third occurrence), in the exact length."""
    converted = changed = 0
    for ordered_rows in (False, True):
        solver = solver_for(ordered_rows)
        for state in repetition_states(solver, seed=4, cycles=3):
            outcome = solver.outcome(state)
            if outcome.value != 1:
                continue
            changed += outcome != base_outcome(solver, state)
            mover = state.current_player()
            agents = [XCeterOPerfect(seed=1), XCeterOPerfect(seed=2)]
            assert play(state, agents) == outcome.plies and state.winner == mover
            converted += 1
    assert converted >= 10 and changed >= 1


def test_perfect_ties_are_seeded_or_first():
    state = make_game("xceter_o_v0").new_initial_state()
    first = [XCeterOPerfect(seed=s, ties="first").act(state, 0) for s in range(5)]
    assert len(set(first)) == 1
    seeded = [XCeterOPerfect(seed=7).act(state, 0) for _ in range(3)]
    assert len(set(seeded)) == 1
    best = {a for a, o in solver_for(False).action_outcomes(state).items() if o == Outcome(1, 13)}
    picks = {XCeterOPerfect(seed=s).act(state, 0) for s in range(30)}
    assert picks <= best and len(picks) > 1


def test_bad_use_gives_clear_errors():
    with pytest.raises(InvalidParameterError, match="only for xceter_o_v0"):
        make_agent("perfect", "outwit_v0")
    with pytest.raises(InvalidParameterError, match="only for xceter_o_v0"):
        make_perfect(env_id="outfox_v0")
    with pytest.raises(InvalidParameterError, match="ties"):
        make_agent("perfect:ties=best", "xceter_o_v0")
    assert isinstance(make_agent("perfect", "xceter_o_v0", seed=1), XCeterOPerfect)
    ordered = make_game("xceter_o_v0", ordered_rows=True).new_initial_state()
    with pytest.raises(InvalidParameterError, match="ordered_rows"):
        solver_for(False).outcome(ordered)
    with pytest.raises(InvalidParameterError, match="xceter_o_v0"):
        XCeterOPerfect().act(make_game("outwit_v0").new_initial_state(), 0)
    state = make_game("xceter_o_v0").new_initial_state()
    play(state, [XCeterOPerfect(seed=1), RandomAgent(1)])
    with pytest.raises(InvalidStateError, match="over"):
        solver_for(False).outcome(state)
