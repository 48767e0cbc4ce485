"""Exact solution of X-Ceter-O (both variants) and the ``perfect`` agent that plays it.

Positions. During the placement phase a position is the squares of pieces ``1..k`` (the next
piece is ``k + 1``); there are 18,730 of them (``k = 0..5``) and they form a tree, so they are
valued backwards from the movement phase. In the movement phase a position is the squares of
all six pieces plus the next piece: ``60,480 * 6 = 362,880`` array slots, index
``arrangement * 6 + turn`` (``turn`` = next piece - 1; the mover is ``turn % 2``). Each has
exactly three moves (the three empty squares, in square order).

Values. A retrograde analysis over the movement graph, in plies: a position is a win in ``n``
when some move reaches a loss in ``n - 1`` (a move completing the mover's line is a win in 1),
a loss in ``n`` when every move reaches a win, the slowest in ``n - 1``; whatever is neither
when nothing changes any more is a draw. The winner thus wins as fast as possible and the loser
loses as slowly as possible.

Repetition (exact, proved in ``docs/rules/xceter_o.md``): the game with the threefold rule and
a history ``H`` has the value of the graph game in which every position already seen twice in
``H`` is a draw when entered, and a cycle is a draw. Only such positions that are decisive in
the plain graph can change anything, so the table for an empty history serves every state
without them, and a state with some is solved again with them as draws (cached).

Scores. An outcome is also one integer, larger = better for the player to move:
``WIN_SCORE - n`` (win in ``n`` plies), ``0`` (draw), ``n - WIN_SCORE`` (loss in ``n``); the
mover's score is ``max`` over its moves of ``sign(child) - child``.

``solver_for(ordered_rows)`` returns the solved variant (built on first use, a fraction of a
second of CPU, and kept in memory);
``python -m fox_envs.games.xceter_o.solver`` prints the start values and position counts.
"""
from __future__ import annotations

import sys
import time
from collections import OrderedDict
from itertools import permutations
from typing import Any, NamedTuple

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.core.errors import InvalidParameterError, InvalidStateError
from fox_envs.games.xceter_o.rules import LINES, PIECE_WEIGHT, XCeterOGame, XCeterOState

ENV_ID = "xceter_o_v0"
WIN_SCORE = 1 << 20
OCCUPIED = 2 * WIN_SCORE  # child score of a placement on an occupied square: never chosen
PIECES = 6
MOVES = 3  # a movement position always has three empty squares
POWERS = 9 ** np.arange(PIECES, dtype=np.int64)
MAX_CACHED_HISTORIES = 64


class Outcome(NamedTuple):
    """A game-theoretic value for the player to move: ``value`` +1 win / 0 draw / -1 loss,
    ``plies`` to the end with optimal play (``None`` for a draw)."""

    value: int
    plies: int | None


def outcome_of(score: int) -> Outcome:
    """The ``Outcome`` of a score (module doc)."""
    score = int(score)
    if score > 0:
        return Outcome(1, WIN_SCORE - score)
    if score < 0:
        return Outcome(-1, score + WIN_SCORE)
    return Outcome(0, None)


def for_mover(child_scores: Any) -> Any:
    """A move's score for the mover from the score of the position it leads to (seen by the
    next mover): one ply further, the other side's point of view."""
    return np.sign(child_scores) - child_scores


def parent_score(child_scores: np.ndarray) -> np.ndarray:
    """The mover's score: the best of its moves (last axis, scores seen by the next mover)."""
    return for_mover(child_scores).max(axis=-1)


# ----- geometry ---------------------------------------------------------------------------------
def arrangements(count: int) -> np.ndarray:
    """Every sequence of ``count`` distinct squares (row ``i``: the squares of pieces 1..count),
    in lexicographic order, as an ``(n, count)`` int64 array."""
    rows = list(permutations(range(9), count))
    return np.array(rows, dtype=np.int64).reshape(len(rows), count)


def rank_table(rows: np.ndarray) -> np.ndarray:
    """``table[code] = row index`` where ``code = sum(square_i * 9**i)`` (-1 elsewhere)."""
    table = np.full(9 ** rows.shape[1], -1, dtype=np.int64)
    table[rows @ POWERS[: rows.shape[1]]] = np.arange(len(rows))
    return table


