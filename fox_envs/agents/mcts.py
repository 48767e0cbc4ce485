"""A generic Monte Carlo tree search baseline (UCT) on the rules core.

Each simulation takes one copy of the position (``state.clone()``, or for a
hidden-information game ``state.sample_determinisation(player, rng)``: the hidden facts are
redrawn consistently with what ``player`` knows, the real hidden state is never read) and
walks the tree with ``apply_action`` only:

* selection: at a decision node, the child maximising ``Q + c * sqrt(ln N / n)`` where ``Q`` is
  the mean return of the player who moves there (so every node maximises its mover's return;
  any number of players); ``N`` is the parent's visit count, or, with determinisation, the
  number of times the child was legal when its parent was visited (ISMCTS availability);
* chance nodes: an outcome drawn from ``chance_outcomes()`` with its probability;
* expansion: one untried legal action (drawn at random), then a rollout;
* rollout: uniformly random legal actions (``rollout="heuristic"``: the game's heuristic agent)
  until the game ends or ``rollout_limit`` player decisions were made (then all returns count
  as 0);
* the move played is the most visited root child (ties: higher mean, then lower action id).

A position with a single legal action is answered at once, without search. Seeded by
``reset(seed)`` (or the ``seed`` argument): equal seeds give equal moves.

By name: ``make_agent("mcts:simulations=400,c=1.0,rollout=heuristic", env_id)``.
"""
from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, TERMINAL, State

ROLLOUTS = ("random", "heuristic")


class _Node:
    __slots__ = ("children", "visits", "value", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of the returns of the player who moved into this node
        self.avail = 0  # times this child was legal at a visit of its parent (determinisation)


class MCTSAgent(SeededAgent):
    """UCT with random (or heuristic) rollouts, chance sampling and determinisation."""

    name = "mcts"

    def __init__(self, seed: int | None = None, simulations: int = 200, c: float = 1.4,
                 rollout: str = "random", rollout_limit: int = 200, env_id: str | None = None) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise InvalidParameterError(f"mcts: simulations must be an integer >= 1, got {simulations!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise InvalidParameterError(f"mcts: c (exploration constant) must be a number >= 0, got {c!r}")
        if rollout not in ROLLOUTS:
            raise InvalidParameterError(f"mcts: rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if isinstance(rollout_limit, bool) or not isinstance(rollout_limit, int) or rollout_limit < 0:
            raise InvalidParameterError(f"mcts: rollout_limit must be an integer >= 0, got {rollout_limit!r}")
        if rollout == "heuristic" and env_id is None:
            raise InvalidParameterError("mcts: rollout='heuristic' needs env_id (use make_agent)")
        super().__init__(seed)
        self.simulations = simulations
        self.c = float(c)
        self.rollout = rollout
        self.rollout_limit = rollout_limit
        self.env_id = env_id
        self.random = random.Random(seed)
        self._rollout_agent = None
        if rollout == "heuristic":
            from fox_envs.agents.registry import make_agent

            self._rollout_agent = make_agent("heuristic", env_id, seed=seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.random = random.Random(seed)
            if self._rollout_agent is not None:
                reset = getattr(self._rollout_agent, "reset", None)
                if callable(reset):
                    reset(seed)

    # ----- search ----------------------------------------------------------------------------
    def act(self, state: State, player: int) -> int:
        if state.current_player() != player:
            raise ValueError(f"mcts: player_{player} is not to move (current player {state.current_player()})")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        root = self.search(state, player)
        best, best_key = legal[0], None
        for action in legal:
            child = root.children.get(action)
            if child is None or not child.visits:
                continue
            key = (child.visits, child.value / child.visits, -action)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def search(self, state: State, player: int) -> _Node:
        """Run the simulations from ``state`` (``player`` to move) and return the root."""
        root = _Node()
        determinise = not state.game.perfect_information
        for _ in range(self.simulations):
            sim = state.sample_determinisation(player, self.rng) if determinise else state.clone()
            self._simulate(sim, root, determinise)
        return root

    def _simulate(self, state: State, root: _Node, determinise: bool) -> None:
        rng = self.random
        c = self.c
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcome = _sample(state.chance_outcomes(), rng)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = _Node()
                state.apply_action(outcome)
                node = child
                continue
            legal = state.legal_actions()
            children = node.children
            untried = [a for a in legal if a not in children]
            if determinise:
                for a in legal:
                    existing = children.get(a)
                    if existing is not None:
                        existing.avail += 1
            if untried:
                action = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = children[action] = _Node()
                child.avail = 1
                state.apply_action(action)
                path.append((child, player))
                self._rollout(state)
                break
            log_parent = math.log(node.visits) if node.visits > 0 else 0.0
            best_action, best_child, best_score = legal[0], None, -math.inf
            for a in legal:
                child = children[a]
                if determinise:
                    log_parent = math.log(child.avail)
                score = child.value / child.visits + c * math.sqrt(log_parent / child.visits)
                if score > best_score:
                    best_action, best_child, best_score = a, child, score
            state.apply_action(best_action)
            path.append((best_child, player))
            node = best_child
        returns = state.returns()
        root.visits += 1
        for child, mover in path:
            child.visits += 1
            child.value += returns[mover]

    def _rollout(self, state: State) -> None:
        rng = self.random
        agent = self._rollout_agent
        decisions = 0
        limit = self.rollout_limit
        while True:
            player = state.current_player()
            if player == TERMINAL:
                return
            if player == CHANCE:
                state.apply_action(_sample(state.chance_outcomes(), rng))
                continue
            if decisions >= limit:
                return
            if agent is not None:
                state.apply_action(agent.act(state, player))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0])
            decisions += 1


def _sample(outcomes: list[tuple[int, float]], rng: random.Random) -> int:
    r = rng.random()
    total = 0.0
    for action, probability in outcomes:
        total += probability
        if r < total:
            return action
    return outcomes[-1][0]


def make_mcts(env_id: str | None = None, seed: int | None = None, **options: Any) -> MCTSAgent:
    """Factory used by ``make_agent("mcts:...")``."""
    return MCTSAgent(seed=seed, env_id=env_id, **options)
