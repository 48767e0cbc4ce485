"""Exact solver for Bye Bye Mr. Fox!: the optimal probability of winning from any state.

Expectimax over the flip and spin chance nodes, maximising at the players' decisions (the game
is cooperative and fully observed, so the whole team is one maximiser). Values are memoised at
the start of a turn (a flip node) on a canonical key that keeps only what the future depends
on: the eggs on the nest circles (a 6-bit mask), the visible outer pictures, the eggs in the
three nests and the face-down pile. Who is to move, the history, which circles hold a token and
what was discarded do not matter. A position is a loss at once (value 0) when the eggs left on
the nest circles and face down cannot fill the nests any more.

``ByeByeMrFoxSolver(game).value(state)`` works at every node; ``ByeByeMrFoxOptimal`` plays the
best action (ties broken with the seeded ``rng``). Solving the whole default game
(``egg_tokens=16``) takes a couple of minutes on one core; see ``docs/rules/bye_bye_mr_fox.md``
for the measured sizes and times.
"""
from __future__ import annotations

from typing import Any

from fox_envs.agents.base import SeededAgent
from fox_envs.games.bye_bye_mr_fox import (
    EGG, FLIP, FOX, GIVE, GIVE_ACTION, HENS, NEST_CAPACITY, OUTER_ACTION, OVER, PLACE, SPIN, THREE_HENS,
    ByeByeMrFoxGame, ByeByeMrFoxState,
)

FULL = NEST_CAPACITY
TIE = 1e-12
Key = tuple  # (circles mask, visible tuple, nests tuple, face-down tuple)


class ByeByeMrFoxSolver:
    """Memoised expectimax over one game's (params') positions."""

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        self.game = game
        self.memo: dict[Key, float] = {}
        # allowed[token][picture]: may a hen/fox token cover that picture?
        self.allowed = game.allowed

    # ----- public -------------------------------------------------------------------------------
    def value(self, state: ByeByeMrFoxState) -> float:
        """Optimal win probability from ``state`` (1 or 0 at a terminal state)."""
        if state.game != self.game:
            raise ValueError("the state belongs to a different game (params) than this solver")
        phase = state.phase
        if phase == OVER:
            return 1.0 if state.won else 0.0
        circles, visible, nests, face_down = self._parts(state)
        if phase == FLIP:
            return self._turn(circles, visible, nests, face_down)
        if phase == SPIN:
            return self._spin(circles, visible, nests, face_down)
        return max(self.action_values(state).values())

    def action_values(self, state: ByeByeMrFoxState) -> dict[int, float]:
        """Optimal win probability after each legal decision of the player to move."""
        if state.phase not in (PLACE, GIVE):
            raise ValueError("action values exist only where a player decides (place or give)")
        circles, visible, nests, face_down = self._parts(state)
        result = {}
        for action in state.legal_actions():
            if state.phase == GIVE:
                given = list(nests)
                given[action - GIVE_ACTION] += 1
                result[action] = self._end_turn(circles, visible, tuple(given), face_down)
            elif action < OUTER_ACTION:
                result[action] = self._spin(circles | (1 << action), visible, nests, face_down)
            else:
                covered = list(visible)
                covered[action - OUTER_ACTION] = state.token
                result[action] = self._spin(circles, tuple(covered), nests, face_down)
        return result

    def solve(self) -> float:
        """Optimal win probability of the game from its start."""
        return self.value(self.game.new_initial_state())

    @staticmethod
    def _parts(state: ByeByeMrFoxState) -> Key:
        mask = sum(1 << s for s in range(6) if state.circles[s])
        return mask, tuple(state.visible), tuple(state.nests), tuple(state.face_down)

    # ----- the recursion -------------------------------------------------------------------------
    def _turn(self, circles: int, visible: tuple, nests: tuple, face_down: tuple) -> float:
        """A flip node: expectation over the token, best placement of it."""
        key = (circles, visible, nests, face_down)
        memo = self.memo
        if key in memo:
            return memo[key]
        total = sum(face_down)
        value = 0.0
        for token in range(5):
            count = face_down[token]
            if not count:
                continue
            rest = list(face_down)
            rest[token] -= 1
            rest_t = tuple(rest)
            best = -1.0
            if token == EGG:
                for s in range(6):
                    if not circles >> s & 1:
                        v = self._spin(circles | (1 << s), visible, nests, rest_t)
                        if v > best:
                            best = v
            else:
                allowed = self.allowed[token]
                for s in range(6):
                    if allowed[visible[s]]:
                        covered = visible[:s] + (token,) + visible[s + 1:]
                        v = self._spin(circles, covered, nests, rest_t)
                        if v > best:
                            best = v
            if best < 0.0:  # no legal place: discarded
                best = self._spin(circles, visible, nests, rest_t)
            value += count * best
        value /= total
        memo[key] = value
        return value

    def _spin(self, circles: int, visible: tuple, nests: tuple, face_down: tuple) -> float:
        """A spin node: 1/6 for each sector at the front end."""
        total = 0.0
        quiet = -1.0  # the value when the back end finds an empty circle (same for every such s)
        for s in range(6):
            back = (s + 3) % 6
            if not circles >> back & 1:
                if quiet < 0.0:
                    quiet = self._end_turn(circles, visible, nests, face_down)
                total += quiet
                continue
            left = circles & ~(1 << back)
            picture = visible[s]
            if picture == THREE_HENS:
                best = 0.0
                for c in HENS:
                    if nests[c] < FULL:
                        given = nests[:c] + (nests[c] + 1,) + nests[c + 1:]
                        v = self._end_turn(left, visible, given, face_down)
                        if v > best:
                            best = v
                total += best
            elif picture == FOX or nests[picture] >= FULL:
                total += self._end_turn(left, visible, nests, face_down)
            else:
                fed = nests[:picture] + (nests[picture] + 1,) + nests[picture + 1:]
                total += self._end_turn(left, visible, fed, face_down)
        return total / 6.0

    def _end_turn(self, circles: int, visible: tuple, nests: tuple, face_down: tuple) -> float:
        needed = 3 * FULL - nests[0] - nests[1] - nests[2]
        if not needed:
            return 1.0
        if not any(face_down):
            return 0.0
        if needed > face_down[EGG] + bin(circles).count("1"):
            return 0.0  # not enough eggs left to fill the nests
        return self._turn(circles, visible, nests, face_down)


_SOLVERS: dict[ByeByeMrFoxGame, ByeByeMrFoxSolver] = {}


def solver_for(game: ByeByeMrFoxGame) -> ByeByeMrFoxSolver:
    """One shared solver (and memo) per game."""
    if game not in _SOLVERS:
        _SOLVERS[game] = ByeByeMrFoxSolver(game)
    return _SOLVERS[game]


class ByeByeMrFoxOptimal(SeededAgent):
    """Plays a move of maximal win probability (exact, via the solver)."""

    name = "optimal"

    def __init__(self, seed: int | None = None, **_: Any) -> None:
        super().__init__(seed)

    def act(self, state: ByeByeMrFoxState, player: int) -> int:  # type: ignore[override]
        values = solver_for(state.game).action_values(state)
        best = max(values.values())
        return self.choose([a for a, v in values.items() if v >= best - TIE])
