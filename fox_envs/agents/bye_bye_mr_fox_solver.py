"""Exact solver for Bye Bye Mr. Fox!: the optimal probability of winning from any state.

Expectimax over the flip and spin chance nodes, maximising at the players' decisions (the game
is cooperative and fully observed, so the team is one maximiser). Values are memoised at the
start of each turn on a canonical key that keeps only what the future depends on:

* The spinner's front end at sector ``s`` always pairs with nest circle ``(s + 3) mod 6`` and
  sectors are otherwise interchangeable (every sector is spun with probability 1/6 and the
  placement rules ignore positions), so the board is the *multiset* of six pairs
  (visible picture, egg on the opposite circle?).
* The three hen colours are interchangeable too (the rules treat them alike), so each colour is
  summarised by ``(eggs in its nest, its face-down hen tokens, sectors showing it with an egg
  opposite, sectors showing it without)`` and the three summaries are sorted.
* Fox sectors are summarised by ``(with egg, without egg)``, the three-hens sector by its egg,
  and the face-down eggs and foxes by their counts. Who is to move, the history, which circles
  hold a token and what was discarded do not matter.

A position is a loss at once (value 0) when the eggs left (on nest circles and face down) or the
turns left (one spin per face-down token) cannot fill the nests. The key at the start of a turn::

    (colour_a, colour_b, colour_c, fox_with_egg, fox_without, three_hens_egg, eggs_down, foxes_down)

``ByeByeMrFoxSolver(game).value(state)`` works at every node; ``ByeByeMrFoxOptimal`` plays a
best action (ties broken with the seeded ``rng``). Measured sizes and times are in
``docs/rules/bye_bye_mr_fox.md``.
"""
from __future__ import annotations

import sys
from typing import Any

from fox_envs.agents.base import SeededAgent
from fox_envs.games.bye_bye_mr_fox import (
    EGG, FLIP, FOX, GIVE, HENS, NEST_CAPACITY, OVER, PLACE, SPIN, THREE_HENS, ByeByeMrFoxGame,
    ByeByeMrFoxState,
)

FULL = NEST_CAPACITY
NEEDED = 3 * NEST_CAPACITY
TIE = 1e-12
# a colour summary: (nest eggs, face-down hen tokens, sectors with egg opposite, without)
Colour = tuple[int, int, int, int]
Key = tuple  # (Colour, Colour, Colour, fox_with, fox_without, three_hens_egg, eggs_down, foxes_down)


def canonical(state: ByeByeMrFoxState) -> Key:
    """The canonical key of ``state`` (its board as of now, whatever the phase)."""
    with_egg = [0] * 6
    without = [0] * 6
    three_hens_egg = 0
    for s in range(6):
        picture, egg = state.visible[s], state.circles[(s + 3) % 6]
        if picture == THREE_HENS:
            three_hens_egg = egg
        elif egg:
            with_egg[picture] += 1
        else:
            without[picture] += 1
    colours = sorted((state.nests[c], state.face_down[c], with_egg[c], without[c]) for c in HENS)
    return (*colours, with_egg[FOX], without[FOX], three_hens_egg, state.face_down[EGG], state.face_down[FOX])


def _replace(colours: list, index: int, new: Colour) -> tuple:
    out = colours[:]
    out[index] = new
    out.sort()
    return tuple(out)


