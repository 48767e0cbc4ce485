"""Bye Bye Mr. Fox!: the game's spec. Its rules are in ``rules.py``; docs/rules/bye_bye_mr_fox.md has the full rules."""
from __future__ import annotations

from fox_envs.core.spec import GameSpec, OpenSpielFacts, rules_names

RULES_SUMMARY = """\
- Cooperative: 1 to 4 players win or lose together. Goal: three eggs in each hen's nest
  (black, brown, white) before the face-down tokens run out.
- A turn: a token is flipped at random, you place it, then the spinner is spun.
- Place a hen token on an outer circle showing a fox or a hen of another colour (never on the
  three-hens space), an egg on an empty circle of the central nest (N0..N5), a fox token on an
  outer circle showing a single hen. A token with no place is discarded.
- The spin points at a sector s and its back end at nest circle N(s+3). An egg there goes to
  the nest of the hen shown at s (discarded if that nest is full), is stolen if a fox is shown,
  and at the three-hens space you give it to a nest that is not full.
- The team wins as soon as every nest holds 3 eggs, and loses when a turn ends with no token
  left face down."""

SPEC = GameSpec(
    env_id="bye_bye_mr_fox_v0",
    game=f"{__name__}.rules:ByeByeMrFoxGame",
    title="Bye Bye Mr. Fox!",
    gym_id="ByeByeMrFox-v0",
    variants=({}, {"num_players": 1}, {"num_players": 4, "egg_tokens": 12}, {"egg_tokens": 14}),
    rules_summary=RULES_SUMMARY,
    rules_page="docs/rules/bye_bye_mr_fox.md",
    heuristic=f"{__name__}.heuristic:ByeByeMrFoxHeuristic",
    # chance everywhere, the heuristic is near optimal: heuristic rollouts, and keep the
    # heuristic's move unless the search is 2 standard errors sure of a better one
    search_defaults={"simulations": 200, "c": 1.4, "rollout": "heuristic", "rollout_limit": 200,
                     "anchor": 2.0, "reuse": True},
    kernels=f"{__name__}.batched:ByeByeMrFoxKernels",
    jax_rules=f"{__name__}.jax_rules:ByeByeMrFoxJax",
    svg=f"{__name__}.svg:draw",
    # a turn is a flip and a spin, one turn per face-down token; outcomes: 5 tokens, 6 sectors
    openspiel=OpenSpielFacts(max_chance_outcomes=6, max_chance_nodes=lambda game: 2 * game.max_turns,
                             identical_utility=True),
    env_module="fox_envs.bye_bye_mr_fox_v0",
    moved_modules={
        "fox_envs.games.bye_bye_mr_fox_render": f"{__name__}.render",
        "fox_envs.games.bye_bye_mr_fox_events": f"{__name__}.events",
        "fox_envs.agents.bye_bye_mr_fox": f"{__name__}.heuristic",
        "fox_envs.agents.bye_bye_mr_fox_solver": f"{__name__}.solver",
        "fox_envs.agents.trained.bye_bye_mr_fox_td": f"{__name__}.trained_td",
        "fox_envs.batch.bye_bye_mr_fox": f"{__name__}.batched",
        "fox_envs.batch.bye_bye_mr_fox_heuristic": f"{__name__}.kernels_heuristic",
    },
)


__getattr__ = rules_names(__name__)  # the rules module's names, as the game's old module had them
