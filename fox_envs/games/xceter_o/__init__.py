"""X-Ceter-O: the game's spec. Its rules are in ``rules.py``; docs/rules/xceter_o.md has the full rules."""
from __future__ import annotations

from fox_envs.core.spec import GameSpec, NamedAgent, rules_names

RULES_SUMMARY = """\
- Two players on a 3x3 board (squares a1..c3). player_0 owns pieces 1, 3, 5 (X), player_1 owns
  2, 4, 6 (O); player_0 starts.
- Placement: moves 1 to 6 place piece 1, 2, ..., 6 in that order on any empty square.
- Jump phase: from move 7 on, cycling 1 to 6 again, the owner of the next piece jumps that piece
  to any empty square (no need to be adjacent; staying put is not a move).
- You win the moment your three pieces stand in a row, column or diagonal, in either phase.
  With ordered_rows=true the line must read 1-3-5 (2-4-6) along it.
- The third time the same position (board and next piece) occurs, the game is a draw.
- A move is the target square, e.g. b2: the piece is always the next one in the cycle."""

SPEC = GameSpec(
    env_id="xceter_o_v0",
    game=f"{__name__}.rules:XCeterOGame",
    title="X-Ceter-O",
    gym_id="XCeterO-v0",
    variants=({}, {"ordered_rows": True}),
    rules_summary=RULES_SUMMARY,
    rules_page="docs/rules/xceter_o.md",
    heuristic=f"{__name__}.heuristic:XCeterOHeuristic",
    agents={"perfect": NamedAgent("fox_envs.games.xceter_o.solver:make_perfect", "perfect[:ties=random|first]",
                                "exact play from the solved game (docs/rules/xceter_o.md)"),
            "alphazero": NamedAgent("fox_envs.agents.alphazero:make_alphazero", "alphazero[:simulations=N,c=1.5]",
                                    "AlphaZero self-play network guiding a search (N=256; 0: greedy), numpy only")},
    # random rollouts to the end; take wins, never allow an immediate reply win
    search_defaults={"simulations": 200, "c": 1.4, "rollout": "random", "rollout_limit": 200,
                     "decisive": True, "safety": True, "reuse": True},
    kernels=f"{__name__}.batched:XCeterOKernels",
    jax_rules=f"{__name__}.jax_rules:XCeterOJax",
    svg=f"{__name__}.svg:draw",
    env_module="fox_envs.xceter_o_v0",
    moved_modules={
        "fox_envs.agents.xceter_o": f"{__name__}.heuristic",
        "fox_envs.agents.xceter_o_solver": f"{__name__}.solver",
        "fox_envs.agents.trained.xceter_o_q": f"{__name__}.trained_q",
        "fox_envs.batch.xceter_o": f"{__name__}.batched",
        "fox_envs.batch.xceter_o_heuristic": f"{__name__}.kernels_heuristic",
    },
)


__getattr__ = rules_names(__name__)  # the rules module's names, as the game's old module had them
