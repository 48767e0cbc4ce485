"""Outfox: the game's spec. Its rules are in ``rules.py``; docs/rules/outfox.md has the full rules."""
from __future__ import annotations

from fox_envs.core.spec import GameSpec, NamedAgent, rules_names

RULES_SUMMARY = """\
- Two or three players on a hexagon of 19 points (rows a..e). Pieces are shapes C S T in
  colours R Y B (CR = red circle). With two players each has one piece of each of the 9 types;
  with three, seat i has the six pieces of colour i.
- A turn: place one of your pieces on an empty point (e.g. CR@c3), then slide a piece next to
  it, of any owner but not the placed one, one or more points in a straight line through empty
  points (e.g. c4-c5). The very first turn of the game is a placement only.
- A placement must let some neighbouring piece slide afterwards.
- After your slide, if three consecutive points in a line hold three different shapes of one
  colour, or one shape in three different colours, you win, whoever placed those pieces.
- If the next player has no legal turn (no piece left, or nowhere to place), the player who
  played last wins. There are no draws."""

LEARNED = NamedAgent(f"{__name__}.learned:make_learned", "learned",
                     "(2 players) a packaged value network choosing among lookahead moves (docs/training.md)")
ALPHAZERO = NamedAgent("fox_envs.agents.alphazero:make_alphazero", "alphazero[:simulations=N,c=1.5]",
                       "(2 players) an AlphaZero self-play network guiding a search (N=256; 0: greedy), numpy only")

SPEC = GameSpec(
    env_id="outfox_v0",
    game=f"{__name__}.rules:OutfoxGame",
    title="Outfox",
    gym_id="Outfox-v0",
    variants=({}, {"num_players": 3}),
    rules_summary=RULES_SUMMARY,
    rules_page="docs/rules/outfox.md",
    heuristic=f"{__name__}.heuristic:OutfoxHeuristic",
    agents={"learned": LEARNED, "alphazero": ALPHAZERO},
    # whole-turn rollouts (win if possible, else a turn leaving the next seat no win)
    search_defaults={"simulations": 600, "c": 1.0, "rollout": "game", "rollout_limit": 200,
                     "decisive": True, "safety": True, "reuse": True},
    knowledge=f"{__name__}.knowledge:OutfoxKnowledge",
    kernels=f"{__name__}.batched:OutfoxKernels",
    jax_rules=f"{__name__}.jax_rules:OutfoxJax",
    svg=f"{__name__}.svg:draw",
    learned_weights="outfox_v0.npz",
    env_module="fox_envs.outfox_v0",
    moved_modules={
        "fox_envs.games.outfox_render": f"{__name__}.render",
        "fox_envs.agents.outfox": f"{__name__}.heuristic",
        "fox_envs.agents.outfox_features": f"{__name__}.features",
        "fox_envs.agents.outfox_learned": f"{__name__}.learned",
        "fox_envs.agents.trained.outfox_board_policy": f"{__name__}.board_policy",
        "fox_envs.agents.trained.outfox_planes": f"{__name__}.planes",
        "fox_envs.batch.outfox": f"{__name__}.batched",
        "fox_envs.batch.outfox_heuristic": f"{__name__}.kernels_heuristic",
    },
)


__getattr__ = rules_names(__name__)  # the rules module's names, as the game's old module had them
