"""``ismcts``: an information-set search for Outfoxed with a model of the opponent.

Plain determinised UCT loses to the Outfoxed heuristic because it draws the opponent's hidden
facts uniformly and lets random moves play the rest of the game. This agent keeps the search
simple and puts the knowledge in the belief and in the rollouts:

* **Belief** (``OpponentModel``): the opponent's scoring cards are drawn with a prior that
  favours three of one colour, times the likelihood of every colour it declared and every chip
  it chose (a declaration or chip is ``DECLARE_WEIGHT[k]`` / ``CHIP_WEIGHT[k]`` times likelier
  for a colour it keeps ``k`` of), times the likelihood of the cards seen
  (``sample_determinisation``); the faces of its face-down cards are drawn true with the chance
  ``TRUTH[k]``. The numbers come from the heuristic in self-play
  (``benchmarks/outfoxed_opponent_model.py``): the rates for a colour kept three times are
  measured, the others (rare: the heuristic keeps three of one colour) interpolated, chips
  capped at 20 so that no single chip decides the belief; ``TRUTH`` is the measured share of
  true face-down cards less what a uniform draw already gives.
* **Search**: determinised Monte Carlo at the root. Each of ``simulations`` determinisations
  (``state.sample_determinisation(player, rng, kept_log_prior, truth)``: only the player's own
  information and the model decide it) is played on from every candidate action by the
  heuristic in both seats (so the opponent calls, declares and chips as the model says) with
  the same rollout seed for every candidate (common random numbers), to the end of the round
  (``horizon="round"``, the default), valued ``tanh(score difference / 6)`` (or the game's
  return if it ended), or with ``horizon="game"`` to the end of the game.
* **Candidates**: the ``candidates`` best actions by the heuristic's own scores (all of them for
  a call, a chip or a show with few options). The heuristic's choice is played unless another
  candidate's mean return beats it by more than ``anchor`` standard errors of the paired
  differences.
* Scoring picks: three of one colour, as the heuristic.

By name: ``make_agent("ismcts:simulations=16,candidates=6", "outfoxed_v0")``. Seeded by
``reset(seed)``: equal seeds and equal information give equal moves.
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, TERMINAL, choose_outcome
from fox_envs.games.outfoxed.rules import CALL, CHIP0, KEEP, MULTISETS, PUT0, SHOW0, OutfoxedState

GAME = "outfoxed_v0"
HORIZONS = ("game", "round")
TRIPLE_PRIOR = 0.9  # chance the opponent keeps three of one colour (the heuristic always does)
DECLARE_WEIGHT = (1.0, 2.5, 4.5, 6.8)  # relative chance of declaring a colour kept 0..3 times
CHIP_WEIGHT = (1.0, 5.0, 10.0, 20.0)  # relative chance of chipping a colour kept 0..3 times
TRUTH = (0.73, 0.65, 0.45, 0.30)  # chance a face-down card is drawn true, by its colour kept 0..3 times
ROUND_SCALE = 6.0  # score difference worth tanh(1) at a round-end leaf


class OpponentModel:
    """The belief over what the opponent keeps, from the public history."""

    def __init__(self) -> None:
        triples = sum(1 for m in MULTISETS if max(m) == 3)
        self.prior = [math.log(TRIPLE_PRIOR / triples if max(m) == 3 else (1 - TRIPLE_PRIOR) / (len(MULTISETS) - triples))
                      for m in MULTISETS]
        self.declare = [_event_log_likelihood(m, DECLARE_WEIGHT) for m in MULTISETS]
        self.chip = [_event_log_likelihood(m, CHIP_WEIGHT) for m in MULTISETS]

    def kept_log_prior(self, public: OutfoxedState, opponent: int) -> list[float]:
        """Log prior + log likelihood of the opponent's declarations and chips, per multiset.
        ``public`` may be any state with the real public history (a determinisation will do:
        only declared colours and chips are read)."""
        declared, chipped = _opponent_colours(public, opponent)
        logs = self.prior[:]
        for i in range(len(MULTISETS)):
            logs[i] += sum(self.declare[i][c] for c in declared) + sum(self.chip[i][c] for c in chipped)
        return logs


def _event_log_likelihood(kept: tuple[int, ...], weights: tuple[float, ...]) -> list[float]:
    """Log chance of each colour for one declaration or chip of an opponent keeping ``kept``."""
    total = sum(weights[k] for k in kept)
    return [math.log(weights[k] / total) for k in kept]


def _opponent_colours(state: OutfoxedState, opponent: int) -> tuple[list[int], list[int]]:
    """The colours ``opponent`` declared (every put) and chose as chips, replaying the history."""
    replay = state.game.new_initial_state()
    declared, chipped = [], []
    for action in state.history():
        if replay.current_player() == opponent:
            if PUT0 <= action < CALL:
                declared.append((action - PUT0) % 6)
            elif CHIP0 <= action < SHOW0:
                chipped.append(action - CHIP0)
        replay.apply_action(action)
    return declared, chipped


class _RankingHeuristic(OutfoxedHeuristic):
    """The heuristic, also reporting its score for every action it compared."""

    def ranked(self, state: OutfoxedState, player: int) -> list[int]:
        """The legal actions, the heuristic's choice first, then by its score (best first)."""
        self._scores: list[tuple[float, int]] = []
        choice = self.act(state, player)
        scored = {action: value for value, action in self._scores}
        rest = sorted((a for a in state.legal_actions() if a != choice), key=lambda a: (-scored.get(a, -math.inf), a))
        return [choice] + rest

    def _best(self, actions: list[int], score: Callable[[int], float]) -> int:
        scores = [(score(action), action) for action in actions]
        self._scores = scores
        return super()._best(actions, dict((a, v) for v, a in scores).__getitem__)


