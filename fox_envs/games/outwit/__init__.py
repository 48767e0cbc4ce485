"""Outwit: the game's spec. Its rules are in ``rules.py``; docs/rules/outwit.md has the full rules."""
from __future__ import annotations

from fox_envs.core.spec import GameSpec, NamedAgent, rules_names

RULES_SUMMARY = """\
- Two players on a 10x9 board (a1..j9). player_0 (dark x, power chip X) owns the corner a7..c9,
  player_1 (light o, power chip O) owns h1..j3; player_0 starts.
- A move slides one of your chips in a straight line through empty squares, e.g. b1-g1.
- A regular chip moves orthogonally and must slide as far as it can (to the edge, a chip, or
  the opponent's corner). A power chip moves in any of 8 directions and may stop anywhere.
- No chip enters or crosses the opponent's corner. A chip that is in, or enters, its own corner
  never leaves it again.
- You win when all nine of your chips are in your own corner.
- With no legal move you must pass. Two passes in a row, or the same position (chips and player
  to move) for the third time, is a draw."""

LEARNED = NamedAgent(f"{__name__}.learned:make_learned", "learned",
                     "a packaged value network choosing among lookahead moves (docs/training.md)")
ALPHAZERO = NamedAgent("fox_envs.agents.alphazero:make_alphazero", "alphazero[:simulations=N,c=1.5]",
                       "an AlphaZero self-play network guiding a search (N=256; 0: greedy), numpy only")

SPEC = GameSpec(
    env_id="outwit_v0",
    game=f"{__name__}.rules:OutwitGame",
    title="Outwit",
    gym_id="Outwit-v0",
    variants=({},),
    rules_summary=RULES_SUMMARY,
    rules_page="docs/rules/outwit.md",
    heuristic=f"{__name__}.heuristic:OutwitHeuristic",
    agents={"learned": LEARNED, "alphazero": ALPHAZERO},
    # random rollouts never finish: value every new leaf with the race evaluator instead
    search_defaults={"simulations": 500, "c": 0.7, "rollout": "random", "rollout_limit": 0,
                     "evaluator": "game", "decisive": True, "safety": True, "reuse": True},
    knowledge=f"{__name__}.knowledge:OutwitKnowledge",
    kernels=f"{__name__}.batched:OutwitKernels",
    jax_rules=f"{__name__}.jax_rules:OutwitJax",
    svg=f"{__name__}.svg:draw",
    learned_weights="outwit_v0.npz",
    env_module="fox_envs.outwit_v0",
    moved_modules={
        "fox_envs.agents.outwit": f"{__name__}.heuristic",
        "fox_envs.agents.outwit_features": f"{__name__}.features",
        "fox_envs.agents.outwit_learned": f"{__name__}.learned",
        "fox_envs.batch.outwit": f"{__name__}.batched",
        "fox_envs.batch.outwit_heuristic": f"{__name__}.kernels_heuristic",
    },
)


__getattr__ = rules_names(__name__)  # the rules module's names, as the game's old module had them
