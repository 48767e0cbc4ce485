"""A match of a game's batched heuristic against its Python heuristic (used by the slow batch
heuristic tests): equal play should score evenly."""
from __future__ import annotations

import numpy as np

from batch_lockstep import apply_tail


def kernel_against_python(env, make_agent, seed: int) -> float:
    """Every row of ``env`` (``auto_reset=False``, fresh) plays one game: row i's seat
    ``i % num_players`` by the kernel, the other seats by ``make_agent(seed + i)`` on a rules-core
    copy of the row. Returns the kernel seats' mean score (a win 1, a result shared by k seats
    1/k, a truncated game 1 / num_players)."""
    n = env.num_players
    kernel_seat = np.arange(env.num_envs) % n
    agents = [make_agent(seed + i) for i in range(env.num_envs)]
    refs = [env.core_state(i) for i in range(env.num_envs)]
    hist, hlen = env._arrays["hist"], env._arrays["hlen"]
    score = 0.0
    while (env.current_player >= 0).any():
        actions = env.heuristic_actions()
        for i, ref in enumerate(refs):
            player = int(env.current_player[i])
            if player >= 0 and player != kernel_seat[i]:
                actions[i] = agents[i].act(ref, player)
        rewards, term, trunc = env.step(actions)
        for i, ref in enumerate(refs):
            if actions[i] < 0:
                continue
            if term[i]:
                winners = np.flatnonzero(rewards[i] == rewards[i].max())
                score += (kernel_seat[i] in winners) / len(winners)
            elif trunc[i]:
                score += 1 / n
            else:
                ref.apply_action(int(actions[i]))
                apply_tail(ref, hist[i, len(ref.history()):hlen[i]].tolist())
    return score / env.num_envs
