"""Outwit's batched kernels on the rules most at risk (SPEC 2.2, rulebook ``outwit.txt``).

Each scenario builds a position with the rules core (a known move sequence, or a position found
by seeded play on the core), loads it into a batch row, steps the rule-triggering action and
checks the row against what the rule says and against the core. Positions are read from the
core's public observation only (planes 0-3 chips, 6 empty), never from its internals.
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from batch_lockstep import assert_row_matches

GAME = fox_envs.make_game("outwit_v0")
PASS = 8100
COLUMNS = "abcdefghij"
ROW = 1  # the batch row the scenarios load into (row 0 plays on beside it)


def sq(name: str) -> int:
    return (int(name[1:]) - 1) * 10 + COLUMNS.index(name[0])


def move(a: str, b: str) -> int:
    return sq(a) * 90 + sq(b)


DARK_CORNER = {sq(f"{c}{r}") for c in "abc" for r in (7, 8, 9)}
LIGHT_CORNER = {sq(f"{c}{r}") for c in "hij" for r in (1, 2, 3)}
CORNERS = (DARK_CORNER, LIGHT_CORNER)


def core_after(moves: list[str]):
    state = GAME.new_initial_state()
    for text in moves:
        state.apply_action(state.string_to_action(text))
    return state


def loaded(state, auto_reset: bool = True, **params):
    env = fox_envs.batch.make("outwit_v0", 2, seed=0, auto_reset=auto_reset, **params)
    env.load(ROW, state)
    assert_row_matches(env, ROW, state)
    return env


def step_row(env, action: int):
    """Step the batch with ``action`` in row ROW (row 0 plays a random legal action)."""
    actions = env.random_actions()
    actions[ROW] = action
    return env.step(actions)


def step_both(env, state, action: int):
    """Step the batch row and the core state together and check they agree."""
    rewards, term, trunc = step_row(env, action)
    mover = state.current_player()
    state.apply_action(action)
    if term[ROW] or trunc[ROW]:
        np.testing.assert_array_equal(env.final_observation[ROW], state.observation_tensor(mover))
    else:
        assert_row_matches(env, ROW, state)
    return rewards[ROW].copy(), bool(term[ROW]), bool(trunc[ROW])


def chips(obs: np.ndarray) -> dict[int, int]:
    """square -> plane (0 own regular, 1 own power, 2 opponent regular, 3 opponent power)."""
    flat = obs.reshape(90, 13)
    return {s: int(np.flatnonzero(flat[s, :4])[0]) for s in range(90) if flat[s, :4].any()}


def legal_from(env, square: int) -> set[int]:
    row = env.action_mask[ROW]
    return {t for t in range(90) if row[square * 90 + t]}


def random_core_states(seed: int, games: int):
    """Every position (player to move) of seeded random games on the core, as live states."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = GAME.new_initial_state()
        while not state.is_terminal() and len(state.history()) < 250:
            yield state
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])


def step(square: int, dr: int, dc: int) -> int:
    r, c = divmod(square, 10)
    r, c = r + dr, c + dc
    return r * 10 + c if 0 <= r < 9 and 0 <= c < 10 else -1


# ----- movement --------------------------------------------------------------------------------

def test_regular_chip_slides_as_far_as_it_can_and_stops_before_the_opponents_corner():
    state = GAME.new_initial_state()
    env = loaded(state)
    # b1 slides right over c1..g1; h1 is light's corner, a wall for dark: only b1-g1
    assert legal_from(env, sq("b1")) == {sq("g1")}
    # d3: right over e3, f3, g3, then h3 (light's corner) ends the slide; down to the edge d1
    assert legal_from(env, sq("d3")) == {sq("g3"), sq("d1")}
    rewards, term, trunc = step_both(env, state, move("b1", "g1"))
    assert not term and not trunc and not rewards.any()
    obs = env.observation[ROW]  # light's view now: the dark chip is the opponent's
    assert obs[0, COLUMNS.index("g"), 2] == 1 and obs[0, COLUMNS.index("b"), 6] == 1
    assert obs[0, COLUMNS.index("b"), 11] == 1 and obs[0, COLUMNS.index("g"), 12] == 1
    assert obs[..., 11].sum() == 1 and obs[..., 12].sum() == 1


