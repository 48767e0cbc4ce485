"""``GameSpec``: everything the rest of the package needs to know about one game, in one object.

A game declares its spec once, in its own package (``fox_envs/games/<game>/__init__.py`` for the
package's games, anywhere for a user's game) and registers it with
``fox_envs.register_game``. The shared machinery (envs, vector envs, the batched core, agents,
evaluation, OpenSpiel, the command line) reads the spec and names no game itself.

Places are written ``"package.module:attribute"`` so that reading a spec imports nothing heavy;
a user's game may give the objects themselves instead.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable, Mapping

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr


@dataclass(frozen=True)
class OpenSpielFacts:
    """What OpenSpiel's ``GameInfo`` needs that the rules core does not say by itself.

    ``max_chance_outcomes``: the most outcomes one chance node has (0: no chance);
    ``max_chance_nodes(game)``: the most chance nodes one game can have (``None``: 0);
    ``identical_utility``: every player gets the same return (a cooperative game).
    The defaults pickle, so a spec of plain values and module-level objects can be sent to
    worker processes.
    """

    max_chance_outcomes: int = 0
    max_chance_nodes: Callable[[Any], int] | None = None
    identical_utility: bool = False

    def chance_nodes(self, game: Any) -> int:
        """The most chance nodes one game of ``game`` (a rules-core ``Game``) can have."""
        return 0 if self.max_chance_nodes is None else self.max_chance_nodes(game)


@dataclass(frozen=True)
class NamedAgent:
    """A game's own agent, made by name (``make_agent(name, env_id)``).

    ``factory`` is called as ``factory(env_id=..., seed=..., **options)``; ``usage`` and
    ``summary`` are the line the command line's ``agents`` listing prints."""

    factory: str | Callable[..., Any]
    usage: str = ""
    summary: str = ""


@dataclass(frozen=True)
class GameSpec:
    """One game, declared once.

    * ``env_id``: the id users pass to ``fox_envs.make`` (``"<name>_v<N>"``); also
      ``Game.name`` of its rules-core game.
    * ``game``: the rules-core ``Game`` class (or ``"module:Class"``).
    * ``title``: the game's printed name; ``gym_id``: the Gymnasium id without the
      ``fox_envs/`` namespace (default: ``title`` in CamelCase plus the version).
    * ``variants``: param sets the conformance and lock-step suites run on.
    * ``rules_summary``: the short rules ``play``'s ``rules`` command prints;
      ``rules_page``: where the full rules are (a path or URL, for people).
    * ``heuristic``: the agent behind the name ``heuristic`` (default: the random agent).
    * ``agents``: further agents by name (an exact solver, a learned agent, ...).
    * ``search_defaults``: the MCTS options ``make_agent("mcts", env_id)`` starts from;
      ``knowledge``: the MCTS game-knowledge class (see ``fox_envs.agents.mcts``), or ``None``.
    * ``kernels``: the batched core's ``GameKernels`` class, or ``None`` (the batched core and
      ``BatchVectorEnv`` are then unavailable; every other path works).
    * ``jax_rules``: the JAX backend's ``JaxRules`` class (``fox_envs.jax``), or ``None``.
    * ``svg``: the game's SVG drawing, ``draw(state, viewer) -> str`` (``"module:function"``),
      or ``None``: ``State.render_svg`` then draws the text board with a button per move label
      (``fox_envs.core.svg`` says what a drawing must carry for the web app's clicks).
    * ``learned_weights``: the file name of its packaged value-network weights, or ``None``.
    * ``openspiel``: the facts OpenSpiel needs (``OpenSpielFacts``).
    * ``env_module``: the thin PettingZoo-style module (``env()``, ``raw_env``), or ``None``:
      ``fox_envs.make`` then builds the generic env class for the id.
    * ``moved_modules``: old module paths of this game's code and their current homes, so
      that code and saved files naming the old paths keep working.
    """

    env_id: str
    game: str | type
    title: str
    gym_id: str = ""
    variants: tuple[Mapping[str, Any], ...] = ({},)
    rules_summary: str = ""
    rules_page: str = ""
    heuristic: str | Callable[..., Any] | None = None
    agents: Mapping[str, NamedAgent] = field(default_factory=dict)
    search_defaults: Mapping[str, Any] = field(default_factory=dict)
    knowledge: str | Callable[[], Any] | None = None
    kernels: str | type | None = None
    jax_rules: str | type | None = None
    svg: str | Callable[..., str] | None = None
    learned_weights: str | None = None
    openspiel: OpenSpielFacts = OpenSpielFacts()
    env_module: str | None = None
    moved_modules: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_env_id(self.env_id)
        if not isinstance(self.title, str) or not self.title:
            raise InvalidParameterError(f"{self.env_id}: a GameSpec needs a title (the game's printed name)")
        if not self.gym_id:
            version = self.env_id.rpartition("_v")[2]
            camel = "".join(ch for ch in self.title.title() if ch.isalnum())
            object.__setattr__(self, "gym_id", f"{camel}-v{version}")
        if not self.variants or not all(isinstance(v, Mapping) for v in self.variants):
            raise InvalidParameterError(f"{self.env_id}: variants must be a non-empty tuple of param dicts")
        for name in self.agents:
            if name in RESERVED_AGENT_NAMES:
                raise InvalidParameterError(
                    f"{self.env_id}: agent name {name!r} is built in; give a game's own agent another name")


RESERVED_AGENT_NAMES = ("random", "heuristic", "mcts")


def check_env_id(env_id: Any) -> None:
    """An env id is ``<lower-case name>_v<version>``, e.g. ``nim_v0``."""
    name, sep, version = env_id.rpartition("_v") if isinstance(env_id, str) else ("", "", "")
    if not (sep and name and version.isdigit() and name.replace("_", "").isalnum() and name == name.lower()
            and name[0].isalpha()):
        raise InvalidParameterError(
            f"bad env id {short_repr(env_id)}: write <name>_v<version> in lower case, e.g. 'nim_v0'")


def rules_names(package: str) -> Callable[[str], Any]:
    """A game package's module ``__getattr__`` that hands out the names of ``<package>.rules``,
    as the game's single module did before the game became a folder
    (``from fox_envs.games.<game> import <Game>`` keeps working)."""

    def __getattr__(name: str) -> Any:
        return getattr(import_module(f"{package}.rules"), name)

    return __getattr__
