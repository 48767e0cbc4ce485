"""``BatchEnv``: many games of one kind stepped together, one Python call per batch step.

The generic part lives here once: argument checks, the common buffers (see ``_rows``), per-row
random streams, threads over row ranges, bad-action errors and the bridge to the rules core.
Everything game-specific is in the game's kernels object (``GameKernels``), which the game's spec
names (``GameSpec.kernels``).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

import numpy as np

from fox_envs.batch._box import CHECK, PICK, RANDOM, STEP, entry, new_rows
from fox_envs.batch._obs import OBSERVATION_DTYPES
from fox_envs.batch._rng import PICK_STREAM, seed_streams, seed_words
from fox_envs.batch._rows import COMMON_FIELDS, TERMINAL, first_illegal, pick_from_streams, pick_from_uniforms
from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.game import Game, State
from fox_envs.core.params import integer_in, seed_value, short_repr
from fox_envs.core.registry import GAMES, load_object, make_game

MEMORY_LIMIT = 4 << 30  # bytes of history and repetition tables a BatchEnv may allocate
MIN_ROWS_PER_THREAD = 256  # the default of GameKernels.min_rows_per_thread


class GameKernels:
    """What a game's batched module provides (one subclass per game, holding its own arrays).

    ``reset`` / ``step`` run a row range ``[lo, hi)`` and must touch no other row; ``common`` is
    the tuple of ``COMMON_FIELDS``. ``step`` skips rows whose action is negative or whose game is
    finished; ``final_view`` is the seat whose view ``final_obs`` holds (-1: the last mover). A
    game whose kernels give ``run`` (one ``Rows`` box per call) is stepped through it instead,
    and needs no ``step`` method.
    """

    max_legal: int  # the most legal actions a position can have
    # Optional, for cheap calls: the game's ``run_rows`` kernel taking one ``Rows`` box
    # (``fox_envs.batch._box``), with ``box_state`` / ``box_extra`` the tuples it unpacks.
    run: Any = None
    # the observation element types the kernels write (``fox_envs.batch._obs``)
    observation_dtypes: tuple[str, ...] = ("float32",)
    # the fewest rows per thread worth a thread: below it handing a share to a thread costs more
    # than stepping it (measured per game by ``benchmarks/batch_bench.py --threads-table``)
    min_rows_per_thread: int = MIN_ROWS_PER_THREAD

    def __init__(self, game: Game) -> None:
        self.game = game
        self.observation_dtype = np.dtype(np.float32)  # set by the env before ``allocate``

    def box_state(self) -> tuple:
        """The state arguments the game's step kernel takes between ``actions`` and ``common``
        (``run`` only)."""
        raise NotImplementedError

    def box_extra(self) -> tuple:
        """The constant arguments the game's step kernel takes after ``final_view`` (``run`` only)."""
        raise NotImplementedError

    def allocate(self, num_envs: int) -> None:
        """Create the game's state arrays for ``num_envs`` rows."""
        raise NotImplementedError

    def history_capacity(self, max_moves: int) -> int:
        """The most actions plus chance outcomes a game of at most ``max_moves`` decisions has."""
        raise NotImplementedError

    def positions_per_game(self, max_moves: int) -> int:
        """The most positions a game counts for repetition (0: the game has no repetition rule)."""
        return 0

    def reset(self, lo: int, hi: int, which: np.ndarray, common: tuple) -> None:
        """Start a new game in every row of ``[lo, hi)`` with ``which[i]`` (chance drawn)."""
        raise NotImplementedError

    def step(self, lo: int, hi: int, actions: np.ndarray, common: tuple, max_moves: int, auto_reset: bool,
             final_view: int) -> None:
        """One decision in every row of ``[lo, hi)`` with an action (games without ``run``)."""
        raise NotImplementedError

    def replay(self, i: int, history: np.ndarray, common: tuple) -> None:
        """Row ``i`` from the start through ``history`` (core ids), then chance drawn until a
        player is to move; writes its observation, mask and player and sets ``moves[i]``."""
        raise NotImplementedError

    def heuristic(self, lo: int, hi: int, out: np.ndarray, common: tuple) -> None:
        """For every row ``i`` of ``[lo, hi)``: ``out[i]`` the action the game's heuristic
        (``fox_envs.agents``) chooses for the player to move, ties among its best moves broken
        uniformly with the row's pick stream; -1 for a finished game."""
        raise NotImplementedError(f"{self.game.name}: the batched core has no heuristic for this game")


