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
from fox_envs.games.bye_bye_mr_fox.rules import (
    EGG, FOX, GIVE, HENS, NEST_CAPACITY, OVER, PLACE, SPIN, THREE_HENS, ByeByeMrFoxGame,
    ByeByeMrFoxState,
)

FULL = NEST_CAPACITY
NEEDED = 3 * NEST_CAPACITY
TIE = 1e-12
# A colour summary is one int: nest*48 + down*16 + with*4 + without (with + without <= 3), so
# the updates are additions: a face-down hen flipped -16, a sector with egg +4, without +1,
# an egg into the nest +48.
COLOUR_CODES = 4 * 48
NEST = [code // 48 for code in range(COLOUR_CODES)]
DOWN = [code % 48 // 16 for code in range(COLOUR_CODES)]
WITH = [code % 16 // 4 for code in range(COLOUR_CODES)]
WITHOUT = [code % 4 for code in range(COLOUR_CODES)]
DOWN_1, WITH_1, WITHOUT_1, NEST_1 = 16, 4, 1, 48


def colour_code(nest: int, down: int, with_egg: int, without: int) -> int:
    return nest * 48 + down * 16 + with_egg * 4 + without


def pack(a: int, b: int, c: int, fox_w: int, fox_o: int, th: int, eggs: int, foxes: int) -> int:
    """The memo key: the sorted colour codes and the rest, as one int."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return ((((((a * 192 + b) * 192 + c) * 6 + fox_w) * 6 + fox_o) * 2 + th) * 12 + eggs) * 5 + foxes


def canonical(state: ByeByeMrFoxState) -> tuple[int, ...]:
    """``(colour_a, colour_b, colour_c, fox_with, fox_without, three_hens_egg, eggs_down,
    foxes_down)`` of ``state``'s board as of now, whatever the phase (colours sorted)."""
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
    colours = sorted(colour_code(state.nests[c], state.face_down[c], with_egg[c], without[c]) for c in HENS)
    return (*colours, with_egg[FOX], without[FOX], three_hens_egg, state.face_down[EGG], state.face_down[FOX])


class ByeByeMrFoxSolver:
    """Memoised expectimax over the positions of one game (its params)."""

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        if game.printed.count(THREE_HENS) != 1:
            raise ValueError("the solver assumes exactly one three-hens space (as the layout param requires)")
        self.game = game
        self.memo: dict[int, float] = {}  # turn (flip) nodes
        self.spin_memo: dict[int, float] = {}  # spin nodes

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
        if phase == SPIN:
            return self._spin(*canonical(state))
        return self._end_turn(*canonical(state))

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
    def _end_turn(self, a: int, b: int, c: int, fw: int, fo: int, th: int, eggs: int, foxes: int) -> float:
        """The value at the end of a turn: win, loss, or the next flip."""
        needed = NEEDED - NEST[a] - NEST[b] - NEST[c]
        if not needed:
            return 1.0
        turns = DOWN[a] + DOWN[b] + DOWN[c] + eggs + foxes
        if needed > turns or needed > eggs + WITH[a] + WITH[b] + WITH[c] + fw + th:
            return 0.0  # no time or no eggs left to fill the nests
        key = pack(a, b, c, fw, fo, th, eggs, foxes)
        value = self.memo.get(key)
        if value is None:
            value = self.memo[key] = self._turn(a, b, c, fw, fo, th, eggs, foxes, turns)
        return value

    def _turn(self, a: int, b: int, c: int, fw: int, fo: int, th: int, eggs: int, foxes: int,
              total: int) -> float:
        """A flip node: the expectation over the token of its best placement."""
        spin = self._spin
        cols = (a, b, c)
        value = 0.0
        done: dict[int, float] = {}
        for i in range(3):  # a hen token of colour i
            ci = cols[i]
            down = DOWN[ci]
            if not down:
                continue
            if ci in done:  # an identical colour: same value
                value += down * done[ci]
                continue
            me = ci - DOWN_1
            best = -1.0
            if fw:
                out = list(cols)
                out[i] = me + WITH_1
                best = max(best, spin(*out, fw - 1, fo, th, eggs, foxes))
            if fo:
                out = list(cols)
                out[i] = me + WITHOUT_1
                best = max(best, spin(*out, fw, fo - 1, th, eggs, foxes))
            for j in range(3):
                if j == i:
                    continue
                cj = cols[j]
                if WITH[cj]:
                    out = list(cols)
                    out[i], out[j] = me + WITH_1, cj - WITH_1
                    best = max(best, spin(*out, fw, fo, th, eggs, foxes))
                if WITHOUT[cj]:
                    out = list(cols)
                    out[i], out[j] = me + WITHOUT_1, cj - WITHOUT_1
                    best = max(best, spin(*out, fw, fo, th, eggs, foxes))
            if best < 0.0:  # no legal place (impossible with one three-hens space): discarded
                out = list(cols)
                out[i] = me
                best = spin(*out, fw, fo, th, eggs, foxes)
            done[ci] = best
            value += down * best
        if eggs:  # an egg: on an empty nest circle
            best = -1.0
            for i in range(3):
                ci = cols[i]
                if WITHOUT[ci] and (i == 0 or ci != cols[i - 1]):
                    out = list(cols)
                    out[i] = ci - WITHOUT_1 + WITH_1
                    best = max(best, spin(*out, fw, fo, th, eggs - 1, foxes))
            if fo:
                best = max(best, spin(a, b, c, fw + 1, fo - 1, th, eggs - 1, foxes))
            if not th:
                best = max(best, spin(a, b, c, fw, fo, 1, eggs - 1, foxes))
            if best < 0.0:
                best = spin(a, b, c, fw, fo, th, eggs - 1, foxes)
            value += eggs * best
        if foxes:  # a fox token: on a single hen
            best = -1.0
            for i in range(3):
                ci = cols[i]
                if i and ci == cols[i - 1]:
                    continue
                if WITH[ci]:
                    out = list(cols)
                    out[i] = ci - WITH_1
                    best = max(best, spin(*out, fw + 1, fo, th, eggs, foxes - 1))
                if WITHOUT[ci]:
                    out = list(cols)
                    out[i] = ci - WITHOUT_1
                    best = max(best, spin(*out, fw, fo + 1, th, eggs, foxes - 1))
            if best < 0.0:
                best = spin(a, b, c, fw, fo, th, eggs, foxes - 1)
            value += foxes * best
        return value / total

    def _spin(self, a: int, b: int, c: int, fw: int, fo: int, th: int, eggs: int, foxes: int) -> float:
        """A spin node: each of the six sectors with probability 1/6."""
        key = pack(a, b, c, fw, fo, th, eggs, foxes)
        value = self.spin_memo.get(key)
        if value is not None:
            return value
        end = self._end_turn
        quiet = 6 - WITH[a] - WITH[b] - WITH[c] - fw - th  # sectors facing an empty circle
        total = quiet * end(a, b, c, fw, fo, th, eggs, foxes) if quiet else 0.0
        if fw:  # the fox steals the egg
            total += fw * end(a, b, c, fw - 1, fo + 1, th, eggs, foxes)
        cols = (a, b, c)
        for i in range(3):
            ci = cols[i]
            w = WITH[ci]
            if w:  # the egg goes to hen i, or is discarded if its nest is full
                out = list(cols)
                out[i] = ci - WITH_1 + WITHOUT_1 + (NEST_1 if NEST[ci] < FULL else 0)
                total += w * end(*out, fw, fo, th, eggs, foxes)
        if th:  # three hens: the players choose a nest that is not full
            best = 0.0
            for i in range(3):
                ci = cols[i]
                if NEST[ci] < FULL:
                    out = list(cols)
                    out[i] = ci + NEST_1
                    best = max(best, end(*out, fw, fo, 0, eggs, foxes))
            total += best
        value = self.spin_memo[key] = total / 6.0
        return value


_SOLVERS: dict[ByeByeMrFoxGame, ByeByeMrFoxSolver] = {}


def solver_for(game: ByeByeMrFoxGame) -> ByeByeMrFoxSolver:
    """One shared solver (and memo) per game."""
    if game not in _SOLVERS:
        _SOLVERS[game] = ByeByeMrFoxSolver(game)
    return _SOLVERS[game]


def clear_solvers() -> None:
    """Free the shared solvers' memos (about 1 GB for the default game)."""
    _SOLVERS.clear()


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
    """``python -m fox_envs.games.bye_bye_mr_fox.solver [egg_tokens ...]``: solve and time."""
    import time

    for eggs in [int(a) for a in argv] or [12, 14, 16]:
        start, cpu = time.perf_counter(), time.process_time()
        solver = ByeByeMrFoxSolver(ByeByeMrFoxGame(egg_tokens=eggs))
        value = solver.solve()
        print(f"egg_tokens={eggs}: optimal win probability {value:.6f}, {len(solver.memo)} turn states, "
              f"{len(solver.spin_memo)} spin states, {time.perf_counter() - start:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s cpu", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
