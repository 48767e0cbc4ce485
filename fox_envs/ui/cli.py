"""The command line: ``python -m fox_envs`` (also the ``fox-envs`` console script).

Commands: ``list``, ``play``, ``arena``, ``tournament``, ``replay``, ``bench``, ``serve``; ``--help`` on
each. ``main(argv)`` returns the exit code (0 ok, 1 game abandoned or, for ``arena`` and
``tournament``, games lost with a worker process (the finished games are still reported and
saved) or a move over ``--move-time`` with ``--on-timeout error``, 2 bad arguments or input).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fox_envs.core import ending
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE
from fox_envs.core.aec import make
from fox_envs.core.params import short_repr
from fox_envs.core.registry import GAMES, make_game, spec
from fox_envs.evaluation.match import MoveTimeError
from fox_envs.evaluation.pool import WorkerLostError

# ----- helpers ---------------------------------------------------------------------------------
def parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    """``["num_players=3", "ordered_rows=true"]`` -> params (values read as JSON, else text)."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"bad --param {item!r}: write name=value")
        if value in ("True", "False"):
            params[key] = value == "True"
            continue
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return params


def agent_specs(specs: Sequence[str], trust_code: bool) -> list[str]:
    """The agent specs typed on the command line, marked as trusted with ``--trust-code``."""
    from fox_envs.agents.policy_files import trusted

    return [trusted(spec) for spec in specs] if trust_code else list(specs)


def check_output_file(path: str | None, option: str, suffix: str | None = None) -> None:
    """Before any game is played: ``path`` (when given) must end in ``suffix`` (when given), not
    be a directory, and lie in an existing writable directory; else ``InvalidParameterError``."""
    if not path:
        return
    target = Path(path)
    if suffix and target.suffix.lower() != suffix:
        raise InvalidParameterError(f"{option} must name a {suffix} file, got {short_repr(path)}")
    if target.is_dir():
        raise InvalidParameterError(f"{option} {short_repr(path)} is a directory; give a file name")
    _check_writable_dir(target.parent, option, path)


def check_output_dir(path: str | None, option: str) -> None:
    """Before any game is played: ``path`` (when given) must be a writable directory, or one that
    can be made in the nearest existing (writable) directory above it."""
    if not path:
        return
    target = existing = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidParameterError(f"{option} {short_repr(path)} is a file, not a directory")
    while not existing.exists():
        existing = existing.parent
    _check_writable_dir(existing, option, path)


