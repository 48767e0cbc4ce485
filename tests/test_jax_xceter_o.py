"""X-Ceter-O's rules through the JAX env, scenario by scenario (integration: needs jax)."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs

pytestmark = pytest.mark.integration

# Pieces placed on a1 b1 c1 a2 b2 a3, then each piece jumps to the square left empty longest:
# the position after the placements recurs every 18 plies, and its third occurrence, at ply 42,
# is a draw (no line is ever made).
REPEATING = [0, 1, 2, 3, 4, 6] + [5, 7, 8, 0, 1, 2, 3, 4, 6] * 4
# The same kind of cycle entered one jump after the placements: the third occurrence falls on
# ply 45, with piece 4 to move next.
REPEATING_LATER = [6, 8, 0, 2, 4, 3, 5] + [6, 7, 8, 0, 1, 2, 4, 3, 5] * 5
WIN_UNORDERED = [0, 3, 4, 5, 8]  # X on a1 (1), b2 (3), c3 (5): a diagonal in the order 1-3-5
WIN_OUT_OF_ORDER = [4, 3, 0, 5, 8]  # X on b2 (1), a1 (3), c3 (5): the diagonal reads 3-1-5


def play(env, actions):
    import jax
    import jax.numpy as jnp

    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    states = [state]
    for action in actions:
        state = step(state, jnp.int32(action))
        states.append(state)
    return states


@pytest.mark.parametrize("moves, draw_ply", [(REPEATING, 42), (REPEATING_LATER, 45)])
@pytest.mark.parametrize("max_moves", [None, 50, 1000])
def test_the_third_occurrence_of_a_position_is_a_draw(moves, draw_ply, max_moves):
    import fox_envs.jax

    env = fox_envs.jax.make("xceter_o_v0", max_moves=max_moves)
    states = play(env, moves[:draw_ply])
    assert [bool(s.terminated) for s in states].index(True) == draw_ply
    assert np.all(np.asarray(states[draw_ply].rewards) == 0)
    core = env.to_core_state(states[draw_ply])
    assert core.is_terminal() and core.drawn


@pytest.mark.parametrize("ordered_rows", [False, True])
def test_a_line_wins_and_ordered_rows_needs_the_order(ordered_rows):
    import fox_envs.jax

    env = fox_envs.jax.make("xceter_o_v0", ordered_rows=ordered_rows)
    win = play(env, WIN_UNORDERED)[-1]
    assert bool(win.terminated) and np.asarray(win.rewards).tolist() == [1.0, -1.0]
    out_of_order = play(env, WIN_OUT_OF_ORDER)[-1]
    assert bool(out_of_order.terminated) == (not ordered_rows)
    core = fox_envs.make_game("xceter_o_v0", ordered_rows=ordered_rows).new_initial_state()
    for action in WIN_OUT_OF_ORDER:
        core.apply_action(action)
    assert core.is_terminal() == bool(out_of_order.terminated)


def test_a_jump_needs_an_empty_square_and_staying_put_is_not_a_move():
    import fox_envs.jax

    env = fox_envs.jax.make("xceter_o_v0")
    state = play(env, REPEATING[:6])[-1]  # piece 1 (on a1) to move
    mask = np.asarray(state.legal_action_mask)
    assert mask.tolist() == [False] * 5 + [True, False, True, True]
    assert np.asarray(state.observation)[0, 0, 7] == 1  # plane 7: the piece to move now