def batched_env_ids() -> tuple[str, ...]:
    """The registered env ids whose spec names batched kernels."""
    return tuple(env_id for env_id, game in GAMES.items() if game.kernels is not None)


def kernels_class(env_id: str) -> type[GameKernels]:
    """The ``GameKernels`` class of ``env_id``; a game without kernels (or an unknown id) raises
    ``InvalidParameterError``."""
    game = GAMES.get(env_id) if isinstance(env_id, str) else None
    if game is None:
        raise InvalidParameterError(f"unknown env id {short_repr(env_id)}; known ids: {', '.join(batched_env_ids())}")
    if game.kernels is None:
        raise InvalidParameterError(
            f"{short_repr(env_id)} has no batched kernels; the batched core plays: {', '.join(batched_env_ids())} "
            "(every game works with fox_envs.make, gymnasium.make and FoxVectorEnv)")
    return load_object(game.kernels)


def has_batched_heuristic(env_id: str) -> bool:
    """Whether the batched kernels of ``env_id`` implement ``GameKernels.heuristic``."""
    game = GAMES.get(env_id) if isinstance(env_id, str) else None
    return game is not None and game.kernels is not None and load_object(game.kernels).heuristic is not GameKernels.heuristic


INT64 = np.dtype(np.int64)
INT32_MAX = 2**31 - 1  # the most rows, decisions per game (int32 counters) or threads a BatchEnv takes


def _check_int(name: str, value: Any, low: int, env_id: str, high: int = INT32_MAX) -> int:
    """``value`` as an int in ``low..high`` (``integer_in``); else ``InvalidParameterError``
    naming ``name``."""
    number = integer_in(value, low, high)
    if number is None:
        raise InvalidParameterError(f"{env_id}: bad {name} {short_repr(value)}; allowed: an integer in {low}..{high}")
    return number


def _power_of_two_above(n: int) -> int:
    return 1 << max(1, int(n - 1).bit_length())