def _check_writable_dir(directory: Path, option: str, path: str) -> None:
    if not directory.is_dir():
        raise InvalidParameterError(f"{option} {short_repr(path)}: {short_repr(str(directory))} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InvalidParameterError(f"{option} {short_repr(path)}: directory {short_repr(str(directory))} is not writable")


def capped_workers(workers: int, backend: str) -> int:
    """``--workers``, at most the number of cores this process may run on (worker processes on
    this machine; a Ray cluster has its own cores); a cap is said in one line on stderr."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if backend != "process" or workers <= cores:
        return workers
    print(f"note: --workers {workers} is more than the {cores} cores here; using {cores} worker processes",
          file=sys.stderr)
    return cores


class Progress:
    """A plain-text progress bar on stderr (no dependency)."""

    def __init__(self, label: str, stream=None, width: int = 30) -> None:
        self.label, self.width = label, width
        self.stream = stream if stream is not None else sys.stderr
        self.shown = -1
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        steps = self.width if tty else 10  # not a terminal: one line per 10 %
        filled = steps * done // total if total else steps
        if filled == self.shown and done != total:
            return
        self.shown = filled
        bar_fill = self.width * done // total if total else self.width
        bar = "#" * bar_fill + "-" * (self.width - bar_fill)
        elapsed = time.perf_counter() - self.start
        text = f"{self.label} [{bar}] {done}/{total} games {elapsed:.1f}s"
        if tty:
            self.stream.write("\r" + text + ("\n" if done == total else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="a game parameter (repeatable), e.g. --param num_players=3; values are JSON")
    parser.add_argument("--max-moves", type=int, default=None,
                        help="truncate after this many player decisions (default: the game's)")


def _add_match_options(parser: argparse.ArgumentParser, games: int) -> None:
    _add_game_options(parser)
    parser.add_argument("--games", type=int, default=games, help=f"games per match (default {games})")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes, or Ray tasks at a time with --backend ray (default 1)")
    parser.add_argument("--backend", choices=("process", "ray"), default="process",
                        help="play in local worker processes (default) or as Ray tasks (needs fox_envs[rllib])")
    parser.add_argument("--address", default=None,
                        help="with --backend ray: the Ray cluster to join, e.g. 10.0.0.1:6379 "
                             "(default: RAY_ADDRESS, a cluster started here with 'ray start', else a new local Ray)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--rotation", choices=("permutations", "cyclic"), default="permutations",
                        help="seat rotation: all n! seat orders (default) or the n cyclic shifts")
    parser.add_argument("--move-time", type=float, default=None, metavar="SECONDS",
                        help="time limit of each move; an agent that takes longer forfeits that game (its worker "
                             "process is replaced) (default: no limit)")
    parser.add_argument("--on-timeout", choices=("forfeit", "error"), default="forfeit",
                        help="over --move-time: forfeit that game (default) or stop with an error")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_trust_option(parser)


def _add_trust_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trust-code", action="store_true",
                        help="let the agents' policy files run code: .pkl files and factories other than the "
                             "package's trained agents (only for files from a source you trust)")


def package_version() -> str:
    """The installed package's version (``fox_envs.__version__`` when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fox_envs")
    except PackageNotFoundError:
        import fox_envs

        return fox_envs.__version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fox-envs", description="fox_envs: play, evaluate and replay the fox games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="games, their params, and agents")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("play", help="play in the terminal against agents",
                       description="Play in the terminal. Type a move in the game's notation (b2, CR@c3, "
                                   "put red on 2 as pink) or build it step by step from the choices shown; "
                                   "commands: help, moves, back, board, rules, quit.")
    p.add_argument("env", metavar="ENV", help="env id (python -m fox_envs list shows them)")
    p.add_argument("--seats", default=None,
                   help="one agent per seat, comma separated: human, random, heuristic, mcts:..., module:callable "
                        "(default: human in seat 0, heuristic elsewhere)")
    p.add_argument("--seed", type=int, default=None, help="seed for chance and the agents (default: random)")
    p.add_argument("--plain", action="store_true",
                   help="print boards one after another (default on a terminal: redraw the screen)")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="show each agent's move with its board, SECONDS apart (watch agents play: "
                        "--seats heuristic,random --delay 1) (default 0: no pause)")
    _add_game_options(p)
    _add_trust_option(p)

    p = sub.add_parser("arena", help="a match between agents with seats rotated")
    p.add_argument("env", metavar="ENV")
    p.add_argument("agents", metavar="AGENT", nargs="+", help="one per seat (or one for every seat)")
    _add_match_options(p, games=100)
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--record-dir", help="save every game record (JSON) in this directory")

    p = sub.add_parser("tournament", help="round robin with ratings and a cross table")
    p.add_argument("env", metavar="ENV")
    p.add_argument("agents", metavar="AGENT", nargs="+")
    _add_match_options(p, games=50)
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples for rating intervals (default 200)")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--csv", help="write ratings and cross table as CSV here")
    p.add_argument("--plot", help="save a PNG here: the ratings with their intervals beside the cross table as a "
                                  "heat map (needs matplotlib: pip install 'fox_envs[plot]')")

    p = sub.add_parser("replay", help="step through a saved game record")
    p.add_argument("file", metavar="FILE", help="a game record (arena --record-dir) or a State.to_json file")
    p.add_argument("--gif", help="write an animated GIF of the rgb_array frames here")
    p.add_argument("--duration", type=int, default=700, help="GIF milliseconds per frame (default 700)")
    p.add_argument("--step", action="store_true", help="wait for Enter between boards")
    p.add_argument("--quiet", action="store_true", help="print only the summary (with --gif)")

    _add_serve_parser(sub)

    p = sub.add_parser("bench", help="random-play steps per second of the public env() per game")
    p.add_argument("envs", metavar="ENV", nargs="*", help="env ids (default: all)")
    p.add_argument("--steps", type=int, default=20000, help="steps per env (default 20000)")
    p.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    command = {"list": cmd_list, "play": cmd_play, "arena": cmd_arena, "tournament": cmd_tournament,
               "replay": cmd_replay, "bench": cmd_bench, "serve": cmd_serve}[args.command]
    try:
        return command(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as error:  # InvalidParameterError, IllegalActionError, ... are ValueErrors
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # an optional extra that is not installed (--backend ray)
        print(f"error: {error}", file=sys.stderr)
        return 2
    except MoveTimeError as error:  # --on-timeout error: an agent took longer than --move-time
        print(" ".join(["error:", str(error), *getattr(error, "__notes__", [])]), file=sys.stderr)
        return 1


# ----- list ----------------------------------------------------------------------------------------
BUILT_IN_AGENT_HELP = [  # (name, syntax, description) of the agents every game has
    ("random", "random", "uniformly random legal move"),
    ("heuristic", "heuristic", "the game's hand-written heuristic"),
    ("mcts", "mcts[:simulations=N,c=1.4,rollout=random|heuristic,rollout_limit=N,decisive=true,safety=true,reuse=true,anchor=Z,preset=plain]", "UCT search on the rules core (tuned per game, docs/evaluation.md)"),
]
OTHER_AGENT_HELP = [  # the other ways to name an agent
    ("module:callable", "module:callable", "your factory, called as factory(env_id=..., seed=...)"),
    ("policy file", "path/to/policy.json|.npz|.pkl", "a saved policy file (docs/evaluation.md)"),
    ("human", "human", "you, at the terminal (play only)"),
]


def agent_help() -> list[tuple[str, str, str]]:
    """(name, syntax, description) of every agent: the built-in ones, then each game's own
    (from the specs, with the games that have it), then the other ways to name an agent."""
    own: dict[str, tuple[str, str, list[str]]] = {}
    for game in GAMES.values():
        for name, agent in game.agents.items():
            usage, summary, titles = own.setdefault(name, (agent.usage or name, agent.summary, []))
            titles.append(game.title)
    games_own = [(name, usage, f"{' and '.join(titles)} only: {summary}") for name, (usage, summary, titles) in own.items()]
    return BUILT_IN_AGENT_HELP + games_own + OTHER_AGENT_HELP


def describe_games() -> list[dict[str, Any]]:
    games = []
    for env_id in GAMES:
        try:
            game = make_game(env_id)
        except Exception as error:  # a game under construction must not break `list`
            games.append({"env_id": env_id, "error": str(error)})
            continue
        games.append({
            "env_id": env_id, "players": game.num_players, "actions": game.num_actions,
            "zero_sum": game.zero_sum, "perfect_information": game.perfect_information,
            "max_moves_default": game.max_moves_default, "gym_id": "fox_envs/" + GAMES[env_id].gym_id,
            "title": GAMES[env_id].title,
            "params": {name: {"default": p.default, "allowed": p.allowed} for name, p in type(game).PARAMS.items()},
        })
    return games


def cmd_list(args) -> int:
    games = describe_games()
    if args.json:
        agents = [{"name": name, "syntax": syntax, "help": text} for name, syntax, text in agent_help()]
        print(json.dumps({"games": games, "agents": agents}, indent=1))
        return 0
    print("games:")
    for g in games:
        if "error" in g:
            print(f"  {g['env_id']}: cannot load ({g['error']})")
            continue
        kind = "zero-sum" if g["zero_sum"] else "cooperative"
        info = "perfect information" if g["perfect_information"] else "hidden information"
        print(f"  {g['env_id']}  ({g['gym_id']}): {g['players']} players, {kind}, {info}, "
              f"{g['actions']} actions, max_moves {g['max_moves_default']}")
        for name, p in g["params"].items():
            print(f"      --param {name}={json.dumps(p['default'])}   allowed: {p['allowed']}")
    print("agents:")
    for _, syntax, text in agent_help():
        print(f"  {syntax:<72} {text}")
    return 0


# ----- play ----------------------------------------------------------------------------------------
def cmd_play(args) -> int:
    from fox_envs.ui.play import play

    seats = agent_specs(args.seats.split(","), True) if args.trust_code and args.seats else args.seats
    return play(args.env, seats, seed=args.seed, params=parse_params(args.param), max_moves=args.max_moves,
                redraw=False if args.plain else None, delay=args.delay)


# ----- arena / tournament --------------------------------------------------------------------------
def cmd_arena(args) -> int:
    from fox_envs.evaluation import evaluate

    params = parse_params(args.param)
    check_output_file(args.out, "--out")
    check_output_dir(args.record_dir, "--record-dir")
    args.workers = capped_workers(args.workers, args.backend)
    progress = None if args.quiet else Progress(args.env)
    start = time.perf_counter()
    try:
        result = evaluate(args.env, agent_specs(args.agents, args.trust_code), args.games, args.seed, args.workers,
                          params=params, max_moves=args.max_moves, rotation=args.rotation, keep_records=bool(args.record_dir),
                          progress=progress, backend=args.backend, ray_address=args.address,
                          move_time=args.move_time, on_timeout=args.on_timeout)
        code = 0
    except WorkerLostError as error:  # report and save the games that finished, then say what was lost
        result, code = error.partial, _report_lost(error)
    print(result.summary())
    if args.out:
        Path(args.out).write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"results written to {args.out}", file=sys.stderr)
    if args.record_dir:
        directory = Path(args.record_dir)
        directory.mkdir(parents=True, exist_ok=True)
        for record in result.records:
            record.save(directory / f"game_{record.game_index:05d}.json")
        print(f"{len(result.records)} game records written to {directory}", file=sys.stderr)
    print(f"elapsed {time.perf_counter() - start:.1f}s with {args.workers} worker(s)"
          + (" on Ray" if args.backend == "ray" else ""), file=sys.stderr)
    return code