class OutfoxedISMCTS(SeededAgent):
    """Determinised root search with an opponent model (see the module doc)."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, simulations: int = 8, candidates: int = 5,
                 anchor: float = 1.0, horizon: str = "round") -> None:
        for key, value in (("simulations", simulations), ("candidates", candidates)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidParameterError(f"ismcts: {key} must be an integer >= 1, got {value!r}")
        if isinstance(anchor, bool) or not isinstance(anchor, (int, float)) or not anchor >= 0:
            raise InvalidParameterError(f"ismcts: anchor must be a number >= 0, got {anchor!r}")
        if horizon not in HORIZONS:
            raise InvalidParameterError(f"ismcts: horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")
        super().__init__(seed)
        self.simulations = simulations
        self.candidates = candidates
        self.anchor = float(anchor)
        self.horizon = horizon
        self.model = OpponentModel()
        self._ranker = _RankingHeuristic(seed)
        self._players = (OutfoxedHeuristic(), OutfoxedHeuristic())

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._ranker.reset(seed)

    def act(self, state: OutfoxedState, player: int) -> int:  # type: ignore[override]
        if state.current_player() != player:
            raise ValueError(f"ismcts: player_{player} is not to move (current player {state.current_player()})")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        ranked = self._ranker.ranked(state, player)
        if state.phase == KEEP:
            return ranked[0]
        candidates = ranked[:self.candidates]
        returns = self._returns(state, player, candidates)
        return candidates[self._pick(returns)]

    def _returns(self, state: OutfoxedState, player: int, candidates: list[int]) -> np.ndarray:
        """``returns[j, i]``: the player's return after candidate ``j`` in determinisation ``i``."""
        opponent = 1 - player
        public = state.sample_determinisation(player, self.rng)
        prior = self.model.kept_log_prior(public, opponent)
        returns = np.zeros((len(candidates), self.simulations))
        for i in range(self.simulations):
            world = state.sample_determinisation(player, self.rng, kept_log_prior=prior, truth=TRUTH)
            seed = int(self.rng.integers(1 << 31))
            for j, action in enumerate(candidates):
                after = world.clone()
                after.apply_action(action)
                returns[j, i] = self._rollout(after, player, seed)
        return returns

    def _pick(self, returns: np.ndarray) -> int:
        """The heuristic's candidate (row 0) unless another beats it by ``anchor`` standard
        errors of the paired differences (ties: the lower row)."""
        means = returns.mean(axis=1)
        best = int(np.argmax(means))
        if best == 0:
            return 0
        difference = returns[best] - returns[0]
        n = difference.size
        error = float(difference.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        return best if difference.mean() > self.anchor * error else 0

    def _rollout(self, state: OutfoxedState, player: int, seed: int) -> float:
        """Both seats play the heuristic (seeded ``seed``) to the horizon; ``player``'s value."""
        chance = random.Random(seed)
        for seat, agent in enumerate(self._players):
            agent.reset(seed + seat)
        start = state.round
        while True:
            mover = state.current_player()
            if mover == TERMINAL:
                return float(state.returns()[player])
            if mover == CHANCE:
                if self.horizon == "round" and state.round != start:
                    return self._round_value(state, player)
                state.apply_action(choose_outcome(state.chance_outcomes(), chance.random()))
                continue
            legal = state.legal_actions()
            state.apply_action(legal[0] if len(legal) == 1 else self._players[mover].act(state, mover))

    @staticmethod
    def _round_value(state: OutfoxedState, player: int) -> float:
        """tanh of the score difference (own kept minus the opponent's, on the fox positions)."""
        mine, theirs = state.kept[player], state.kept[1 - player]
        difference = sum((mine[c] - theirs[c]) * state.foxes[c] for c in range(6))
        return math.tanh(difference / ROUND_SCALE)


def make_ismcts(env_id: str | None = None, seed: int | None = None, **options: Any) -> OutfoxedISMCTS:
    """Factory behind ``make_agent("ismcts:...", "outfoxed_v0")`` (Outfoxed only)."""
    if env_id != GAME:
        raise InvalidParameterError(f"ismcts: an Outfoxed agent (env {GAME}), not for {env_id!r}; use mcts for other games")
    return OutfoxedISMCTS(seed=seed, **options)
