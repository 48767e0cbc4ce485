"""Outfoxed heuristic, using only ``state.information(player)`` and the legal actions.

* Scoring picks: three of one (random) colour, whenever that is still allowed.
* Value of a table: run the round-end movement on the visible chips and score
  ``sum((mine[c] - theirs[c]) * position[c])``, where ``theirs`` is a guess at the opponent's
  scoring cards from the colours it declared this round, plus a bonus/malus when a fox finishes
  and a small term per chip (``SOFT``) so cards count before they change a square's winner.
* Put: every (card, square, declaration) is scored by that value; a lie is discounted by the
  chance the opponent calls it (its observed call rate) times what it would lose when the
  opponent re-chips it, a true card gets a small bonus for the same chance (a wrong call gives
  us a chip). So it declares truly when it holds a card that serves, and bluffs where it pays
  (the more the opponent calls, the less it lies).
* Call: when P(lie) * gain from re-chipping > P(truth) * loss of our own card, where P(truth)
  is the opponent's revealed honesty times the chance (hypergeometric) that its unseen cards
  hold as many of the declared colour as its face-down cards claim, given the cards we can see
  (our hand and kept cards, face-up cards, our face-down cards).
* Chip and special-turn show: the colour / card and square of best value.
"""
from __future__ import annotations

from math import comb

from fox_envs.agents.base import HeuristicAgent, best_scoring
from fox_envs.games.outfoxed.rules import (
    CALL, CHIP0, FINISH, KEEP0, PASS, PUT0, SHOW0, OutfoxedInfo, OutfoxedState,
)

TRUTH_BONUS = 0.6  # value of the chip we choose when the opponent wrongly calls a true card
FINISH_BONUS = 4.0  # extra value of ending the game while (probably) ahead
SOFT = 0.05  # value of one chip of a colour per square number, winner or not


def fast_square_winner(row: list[int]) -> int:
    """``games.outfoxed.square_winner`` for a row of six counts, faster: the colour with the
    highest count that no other colour shares (-1 if none)."""
    best, winner = 0, -1
    for colour in range(6):
        n = row[colour]
        if n > best and row.count(n) == 1:
            best, winner = n, colour
    return winner


def _at_least(k: int, pool: int, good: int, drawn: int) -> float:
    """P(at least ``k`` of ``good`` cards among ``drawn`` drawn from ``pool``) (hypergeometric)."""
    drawn = min(drawn, pool)
    total = comb(pool, drawn)
    if total == 0:
        return 0.0
    below = sum(comb(good, i) * comb(pool - good, drawn - i) for i in range(min(k, good + 1)))
    return max(0.0, 1.0 - below / total)


def put_value(added: float, added_their: float, truthful: bool, p_call: float, weight: float, held: int) -> float:
    """A put's value from ``added``, the table's value with the declared colour added: a lie
    is discounted by the chance the opponent calls it (``p_call``) times what it loses when the
    opponent re-chips it to its colour (``added_their``), a true card gains ``TRUTH_BONUS`` for
    the same chance; spending a card of a colour we keep (``weight`` > 0) costs a little, less
    the more of that colour we hold (``held``), so such cards stay for true declarations.
    Plain arithmetic, also compiled for the batched core."""
    value = added
    if not truthful:
        value -= p_call * (value - added_their)
    else:
        value += p_call * TRUTH_BONUS
    value -= 0.15 * max(weight, 0.0) / held
    return value


