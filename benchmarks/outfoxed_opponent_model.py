"""Measure the Outfoxed heuristic's habits that the ``ismcts`` opponent model uses.

In heuristic self-play it counts, by how many cards of the colour the player keeps (0..3):

* declarations: how often a put declares a colour, per colour slot (relative to kept 0:
  ``DECLARE_WEIGHT``);
* chips: how often a chip the player chooses is that colour, per colour slot (``CHIP_WEIGHT``);
* truth: the share of the opponent's face-down cards, seen at the other player's call decisions,
  whose face is the declared colour (``TRUTH`` is derived from it: the extra chance above a
  uniform draw).

    python benchmarks/outfoxed_opponent_model.py --games 300 --seed 0
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
from fox_envs.core.game import CHANCE, TERMINAL, sample_chance
from fox_envs.core.registry import make_game
from fox_envs.games.outfoxed.rules import CALL, CALLING, CHIP0, PUT0, SHOW0, TURNS_PER_ROUND


def measure(games: int, seed: int) -> tuple[Counter, Counter, Counter, Counter]:
    rng = np.random.default_rng(seed)
    players = (OutfoxedHeuristic(seed), OutfoxedHeuristic(seed + 1))
    declared, slots, chips, chip_slots, truth = Counter(), Counter(), Counter(), Counter(), Counter()
    for _ in range(games):
        state = make_game("outfoxed_v0").new_initial_state()
        while state.current_player() != TERMINAL:
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            kept = state.kept[player]
            if state.phase == CALLING:
                for _square, owner, face, said, _chip, up in state.cards:
                    if not up and owner != player:
                        truth[state.kept[owner][said], face == said] += 1
            action = players[player].act(state, player)
            if PUT0 <= action < CALL and state.turn != TURNS_PER_ROUND - 1:
                declared[kept[(action - PUT0) % 6]] += 1
                slots.update(kept)
            elif CHIP0 <= action < SHOW0:
                chips[kept[action - CHIP0]] += 1
                chip_slots.update(kept)
            state.apply_action(action)
    return Counter({k: declared[k] / slots[k] for k in slots}), Counter(
        {k: chips[k] / chip_slots[k] for k in chip_slots}), truth, slots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="self-play games (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    args = parser.parse_args()
    declare, chip, truth, _ = measure(args.games, args.seed)
    print(f"heuristic self-play, {args.games} games, seed {args.seed}")
    print("kept  declare/slot (rel.)  chip/slot (rel.)  face-down cards true")
    for k in range(4):
        true, false = truth[k, True], truth[k, False]
        share = f"{true / (true + false):.2f} of {true + false}" if true + false else "-"
        rel_d = declare[k] / declare[0] if declare[0] else float("nan")
        rel_c = chip[k] / chip[0] if chip[0] else float("nan")
        print(f"{k:4d}  {declare[k]:.3f} ({rel_d:5.1f})        {chip[k]:.3f} ({rel_c:6.1f})    {share}")


if __name__ == "__main__":
    main()
