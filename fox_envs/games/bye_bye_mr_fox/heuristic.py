"""Bye Bye Mr. Fox! heuristic: keep the spinner routing eggs to nests that still need them.

Every placement is scored by the board it leaves:

* each egg on a nest circle counts +1 when the sector opposite would deliver it usefully (a hen
  whose nest is not full, or the three-hens space) and -1 when it would be lost (a fox or a hen
  with a full nest);
* each hen colour still needing eggs counts ``need * (1 - 0.5 ** n)`` for the ``n`` sectors
  showing it (the three-hens space counts half for every colour), so hens cover foxes and full
  hens first, and foxes cover the hen that is least missed.

So eggs go where the opposite sector delivers them, hens cover foxes and satisfied hens, foxes
cover satisfied or over-represented hens. At the three-hens space the egg goes to the emptiest
nest (ties: the colour fewest sectors feed). Ties are broken with the seeded ``rng``.
"""
from __future__ import annotations

from fox_envs.agents.base import HeuristicAgent
from fox_envs.games.bye_bye_mr_fox.rules import (
    FOX, GIVE, GIVE_ACTION, HENS, NEST_CAPACITY, OUTER_ACTION, THREE_HENS, ByeByeMrFoxState,
)

EGG_WEIGHT = 1.0
COVERAGE_WEIGHT = 1.0


def sector_value(picture: int, nests: list[int]) -> float:
    """+1 if an egg sent by this picture helps, -1 if it is lost."""
    if picture == THREE_HENS:
        return 1.0 if min(nests) < NEST_CAPACITY else -1.0
    if picture == FOX or nests[picture] >= NEST_CAPACITY:
        return -1.0
    return 1.0


def board_score(circles: list[int], visible: list[int], nests: list[int]) -> float:
    """The placement score described in the module docstring."""
    score = 0.0
    for back in range(6):
        if circles[back]:
            score += EGG_WEIGHT * sector_value(visible[(back + 3) % 6], nests)
    shared = 0.5 * visible.count(THREE_HENS)
    for c in HENS:
        need = NEST_CAPACITY - nests[c]
        if need:
            n = visible.count(c) + shared
            score += COVERAGE_WEIGHT * need * (1.0 - 0.5 ** n)
    return score


class ByeByeMrFoxHeuristic(HeuristicAgent):
    def best_actions(self, state: ByeByeMrFoxState, player: int) -> list[int]:
        """The moves ``act`` chooses among: the best-scoring places (scores within 1e-9 tie), or
        the best nests to give the egg to."""
        legal = state.legal_actions()
        if state.phase == GIVE:
            return self._give(state, legal)
        best: list[int] = []
        best_score = None
        for action in legal:
            circles, visible = state.circles[:], state.visible[:]
            if action < OUTER_ACTION:
                circles[action] = 1
            else:
                visible[action - OUTER_ACTION] = state.token
            score = board_score(circles, visible, state.nests)
            if best_score is None or score > best_score + 1e-9:
                best, best_score = [action], score
            elif abs(score - best_score) <= 1e-9:
                best.append(action)
        return best

    def _give(self, state: ByeByeMrFoxState, legal: list[int]) -> list[int]:
        """The emptiest nests; among equals the colours the fewest sectors feed."""
        def key(action: int) -> tuple[int, int]:
            colour = action - GIVE_ACTION
            return (state.nests[colour], state.visible.count(colour))

        lowest = min(key(a) for a in legal)
        return [a for a in legal if key(a) == lowest]