class ByeByeMrFoxSolver:
    """Memoised expectimax over the positions of one game (its params)."""

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        if game.printed.count(THREE_HENS) != 1:
            raise ValueError("the solver assumes exactly one three-hens space (as the layout param requires)")
        self.game = game
        self.memo: dict[Key, float] = {}

    # ----- public -------------------------------------------------------------------------------
    def value(self, state: ByeByeMrFoxState) -> float:
        """Optimal win probability from ``state`` (1 or 0 at a terminal state)."""
        if state.game != self.game:
            raise ValueError("the state belongs to a different game (params) than this solver")
        phase = state.phase
        if phase == OVER:
            return 1.0 if state.won else 0.0
        if phase in (PLACE, GIVE):
            return max(self.action_values(state).values())
        key = canonical(state)
        colours, rest = list(key[:3]), key[3:]
        if phase == SPIN:
            return self._spin(colours, *rest)
        assert phase == FLIP
        return self._end_turn(colours, *rest)

    def action_values(self, state: ByeByeMrFoxState) -> dict[int, float]:
        """Optimal win probability after each legal decision of the player to move."""
        if state.phase not in (PLACE, GIVE):
            raise ValueError("action values exist only where a player decides (place or give)")
        values = {}
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            values[action] = self.value(child)
        return values

    def solve(self) -> float:
        """Optimal win probability of the game from its start."""
        return self.value(self.game.new_initial_state())

    # ----- the recursion -------------------------------------------------------------------------
    def _end_turn(self, colours: list, fox_w: int, fox_o: int, th: int, eggs: int, foxes: int) -> float:
        """The value at the end of a turn: win, loss, or the next flip."""
        a, b, c = colours
        needed = NEEDED - a[0] - b[0] - c[0]
        if not needed:
            return 1.0
        turns = a[1] + b[1] + c[1] + eggs + foxes
        if needed > turns or needed > eggs + a[2] + b[2] + c[2] + fox_w + th:
            return 0.0  # no time or no eggs left to fill the nests
        key = (a, b, c, fox_w, fox_o, th, eggs, foxes)
        value = self.memo.get(key)
        if value is None:
            value = self.memo[key] = self._turn(colours, fox_w, fox_o, th, eggs, foxes, turns)
        return value

    def _turn(self, colours: list, fox_w: int, fox_o: int, th: int, eggs: int, foxes: int, total: int) -> float:
        """A flip node: the expectation over the token of its best placement."""
        spin = self._spin
        value = 0.0
        seen: dict[Colour, float] = {}
        for i, (nest, down, w, o) in enumerate(colours):  # a hen token of colour i
            if not down:
                continue
            me = (nest, down - 1, w, o)
            if me in seen:  # an identical colour: same value
                value += down * seen[me]
                continue
            best = -1.0
            if fox_w:
                best = max(best, spin(list(_replace(colours, i, (nest, down - 1, w + 1, o))), fox_w - 1, fox_o, th, eggs, foxes))
            if fox_o:
                best = max(best, spin(list(_replace(colours, i, (nest, down - 1, w, o + 1))), fox_w, fox_o - 1, th, eggs, foxes))
            for j, (nest_j, down_j, w_j, o_j) in enumerate(colours):
                if j == i:
                    continue
                if w_j:
                    out = colours[:]
                    out[i], out[j] = (nest, down - 1, w + 1, o), (nest_j, down_j, w_j - 1, o_j)
                    out.sort()
                    best = max(best, spin(out, fox_w, fox_o, th, eggs, foxes))
                if o_j:
                    out = colours[:]
                    out[i], out[j] = (nest, down - 1, w, o + 1), (nest_j, down_j, w_j, o_j - 1)
                    out.sort()
                    best = max(best, spin(out, fox_w, fox_o, th, eggs, foxes))
            if best < 0.0:  # no legal place (cannot happen with one three-hens space): discarded
                best = spin(list(_replace(colours, i, me)), fox_w, fox_o, th, eggs, foxes)
            seen[me] = best
            value += down * best
        if eggs:  # an egg: on an empty nest circle
            best = -1.0
            for i, (nest, down, w, o) in enumerate(colours):
                if o:
                    best = max(best, spin(list(_replace(colours, i, (nest, down, w + 1, o - 1))), fox_w, fox_o, th, eggs - 1, foxes))
            if fox_o:
                best = max(best, spin(colours, fox_w + 1, fox_o - 1, th, eggs - 1, foxes))
            if not th:
                best = max(best, spin(colours, fox_w, fox_o, 1, eggs - 1, foxes))
            if best < 0.0:
                best = spin(colours, fox_w, fox_o, th, eggs - 1, foxes)
            value += eggs * best
        if foxes:  # a fox token: on a single hen
            best = -1.0
            for i, (nest, down, w, o) in enumerate(colours):
                if w:
                    best = max(best, spin(list(_replace(colours, i, (nest, down, w - 1, o))), fox_w + 1, fox_o, th, eggs, foxes - 1))
                if o:
                    best = max(best, spin(list(_replace(colours, i, (nest, down, w, o - 1))), fox_w, fox_o + 1, th, eggs, foxes - 1))
            if best < 0.0:
                best = spin(colours, fox_w, fox_o, th, eggs, foxes - 1)
            value += foxes * best
        return value / total

    def _spin(self, colours: list, fox_w: int, fox_o: int, th: int, eggs: int, foxes: int) -> float:
        """A spin node: each of the six sectors with probability 1/6."""
        end = self._end_turn
        quiet = 6 - colours[0][2] - colours[1][2] - colours[2][2] - fox_w - th  # sectors facing an empty circle
        total = quiet * end(colours, fox_w, fox_o, th, eggs, foxes) if quiet else 0.0
        if fox_w:  # the fox steals the egg
            total += fox_w * end(colours, fox_w - 1, fox_o + 1, th, eggs, foxes)
        for i, (nest, down, w, o) in enumerate(colours):
            if w:  # the egg goes to hen i, or is discarded if its nest is full
                fed = (min(nest + 1, FULL), down, w - 1, o + 1)
                total += w * end(list(_replace(colours, i, fed)), fox_w, fox_o, th, eggs, foxes)
        if th:  # three hens: the players choose a nest that is not full
            best = 0.0
            for i, (nest, down, w, o) in enumerate(colours):
                if nest < FULL:
                    best = max(best, end(list(_replace(colours, i, (nest + 1, down, w, o))), fox_w, fox_o, 0, eggs, foxes))
            total += best
        return total / 6.0


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


def main(argv: list[str]) -> None:
    """``python -m fox_envs.agents.bye_bye_mr_fox_solver [egg_tokens ...]``: solve and time."""
    import time

    for eggs in [int(a) for a in argv] or [12, 14, 16]:
        start = time.perf_counter()
        solver = ByeByeMrFoxSolver(ByeByeMrFoxGame(egg_tokens=eggs))
        value = solver.solve()
        print(f"egg_tokens={eggs}: optimal win probability {value:.6f}, {len(solver.memo)} turn states, "
              f"{time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