class OutfoxedHeuristic(HeuristicAgent):
    def best_actions(self, state: OutfoxedState, player: int) -> list[int]:
        """The actions this heuristic rates best, in legal-action order (``act`` picks one
        uniformly); uses only ``state.information(player)`` and the legal actions."""
        info = state.information(player)
        legal = state.legal_actions()
        self._foxes = info.foxes
        if info.phase == "keep":
            return self._keep(info, legal)
        weights = self._weights(info)
        counts = self._counts(info)
        if info.phase == "put":
            return self._put(info, legal, weights, counts)
        if info.phase == "call":
            return [self._call(info, weights, counts)]
        if info.phase == "chip":
            card = info.table[info.chip_card]
            return self._best(legal, lambda a: self._value_moved(counts, weights, card.square, card.colour, a - CHIP0))
        # special turn: show a card face up
        return self._best(legal, lambda a: self._value_added(counts, weights, (a - SHOW0) // 6 + 1, (a - SHOW0) % 6))

    # ----- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _best(actions: list[int], score) -> list[int]:
        """The actions of the highest score (``fox_envs.agents.base.best_scoring``)."""
        return best_scoring(actions, score)

    @staticmethod
    def _keep(info: OutfoxedInfo, legal: list[int]) -> list[int]:
        """Three of one colour: the first kept colour again while allowed, else any legal pick."""
        kept = [KEEP0 + c for c in range(6) if info.kept[c]]
        if kept and kept[0] in legal:
            return [kept[0]]
        return legal

    @staticmethod
    def _weights(info: OutfoxedInfo) -> list[float]:
        """Our kept cards minus a guess of the opponent's (from its declarations this round)."""
        declared = [1.0] * 6
        for card in info.table:
            if card.owner != info.player and card.declared >= 0:
                declared[card.declared] += 1.0
        total = sum(declared)
        return [info.kept[c] - 3.0 * declared[c] / total for c in range(6)]

    @staticmethod
    def _counts(info: OutfoxedInfo) -> list[list[int]]:
        counts = [[0] * 6 for _ in range(4)]
        for card in info.table:
            counts[card.square][card.colour] += 1
        return counts

    def _value(self, counts: list[list[int]], weights: list[float]) -> float:
        foxes = list(self._foxes)
        finished = False
        for square in (1, 2, 3):
            colour = fast_square_winner(counts[square])
            if colour >= 0:
                foxes[colour] = min(FINISH, foxes[colour] + square)
                if foxes[colour] == FINISH:
                    finished = True
                    break
        w0, w1, w2, w3, w4, w5 = weights  # written out: this is the heuristic's (and ismcts') hot loop
        value = w0 * foxes[0] + w1 * foxes[1] + w2 * foxes[2] + w3 * foxes[3] + w4 * foxes[4] + w5 * foxes[5]
        # A small term for every chip of a colour we want, so that cards still count when they
        # do not (yet) change a square's winner.
        for square in (1, 2, 3):
            n0, n1, n2, n3, n4, n5 = counts[square]
            value += SOFT * square * (w0 * n0 + w1 * n1 + w2 * n2 + w3 * n3 + w4 * n4 + w5 * n5)
        if finished:
            value += FINISH_BONUS if value > 0 else -FINISH_BONUS
        return value

    def _value_added(self, counts, weights, square: int, colour: int) -> float:
        counts[square][colour] += 1
        value = self._value(counts, weights)
        counts[square][colour] -= 1
        return value

    def _value_moved(self, counts, weights, square: int, old: int, new: int) -> float:
        counts[square][old] -= 1
        counts[square][new] += 1
        value = self._value(counts, weights)
        counts[square][new] -= 1
        counts[square][old] += 1
        return value

    def _put(self, info: OutfoxedInfo, legal: list[int], weights, counts) -> list[int]:
        opponent = 1 - info.player
        p_call = (info.calls[opponent] + 1.0) / (info.call_chances[opponent] + 2.0)
        their_colour = min(range(6), key=lambda c: (weights[c], c))  # what a caller would chip
        added = {}
        for s in (1, 2, 3):
            for d in range(6):
                added[s, d] = self._value_added(counts, weights, s, d)
        scarce = [info.hand[c] for c in range(6)]

        def score(action: int) -> float:
            code = action - PUT0
            square, colour, declared = code // 36 + 1, code % 36 // 6, code % 6
            return put_value(added[square, declared], added[square, their_colour], colour == declared, p_call,
                             weights[colour], scarce[colour])

        return self._best(legal, score)

    def _call(self, info: OutfoxedInfo, weights, counts) -> int:
        target = info.table[info.callable_card]
        own = info.table[info.my_last_card]
        opponent = 1 - info.player
        declared = target.colour
        seen = [0] * 6
        hidden_cards = 0  # the opponent's cards whose faces we cannot see (hand + face down)
        claims = 0  # the opponent's face-down cards declaring this colour, the target included
        for card in info.table:
            if card.face >= 0:
                seen[card.face] += 1
            elif card.owner == opponent:
                hidden_cards += 1
                claims += card.colour == declared
        unseen = [10 - info.kept[c] - info.hand[c] - seen[c] for c in range(6)]
        hidden_cards += info.opponent_hand_size
        p_held = _at_least(claims, sum(unseen), unseen[declared], hidden_cards)
        honesty = (info.called_true[opponent] + 2.0) / (info.called_true[opponent] + info.called_lie[opponent] + 3.0)
        p_true = honesty * p_held
        current = self._value(counts, weights)
        best_chip = max(self._value_moved(counts, weights, target.square, declared, c) for c in range(6))
        their_colour = min(range(6), key=lambda c: (weights[c], c))
        after_truth = self._value_moved(counts, weights, own.square, own.colour, their_colour)
        gain = (1.0 - p_true) * (best_chip - current) - p_true * (current - after_truth + TRUTH_BONUS * 0.5)
        return CALL if gain > 1e-9 else PASS