def line_tables(ordered_rows: bool) -> np.ndarray:
    """``table[a * 81 + b * 9 + c]``: whether one player's pieces on squares a, b, c (its
    lowest, middle, highest piece) make a winning line (in number order when ``ordered_rows``)."""
    table = np.zeros(729, dtype=bool)
    for line in LINES:
        orders = (line, line[::-1]) if ordered_rows else permutations(line)
        for a, b, c in orders:
            table[a * 81 + b * 9 + c] = True
    return table


def has_line(table: np.ndarray, squares: np.ndarray, player: int) -> np.ndarray:
    """For each row of piece squares (columns = pieces 1..), whether ``player`` has a line."""
    return table[squares[:, player] * 81 + squares[:, player + 2] * 9 + squares[:, player + 4]]


class MovementGraph:
    """The movement phase as arrays: ``children[p, j]`` the position after the ``j``-th move
    (``-1`` where that move completes the mover's line and wins), ``targets[p, j]`` its square,
    ``over[p]`` whether the player who just moved already has a line (the game ended there),
    ``kids`` the children with ``size`` for a winning move (an index past the positions)."""

    def __init__(self, ordered_rows: bool) -> None:
        self.rows = arrangements(PIECES)
        self.rank = rank_table(self.rows)
        self.lines = line_tables(ordered_rows)
        count = len(self.rows)
        self.size = count * PIECES
        occupied = (1 << self.rows).sum(axis=1)
        empty = np.array([[s for s in range(9) if not mask >> s & 1] for mask in range(512)
                          if bin(mask).count("1") == PIECES], dtype=np.int64)
        empty_of_mask = np.zeros((512, MOVES), dtype=np.int64)
        empty_of_mask[[m for m in range(512) if bin(m).count("1") == PIECES]] = empty
        free = empty_of_mask[occupied]  # (count, 3), ascending
        codes = self.rows @ POWERS
        self.children = np.empty((count, PIECES, MOVES), dtype=np.int64)
        self.targets = np.empty((count, PIECES, MOVES), dtype=np.int8)
        self.over = np.empty((count, PIECES), dtype=bool)
        for turn in range(PIECES):
            mover = turn % 2
            self.over[:, turn] = has_line(self.lines, self.rows, 1 - mover)
            for j in range(MOVES):
                target = free[:, j]
                moved = self.rows.copy()
                moved[:, turn] = target
                child = self.rank[codes + (target - self.rows[:, turn]) * POWERS[turn]] * PIECES + (turn + 1) % PIECES
                wins = has_line(self.lines, moved, mover)
                self.children[:, turn, j] = np.where(wins, -1, child)
                self.targets[:, turn, j] = target
        self.children = self.children.reshape(self.size, MOVES)
        self.targets = self.targets.reshape(self.size, MOVES)
        self.over = self.over.reshape(self.size)
        self.kids = np.where(self.children < 0, self.size, self.children)  # a winning move: slot size

    def index(self, squares: list[int] | tuple[int, ...], turn: int) -> int:
        """The position of piece squares ``squares`` (pieces 1..6) with piece ``turn + 1`` next."""
        code = sum(int(s) * int(p) for s, p in zip(squares, POWERS))
        return int(self.rank[code]) * PIECES + turn

    def squares(self, position: int) -> tuple[int, ...]:
        """The piece squares (pieces 1..6) of a position."""
        return tuple(int(s) for s in self.rows[position // PIECES])


def retrograde(graph: MovementGraph, draws: np.ndarray | None = None) -> np.ndarray:
    """The score of every movement position (module doc), the positions ``draws`` (indices;
    none for an empty history) being draws when entered. A position where the game is already
    over (unreachable as a position to move in) scores a loss in 0."""
    status = np.zeros(graph.size, dtype=np.int8)
    plies = np.zeros(graph.size, dtype=np.int32)
    status[graph.over] = -1
    fixed = graph.over.copy()
    if draws is not None:
        fixed[draws] = True
        status[draws] = 0
    return _layers(graph, status, plies, np.flatnonzero(~fixed), 0)


class DrawResolver:
    """Scores with some positions drawn when entered, from the empty-history ``scores``.

    Draws stay draws; a win or loss can only become a draw or take longer. A loss in ``n`` can
    change only if one of its moves (all wins in fewer plies) leads to a changed or drawn
    position, a win in ``n`` only if every one of its moves to a loss in ``n - 1`` does. Those
    positions are found level by level in order of plies (the levels are built once) and
    solved again; every other position keeps its score."""

    def __init__(self, graph: MovementGraph, scores: np.ndarray) -> None:
        self.graph, self.scores = graph, scores
        self.status = np.sign(scores).astype(np.int8)
        self.plies = np.where(scores > 0, WIN_SCORE - scores, np.where(scores < 0, scores + WIN_SCORE, 0)).astype(np.int32)
        order = np.argsort(self.plies, kind="stable")
        order = order[(self.status[order] != 0) & ~graph.over[order]]
        bounds = np.searchsorted(self.plies[order], np.arange(self.plies.max() + 2))
        kid_scores = np.append(scores, -WIN_SCORE)[graph.kids]
        self.levels = []  # (positions, their children, which children are not a best move)
        for n in range(1, len(bounds) - 1):
            level = order[bounds[n]: bounds[n + 1]]
            others = kid_scores[level] != n - 1 - WIN_SCORE if n % 2 else None
            self.levels.append((level, graph.kids[level], others))

    def scores_with(self, draws: np.ndarray) -> np.ndarray:
        """The scores when the positions ``draws`` (indices) are draws when entered."""
        touched = np.zeros(self.graph.size + 1, dtype=bool)  # slot size: a winning move
        touched[draws] = True
        for level, kids, others in self.levels:
            hit = touched[kids]
            touched[level] |= (hit | others).all(axis=1) if others is not None else hit.any(axis=1)
        touched[draws] = False
        affected = np.flatnonzero(touched[: self.graph.size])
        status, plies = self.status.copy(), self.plies.copy()
        status[draws] = plies[draws] = 0
        status[affected] = plies[affected] = 0
        return _layers(self.graph, status, plies, affected, len(self.levels))


def _layers(graph: MovementGraph, status: np.ndarray, plies: np.ndarray, open_: np.ndarray,
            settled_plies: int) -> np.ndarray:
    """The layered retrograde loop over the ``open_`` positions, the others being settled
    (``status`` +1 win / -1 loss / 0 draw with their ``plies``): at ply ``n`` an open position
    is won if a move reaches a loss in at most ``n - 1`` plies (a winning move: a loss in 0),
    lost if every move reaches a win in at most ``n - 1``. Returns the scores."""
    size = graph.size
    status = np.append(status, np.int8(-1))  # slot size: a move that wins at once
    plies = np.append(plies, np.int32(0))
    kids = graph.kids
    ply, idle = 0, 0
    while open_.size and (idle < 2 or ply <= settled_plies + 1):
        ply += 1
        child = kids[open_]
        child_status, ready = status[child], plies[child] < ply
        if ply % 2:
            new = ((child_status == -1) & ready).any(axis=1)
        else:
            new = ((child_status == 1) & ready).all(axis=1)
        decided = open_[new]
        status[decided] = 1 if ply % 2 else -1
        plies[decided] = ply
        open_ = open_[~new]
        idle = 0 if decided.size else idle + 1
    status, plies = status[:size], plies[:size]
    return np.where(status > 0, WIN_SCORE - plies, np.where(status < 0, plies - WIN_SCORE, 0)).astype(np.int32)


class PlacementTables:
    """Scores of the placement-phase positions: ``scores[k][rank]`` for pieces 1..k placed on
    ``rows[k][rank]`` (``k = 0..5``), computed back from the movement scores."""

    def __init__(self, graph: MovementGraph, movement: np.ndarray) -> None:
        self.rows = [arrangements(k) for k in range(PIECES)]
        self.rank = [rank_table(rows) for rows in self.rows]
        self.scores: list[np.ndarray] = [np.zeros(0)] * PIECES
        for k in range(PIECES - 1, -1, -1):
            self.scores[k] = self._layer(graph, movement, k)

    def child_scores(self, graph: MovementGraph, movement: np.ndarray, k: int,
                     rows: np.ndarray) -> np.ndarray:
        """Scores (for the next mover) after placing piece ``k + 1`` on each square: ``(n, 9)``,
        ``OCCUPIED`` on occupied squares so that they are never chosen."""
        n = len(rows)
        out = np.full((n, 9), OCCUPIED, dtype=np.int64)
        for square in range(9):
            free = ~(rows == square).any(axis=1)
            placed = np.concatenate([rows[free], np.full((int(free.sum()), 1), square)], axis=1)
            if k + 1 == PIECES:
                child = movement[graph.rank[placed @ POWERS] * PIECES]
            else:
                child = self.scores[k + 1][self.rank[k + 1][placed @ POWERS[: k + 1]]]
            if k + 1 >= 5:  # the mover's third piece: a line wins at once
                child = np.where(has_line(graph.lines, _padded(placed), k % 2), -WIN_SCORE, child)
            out[free, square] = child
        return out

    def _layer(self, graph: MovementGraph, movement: np.ndarray, k: int) -> np.ndarray:
        rows = self.rows[k]
        scores = parent_score(self.child_scores(graph, movement, k, rows))
        if k == 5:  # player_0 completed a line with piece 5: the game is over, player_1 lost
            scores = np.where(has_line(graph.lines, _padded(rows), 0), -WIN_SCORE, scores)
        return scores.astype(np.int32)


def _padded(rows: np.ndarray) -> np.ndarray:
    """Rows of 5 or 6 piece squares as 6 columns (a missing piece 6 on square 0: only piece
    columns of the player checked are read)."""
    if rows.shape[1] == PIECES:
        return rows
    return np.concatenate([rows, np.zeros((len(rows), PIECES - rows.shape[1]), dtype=rows.dtype)], axis=1)


# ----- the solved game ----------------------------------------------------------------------------
class XCeterOSolver:
    """One solved variant: exact outcomes of any state, its history's repetitions included."""

    def __init__(self, ordered_rows: bool) -> None:
        started, cpu = time.perf_counter(), time.process_time()
        self.ordered_rows = bool(ordered_rows)
        self.game = XCeterOGame(ordered_rows=self.ordered_rows)
        self.graph = MovementGraph(self.ordered_rows)
        self.movement = retrograde(self.graph)
        self.placement = PlacementTables(self.graph, self.movement)
        self.resolver = DrawResolver(self.graph, self.movement)
        self.solve_seconds = time.perf_counter() - started
        self.solve_cpu_seconds = time.process_time() - cpu
        self._with_draws: OrderedDict[frozenset, np.ndarray] = OrderedDict()

    # ----- outcomes of states ---------------------------------------------------------------------
    def outcome(self, state: XCeterOState) -> Outcome:
        """The exact outcome for the player to move in ``state``, with its repetition record."""
        scores = self.move_scores(state)
        return outcome_of(int(parent_score(np.array(list(scores.values())))))

    def action_outcomes(self, state: XCeterOState) -> dict[int, Outcome]:
        """The exact outcome for the player to move after each legal action."""
        return {action: outcome_of(for_mover(score)) for action, score in self.move_scores(state).items()}

    def start_outcome(self) -> Outcome:
        """The outcome of the game for player_0 at the start."""
        return outcome_of(int(self.placement.scores[0][0]))

    def move_scores(self, state: XCeterOState) -> dict[int, int]:
        """Each legal action's score for the next mover (``-WIN_SCORE``: the move wins at once;
        ``0`` for a move into a position seen twice: a draw by repetition)."""
        self._check(state)
        if state.ply < PIECES:
            squares = state.square_of[1: state.ply + 1]
            rows = np.array([squares], dtype=np.int64).reshape(1, state.ply)
            scores = self.placement.child_scores(self.graph, self.movement, state.ply, rows)[0]
            return {a: int(scores[a]) for a in state.legal_actions()}
        position = self.graph.index(state.square_of[1:], state.ply % PIECES)
        table = self.scores_for(self.twice_seen(state))
        out = {}
        for child, target in zip(self.graph.children[position], self.graph.targets[position]):
            if child < 0:
                out[int(target)] = -WIN_SCORE
            elif state.seen.get(_key_of(self.graph.squares(child), child % PIECES), 0) >= 2:
                out[int(target)] = 0
            else:
                out[int(target)] = int(table[child])
        return out

    def _check(self, state: Any) -> None:
        if not isinstance(state, XCeterOState):
            raise InvalidParameterError(f"the X-Ceter-O solver needs an {ENV_ID} state, got {type(state).__name__}")
        if state.game.ordered_rows != self.ordered_rows:
            raise InvalidParameterError(
                f"this solver is for ordered_rows={self.ordered_rows}; the state has ordered_rows={state.game.ordered_rows}"
            )
        if state.is_terminal():
            raise InvalidStateError("the game is over: a finished state has no player to move")

    # ----- repetitions ------------------------------------------------------------------------------
    def twice_seen(self, state: XCeterOState) -> frozenset[int]:
        """The decisive positions (win or loss on the empty-history table) that ``state``'s
        history has seen twice: entering one again is a draw. Other positions seen twice change
        nothing (a draw's value is a draw either way)."""
        positions = (self.graph.index(*_position_of_key(key)) for key, count in state.seen.items() if count >= 2)
        return frozenset(p for p in positions if self.movement[p] != 0)

    def scores_for(self, draws: frozenset[int]) -> np.ndarray:
        """The movement scores with the positions ``draws`` drawn when entered (cached)."""
        if not draws:
            return self.movement
        table = self._with_draws.get(draws)
        if table is None:
            table = self.resolver.scores_with(np.array(sorted(draws), dtype=np.int64))
            if len(self._with_draws) >= MAX_CACHED_HISTORIES:
                self._with_draws.popitem(last=False)
            self._with_draws[draws] = table
        else:
            self._with_draws.move_to_end(draws)
        return table

    # ----- counts -------------------------------------------------------------------------------------
    def start_positions(self) -> np.ndarray:
        """The movement positions the placement phase can lead to (piece 1 next)."""
        rows = self.placement.rows[5]
        alive = ~has_line(self.graph.lines, _padded(rows), 0)
        found = []
        for square in range(9):
            free = alive & ~(rows == square).any(axis=1)
            placed = np.concatenate([rows[free], np.full((int(free.sum()), 1), square)], axis=1)
            placed = placed[~has_line(self.graph.lines, placed, 1)]
            found.append(self.graph.rank[placed @ POWERS] * PIECES)
        return np.unique(np.concatenate(found))

    def reachable(self) -> np.ndarray:
        """Whether each movement position can occur in a game (boolean array)."""
        seen = np.zeros(self.graph.size, dtype=bool)
        frontier = self.start_positions()
        seen[frontier] = True
        while frontier.size:
            kids = self.graph.children[frontier].ravel()
            kids = np.unique(kids[kids >= 0])
            frontier = kids[~seen[kids]]
            seen[frontier] = True
        return seen

    def counts(self) -> dict[str, int]:
        """Position counts: placement positions in play, reachable movement positions, how
        many of them are wins, draws and losses for the player to move, and the longest win
        and loss among them (plies)."""
        reach = self.reachable()
        scores = self.movement[reach]
        placement = sum(int((s != -WIN_SCORE).sum()) for s in self.placement.scores)
        return {"placement": placement, "movement": int(reach.sum()), "wins": int((scores > 0).sum()),
                "draws": int((scores == 0).sum()), "losses": int((scores < 0).sum()),
                "longest_win": int(WIN_SCORE - scores[scores > 0].min()) if (scores > 0).any() else 0,
                "longest_loss": int(scores[scores < 0].max() + WIN_SCORE) if (scores < 0).any() else 0}


def _position_of_key(key: int) -> tuple[list[int], int]:
    """Piece squares and turn of a repetition key of ``XCeterOState.seen``
    (``sum((square + 1) * PIECE_WEIGHT[piece]) + turn``)."""
    turn, code = key % PIECES, key // PIECES
    unit = PIECE_WEIGHT[1] // PIECES
    return [(code // (unit * 10 ** p)) % 10 - 1 for p in range(PIECES)], turn


def _key_of(squares: tuple[int, ...], turn: int) -> int:
    """The repetition key of a movement position (inverse of ``_position_of_key``)."""
    return sum((s + 1) * PIECE_WEIGHT[p + 1] for p, s in enumerate(squares)) + turn


_SOLVERS: dict[bool, XCeterOSolver] = {}


def solver_for(ordered_rows: bool = False) -> XCeterOSolver:
    """The solved variant (solved on first use, then kept in memory)."""
    key = bool(ordered_rows)
    if key not in _SOLVERS:
        _SOLVERS[key] = XCeterOSolver(key)
    return _SOLVERS[key]


# ----- the agent --------------------------------------------------------------------------------
class XCeterOPerfect(SeededAgent):
    """Plays the solved values: the fastest win, else a draw, else the slowest loss; a move
    into a position seen twice counts as the draw it is. Among equally good draws and losses
    it prefers a move that keeps the game going, then one to a position seen less often, then
    one leaving the opponent the most replies that throw its result away (a draw or a win for
    this agent); the rest of a tie is broken with the seeded ``rng`` (``ties="random"``) or by
    the lowest square (``"first"``)."""

    name = "perfect"

    def __init__(self, seed: int | None = None, ties: str = "random") -> None:
        if ties not in ("random", "first"):
            raise InvalidParameterError(f"ties must be 'random' or 'first', got {ties!r}")
        super().__init__(seed)
        self.ties = ties

    def act(self, state: XCeterOState, player: int) -> int:  # type: ignore[override]
        if not isinstance(state, XCeterOState):
            raise InvalidParameterError(f"the perfect agent plays {ENV_ID} only, got a {type(state).__name__}")
        solver = solver_for(state.game.ordered_rows)
        mine = {action: int(for_mover(score)) for action, score in solver.move_scores(state).items()}
        best = max(mine.values())
        options = [a for a, s in mine.items() if s == best]
        if best <= 0 and len(options) > 1:
            chances = {a: _chances(solver, state, a, best) for a in options}
            most = max(chances.values())
            options = [a for a in options if chances[a] == most]
        return options[0] if self.ties == "first" else self.choose(options)


def _chances(solver: XCeterOSolver, state: XCeterOState, action: int, score: int) -> tuple[bool, int, int]:
    """After ``action`` (worth ``score`` to the mover, a draw or a loss): whether the game goes
    on, minus how often the position reached has occurred (fresh positions keep the play
    from running into a repetition), and how many of the opponent's replies give the mover a
    better result than ``score``."""
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal():
        return False, 0, 0
    value = np.sign(score)
    better = sum(np.sign(s) > value for s in solver.move_scores(after).values())
    return True, -after.repetition_count(), better


def make_perfect(env_id: str, seed: int | None = None, **options: Any) -> XCeterOPerfect:
    """The ``perfect`` agent by name (``make_agent("perfect", "xceter_o_v0")``)."""
    if env_id != ENV_ID:
        raise InvalidParameterError(f"agent 'perfect' exists only for {ENV_ID} (the solved game), not {env_id}")
    return XCeterOPerfect(seed=seed, **options)


def main(argv: list[str]) -> int:
    """``python -m fox_envs.games.xceter_o.solver``: solve both variants, print values and counts."""
    for ordered_rows in (False, True):
        solver = XCeterOSolver(ordered_rows)
        start = solver.start_outcome()
        result = {1: "player_0 wins", 0: "draw", -1: "player_1 wins"}[start.value]
        plies = f" in {start.plies} plies" if start.plies is not None else ""
        c = solver.counts()
        print(f"ordered_rows={ordered_rows}: {result}{plies} (solved in {solver.solve_seconds:.2f} s wall, {solver.solve_cpu_seconds:.2f} s cpu)\n"
              f"  placement positions {c['placement']:,}; movement positions reachable {c['movement']:,} of "
              f"{solver.graph.size:,}: {c['wins']:,} wins, {c['draws']:,} draws, {c['losses']:,} losses for the "
              f"player to move; longest win {c['longest_win']} plies, longest loss {c['longest_loss']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
