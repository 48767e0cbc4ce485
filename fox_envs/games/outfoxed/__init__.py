"""Outfoxed: the game's spec. Its rules are in ``rules.py``; docs/rules/outfoxed.md has the full rules."""
from __future__ import annotations

from fox_envs.core.spec import GameSpec, NamedAgent, OpenSpielFacts, rules_names

RULES_SUMMARY = """\
- Two players, 60 cards in six colours (brown, black, red, pink, white, yellow), three squares
  1, 2, 3 and a race track 0..6 for a fox of each colour.
- First each player secretly keeps three scoring cards (keep red); identical sets are revealed,
  forbidden, and both pick again.
- Each round the deck is dealt: the first player gets 12 cards, the second 10 (the first
  player alternates every round). Then nine turns each: put a card face down on a square and
  declare a colour with a chip (put red on 2 as pink).
- Then you may call or pass on the opponent's previous card if it is still face down. Calling a
  lie turns it up and you choose its chip; calling the truth turns it and your own new card up,
  and the opponent chooses the chip of your card.
- The second player's ninth card goes face up and true. Special turn: both show one more card
  face up (show red on 3); the second player chooses before seeing the first's card.
- Round end: on each square the colour (chip, else face) with the highest count held by one
  colour alone moves its fox 1, 2 or 3 steps (square 1, 2, 3 in that order).
- The game ends the moment a fox reaches 6: each kept card scores its fox's position and the
  higher score wins; equal scores, or max_rounds rounds without a finish, are a draw."""

SPEC = GameSpec(
    env_id="outfoxed_v0",
    game=f"{__name__}.rules:OutfoxedGame",
    title="Outfoxed",
    gym_id="Outfoxed-v0",
    variants=({}, {"max_rounds": 2}),
    rules_summary=RULES_SUMMARY,
    rules_page="docs/rules/outfoxed.md",
    heuristic=f"{__name__}.heuristic:OutfoxedHeuristic",
    agents={"ismcts": NamedAgent("fox_envs.games.outfoxed.ismcts:make_ismcts",
                               "ismcts[:simulations=N,candidates=N,anchor=Z,horizon=round|game]",
                               "information-set search with an opponent model (docs/evaluation.md)")},
    # hidden information: determinised UCT with random rollouts (no game knowledge yet)
    search_defaults={"simulations": 200, "c": 1.4, "rollout": "random", "rollout_limit": 200},
    kernels=f"{__name__}.batched:OutfoxedKernels",
    jax_rules=f"{__name__}.jax_rules:OutfoxedJax",
    svg=f"{__name__}.svg:draw",
    # the first player, then 22 deals a round; outcomes: 6 colours (and seats 0, 1)
    openspiel=OpenSpielFacts(max_chance_outcomes=6, max_chance_nodes=lambda game: 1 + 22 * game.max_rounds),
    env_module="fox_envs.outfoxed_v0",
    moved_modules={
        "fox_envs.games.outfoxed_render": f"{__name__}.render",
        "fox_envs.games.outfoxed_events": f"{__name__}.events",
        "fox_envs.agents.outfoxed": f"{__name__}.heuristic",
        "fox_envs.agents.outfoxed_ismcts": f"{__name__}.ismcts",
        "fox_envs.batch.outfoxed": f"{__name__}.batched",
        "fox_envs.batch.outfoxed_heuristic": f"{__name__}.kernels_heuristic",
    },
)


__getattr__ = rules_names(__name__)  # the rules module's names, as the game's old module had them
