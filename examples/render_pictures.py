"""Pictures of the five games for the README: a mid-game position of each, drawn by the package.

Each game is played by the seeded ``heuristic`` agents (chance drawn from the same seed) to its
end; the position after half of its player decisions is drawn with ``State.render_rgb()``, the
last move outlined. Writes ``docs/images/<game>.png`` and ``docs/images/games.png`` (the five
side by side, scaled to one height). The same seed gives the same pictures.

    python examples/render_pictures.py [--seed 0] [--out docs/images] [--height 260]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

import fox_envs
from fox_envs.agents import make_agent, reset_agent
from fox_envs.core.game import State, sample_chance

ROOT = Path(__file__).resolve().parents[1]
GAP = 12  # pixels between two pictures of the strip


def game_states(env_id: str, seed: int) -> list[State]:
    """The state after each player decision of one heuristic self-play game."""
    game = fox_envs.make_game(env_id)
    agents = [make_agent("heuristic", env_id, seed=seed + seat) for seat in range(game.num_players)]
    for seat, agent in enumerate(agents):
        reset_agent(agent, seed + seat)
    rng = np.random.default_rng(seed)
    state, states = game.new_initial_state(), []
    while not state.is_terminal():
        player = state.current_player()
        if player < 0:
            state.apply_action(sample_chance(state, rng))
            continue
        state.apply_action(agents[player].act(state, player))
        states.append(state.clone())
    return states


def mid_game_picture(env_id: str, seed: int) -> Image.Image:
    """The picture of the position halfway through the game's player decisions."""
    states = game_states(env_id, seed)
    return Image.fromarray(states[(len(states) - 1) // 2].render_rgb())


def strip(pictures: list[Image.Image], height: int) -> Image.Image:
    """The pictures side by side, each scaled to ``height`` pixels, on a white background."""
    scaled = [p.resize((round(p.width * height / p.height), height), Image.LANCZOS) for p in pictures]
    width = sum(p.width for p in scaled) + GAP * (len(scaled) - 1)
    image = Image.new("RGB", (width, height), (255, 255, 255))
    x = 0
    for picture in scaled:
        image.paste(picture, (x, 0))
        x += picture.width + GAP
    return image


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--height", type=int, default=260, help="height of the combined strip in pixels")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    written, pictures = [], []
    for env_id in fox_envs.ENV_IDS:
        picture = mid_game_picture(env_id, args.seed)
        path = args.out / f"{env_id.removesuffix('_v0')}.png"
        picture.save(path)
        pictures.append(picture)
        written.append(path)
    path = args.out / "games.png"
    strip(pictures, args.height).save(path)
    written.append(path)
    for path in written:
        print(f"wrote {path}")
    return written


if __name__ == "__main__":
    main()