def _report_lost(error) -> int:
    print(f"\nerror: {error}", file=sys.stderr)
    return 1


def cmd_tournament(args) -> int:
    from fox_envs.evaluation import plot_tournament, round_robin

    for path, option in ((args.out, "--out"), (args.csv, "--csv"), (args.plot, "--plot")):
        check_output_file(path, option)
    if args.plot:  # a missing plot extra is an error before the games, not after them
        from fox_envs.evaluation.plots import import_pyplot

        import_pyplot()
    args.workers = capped_workers(args.workers, args.backend)
    progress = None if args.quiet else Progress(f"{args.env} round robin")
    try:
        result = round_robin(args.env, agent_specs(args.agents, args.trust_code), args.games, args.seed, args.workers,
                             params=parse_params(args.param), max_moves=args.max_moves, bootstrap=args.bootstrap,
                             rotation=args.rotation, progress=progress, backend=args.backend,
                             ray_address=args.address, move_time=args.move_time, on_timeout=args.on_timeout)
        code = 0
    except WorkerLostError as error:  # report and save the games that finished, then say what was lost
        result, code = error.partial, _report_lost(error)
    print(result.summary())
    result.save(args.out, args.csv)
    for path in (args.out, args.csv):
        if path:
            print(f"written {path}", file=sys.stderr)
    if args.plot:
        print(f"plot written to {plot_tournament(result, args.plot)}", file=sys.stderr)
    return code


