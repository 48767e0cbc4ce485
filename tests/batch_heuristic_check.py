"""Checks of a game's batched heuristic against its Python heuristic (used by the batch
heuristic tests).

``heuristic_lockstep`` plays every row of a ``BatchEnv`` beside a rules-core reference state;
at every position the batched kernel's pick must be one of the Python heuristic's best moves
(``best_actions``), and exactly it when that move is unique. The moves played are the kernel's
picks or, with probability ``random_share``, uniformly random legal moves, so positions come
from heuristic and random play. ``assert_ties_spread`` loads one position into many rows and
checks the picks cover the tied set about evenly.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

import fox_envs.batch
from fox_envs.agents.registry import make_agent
from fox_envs.core.game import State
from batch_lockstep import apply_tail, fresh_reference


def heuristic_lockstep(env_id: str, num_envs: int, steps: int, seed: int, random_share: float = 0.3,
                       kernel_best=None, **params) -> dict:
    """Returns counts: ``positions`` checked, ``unique`` (one best move), ``tied`` and the first
    few tie positions (``tie_states``) for ``assert_ties_spread``. ``kernel_best(env, i)``, when
    given, is the kernels' whole best set of row ``i``: it must equal the Python one."""
    env = fox_envs.batch.make(env_id, num_envs, seed=seed, **params)
    agent = make_agent("heuristic", env_id, seed=seed)
    rng = np.random.default_rng(seed)
    refs = [fresh_reference(env, i) for i in range(num_envs)]
    stats: dict = {"positions": 0, "unique": 0, "tied": 0, "games": 0, "tie_states": []}
    hist, hlen = env._arrays["hist"], env._arrays["hlen"]
    for _ in range(steps):
        picks = env.heuristic_actions()
        randoms = env.random_actions(rng)
        for i, ref in enumerate(refs):
            player = ref.current_player()
            best = agent.best_actions(ref, player)
            stats["positions"] += 1
            assert int(picks[i]) in best, f"row {i}: kernel {picks[i]} not among the best {best} of {ref}"
            if kernel_best is not None:
                assert sorted(kernel_best(env, i)) == sorted(best), f"row {i}: {ref}"
            if len(best) == 1:
                stats["unique"] += 1
            else:
                stats["tied"] += 1
                if len(stats["tie_states"]) < 5:
                    stats["tie_states"].append(ref.clone())
        actions = np.where(rng.random(num_envs) < random_share, randoms, picks)
        _, term, trunc = env.step(actions)
        for i, ref in enumerate(refs):
            ref.apply_action(int(actions[i]))
            if term[i] or trunc[i]:
                stats["games"] += 1
                refs[i] = fresh_reference(env, i)
            else:
                apply_tail(ref, hist[i, len(ref.history()):hlen[i]].tolist())
    return stats


def assert_ties_spread(env_id: str, state: State, rows: int = 600, seed: int = 0, **params) -> None:
    """Every row holding ``state``: the picks are exactly the Python heuristic's tied best moves,
    each picked at least half as often as an even spread would."""
    env = fox_envs.batch.make(env_id, rows, seed=seed, **params)
    for i in range(rows):
        env.load(i, state)
    best = make_agent("heuristic", env_id).best_actions(state, state.current_player())
    assert len(best) > 1
    counts = Counter(env.heuristic_actions().tolist())
    assert set(counts) == set(best), (counts, best)
    assert min(counts.values()) >= rows / len(best) / 2, (counts, best)


def play_against_python(env_id: str, games: int, seed: int, batch_seats, **params) -> tuple[np.ndarray, np.ndarray]:
    """``games`` games, one per row: in row ``i`` the batched heuristic plays the seats
    ``batch_seats(i)``, the Python heuristic the others (each core reference follows the row).
    Returns the final returns ``[games, num_players]`` and the flags of rows truncated at
    ``max_moves``."""
    env = fox_envs.batch.make(env_id, games, seed=seed, auto_reset=False, **params)
    agent = make_agent("heuristic", env_id, seed=seed)
    refs = [fresh_reference(env, i) for i in range(games)]
    seats = [set(batch_seats(i)) for i in range(games)]
    returns = np.zeros((games, env.num_players))
    truncated = np.zeros(games, np.bool_)
    hist, hlen = env._arrays["hist"], env._arrays["hlen"]
    while (env.current_player >= 0).any():
        actions = env.heuristic_actions()
        for i, ref in enumerate(refs):
            player = int(env.current_player[i])
            if player >= 0 and player not in seats[i]:
                actions[i] = agent.act(ref, player)
        _, term, trunc = env.step(actions)
        for i, ref in enumerate(refs):
            if actions[i] < 0:
                continue
            ref.apply_action(int(actions[i]))
            if term[i] or trunc[i]:
                final = env.final_core_state(i)
                apply_tail(ref, final.history()[len(ref.history()):])
                assert ref.is_terminal() == bool(term[i])
                returns[i] = env._arrays["rewards"][i]
                truncated[i] = trunc[i]
            else:
                apply_tail(ref, hist[i, len(ref.history()):hlen[i]].tolist())
    return returns, truncated


def interval(successes: float, n: int, z: float = 2.58) -> tuple[float, float]:
    """A normal-approximation interval (99% by default) of a rate observed ``successes / n``."""
    rate = successes / n
    half = z * np.sqrt(max(rate * (1 - rate), 0.25 / n) / n)
    return rate - half, rate + half


def assert_even_match(env_id: str, games: int, seed: int, **params) -> None:
    """A two-player game: the batched heuristic on alternate seats scores (a draw half) within
    the 99% interval of 0.5 against the Python heuristic."""
    returns, _ = play_against_python(env_id, games, seed=seed, batch_seats=lambda i: [i % 2], **params)
    seat = np.arange(games) % 2
    score = (returns[np.arange(games), seat] + 1) / 2
    low, high = interval(score.sum(), games)
    assert low <= 0.5 <= high, (score.mean(), low, high)