class BatchEnv:
    """``num_envs`` independent games of ``env_id`` in arrays (see ``fox_envs.batch``)."""

    def __init__(self, env_id: str, num_envs: int, seed: int | None = None, auto_reset: bool = True,
                 threads: int = 1, max_moves: int | None = None, observation_dtype: str = "float32",
                 action_mask: bool = True, **params: Any) -> None:
        kernels = kernels_class(env_id)
        self.env_id = env_id
        self.game: Game = make_game(env_id, **params)
        self.num_envs = _check_int("num_envs", num_envs, 1, env_id)
        if not isinstance(auto_reset, (bool, np.bool_)):
            raise InvalidParameterError(f"{env_id}: bad auto_reset {short_repr(auto_reset)}; allowed: True or False")
        self.auto_reset = bool(auto_reset)
        if not isinstance(action_mask, (bool, np.bool_)):
            raise InvalidParameterError(f"{env_id}: bad action_mask {short_repr(action_mask)}; allowed: True or False")
        self.has_action_mask = bool(action_mask)
        self.threads = _check_int("threads", threads, 1, env_id)
        self.max_moves = _check_int("max_moves", self.game.max_moves_default if max_moves is None else max_moves,
                                    1, env_id)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_shape = tuple(self.game.observation_shape)
        self._kernels: GameKernels = kernels(self.game)
        self.observation_dtype = self._checked_dtype(observation_dtype)
        self._kernels.observation_dtype = np.dtype(np.float32 if self.observation_dtype == "float32" else np.uint8)
        self._allocate()
        self._pool: ThreadPoolExecutor | None = None
        self.reset(seed)

    def _checked_dtype(self, value: Any) -> str:
        """``value`` if this game's kernels write observations of that kind, else
        ``InvalidParameterError`` saying which they write."""
        allowed = [name for name in OBSERVATION_DTYPES
                   if name in self._kernels.observation_dtypes
                   or (name == "bits" and "uint8" in self._kernels.observation_dtypes
                       and self.game.observation_scale() is None)]
        if not isinstance(value, str) or value not in allowed:
            raise InvalidParameterError(
                f"{self.env_id}: bad observation_dtype {short_repr(value)}; allowed: {', '.join(map(repr, allowed))}"
                + ("" if "bits" in allowed else " ('bits' needs every plane 0/1)"))
        return value

    # ----- buffers ---------------------------------------------------------------------------
    def _allocate(self) -> None:
        b, kernels = self.num_envs, self._kernels
        history = kernels.history_capacity(self.max_moves)
        positions = kernels.positions_per_game(self.max_moves)
        table = _power_of_two_above(positions + positions // 4 + 1) if positions else 1  # load at most 0.8
        needed = b * (4 * history + 8 * table)
        if needed > MEMORY_LIMIT:
            raise InvalidParameterError(
                f"{self.env_id}: max_moves={self.max_moves} with num_envs={b} needs {needed / 2**30:.1f} GiB "
                f"of history; allowed: at most {MEMORY_LIMIT / 2**30:.0f} GiB (lower max_moves or num_envs)")
        shape, cells = (b, *self.observation_shape), kernels.observation_dtype
        arrays = {
            "obs": np.zeros(shape, cells),
            "mask": np.zeros((b if self.has_action_mask else 0, self.num_actions), np.bool_),
            "player": np.zeros(b, np.int32), "rewards": np.zeros((b, self.num_players), np.float32),
            "term": np.zeros(b, np.bool_), "trunc": np.zeros(b, np.bool_), "final_obs": np.zeros(shape, cells),
            "moves": np.zeros(b, np.int32), "streams": np.zeros((b, 2), np.uint64),
            "hist": np.zeros((b, history), np.int16), "hlen": np.zeros(b, np.int32),
            "last_hist": np.zeros((b, history), np.int16), "last_hlen": np.full(b, -1, np.int32),
            "legal": np.zeros((b, kernels.max_legal), np.int32), "nlegal": np.zeros(b, np.int32),
            "rep_keys": np.zeros((b, table), np.uint64), "rep_counts": np.zeros((b, 1), np.uint8),
            "picked": np.full(b, -1, np.int64),
        }
        self._arrays = arrays
        self._all_rows = np.ones(b, np.bool_)
        kernels.allocate(b)
        self._bind()

    def _bind(self) -> None:
        """The views kernels are called with: the ``common`` tuple and, where the game's kernels
        take one, the ``Rows`` box with its compiled entry point (``_run``; None otherwise)."""
        arrays, kernels = self._arrays, self._kernels
        if not self.has_action_mask:  # the kernels write every row's mask into one shared row, never read
            arrays["mask"] = np.lib.stride_tricks.as_strided(np.zeros(self.num_actions, np.bool_),
                                                             (self.num_envs, self.num_actions), (0, 1))
        self._common = tuple(arrays[name] for name in COMMON_FIELDS)
        self._one_range = self.threads == 1 or self.num_envs < kernels.min_rows_per_thread * self.threads
        self._box = self._run = None
        if kernels.run is not None:
            self._box = new_rows(self._common, kernels.box_state(), kernels.box_extra())
            # an empty row range: compiled (or loaded) without touching any row
            self._run = entry(kernels.run, self._box, 0, 0, STEP, arrays["picked"], self.max_moves, self.auto_reset, -1)

    @property
    def observation(self) -> np.ndarray:
        """``[num_envs, *observation_shape]``: row i is what the player to move in game i sees (a
        finished game, ``auto_reset=False``: its last position as its last mover saw it). float32
        as the rules core's, or with ``observation_dtype="uint8"`` its exact integers
        (``Game.compact_observation``); ``"bits"``: uint8 ``[num_envs, ceil(cells / 8)]``, the
        flattened 0/1 row packed eight cells per byte (``numpy.packbits`` order)."""
        return self._packed(self._arrays["obs"])

    def _packed(self, cells: np.ndarray) -> np.ndarray:
        if self.observation_dtype != "bits":
            return cells
        return np.packbits(cells.reshape(self.num_envs, -1), axis=1)

    @property
    def action_mask(self) -> np.ndarray:
        """bool ``[num_envs, num_actions]``: the legal actions of each game (all False when
        finished). Not kept with ``action_mask=False`` (``legal_actions`` is)."""
        if not self.has_action_mask:
            raise AttributeError(f"{self.env_id}: this env was made with action_mask=False and keeps no dense mask; "
                                 "read legal_actions and num_legal")
        return self._arrays["mask"]

    @property
    def legal_actions(self) -> np.ndarray:
        """int32 ``[num_envs, max_legal]``: row i's legal actions are ``legal_actions[i, :num_legal[i]]``
        (in the kernels' order; the entries after them are scratch)."""
        return self._arrays["legal"]

    @property
    def num_legal(self) -> np.ndarray:
        """int32 ``[num_envs]``: how many legal actions each game has (0 when finished)."""
        return self._arrays["nlegal"]

    @property
    def current_player(self) -> np.ndarray:
        """int32 ``[num_envs]``: the seat to move (TERMINAL for a finished game, ``auto_reset=False``)."""
        return self._arrays["player"]

    @property
    def final_observation(self) -> np.ndarray:
        """Rows of games that ended in the last ``step``: the last observation, as their last mover
        saw it (in the form of ``observation``)."""
        return self._packed(self._arrays["final_obs"])

    @property
    def moves(self) -> np.ndarray:
        """int32 ``[num_envs]``: player decisions made in each current game."""
        return self._arrays["moves"]

    # ----- running kernels over row ranges -----------------------------------------------------
    def _over_rows(self, function, *args: Any) -> None:
        """Run ``function(lo, hi, *args)`` over every row, split across ``threads`` threads (one
        thread when there are fewer than the game's ``min_rows_per_thread`` per thread); the calling
        thread runs the first range. An interrupt while waiting lets every range finish first, so
        each row is whole."""
        if self._one_range:
            function(0, self.num_envs, *args)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="fox_envs.batch")
            self._bounds = np.linspace(0, self.num_envs, self.threads + 1).astype(int).tolist()
        bounds = self._bounds
        futures = [self._pool.submit(function, lo, hi, *args) for lo, hi in zip(bounds[1:-1], bounds[2:])]
        try:
            function(0, bounds[1], *args)  # the first range in this thread
            for future in futures:
                future.result()
        finally:
            wait(futures)

    # ----- the API ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Start every game afresh; row i's chance outcomes come from a stream fixed by ``seed`` and i."""
        seed = seed_value(seed, f"{self.env_id}: ")
        streams = self._arrays["streams"]
        seed_streams(streams, seed_words(seed), 0, self.num_envs)
        self._arrays["last_hlen"][:] = -1
        for name in ("rewards", "term", "trunc"):
            self._arrays[name][...] = 0
        self._over_rows(self._kernels.reset, self._all_rows, self._common)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play one action per row: ``(rewards [B, num_players], terminated [B], truncated [B])``.
        An illegal or malformed action raises ``IllegalActionError`` naming its row, and no row
        is stepped."""
        arrays = self._arrays
        if (self._run is not None and self._one_range and type(actions) is np.ndarray and actions.dtype is INT64
                and actions.shape == arrays["picked"].shape and actions.flags.c_contiguous):
            # one compiled call checks every row, then steps them all
            bad = self._run(self._box, 0, self.num_envs, CHECK, actions, self.max_moves, self.auto_reset, -1)
            if bad >= 0:
                self._raise_illegal(bad, int(actions[bad]))
        else:
            self._step(self._checked_actions(actions))
        return arrays["rewards"], arrays["term"], arrays["trunc"]

    def step_random(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``step(random_actions())`` in one compiled call per thread: every row plays a uniformly
        random legal action from its own pick stream (the same actions ``random_actions()`` would
        have drawn; they are in ``last_random_actions``)."""
        arrays = self._arrays
        if self._run is None:
            arrays["picked"][:] = self.random_actions()
            self._step(arrays["picked"])
        else:
            self._run_rows(RANDOM, arrays["picked"], -1)
        return arrays["rewards"], arrays["term"], arrays["trunc"]

    @property
    def last_random_actions(self) -> np.ndarray:
        """int64 ``[num_envs]``: the actions the last ``step_random`` played (-1: a finished game)."""
        return self._arrays["picked"]

    def step_heuristic(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``step(heuristic_actions())`` without checking the actions again (the heuristic only
        picks legal ones); they are in ``last_random_actions`` too."""
        picked = self._arrays["picked"]
        self._over_rows(self._kernels.heuristic, picked, self._common)  # what heuristic_actions() returns
        self._step(picked)
        return self._arrays["rewards"], self._arrays["term"], self._arrays["trunc"]

    def _run_rows(self, mode: int, actions: np.ndarray, final_view: int) -> None:
        """The game's ``run`` kernel in ``mode`` over every row (split across threads as
        ``_over_rows`` splits them)."""
        if self._one_range:
            self._run(self._box, 0, self.num_envs, mode, actions, self.max_moves, self.auto_reset, final_view)
        else:
            self._over_rows(self._run_range, mode, actions, final_view)

    def _run_range(self, lo: int, hi: int, mode: int, actions: np.ndarray, final_view: int) -> None:
        self._run(self._box, lo, hi, mode, actions, self.max_moves, self.auto_reset, final_view)

    def _raise_illegal(self, row: int, value: int) -> None:
        raise IllegalActionError(f"row {row}: {self.core_state(row)._illegal_message(value, value)}")

    def _checked_actions(self, actions: Any) -> np.ndarray:
        values = np.asarray(actions)
        if values.shape != (self.num_envs,):
            raise ValueError(f"{self.env_id}: actions must have shape ({self.num_envs},), got {values.shape}")
        if values.dtype.kind not in "iu":
            row = 0
            raise IllegalActionError(
                f"{self.env_id}: row {row}: malformed action {values[row]!r} (array dtype {values.dtype}): "
                f"actions are integers; {self._legal_text(row)}")
        if values.dtype.kind == "u" and values.dtype.itemsize == 8:  # above int64: out of range, as written
            too_big = np.flatnonzero(values > np.iinfo(np.int64).max)
            if len(too_big):
                self._raise_illegal(int(too_big[0]), int(values[too_big[0]]))
        values = np.ascontiguousarray(values, dtype=np.int64)
        arrays = self._arrays
        bad = first_illegal(values, arrays["mask"], arrays["player"], arrays["legal"], arrays["nlegal"], 0,
                            self.num_envs)
        if bad >= 0:
            self._raise_illegal(bad, int(values[bad]))
        return values

    def _legal_text(self, row: int) -> str:
        legal = np.sort(self._arrays["legal"][row, :self._arrays["nlegal"][row]])[:8]
        return "legal actions of that row: " + (", ".join(map(str, legal)) if len(legal) else "none")

    def _step(self, actions: np.ndarray, final_view: int = -1) -> None:
        """Step every row with ``actions[i] >= 0`` (no checks; other rows keep their game);
        ``actions`` is a C-contiguous int64 array."""
        if self._run is None:
            self._over_rows(self._kernels.step, actions, self._common, self.max_moves, self.auto_reset, final_view)
        else:
            self._run_rows(STEP, actions, final_view)

    def _restart(self, which: np.ndarray) -> None:
        """Start a new game in the rows flagged by ``which`` (streams continue)."""
        self._over_rows(self._kernels.reset, which, self._common)

    def random_actions(self, rng: Any = None) -> np.ndarray:
        """A uniformly random legal action per row (-1 for a finished game). Without ``rng`` each
        row draws from its own stream; ``rng`` (a ``numpy.random.Generator`` or a seed) draws one
        uniform per row."""
        out = np.empty(self.num_envs, np.int64)
        arrays = self._arrays
        if rng is None and self._run is not None:
            self._run(self._box, 0, self.num_envs, PICK, out, self.max_moves, self.auto_reset, -1)
        elif rng is None:
            pick_from_streams(arrays["legal"], arrays["nlegal"], arrays["streams"], self._all_rows, out)
        else:
            generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
            pick_from_uniforms(arrays["legal"], arrays["nlegal"], generator.random(self.num_envs), out)
        return out

    def _random_actions_in(self, which: np.ndarray) -> np.ndarray:
        """Random legal actions from the pick streams of the rows flagged by ``which`` only (-1 elsewhere)."""
        out = np.empty(self.num_envs, np.int64)
        pick_from_streams(self._arrays["legal"], self._arrays["nlegal"], self._arrays["streams"], which, out)
        return out

    def heuristic_actions(self) -> np.ndarray:
        """The action the game's heuristic (``fox_envs.agents``, ``"heuristic"``) chooses in each
        row (-1 for a finished game); ties among its best moves are broken uniformly from the
        row's own pick stream, so a row's choices depend only on the seed and its own game."""
        out = np.empty(self.num_envs, np.int64)
        self._over_rows(self._kernels.heuristic, out, self._common)
        return out

    def _heuristic_actions_in(self, which: np.ndarray) -> np.ndarray:
        """Heuristic actions of the rows flagged by ``which`` only (-1 elsewhere; the other rows'
        pick streams are left as they were)."""
        if which.all():
            return self.heuristic_actions()
        out = np.full(self.num_envs, -1, np.int64)
        flagged = np.flatnonzero(which)
        if len(flagged) * 4 < self.num_envs:  # few rows: one kernel call per run of consecutive rows
            breaks = np.flatnonzero(np.diff(flagged) > 1)
            starts = np.concatenate((flagged[:1], flagged[breaks + 1]))
            ends = np.concatenate((flagged[breaks], flagged[-1:])) + 1
            for lo, hi in zip(starts.tolist(), ends.tolist()):
                self._kernels.heuristic(lo, hi, out, self._common)
            return out
        picks = self._arrays["streams"][:, PICK_STREAM]  # many rows: every row, the others undone
        kept = picks.copy()
        self._over_rows(self._kernels.heuristic, out, self._common)
        out[~which] = -1
        np.copyto(picks, kept, where=~which)
        return out

    # ----- bridge to the rules core -------------------------------------------------------------
    def _row(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"{self.env_id}: row {short_repr(i)} out of range 0..{self.num_envs - 1}")
        return int(i)

    def _replayed(self, history: np.ndarray) -> State:
        state = self.game.new_initial_state()
        for action in history.tolist():
            state.apply_action(action)
        return state

    def core_state(self, i: int) -> State:
        """The rules-core state of game i (a finished game, ``auto_reset=False``: its final state)."""
        i = self._row(i)
        arrays = self._arrays
        if arrays["player"][i] == TERMINAL:
            return self.final_core_state(i)
        return self._replayed(arrays["hist"][i, :arrays["hlen"][i]])

    def final_core_state(self, i: int) -> State:
        """The rules-core state in which the last finished game of row i ended (terminal, or
        truncated at ``max_moves``)."""
        i = self._row(i)
        n = int(self._arrays["last_hlen"][i])
        if n < 0:
            raise ValueError(f"{self.env_id}: row {i} has not finished a game since reset")
        return self._replayed(self._arrays["last_hist"][i, :n])

    def load(self, i: int, state: State) -> None:
        """Game i continues from the rules-core ``state`` (same game and params). At a chance node
        the chance is drawn from row i's stream; if that ends the game, the row is finished (with
        ``auto_reset`` a new game starts at once; the ended one is ``final_core_state(i)``)."""
        i = self._row(i)
        if not isinstance(state, State) or state.game != self.game:
            raise InvalidStateError(f"{self.env_id}: load needs a state of {self.game!r}, got {state!r:.80}")
        if state.is_terminal():
            raise InvalidStateError(f"{self.env_id}: cannot load a finished game into row {i}")
        history = state.history()
        decisions = count_decisions(state)
        if decisions >= self.max_moves:
            raise InvalidStateError(
                f"{self.env_id}: the state has {decisions} decisions; this env truncates at max_moves={self.max_moves}")
        if len(history) > self._arrays["hist"].shape[1]:
            raise InvalidStateError(f"{self.env_id}: the state's history is longer than a game of this env can be")
        self._kernels.replay(i, np.asarray(history, np.int16), self._common)
        if self.auto_reset and self._arrays["player"][i] == TERMINAL:  # the pending chance ended the game
            which = np.zeros(self.num_envs, np.bool_)
            which[i] = True
            self._restart(which)

    # ----- copying ------------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # threads are not copied; a copy starts its own
        for name in ("_common", "_box", "_run"):  # views and compiled entry points: made again
            del state[name]
        if not self.has_action_mask:  # the shared mask row is made again (a pickle would copy it per row)
            state["_arrays"] = {name: array for name, array in self._arrays.items() if name != "mask"}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __repr__(self) -> str:
        dtype = "" if self.observation_dtype == "float32" else f" observation_dtype={self.observation_dtype}"
        dtype += "" if self.has_action_mask else " action_mask=False"
        return f"<BatchEnv {self.env_id} num_envs={self.num_envs}{dtype} params={self.game.params}>"


def count_decisions(state: State) -> int:
    """How many entries of ``state``'s history are player decisions (not chance outcomes)."""
    replay = state.game.new_initial_state()
    decisions = 0
    for action in state.history():
        decisions += not replay.is_chance_node()
        replay.apply_action(action)
    return decisions


def threads_all_cores() -> int:
    """The number of cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