# ----- replay --------------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    from fox_envs.evaluation.records import GameRecord, replay_states

    check_output_file(args.gif, "--gif", ".gif")
    record = GameRecord.load(args.file)
    states = replay_states(record)
    final = states[-1]
    print(f"{record.game} {json.dumps(record.params, sort_keys=True)}: {len(record.history)} actions"
          + (f", seed {record.seed} game {record.game_index}" if record.seed is not None else "")
          + (f", seats {', '.join(record.agents)}" if record.agents else ""))
    shown = [i for i, state in enumerate(states) if not state.is_chance_node()]  # chance steps: a line each
    if not args.quiet:
        for index, state in enumerate(states):
            if index:
                before = states[index - 1]
                mover = before.current_player()
                who = "chance" if mover == CHANCE else f"player_{mover}"
                print(f"{'' if before.is_chance_node() else chr(10)}{index}. {who}: "
                      f"{before.action_to_string(record.history[index - 1])}")
            if state.is_chance_node():
                continue
            print(ending.board_text(state, None, _record_ending(record, index == len(states) - 1)))
            if args.step and index < len(states) - 1:
                print("[Enter: next board]", end="", flush=True)
                if not sys.stdin.readline():
                    args.step = False
    if final.is_terminal():
        returns = [float(r) for r in final.returns()]
        print("result: " + ", ".join(f"player_{k} {r:+g}" for k, r in enumerate(returns)))
        if record.returns and not record.truncated and record.returns != returns:
            print(f"warning: recorded returns {record.returns} differ from the replay's {returns}", file=sys.stderr)
    else:
        print("result: not finished" + (" (truncated at max_moves)" if record.truncated else ""))
    if args.gif:
        from PIL import Image

        last = len(states) - 1
        frames = [Image.fromarray(ending.board_picture(states[i], None, _record_ending(record, i == last)))
                  for i in shown or [last]]
        frames[0].save(args.gif, save_all=True, append_images=frames[1:], duration=args.duration, loop=0)
        print(f"{len(frames)} frames written to {args.gif}", file=sys.stderr)
    return 0


