"""OpenSpiel's Python search bots against the fox_envs heuristic, through the OpenSpiel adapter.

    python examples/openspiel_mcts.py [--env outfoxed_v0|all] [--games N] [--simulations N] [--quick]

Needs the ``openspiel`` extra (``pip install 'fox_envs[openspiel]'``).

``OpenSpielSearchAgent`` is a fox_envs agent that, at each decision, rebuilds the position as an
OpenSpiel state (``fox_envs.integrations.openspiel.load_game`` and the history) and asks
OpenSpiel's Python ``MCTSBot`` (UCT with random rollouts) for the move; in Outfoxed, the
hidden-information game, it asks ``ISMCTSBot`` instead (information-set MCTS: every simulation
starts from ``resample_from_infostate``, so the search never reads the opponent's hidden cards).

The matches are played by ``fox_envs.evaluation.evaluate`` with seats rotated; the script prints
the bot's win rate with its Wilson 95 % interval against the game's heuristic. Bye Bye Mr. Fox!
is cooperative: there it prints the team win rate of an all-bot team next to an all-heuristic
team (same seeds).
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

import numpy as np

import fox_envs
from examples._common import Timer, format_rate, rate_record, team
from fox_envs.core.game import State


class OpenSpielSearchAgent:
    """OpenSpiel's Python ``MCTSBot`` (``ISMCTSBot`` in a hidden-information game) as an agent
    (``act(state, player)``). Picklable: the OpenSpiel game and bot are built on first use."""

    def __init__(self, env_id: str, simulations: int = 100, uct_c: float = 2.0, seed: int | None = None,
                 **params: Any) -> None:
        self.env_id, self.simulations, self.uct_c, self.params = env_id, simulations, uct_c, params
        self.name = f"openspiel-{'ismcts' if self._hidden() else 'mcts'}{simulations}"
        self.reset(seed)

    def _hidden(self) -> bool:
        return not fox_envs.make_game(self.env_id, **self.params).perfect_information

    def reset(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else seed
        self._game = self._bot = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_game": None, "_bot": None}

    def _make_bot(self) -> None:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        from fox_envs.integrations import openspiel

        self._game = openspiel.load_game(self.env_id, **self.params)
        random_state = np.random.RandomState(self.seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        if self._game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
            self._bot = ismcts.ISMCTSBot(self._game, evaluator, self.uct_c, self.simulations,
                                         random_state=random_state)
            sampler = pyspiel.UniformProbabilitySampler(self.seed % 2**31, 0.0, 1.0)  # seeded redraws
            self._bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
        else:
            self._bot = mcts.MCTSBot(self._game, self.uct_c, self.simulations, evaluator,
                                     random_state=random_state)

    def act(self, state: State, player: int) -> int:
        if self._bot is None:
            self._make_bot()
        position = self._game.new_initial_state()
        for action in state.history():
            position.apply_action(action)
        return int(self._bot.step(position))


def play(env_id: str, games: int, simulations: int, seed: int, workers: int) -> dict[str, Any]:
    """The bot against the heuristic (every other seat), seats rotated; cooperative games: an
    all-bot team and an all-heuristic team."""
    from fox_envs.evaluation import evaluate

    game = fox_envs.make_game(env_id)
    bot = OpenSpielSearchAgent(env_id, simulations=simulations, seed=seed)
    if not game.zero_sum:
        return {"bot team": team(env_id, [bot], games, seed, workers),
                "heuristic team": team(env_id, ["heuristic"], games, seed, workers)}
    agents = [bot] + ["heuristic"] * (game.num_players - 1)
    rotations = game.num_players  # the bot plays every seat equally often
    games = -(-games // rotations) * rotations
    result = evaluate(env_id, agents, num_games=games, seed=seed, workers=workers, rotation="cyclic")
    mine = result.results[0]
    return {"bot vs heuristic": rate_record(mine.wins, mine.draws, mine.losses)}


def main(argv: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="all", help="an env id, or 'all' (default)")
    parser.add_argument("--games", type=int, default=None, help="games per game title (default 20, --quick 4)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="simulations per decision (default 100, --quick 20)")
    parser.add_argument("--quick", action="store_true", help="a short run: fewer games and simulations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (4 if args.quick else 20)
    simulations = args.simulations if args.simulations is not None else (20 if args.quick else 100)
    env_ids = fox_envs.ENV_IDS if args.env == "all" else (args.env,)
    results = {}
    for env_id in env_ids:
        timer = Timer()
        results[env_id] = play(env_id, games, simulations, args.seed, args.workers)
        search = "MCTSBot" if fox_envs.make_game(env_id).perfect_information else "ISMCTSBot"
        print(f"{env_id}: OpenSpiel {search}, "
              f"{simulations} simulations, random rollouts ({timer.seconds:.0f} s)")
        for label, record in results[env_id].items():
            print(f"  {label:<16} win rate {format_rate(record)}")
    return results


if __name__ == "__main__":
    main()
