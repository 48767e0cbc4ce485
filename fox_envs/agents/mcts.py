"""A generic Monte Carlo tree search agent (UCT) on the rules core.

Nothing in this module knows a game: game knowledge comes in through optional hooks (a game's
spec names its knowledge class and its tuned ``search_defaults``; ``make_mcts``, the factory
behind ``make_agent("mcts", env_id)``, reads them).

Each simulation takes one copy of the position (``state.clone()``, or for a hidden-information
game ``state.sample_determinisation(player, rng)``: the hidden facts are redrawn consistently
with what ``player`` knows, the real hidden state is never read) and walks the tree with
``apply_action`` only:

* selection: at a decision node, the child maximising ``Q + c * sqrt(ln N / n)`` where ``Q`` is
  the mean return of the player who moves at that node (every node maximises its own mover's
  return, so any number of players works, and a turn made of several decisions by the same
  seat is just several tree levels with the same mover); ``N`` is the parent's visit count, or,
  with determinisation, the number of times the child was legal when its parent was visited
  (ISMCTS availability);
* chance nodes: an outcome drawn from ``chance_outcomes()`` with its probability;
* expansion: one untried legal action (drawn at random), then a rollout;
* rollout: ``rollout="random"`` uniformly random legal actions (with ``decisive=True`` an action
  that wins at once is taken when there is one), ``"heuristic"`` the game's heuristic agent,
  ``"game"`` the game's rollout policy (hook ``rollout_action``), until the game ends or
  ``rollout_limit`` player decisions were made; then, with a leaf ``evaluator`` (hook
  ``value(state) -> returns-like array in [-1, 1]``, or ``None`` for "cannot tell here, play
  on"), the evaluation is backed up, otherwise every return counts 0;
* backup: each node on the path adds the return of the player who moved into it;
* the move played is the most visited root child (ties: higher mean, then lower action id).

Root rules (generic, cheap at the root only):

* ``decisive=True``: an action that wins at once (the game ends with this player's return
  positive and highest; the search follows the player's own further decisions of the same
  turn) is played without search;
* ``safety=True``: root actions after which the next player can win at once are not searched
  when a safe action exists (the hook ``wins_now(state) -> bool`` answers "can the player to
  move win at once?" fast; without it the replies are enumerated);
* ``reuse=True``: the subtree of the position reached is kept between the decisions of one
  game (a turn of two decisions reuses the first search);
* ``anchor=z`` (> 0, needs a rollout policy): the rollout policy's move is played unless the
  most visited move's mean return beats it by more than ``z`` standard errors (for games with
  much chance, where a near-optimal heuristic would otherwise be overruled by sampling noise).

A position with a single legal action is answered at once, without search. Seeded by
``reset(seed)`` (or the ``seed`` argument): equal seeds give equal moves.

By name: ``make_agent("mcts:simulations=400,c=1.0,rollout=heuristic", env_id)``; without
options every game gets its tuned defaults (their spec's ``search_defaults``), ``preset=plain``
the plain UCT defaults of ``MCTSAgent``. In Python the options are the fields of
``SearchSettings``, given to ``MCTSAgent`` as one object (``settings=``) or as keywords.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fox_envs.agents.base import SeededAgent, heuristic_agent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import with_options
from fox_envs.core.game import CHANCE, TERMINAL, State, choose_outcome
from fox_envs.core.registry import load_object, spec

ROLLOUTS = ("random", "heuristic", "game")
EVALUATORS = ("none", "game")
PRESETS = ("game", "plain")
CHECK_BUDGET = 4000  # max states examined by one root decisive/safety check


class _Node:
    __slots__ = ("children", "visits", "value", "square", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of the returns of the player who moved into this node
        self.square = 0.0  # sum of their squares (for the anchor's standard errors)
        self.avail = 0  # times this child was legal at a visit of its parent (determinisation)


def _is_int(value: Any, low: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and value >= low


def _is_number(value: Any, low: float) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value >= low


@dataclass(frozen=True)
class SearchSettings:
    """The search options of ``MCTSAgent`` (see the module doc), checked when made: a bad value
    raises ``InvalidParameterError``. ``rollout`` is a name in ``ROLLOUTS`` or an agent with
    ``act(state, player)``; ``evaluator`` a name in ``EVALUATORS`` or a callable ``value(state)``."""

    simulations: int = 200
    c: float = 1.4
    rollout: Any = "random"
    rollout_limit: int = 200
    evaluator: Any = "none"
    decisive: bool = False
    safety: bool = False
    reuse: bool = False
    anchor: float = 0.0

    def __post_init__(self) -> None:
        if not _is_int(self.simulations, 1):
            raise InvalidParameterError(f"mcts: simulations must be an integer >= 1, got {self.simulations!r}")
        if not _is_number(self.c, 0):
            raise InvalidParameterError(f"mcts: c (exploration constant) must be a number >= 0, got {self.c!r}")
        if not _is_int(self.rollout_limit, 0):
            raise InvalidParameterError(f"mcts: rollout_limit must be an integer >= 0, got {self.rollout_limit!r}")
        if not _is_number(self.anchor, 0):
            raise InvalidParameterError(f"mcts: anchor must be a number >= 0, got {self.anchor!r}")
        for flag in ("decisive", "safety", "reuse"):
            value = getattr(self, flag)
            if not isinstance(value, bool):
                raise InvalidParameterError(f"mcts: {flag} must be true or false, got {value!r}")
        if isinstance(self.rollout, str) and self.rollout not in ROLLOUTS:
            raise InvalidParameterError(f"mcts: rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}")
        if isinstance(self.evaluator, str) and self.evaluator not in EVALUATORS:
            raise InvalidParameterError(
                f"mcts: evaluator must be one of {', '.join(EVALUATORS)}, got {self.evaluator!r}")

    @property
    def needs_knowledge(self) -> bool:
        """Whether a game knowledge object may serve these settings (game rollouts or leaf
        values, or the fast win tests of the root rules)."""
        return self.rollout == "game" or self.evaluator == "game" or self.safety or self.decisive


class MCTSAgent(SeededAgent):
    """UCT with rollouts, optional leaf evaluation, chance sampling and determinisation.

    The search options come as one ``SearchSettings`` (``settings=``), as its fields by keyword
    (``MCTSAgent(seed=0, simulations=400, c=1.0)``), or both (the keywords replace those fields
    of ``settings``). ``env_id`` names the game (needed for heuristic rollouts and to load its
    ``knowledge`` hooks when the settings use them and none is given)."""

    name = "mcts"

    def __init__(self, seed: int | None = None, *, settings: SearchSettings | None = None,
                 env_id: str | None = None, knowledge: Any = None, **options: Any) -> None:
        settings = with_options(SearchSettings, settings, options, "MCTSAgent")
        rollout, evaluator = settings.rollout, settings.evaluator
        if knowledge is None and settings.needs_knowledge and env_id is not None:
            knowledge = knowledge_for(env_id)
        super().__init__(seed)
        self.settings = settings
        self.simulations = settings.simulations
        self.c = float(settings.c)
        self.rollout = rollout if isinstance(rollout, str) else getattr(rollout, "name", "custom")
        self.rollout_limit = settings.rollout_limit
        self.decisive = settings.decisive
        self.safety = settings.safety
        self.reuse = settings.reuse
        self.anchor = float(settings.anchor)
        self.env_id = env_id
        self.knowledge = knowledge
        self.random = random.Random(seed)
        self._rollout_agent = None  # an object with act(state, player)
        self._rollout_hook: Callable[[State, int, random.Random], int] | None = None
        self._set_rollout(rollout, knowledge, seed)
        self.evaluator: Callable[[State], np.ndarray | None] | None = _leaf_evaluator(evaluator, knowledge, env_id)
        self._wins_now: Callable[[State], bool | None] | None = getattr(knowledge, "wins_now", None)
        self._tree: tuple[list[int], _Node] | None = None  # (history at the root, root) for reuse

    def _set_rollout(self, rollout: Any, knowledge: Any, seed: int | None) -> None:
        """The rollout policy: the game's heuristic agent, the knowledge's ``rollout_action``
        hook, a given agent, or none (``"random"``)."""
        if rollout == "heuristic":
            if self.env_id is None:
                raise InvalidParameterError("mcts: rollout='heuristic' needs env_id (use make_agent)")
            self._rollout_agent = heuristic_agent(self.env_id, seed=seed)
        elif rollout == "game":
            self._rollout_hook = getattr(knowledge, "rollout_action", None)
            if self._rollout_hook is None:
                raise InvalidParameterError(f"mcts: rollout='game' but {self.env_id!r} has no rollout policy")
        elif not isinstance(rollout, str):
            if not hasattr(rollout, "act"):
                raise InvalidParameterError("mcts: rollout must be a name or an agent with act(state, player)")
            self._rollout_agent = rollout

    def reset(self, seed: int | None = None) -> None:
        self._tree = None
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.random = random.Random(seed)
            if self._rollout_agent is not None:
                reset = getattr(self._rollout_agent, "reset", None)
                if callable(reset):
                    reset(seed)

    # ----- decision --------------------------------------------------------------------------
    def act(self, state: State, player: int) -> int:
        if state.current_player() != player:
            raise ValueError(f"mcts: player_{player} is not to move (current player {state.current_player()})")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        allowed = legal
        if state.game.perfect_information:
            if self.decisive:
                winning = self.winning_action(state, player)
                if winning is not None:
                    return winning
            if self.safety:
                safe = self.safe_actions(state, player)
                if len(safe) == 1:
                    return safe[0]
                if safe:
                    allowed = safe
        default = None
        if self.anchor > 0 and (self._rollout_hook is not None or self._rollout_agent is not None):
            default = self._policy_action(state.clone(), player)
        root = self.search(state, player, allowed)
        best, best_key = allowed[0], None
        for action in allowed:
            child = root.children.get(action)
            if child is None or not child.visits:
                continue
            key = (child.visits, child.value / child.visits, -action)
            if best_key is None or key > best_key:
                best, best_key = action, key
        if default is not None and default != best and default in allowed:
            if not self._confidently_better(root.children.get(best), root.children.get(default)):
                return default
        return best

    def _policy_action(self, state: State, player: int) -> int:
        if self._rollout_hook is not None:
            return self._rollout_hook(state, player, self.random)
        return self._rollout_agent.act(state, player)  # type: ignore[union-attr]

    def _confidently_better(self, best: _Node | None, default: _Node | None) -> bool:
        """Whether ``best``'s mean return beats ``default``'s by more than ``anchor`` standard
        errors (an unvisited default has lost the comparison)."""
        if best is None or not best.visits:
            return False
        if default is None or not default.visits:
            return True
        difference = best.value / best.visits - default.value / default.visits
        error = math.sqrt(_variance(best) / best.visits + _variance(default) / default.visits)
        return difference > self.anchor * error

    def search(self, state: State, player: int, allowed: list[int] | None = None) -> _Node:
        """Run the simulations from ``state`` (``player`` to move) and return the root; the
        root only considers ``allowed`` (default: every legal action)."""
        determinise = not state.game.perfect_information
        root = self._reused_root(state) if self.reuse and not determinise else None
        if root is None:
            root = _Node()
        if self.reuse and not determinise:
            self._tree = (state.history(), root)
        for _ in range(self.simulations):
            sim = state.sample_determinisation(player, self.rng) if determinise else state.clone()
            self._simulate(sim, root, determinise, allowed)
        return root

    def _reused_root(self, state: State) -> _Node | None:
        """The node of ``state`` in the tree kept from this agent's previous decision, if the
        game went on from there (the actions since were searched or sampled before)."""
        if self._tree is None:
            return None
        history, node = self._tree
        now = state.history()
        if len(now) < len(history) or now[:len(history)] != history:
            return None
        for action in now[len(history):]:
            node = node.children.get(action)
            if node is None:
                return None
        return node

    def _simulate(self, state: State, root: _Node, determinise: bool, allowed: list[int] | None) -> None:
        rng = self.random
        c = self.c
        node = root
        path: list[tuple[_Node, int]] = []
        value: np.ndarray | None = None
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcome = choose_outcome(state.chance_outcomes(), rng.random())
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = _Node()
                state.apply_action(outcome)
                node = child
                continue
            legal = allowed if node is root and allowed is not None else state.legal_actions()
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
                value = self._rollout(state)
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
        returns = state.returns() if value is None else value
        root.visits += 1
        for child, mover in path:
            r = returns[mover]
            child.visits += 1
            child.value += r
            child.square += r * r

    def _rollout(self, state: State) -> np.ndarray | None:
        """Play on from a new leaf; the returns to back up (``None``: the state's returns)."""
        rng = self.random
        agent = self._rollout_agent
        hook = self._rollout_hook
        evaluator = self.evaluator
        decisive = self.decisive and agent is None and hook is None
        decisions = 0
        limit = self.rollout_limit
        hard_limit = limit + state.game.max_moves_default  # the evaluator may defer, not forever
        while True:
            player = state.current_player()
            if player == TERMINAL:
                return None
            if player == CHANCE:
                state.apply_action(choose_outcome(state.chance_outcomes(), rng.random()))
                continue
            if decisions >= limit:
                if evaluator is None:
                    return np.zeros(state.game.num_players)
                value = evaluator(state)
                if value is not None:
                    return value
                if decisions >= hard_limit:
                    return np.zeros(state.game.num_players)
            if hook is not None:
                action = hook(state, player, rng)
            elif agent is not None:
                action = agent.act(state, player)
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
                if decisive and len(legal) > 1:
                    action = _first_win(state, player, legal, action)
            state.apply_action(action)
            decisions += 1

    # ----- root rules ------------------------------------------------------------------------
    def winning_action(self, state: State, player: int) -> int | None:
        """A legal action with which ``player`` wins at once (following its own further
        decisions of the same turn), or ``None``."""
        budget = [CHECK_BUDGET]
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if self._wins_within_turn(after, player, budget):
                return action
        return None

    def _wins_within_turn(self, state: State, player: int, budget: list[int]) -> bool:
        mover = state.current_player()
        if mover == TERMINAL:
            returns = state.returns()
            return returns[player] > 0 and returns[player] >= max(returns)
        if mover != player:
            return False
        return _some_child(state, budget, lambda after: self._wins_within_turn(after, player, budget))

    def safe_actions(self, state: State, player: int) -> list[int]:
        """The legal actions after which no other player can win at once (``player``'s own
        further decisions of the same turn may pick a safe continuation). Empty when none is
        safe; unknown cases (chance, exhausted budget) count as safe."""
        budget = [CHECK_BUDGET]
        safe = []
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if self._safe(after, player, budget):
                safe.append(action)
        return safe

    def _safe(self, state: State, player: int, budget: list[int]) -> bool:
        mover = state.current_player()
        if mover == TERMINAL:
            returns = state.returns()
            return returns[player] >= max(returns)
        if mover == CHANCE or budget[0] <= 0:
            return True
        if mover == player:
            for action in state.legal_actions():
                budget[0] -= 1
                after = state.clone()
                after.apply_action(action)
                if self._safe(after, player, budget):
                    return True
                if budget[0] <= 0:
                    return True
            return False
        return not self._can_win_now(state, mover, budget)

    def _can_win_now(self, state: State, mover: int, budget: list[int]) -> bool:
        if self._wins_now is not None:
            known = self._wins_now(state)
            if known is not None:
                budget[0] -= 1
                return known
        return _some_child(state, budget, lambda after: self._wins_within_turn(after, mover, budget))


def _leaf_evaluator(evaluator: Any, knowledge: Any, env_id: str | None) -> Callable[[State], np.ndarray | None] | None:
    """The leaf value function: the knowledge's ``value`` hook (``"game"``), a given callable,
    or none (``"none"``)."""
    if evaluator == "game":
        value = getattr(knowledge, "value", None)
        if value is None:
            raise InvalidParameterError(f"mcts: evaluator='game' but {env_id!r} has no evaluator")
        return value
    if not isinstance(evaluator, str):
        if not callable(evaluator):
            raise InvalidParameterError("mcts: evaluator must be 'none', 'game' or a callable value(state)")
        return evaluator
    return None


def _variance(node: _Node) -> float:
    """Sample variance of the returns backed up through ``node`` (1, the most a return in
    [-1, 1] allows, with fewer than two)."""
    n = node.visits
    if n < 2:
        return 1.0
    mean = node.value / n
    return max(0.0, (node.square - n * mean * mean) / (n - 1))


def _first_win(state: State, player: int, legal: list[int], default: int) -> int:
    """The first legal action that ends the game with ``player``'s return positive and
    highest, else ``default`` (decisive moves in random rollouts)."""
    for action in legal:
        after = state.clone()
        after.apply_action(action)
        if after.current_player() == TERMINAL:
            returns = after.returns()
            if returns[player] > 0 and returns[player] >= max(returns):
                return action
    return default


def knowledge_for(env_id: str) -> Any:
    """A fresh knowledge object for ``env_id`` (its spec's ``knowledge``; ``None`` when it has none)."""
    factory = spec(env_id).knowledge
    return load_object(factory)() if factory is not None else None


def search_defaults(env_id: str) -> dict[str, Any]:
    """The tuned MCTS options of ``env_id`` (a copy of its spec's ``search_defaults``)."""
    return dict(spec(env_id).search_defaults)


def make_mcts(env_id: str | None = None, seed: int | None = None, preset: str = "game",
              settings: SearchSettings | None = None, **options: Any) -> MCTSAgent:
    """Factory used by ``make_agent("mcts:...")``: the game's tuned defaults
    (the spec's ``search_defaults``) updated with ``options`` (``SearchSettings`` fields);
    ``preset="plain"`` starts from the plain defaults of ``MCTSAgent`` instead, and a given
    ``settings`` object replaces the starting point (the preset is then unused)."""
    if preset not in PRESETS:
        raise InvalidParameterError(f"mcts: preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    start: dict[str, Any] = {}
    if settings is None and preset == "game" and env_id is not None:
        start.update(search_defaults(env_id))
    start.update(options)
    return MCTSAgent(seed=seed, settings=settings, env_id=env_id, **start)


def _some_child(state: State, budget: list[int], test: Callable[[State], bool]) -> bool:
    """Whether ``test`` holds after some legal action, each child costing one unit of ``budget``
    (an exhausted budget answers False)."""
    for action in state.legal_actions():
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        after = state.clone()
        after.apply_action(action)
        if test(after):
            return True
    return False