def _record_ending(record, last: bool) -> str | None:
    """The status line of a recorded game truncated at max_moves, for its last board."""
    return ending.truncated(record.max_moves) if last and record.truncated and record.max_moves else None


# ----- bench ---------------------------------------------------------------------------------------
def random_play_steps_per_second(env_id: str, steps: int, seed: int = 0) -> float:
    """Steps per second of the public ``env()`` under random play (agent_iter / last /
    sample from the mask / step), resetting after each game."""
    env = make(env_id)
    rng = np.random.default_rng(seed)
    done = 0
    episode = 0
    start = time.perf_counter()
    while done < steps:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            done += 1
            if done >= steps:
                break
    return done / (time.perf_counter() - start)


def cmd_bench(args) -> int:
    env_ids = args.envs or list(GAMES)
    for env_id in env_ids:
        spec(env_id)
    print(f"random play through env(), {args.steps} steps each")
    for env_id in env_ids:
        rate = random_play_steps_per_second(env_id, args.steps, args.seed)
        print(f"  {env_id:<20} {rate:>10,.0f} steps/s")
    return 0


# ----- serve ---------------------------------------------------------------------------------------
def _add_serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="the local web app: play, watch and replay in a browser (docs/web.md)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--records", metavar="DIR", help="a directory of game records (arena --record-dir) to list on the replay page")
    p.add_argument("--policies", metavar="DIR",
                   help="a directory of saved policy files (.json/.npz) that seats may name; loaded as data only")
    p.add_argument("--open", action="store_true", help="open the app in the default browser")
    p.add_argument("--verbose", action="store_true", help="log every request")


def cmd_serve(args) -> int:
    from fox_envs.ui.web.server import serve

    return serve(args.host, args.port, records_dir=args.records, policy_dir=args.policies, verbose=args.verbose,
                 open_browser=args.open)