def test_power_chip_stops_on_any_square_it_reaches():
    state = GAME.new_initial_state()
    env = loaded(state)
    targets = legal_from(env, sq("f5"))  # dark's power chip
    for name in ("f4", "f3", "f2", "f1", "g5", "h5", "i5", "j5", "g4"):
        assert sq(name) in targets, name
    # f6 / g6 / e4 / e5 are occupied; h3 (down-right beyond g4) is light's corner
    for name in ("f6", "f7", "g6", "e4", "e5", "h3", "i2"):
        assert sq(name) not in targets, name
    step_both(env, state, move("f5", "f3"))  # stops short of the end of its slide
    assert chips(env.observation[ROW])[sq("f3")] == 3  # light's view: the opponent's power chip


def test_diagonal_move_passes_between_two_touching_chips():
    """A power chip's diagonal step between two diagonally touching chips is legal."""
    found = 0
    for state in random_core_states(seed=3, games=40):
        obs = state.observation_tensor(state.current_player())
        board = chips(obs)
        power = [s for s, plane in board.items() if plane == 1][0]
        for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            target, side_a, side_b = step(power, dr, dc), step(power, dr, 0), step(power, 0, dc)
            if min(target, side_a, side_b) < 0 or target in board or side_a not in board or side_b not in board:
                continue
            if target in CORNERS[1 - state.current_player()]:
                continue
            mover = state.current_player()
            inside = power in CORNERS[mover]
            if inside and target not in CORNERS[mover]:
                continue
            env = loaded(state.clone())
            assert env.action_mask[ROW, power * 90 + target]
            copy = state.clone()
            step_both(env, copy, power * 90 + target)
            found += 1
            break
        if found >= 3:
            break
    assert found >= 3


def test_a_chip_in_its_own_corner_never_leaves_and_the_corner_edge_is_a_wall():
    """Inside its own corner a chip moves only within it; a regular chip there still slides as
    far as it can within the corner, stopping at the corner's edge even with free squares beyond."""
    walls = slides = 0
    for state in random_core_states(seed=5, games=60):
        mover = state.current_player()
        corner = CORNERS[mover]
        obs = state.observation_tensor(mover)
        board = chips(obs)
        home = [s for s, plane in board.items() if plane < 2 and s in corner]
        if not home:
            continue
        env = loaded(state.clone())
        for s in home:
            assert legal_from(env, s) <= corner, (s, state)
            if board[s] != 0:
                continue
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                ahead = step(s, dr, dc)
                path = []
                while ahead >= 0 and ahead in corner and ahead not in board:
                    path.append(ahead)
                    ahead = step(ahead, dr, dc)
                if ahead >= 0 and ahead not in corner and ahead not in board and ahead not in CORNERS[1 - mover]:
                    walls += 1  # the square beyond the corner's edge is free, yet a wall
                    if path:
                        assert env.action_mask[ROW, s * 90 + path[-1]]
                        assert not any(env.action_mask[ROW, s * 90 + t] for t in path[:-1])
                        slides += 1
                        step_both(env, state.clone(), s * 90 + path[-1])
                        env = loaded(state.clone())
        if slides >= 2:
            break
    assert walls >= 2 and slides >= 2


# ----- the end ---------------------------------------------------------------------------------

def heuristic_game(seed: int):
    from fox_envs.games.outwit.heuristic import OutwitHeuristic
    agents = [OutwitHeuristic(seed), OutwitHeuristic(seed + 1)]
    state = GAME.new_initial_state()
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].act(state, state.current_player()))
    return state


