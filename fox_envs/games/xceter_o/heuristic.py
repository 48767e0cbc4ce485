"""X-Ceter-O heuristic: win now; else never allow the opponent an immediate win; else prefer
moves that create a threat (two own pieces in an open line), then the centre, then corners."""
from __future__ import annotations

from fox_envs.agents.base import HeuristicAgent
from fox_envs.games.xceter_o.rules import LINES, XCeterOState

SQUARE_VALUE = (2, 1, 2, 1, 3, 1, 2, 1, 2)  # centre 3, corners 2, edges 1


class XCeterOHeuristic(HeuristicAgent):
    def best_actions(self, state: XCeterOState, player: int) -> list[int]:
        """The moves ``act`` chooses among: the first winning square alone, else every
        best-scoring square."""
        best: list[int] = []
        best_score = None
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if after.winner == player:
                return [action]
            score = self._score(after, player)
            if best_score is None or score > best_score:
                best, best_score = [action], score
            elif score == best_score:
                best.append(action)
        return best

    def _score(self, after: XCeterOState, player: int) -> float:
        if after.is_terminal():  # a repetition draw
            return -50.0
        if any(_wins(after, reply) for reply in after.legal_actions()):
            return -100.0
        own = {after.square_of[player + 1 + 2 * k] for k in range(3)} - {-1}
        threats = sum(
            1 for line in LINES
            if len(own & set(line)) == 2 and any(not after.board[s] for s in line if s not in own)
        )
        return threats * 4 + sum(SQUARE_VALUE[s] for s in own)


def _wins(state: XCeterOState, action: int) -> bool:
    reply = state.clone()
    mover = reply.current_player()
    reply.apply_action(action)
    return reply.winner == mover
