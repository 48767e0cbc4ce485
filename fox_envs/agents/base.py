"""The one agent protocol used by everything that plays: baselines, learned policies, the
Gymnasium opponent and evaluation.

An agent is any object with ``act(state, player) -> int`` returning a legal action for
``player`` in the rules-core ``state`` (it must not mutate the state), and optionally
``reset(seed)`` called before each game. Agents of hidden-information games must use only what
``player`` may know (``state.observation_tensor(player)``, ``state.legal_actions()`` and the
public history the game exposes to that player).
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from fox_envs.core.game import State
from fox_envs.core.registry import load_object, spec


@runtime_checkable
class Agent(Protocol):
    def act(self, state: State, player: int) -> int: ...


class SeededAgent:
    """Base for agents that draw random numbers: ``reset(seed)`` makes them reproducible."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def choose(self, options: list[int]) -> int:
        """A uniformly random element of ``options``."""
        return options[int(self.rng.integers(len(options)))] if len(options) > 1 else options[0]

    def act(self, state: State, player: int) -> int:
        raise NotImplementedError


class HeuristicAgent(SeededAgent):
    """Base of the games' heuristic agents: ``act`` plays one of ``best_actions`` uniformly at
    random (the row's pick stream does the same in the batched heuristics)."""

    name = "heuristic"

    def act(self, state: State, player: int) -> int:
        return self.choose(self.best_actions(state, player))

    def best_actions(self, state: State, player: int) -> list[int]:
        """The actions this heuristic rates best (non-empty for a player to move)."""
        raise NotImplementedError


def heuristic_agent(env_id: str, seed: int | None = None, **options: object) -> SeededAgent:
    """The heuristic agent of ``env_id`` (its spec's ``heuristic``; the random agent for a game
    that declares none)."""
    factory = spec(env_id).heuristic
    if factory is None:
        if options:
            raise TypeError(f"unexpected options {sorted(options)}")
        return RandomAgent(seed)
    return load_object(factory)(seed=seed, **options)


def best_scoring(actions: list[int], score) -> list[int]:
    """The actions of the highest ``score(action)``: a score more than 1e-9 above the best so far
    starts a new best list, one within 1e-9 of it joins the list (actions in the given order)."""
    best: list[int] = []
    best_score = None
    for action in actions:
        value = score(action)
        if best_score is None or value > best_score + 1e-9:
            best, best_score = [action], value
        elif abs(value - best_score) <= 1e-9:
            best.append(action)
    return best


class RandomAgent(SeededAgent):
    """Uniformly random legal action."""

    name = "random"

    def act(self, state: State, player: int) -> int:
        return self.choose(state.legal_actions())


class PolicyAgent:
    """Adapts a policy ``f(observation, action_mask) -> action`` (e.g. a trained network) to the
    agent protocol, giving it the player's observation tensor and legal-action mask."""

    def __init__(self, policy, name: str = "policy") -> None:
        self.policy = policy
        self.name = name

    def act(self, state: State, player: int) -> int:
        return int(self.policy(state.observation_tensor(player), state.legal_actions_mask()))


def reset_agent(agent: object, seed: int | None) -> None:
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset(seed)