@pytest.mark.parametrize("auto_reset", [True, False])
def test_all_nine_chips_home_after_the_move_wins(auto_reset):
    for seed in range(10):
        final = heuristic_game(seed)
        if final.returns().any():
            break
    history = final.history()
    winner = int(np.argmax(final.returns()))
    before = GAME.new_initial_state()
    for action in history[:-1]:
        before.apply_action(action)
    env = loaded(before, auto_reset=auto_reset)
    rewards, term, trunc = step_both(env, before, history[-1])
    assert term and not trunc
    assert rewards[winner] == 1 and rewards[1 - winner] == -1
    final_obs = env.final_observation[ROW]
    board = chips(final_obs)  # the winner's view (it moved last)
    assert sorted(s for s, plane in board.items() if plane < 2) == sorted(CORNERS[winner])
    assert not final_obs[..., 7].any()  # nobody is to move in a finished game
    if auto_reset:
        assert env.current_player[ROW] == 0 and env.moves[ROW] == 0
        assert_row_matches(env, ROW, GAME.new_initial_state())
    else:
        assert env.current_player[ROW] == fox_envs.TERMINAL and not env.action_mask[ROW].any()
        np.testing.assert_array_equal(env.observation[ROW], final_obs)
        assert env.core_state(ROW) == before


# Found by seeded play on the core (both sides squeezing light's mobility): after these moves
# light (player_1) has no move at all.
LIGHT_JAMMED = ("d3-g3 e5-a5 f5-b5 d4-a4 e4-b4 f6-a6 g3-g1 c3-a3 g6-b6 b2-a2 g1-g6 h8-h9 c2-c1 g7-g9 h7-j7 "
                "g9-d9 g6-g1 h9-e9 c1-c9 i9-f9 j7-j8 f9-i9 c9-a9 i9-f9 b1-b3 f9-f1 j9-f9 e9-e1 a9-c9 d9-e9 "
                "b3-b1 e9-e2 f9-f2 e2-b2 i8-i4 b2-e2 b1-b3 e2-b2 f2-c2 e1-b1 c9-c7 f1-c1 g1-d1").split()


def test_a_player_without_a_move_must_pass():
    state = core_after(LIGHT_JAMMED[:-1])
    env = loaded(state)
    assert env.action_mask[ROW, PASS] == 0
    step_both(env, state, state.string_to_action(LIGHT_JAMMED[-1]))
    assert env.current_player[ROW] == 1
    assert np.flatnonzero(env.action_mask[ROW]).tolist() == [PASS]  # the only legal action
    assert not env.observation[ROW][..., 8].any()
    rewards, term, trunc = step_both(env, state, PASS)
    assert not term and not trunc  # one pass is no draw
    obs = env.observation[ROW]
    assert env.current_player[ROW] == 0 and obs[..., 8].all()  # "the last action was a pass"
    assert not obs[..., 11].any() and not obs[..., 12].any()  # a pass has no from / to square
    assert not env.action_mask[ROW, PASS]
    # dark moves: the pass plane clears again
    step_both(env, state, int(np.flatnonzero(env.action_mask[ROW])[0]))
    assert not env.observation[ROW][..., 8].any()


# ----- repetition --------------------------------------------------------------------------------

SHUFFLE = ["f5-f4", "e5-e6", "f4-f5", "e6-e5"]  # both power chips out and back: the start again


def test_threefold_repetition_counts_the_start_once_and_draws():
    state = GAME.new_initial_state()
    env = loaded(state)
    np.testing.assert_array_equal(env.observation[ROW][..., 9], np.float32(1 / 3))
    sequence = SHUFFLE * 2
    for n, text in enumerate(sequence, start=1):
        rewards, term, trunc = step_both(env, state, state.string_to_action(text))
        if n < len(sequence):
            assert not term and not trunc, n
            obs = env.observation[ROW]
            # the start position is back after 4 moves: seen twice (the start counted once)
            seen = 1 + n // 4 if n % 4 == 0 else 1 + (n > 4)
            np.testing.assert_array_equal(obs[..., 9], np.float32(seen / 3), err_msg=str(n))
            np.testing.assert_array_equal(obs[..., 10], np.float32(n / GAME.max_moves_default), err_msg=str(n))
    # the 8th move brings the start position for the third time: a draw
    assert term and not trunc and not rewards.any()
    final_obs = env.final_observation[ROW]
    np.testing.assert_array_equal(final_obs[..., 9], np.float32(1.0))
    np.testing.assert_array_equal(final_obs[..., 10], np.float32(8 / GAME.max_moves_default))
    assert env.current_player[ROW] == 0 and env.moves[ROW] == 0  # auto-reset: a new game


