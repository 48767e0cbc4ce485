"""The X-Ceter-O AlphaZero networks against the exact solution, on every reachable position.

    python benchmarks/xceter_o_alphazero.py [--weights FALSE.npz TRUE.npz] [--games 100] [--seed 0]

For each variant (``ordered_rows`` False and True) the greedy policy of the network (the legal
move with the largest logit, as ``make_agent("alphazero:simulations=0", "xceter_o_v0")`` plays)
is asked for its move in every reachable non-terminal position with an empty history: the
placement positions (pieces 1..k on any squares, k = 0..5, less those where player_0 already has
a line) and the movement positions the solver's ``reachable()`` finds. The observations are
built here with numpy for all positions at once (``observations``; a test holds them to the
rules core's ``observation_tensor``) and the network runs once over them.

* **optimal moves**: the share of positions where the move keeps the position's game value
  for the mover (win, draw or loss, ``solver.move_scores``); a won position needs a winning move,
  a drawn one a move that does not lose. Every move of a lost position is optimal.
* **won positions converted**: the share of won positions from which the greedy policy wins
  *whatever the opponent plays*: the least fixed point ("attractor") over the game graph with
  the policy's move at its own turns and every reply at the opponent's. A cycle the opponent can
  force is not a conversion (threefold repetition would draw it), so a converted position is
  won against ``perfect`` too, from any history. The start is converted when it is in the set.

Then ``--games`` games against ``perfect`` (random ties, seats rotated) per variant, of the
greedy policy and of the ``alphazero`` agent as it plays by default (a search of 256
simulations guided by the network): the start is a win for player_0, so an agent should win
every game it starts and lose the others. The measured table and its command are in docs/evaluation.md.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import time
from functools import lru_cache
from typing import Any, NamedTuple, Sequence

import numpy as np

from fox_envs.games.xceter_o.solver import (
    MOVES, PIECES, POWERS, XCeterOSolver, _padded, for_mover, has_line, solver_for,
)

PLANES = 10


def observations(squares: np.ndarray, turn: np.ndarray, placing: np.ndarray) -> np.ndarray:
    """The rules core's observations (flattened hwc, ``[N, 90]``) of positions given by the
    squares of pieces 1..6 (``-1``: not placed yet), the next piece - 1 and the phase, seen by
    the player to move (the owner of the next piece)."""
    n = len(squares)
    obs = np.zeros((n, 9, PLANES), dtype=np.float32)
    viewer = turn % 2
    rows = np.arange(n)
    occupied = np.zeros((n, 9), dtype=bool)
    for piece in range(1, PIECES + 1):
        square = squares[:, piece - 1]
        placed = square >= 0
        own = (piece - 1) % 2 == viewer
        plane = (piece - 1) // 2 + np.where(own, 0, 3)
        obs[rows[placed], square[placed], plane[placed]] = 1
        occupied[rows[placed], square[placed]] = True
    obs[:, :, 6] = ~occupied
    for plane, offset in ((7, 0), (8, 1)):  # the piece to move now, the one after it
        piece_index = (turn + offset) % PIECES
        square = squares[rows, piece_index]
        placed = square >= 0
        obs[rows[placed], square[placed], plane] = 1
    obs[:, :, 9] = placing[:, None]
    return obs.reshape(n, 9 * PLANES)


class Positions(NamedTuple):
    """Every reachable non-terminal position of one variant."""
    observation: np.ndarray  # [N, 90] float32
    mask: np.ndarray  # [N, 9] legal moves
    move_sign: np.ndarray  # [N, 9] the mover's value after each legal move: +1 / 0 / -1
    value: np.ndarray  # [N] the position's value for the mover
    placement: int  # the first ``placement`` rows are placement positions (layers 0..5 in order)
    layer_sizes: tuple[int, ...]  # rows of each placement layer
    movement_index: np.ndarray  # the movement rows' graph positions
    fastest: np.ndarray  # [N] the solver's best move (fastest win, slowest loss; lowest square on ties)


@lru_cache(maxsize=2)
def positions(ordered_rows: bool) -> Positions:
    solver = solver_for(ordered_rows)
    graph, movement = solver.graph, solver.movement
    obs, masks, signs, sizes, best = [], [], [], [], []
    for k in range(PIECES):
        rows = solver.placement.rows[k]
        scores = for_mover(solver.placement.child_scores(graph, movement, k, rows))
        legal = np.ones((len(rows), 9), dtype=bool)
        for j in range(k):
            legal[np.arange(len(rows)), rows[:, j]] = False
        alive = solver.placement.scores[k] != -solver_win()  # drop finished positions (player_0's line)
        squares = np.full((len(rows), PIECES), -1, dtype=np.int64)
        squares[:, :k] = rows
        obs.append(observations(squares[alive], np.full(int(alive.sum()), k), np.ones(int(alive.sum()), bool)))
        masks.append(legal[alive])
        signs.append(np.where(legal, np.sign(scores), 0)[alive])
        best.append(np.where(legal, scores, -2 * solver_win())[alive].argmax(axis=1))
        sizes.append(int(alive.sum()))
    reach = np.flatnonzero(solver.reachable())
    squares = graph.rows[reach // PIECES]
    turn = reach % PIECES
    obs.append(observations(squares, turn, np.zeros(len(reach), bool)))
    mask = np.zeros((len(reach), 9), dtype=bool)
    sign = np.zeros((len(reach), 9), dtype=np.int64)
    children, targets = graph.children[reach], graph.targets[reach].astype(np.int64)
    child_score = np.where(children < 0, solver_win() - 1, for_mover(movement[np.maximum(children, 0)]))
    child_sign = np.sign(child_score)
    best.append(np.take_along_axis(targets, child_score.argmax(axis=1)[:, None], axis=1)[:, 0])
    for j in range(MOVES):
        mask[np.arange(len(reach)), targets[:, j]] = True
        sign[np.arange(len(reach)), targets[:, j]] = child_sign[:, j]
    masks.append(mask)
    signs.append(sign)
    move_sign = np.concatenate(signs)
    mask = np.concatenate(masks)
    value = np.where(mask, move_sign, -2).max(axis=1)
    return Positions(np.concatenate(obs), mask, move_sign, value, sum(sizes), tuple(sizes), reach, np.concatenate(best))


def solver_win() -> int:
    from fox_envs.games.xceter_o.solver import WIN_SCORE

    return WIN_SCORE


def converted(solver: XCeterOSolver, pos: Positions, actions: np.ndarray) -> np.ndarray:
    """Whether the policy (``actions``, one per row of ``pos``) wins from each position whatever
    the opponent plays (module doc), as a boolean per row."""
    graph = solver.graph
    size = graph.size
    # movement phase: the least fixed point over the graph
    reach = pos.movement_index
    policy_move = np.zeros(size, dtype=np.int64)
    chosen = actions[pos.placement:]
    policy_move[reach] = (graph.targets[reach] == chosen[:, None]).argmax(axis=1)
    known = np.zeros(size, dtype=bool)
    known[reach] = True
    # positions off the reachable set get the first move; they are reached only through
    # reachable ones, so this never happens (every child of a reachable position is reachable)
    child = graph.children[np.arange(size), policy_move]
    win_now = child < 0
    safe_child = np.maximum(child, 0)
    replies = graph.children[safe_child]  # the opponent's moves there
    attractor = win_now.copy()
    while True:
        good = (replies >= 0).all(axis=1) & attractor[np.maximum(replies, 0)].all(axis=1)
        new = win_now | ((child >= 0) & good)
        if (new == attractor).all():
            break
        attractor = new
    out_movement = attractor[reach]
    # placement phase: layers 5 .. 0 (a policy node at k, the opponent at k + 1, the policy at k + 2)
    placement = solver.placement
    layer_start = np.concatenate([[0], np.cumsum(pos.layer_sizes)])
    wins: list[np.ndarray | None] = [None] * (PIECES + 1)  # wins[k][rank] for every arrangement of layer k
    wins_movement = attractor  # layer 6: movement positions with piece 1 next (player_0 to move)
    for k in range(PIECES - 1, -1, -1):
        rows = placement.rows[k]
        alive = placement.scores[k] != -solver_win()
        action = np.zeros(len(rows), dtype=np.int64)
        action[alive] = actions[layer_start[k]:layer_start[k + 1]]
        placed = np.concatenate([rows, action[:, None]], axis=1)
        mover = k % 2
        now = np.zeros(len(rows), dtype=bool)
        if k + 1 >= 5:
            now = has_line(graph.lines, _padded(placed), mover)
        # the opponent places piece k + 2 on each empty square
        good = np.ones(len(rows), dtype=bool)
        for square in range(9):
            free = ~(placed == square).any(axis=1)
            after = np.concatenate([placed, np.full((len(rows), 1), square)], axis=1)
            if k + 2 == PIECES:  # piece 6: the opponent may win; else a movement position, piece 1 next
                lost = has_line(graph.lines, after, 1 - mover)
                rank = graph.rank[np.where(free[:, None], after, np.arange(PIECES))[:, :PIECES] @ POWERS]
                ok = ~lost & wins_movement[rank * PIECES]
            elif k + 2 == PIECES + 1:  # k = 5: the policy's piece 6 led to the movement phase
                break
            else:
                lost = has_line(graph.lines, _padded(after), 1 - mover) if k + 2 == 5 else np.zeros(len(rows), bool)
                safe = np.where(free[:, None], after, np.arange(k + 2))
                rank = placement.rank[k + 2][safe @ POWERS[: k + 2]]
                ok = ~lost & wins[k + 2][rank]
            good &= ~free | ok
        if k == PIECES - 1:  # the policy placed piece 6: the opponent moves piece 1 in the movement phase
            rank = graph.rank[placed @ POWERS]
            opponent = rank * PIECES
            replies = graph.children[opponent]
            good = (replies >= 0).all(axis=1) & wins_movement[np.maximum(replies, 0)].all(axis=1)
        wins[k] = now | good
        wins[k][~alive] = False
    out_placement = np.concatenate([wins[k][placement.scores[k] != -solver_win()] for k in range(PIECES)])
    return np.concatenate([out_placement, out_movement])


def greedy_report(net: Any, ordered_rows: bool) -> dict[str, Any]:
    """The greedy policy of ``net`` (a ``PolicyValueNet``) on every reachable position."""
    from fox_envs.agents.alphazero import greedy_actions

    pos = positions(bool(ordered_rows))
    actions = np.concatenate([greedy_actions(net, pos.observation[i:i + 65536], pos.mask[i:i + 65536])
                              for i in range(0, len(pos.observation), 65536)])
    rows = np.arange(len(actions))
    optimal = pos.move_sign[rows, actions] == pos.value
    won = pos.value > 0
    wins = converted(solver_for(bool(ordered_rows)), pos, actions)
    p = pos.placement
    return {
        "positions": len(actions), "placement_positions": p, "movement_positions": len(actions) - p,
        "optimal": int(optimal.sum()), "optimal_share": float(optimal.mean()),
        "optimal_placement": float(optimal[:p].mean()), "optimal_movement": float(optimal[p:].mean()),
        "won": int(won.sum()), "converted": int((wins & won).sum()), "converted_share": float(wins[won].mean()),
        "wins_in_non_won": int((wins & ~won).sum()),  # must be 0: a sanity check of the solver and the attractor
        "start_converted": bool(wins[0]),
        "by_value": {name: float(optimal[pos.value == v].mean()) for name, v in (("won", 1), ("drawn", 0), ("lost", -1))
                     if (pos.value == v).any()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", nargs=2, default=None, metavar=("FALSE", "TRUE"),
                        help="weight files for ordered_rows False and True (default: the shipped ones)")
    parser.add_argument("--games", type=int, default=100, help="games against perfect per variant (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=256, help="the search agent's simulations (default 256, the agent's default)")
    args = parser.parse_args(argv)
    from fox_envs.agents.alphazero import AlphaZeroAgent, PolicyValueNet, packaged_arrays
    from fox_envs.evaluation import evaluate

    started, cpu = time.perf_counter(), time.process_time()
    print(f"| variant | positions | optimal moves | placement | movement | won positions | converted | start converted "
          f"| greedy vs perfect | alphazero ({args.simulations} simulations) vs perfect |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|---|")
    for index, ordered in enumerate((False, True)):
        if args.weights:
            with np.load(args.weights[index], allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        else:
            arrays = packaged_arrays("xceter_o_v0", {"ordered_rows": ordered})
        r = greedy_report(PolicyValueNet(arrays), ordered)
        assert r["wins_in_non_won"] == 0, r
        games = []
        for simulations in (0, args.simulations):
            if not args.games:
                games.append("-")
                continue
            agent = AlphaZeroAgent("xceter_o_v0", simulations=simulations, arrays=arrays)
            result = evaluate("xceter_o_v0", [agent, "perfect"], num_games=args.games, seed=args.seed,
                              params={"ordered_rows": ordered})
            games.append(seat_record(result))
        print(f"| ordered_rows={ordered} | {r['positions']:,} | {r['optimal']:,} ({100 * r['optimal_share']:.2f}%) "
              f"| {100 * r['optimal_placement']:.2f}% | {100 * r['optimal_movement']:.2f}% | {r['won']:,} "
              f"| {r['converted']:,} ({100 * r['converted_share']:.2f}%) | {'yes' if r['start_converted'] else 'no'} "
              f"| {games[0]} | {games[1]} |", flush=True)
    wall, cpu_used = time.perf_counter() - started, time.process_time() - cpu
    print(f"\nseed {args.seed}, {args.games} games against perfect per agent and variant, seats rotated; "
          f"{wall:.1f}s wall, {cpu_used:.1f}s CPU, numpy on the CPU")
    return 0


def seat_record(result: Any) -> str:
    """The first agent's wins in each seat: ``as player_0 W of N, as player_1 W of N``."""
    mine = result.results[0]
    return ", ".join(f"as player_{seat} {mine.seat_wins[seat]} of {mine.seat_games[seat]}" for seat in (0, 1))


if __name__ == "__main__":
    sys.exit(main())