def test_repetition_key_includes_the_player_to_move():
    """The start's chips with light to move is another position than the start (dark to move)."""
    state = GAME.new_initial_state()
    env = loaded(state)
    for text in ["f5-f4", "e5-e6", "f4-f3", "e6-e5", "f3-f5"]:  # the start's chips, light to move
        step_both(env, state, state.string_to_action(text))
    np.testing.assert_array_equal(env.observation[ROW][..., 9], np.float32(1 / 3))
    for text in ["e5-e6", "f5-f4", "e6-e5", "f4-f5"]:  # back to the same, light to move: twice
        step_both(env, state, state.string_to_action(text))
    np.testing.assert_array_equal(env.observation[ROW][..., 9], np.float32(2 / 3))


def test_truncation_at_max_moves_keeps_the_position_count_and_the_viewers_turn():
    state = GAME.new_initial_state()
    env = loaded(state, auto_reset=False, max_moves=4)
    for text in SHUFFLE[:3]:
        step_both(env, state, state.string_to_action(text))
    rewards, term, trunc = step_both(env, state, state.string_to_action(SHUFFLE[3]))
    assert trunc and not term and not rewards.any()
    final_obs = env.final_observation[ROW]
    np.testing.assert_array_equal(final_obs[..., 9], np.float32(2 / 3))  # the start seen twice
    assert not final_obs[..., 7].any()  # light's view (the last mover); dark is to move
    assert env.current_player[ROW] == fox_envs.TERMINAL


# ----- streamed observations (large batches) ------------------------------------------------------

@pytest.mark.parametrize("num_envs, max_moves", [(7, None), (6, 9)])
def test_streamed_observations_agree_with_the_core(num_envs, max_moves):
    """Large batches write observation rows with streaming stores; forced on for a small batch
    (odd row counts put the rows at every alignment), every row still equals the core's."""
    from batch_lockstep import run_lockstep
    params = {} if max_moves is None else {"max_moves": max_moves}
    env = fox_envs.batch.make("outwit_v0", num_envs, seed=4, **params)
    env._kernels.stream = True
    env.reset(seed=4)
    stats = run_lockstep(env, 400, check_bridge_every=11)
    assert stats["ended"] > 0


@pytest.mark.parametrize("auto_reset", [True, False])
def test_streamed_rows_equal_the_unstreamed_ones(auto_reset):
    envs = [fox_envs.batch.make("outwit_v0", 5, seed=6, auto_reset=auto_reset, max_moves=30) for _ in range(2)]
    envs[0]._kernels.stream = True
    envs[0].reset(seed=6)
    for _ in range(45):
        actions = envs[0].random_actions()
        for x, y in zip(envs[0].step(actions), envs[1].step(actions)):
            np.testing.assert_array_equal(x, y)
        for name in ("observation", "final_observation", "action_mask", "current_player"):
            np.testing.assert_array_equal(getattr(envs[0], name), getattr(envs[1], name))
    assert auto_reset or (envs[0].current_player == fox_envs.TERMINAL).all()


def test_a_large_batch_streams_and_plays_like_a_small_one():
    from fox_envs.games.outwit.kernels import CELLS, STREAM_BYTES
    rows = -(-STREAM_BYTES // (CELLS * 4))
    large = fox_envs.batch.make("outwit_v0", rows, seed=8)
    small = fox_envs.batch.make("outwit_v0", rows, seed=8)
    small._kernels.stream = False
    assert large._kernels.stream
    for _ in range(12):
        actions = large.random_actions()
        np.testing.assert_array_equal(actions, small.random_actions())
        for x, y in zip(large.step(actions), small.step(actions)):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(large.observation, small.observation)
        np.testing.assert_array_equal(large.action_mask, small.action_mask)
