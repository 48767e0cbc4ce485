"""Outwit in JAX (``fox_envs.jax``) against the rules core: the rulebook's movement rules on
positions reached by notation from the start, the end rules (nine home, forced pass, two passes,
threefold repetition), the exact repetition key, long games, and play in lock-step with
heuristic, repetitive and random moves (integration: needs the jax extra).

Every step of a scenario goes through the JAX env and is compared with the rules core field by
field (``tests/jax_lockstep.assert_row``: player, mask, observation, terminated, truncated), and
the rulebook's facts are asserted on the JAX state itself.
"""
from __future__ import annotations

import numpy as np
import pytest

from fox_envs.games.outwit.rules import PASS, SQUARE_INDEX, OutwitState
from jax_lockstep import assert_row, host, run_lockstep

pytestmark = pytest.mark.integration

WON_GAME = (
    "f5-b9 e5-i1 e4-e9 d4-j4 e9-c9 j4-j1 d3-d9 c3-j3 c2-c8 b2-j2 b1-b8 a1-h1 b9-a9 f6-f1 "
    "g6-a6 h1-h3 a6-a8 f1-h1 c9-b9 g7-g1 h7-a7 h3-h2 d9-c9 h8-h3 c8-c7 h2-i2 i8-c8 i9-i3 "
    "j9-d9 h1-h2 a7-b7 g1-h1"
)
SHUFFLE = "f5-f4 e5-d6 f4-f5 d6-e5"  # the power chips out and back: the start recurs
# light's nine chips walled in on a1..a6 / b4..b6: light must pass
JAM = (
    "j9-j4 b2-a2 c2-b2 c3-a3 d3-b3 d4-a4 f5-f3 e5-a5 f3-d3 f6-a6 i8-j8 g7-d7 j8-j5 d7-d4 "
    "h7-h4 d4-b4 d3-d4 h8-d8 h4-f4 d8-d5 f4-i4 d5-b5 d4-c5 i9-d9 j5-d5 d9-d6 e4-c4 d6-b6 g6-c6"
)


class Game:
    """One JAX game and its rules-core reference, stepped together and compared every step."""

    def __init__(self, env, step) -> None:
        import jax

        self.env, self.step_fn = env, step
        self.state = jax.jit(env.init)(jax.random.PRNGKey(0))
        self.core: OutwitState = env.game.new_initial_state()
        self.decisions = 0
        self.check(0)

    def check(self, last_mover: int) -> None:
        fields = {name: value[None] for name, value in host(self.state).items() if name != "_position"}
        assert_row(self.env, fields, 0, self.core, self.decisions, last_mover)
        expected = self.core.returns() if self.core.is_terminal() else np.zeros(2)
        np.testing.assert_array_equal(np.asarray(self.state.rewards), expected.astype(np.float32))

    def play(self, moves: str) -> "Game":
        import jax.numpy as jnp

        for move in moves.split():
            action = self.core.string_to_action(move)
            assert self.legal(move), f"{move} is not legal in the JAX env"
            mover = self.core.current_player()
            self.state = self.step_fn(self.state, jnp.int32(action))
            self.core.apply_action(action)
            self.decisions += 1
            self.check(mover)
        return self

    def legal(self, move: str) -> bool:
        return bool(self.state.legal_action_mask[self.core.string_to_action(move)])

    def moves_from(self, square: str) -> set[str]:
        """The JAX env's legal moves of the chip on ``square``, in notation."""
        mask = np.asarray(self.state.legal_action_mask)
        start = SQUARE_INDEX[square] * 90
        return {self.core.action_to_string(start + t) for t in np.flatnonzero(mask[start: start + 90])}

    def plane(self, plane: int, viewer: int | None = None) -> np.ndarray:
        """One observation plane (9, 10): of the state's observation, or ``viewer``'s."""
        obs = self.state.observation if viewer is None else self.env.observe(self.state, viewer)
        return np.asarray(obs)[:, :, plane]


@pytest.fixture(scope="module")
def env():
    import fox_envs.jax

    return fox_envs.jax.make("outwit_v0")


@pytest.fixture(scope="module")
def step(env):
    import jax

    return jax.jit(env.step)


def at(plane: np.ndarray, square: str) -> float:
    return float(plane[int(square[1:]) - 1, "abcdefghij".index(square[0])])


# ----- start and movement --------------------------------------------------------------------
def test_start_position_moves_and_both_views(env, step) -> None:
    game = Game(env, step)
    mask = np.asarray(game.state.legal_action_mask)
    assert mask.shape == (8101,) and mask.sum() == 27 and not mask[PASS]
    for viewer in (0, 1):
        np.testing.assert_array_equal(np.asarray(env.observe(game.state, viewer)), game.core.observation_tensor(viewer))
    assert at(game.plane(1), "f5") == 1 and at(game.plane(3), "e5") == 1  # own / opponent's power chip
    assert game.plane(7).min() == 1 and game.plane(7, viewer=1).max() == 0
    assert game.plane(9).max() == np.float32(1 / 3)  # the start counts once


def test_regular_chip_slides_as_far_as_it_can_and_stops_at_any_chip(env, step) -> None:
    game = Game(env, step)
    assert game.moves_from("e4") == {"e4-e1", "e4-j4"}  # never e4-e2, e4-f4, ...
    assert game.moves_from("b1") == {"b1-g1"}  # the opponent's corner h1 is a wall
    game.play("e4-e1 a1-a6")
    assert game.moves_from("b1") == {"b1-d1", "b1-a1"}  # against the dark chip on e1
    assert game.moves_from("e1") == {"e1-e4", "e1-c1", "e1-g1"}  # under the power chip on e5
    assert at(game.plane(11), "a1") == 1 and at(game.plane(12), "a6") == 1  # the last move's squares


def test_power_chip_stops_anywhere_and_passes_between_touching_chips(env, step) -> None:
    game = Game(env, step)
    assert game.moves_from("f5") == {"f5-f1", "f5-f2", "f5-f3", "f5-f4", "f5-g4", "f5-g5", "f5-h5", "f5-i5",
                                     "f5-j5", "f5-e6", "f5-d7", "f5-c8", "f5-b9"}  # f5-e6 between e5 and f6
    game.play("b1-g1")
    assert {"e5-f4", "e5-g3", "e5-h2", "e5-i1"} <= game.moves_from("e5")  # between e4 and f5, into its corner
    assert {m for m in game.moves_from("e5") if m[3] < "e" and int(m[4]) > 5} == {"e5-d6"}  # not into a7..c9


def test_diagonal_may_pass_the_tip_of_the_opponents_corner(env, step) -> None:
    game = Game(env, step).play("b1-g1 e5-d6 g1-b1 d6-c6 b1-g1")
    assert {"c6-d7", "c6-e8", "c6-f9"} <= game.moves_from("c6")
    assert not any(m[3] in "abc" and int(m[4]) >= 7 for m in game.moves_from("c6"))


def test_a_chip_in_its_own_corner_never_leaves_it(env, step) -> None:
    game = Game(env, step).play("b1-g1 g7-g9 h7-a7 e5-i1")
    assert game.moves_from("a7") == {"a7-a9", "a7-c7"}  # not down to a2, not right past c7
    game.play("a7-c7 a1-a6")
    assert game.moves_from("c7") == {"c7-c9", "c7-a7"}
    assert at(game.plane(4, viewer=0), "c7") == 1 and at(game.plane(0, viewer=0), "c7") == 1
    game = Game(env, step).play("f5-e6 i9-d9 e6-b6 g7-g9")
    from_b6 = game.moves_from("b6")
    assert {"b6-c7", "b6-b7", "b6-b8", "b6-b9"} <= from_b6 and "b6-d8" not in from_b6  # stops at c7
    game.play("b6-c7 h8-d8")
    assert game.moves_from("c7") == {"c7-c8", "c7-c9", "c7-b7", "c7-a7", "c7-b8", "c7-a9"}


# ----- end of the game ---------------------------------------------------------------------------
def test_nine_chips_home_win(env, step) -> None:
    moves = WON_GAME.split()
    game = Game(env, step).play(" ".join(moves[:-1]))
    assert not bool(game.state.terminated) and game.core.home == [8, 8]
    game.play(moves[-1])
    assert bool(game.state.terminated) and not bool(game.state.truncated)
    assert list(np.asarray(game.state.rewards)) == [-1.0, 1.0]
    assert int(game.state.current_player) == 1  # the last mover's view
    assert not np.asarray(game.state.legal_action_mask).any()
    assert game.plane(7).max() == 0 and game.plane(9).max() == 0  # a winning position never occurred


def test_eight_home_is_not_a_win(env, step) -> None:
    game = Game(env, step).play(" ".join(WON_GAME.split()[:-2]))
    assert game.core.home[0] == 8 and not bool(game.state.terminated)


def test_threefold_repetition_is_a_draw_and_counts_the_start_once(env, step) -> None:
    game = Game(env, step).play(SHUFFLE)
    assert game.plane(9).max() == np.float32(2 / 3) and not bool(game.state.terminated)  # the start, twice
    game.play(" ".join(SHUFFLE.split()[:3]))
    assert not bool(game.state.terminated)
    game.play("d6-e5")  # the start for the third time
    assert bool(game.state.terminated) and list(np.asarray(game.state.rewards)) == [0.0, 0.0]
    assert game.plane(9).min() == 1.0


def test_repetition_needs_the_same_player_to_move(env, step) -> None:
    game = Game(env, step).play("f5-f4 e5-d6 f4-f3 d6-e5 f3-f5")  # the start chips, light to move
    assert int(game.state.current_player) == 1 and game.plane(9).max() == np.float32(1 / 3)


def test_repetition_draw_on_the_last_allowed_move_is_terminated_not_truncated() -> None:
    import jax

    import fox_envs.jax

    env = fox_envs.jax.make("outwit_v0", max_moves=8)  # the key of ply 8 goes to the last slot
    step = jax.jit(env.step)
    game = Game(env, step).play(SHUFFLE + " " + SHUFFLE)
    assert bool(game.state.terminated) and not bool(game.state.truncated)
    game = Game(env, step).play("f5-f4 e5-d6 f4-f3 d6-e5 f3-f5 e5-d6 f5-f4 d6-e5")
    assert bool(game.state.truncated) and not bool(game.state.terminated)


def test_forced_pass_then_play_on(env, step) -> None:
    game = Game(env, step).play(JAM)
    mask = np.asarray(game.state.legal_action_mask)
    assert np.flatnonzero(mask).tolist() == [PASS]  # light has no move: pass is its only action
    game.play("pass")
    assert not bool(game.state.terminated) and game.plane(8).min() == 1  # the last action was a pass
    assert game.plane(11).max() == 0 and game.plane(12).max() == 0
    game.play("c6-j6")
    assert game.plane(8).max() == 0 and game.moves_from("b6") == {"b6-i6"}
    game = Game(env, step).play(JAM + " pass j4-j9 pass")  # not two in a row: dark moved between
    assert not bool(game.state.terminated)


def test_pass_is_illegal_while_a_move_exists(env, step) -> None:
    import jax.numpy as jnp

    game = Game(env, step)
    state = step(game.state, jnp.int32(PASS))
    assert bool(state.terminated) and list(np.asarray(state.rewards)) == [-1.0, 0.0]


def test_two_passes_in_a_row_draw(env) -> None:
    """Two passes cannot arise from the start (docs/rules/outwit.md); the rule is checked on the
    rules' ``apply`` with the core's legal list forced to [pass], as the core's own test does."""
    import jax
    import jax.numpy as jnp

    rules = env.rules
    apply = jax.jit(rules.apply)
    core = env.game.new_initial_state()
    position = rules.initial()
    for passes in (1, 2):
        core._legal = [PASS]
        core.apply_action(PASS)
        position = apply(position, jnp.int32(PASS))
        assert int(position.passes) == passes
        for viewer in (0, 1):
            np.testing.assert_array_equal(np.asarray(rules.observe(position, jnp.int32(viewer))),
                                          core.observation_tensor(viewer))
    assert core.drawn == "passes" and int(rules.player(position)) == core.current_player() == -2
    np.testing.assert_array_equal(np.asarray(rules.returns(position)), [0.0, 0.0])
    # the start chips with dark to move, seen once before: plane 9 shows 1/3 (a draw by passes,
    # not a count of a third position)
    assert np.asarray(rules.observe(position, jnp.int32(0)))[:, :, 9].max() == np.float32(1 / 3)


# ----- the repetition key, long games ---------------------------------------------------------------
def test_position_key_is_exact(env) -> None:
    """Two positions get the same JAX key exactly when the core's keys are equal (board, power
    chips and player to move), over many positions of random games."""
    import jax

    from fox_envs.games.outwit.jax_rules import position_key

    key_of = jax.jit(lambda position: position_key(position.chips, position.ply % 2))
    apply = jax.jit(env.rules.apply)
    rng = np.random.default_rng(7)
    core_of: dict[bytes, int] = {}
    jax_of: dict[int, bytes] = {}
    for _ in range(6):
        core, position = env.game.new_initial_state(), env.rules.initial()
        for _ in range(150):
            jax_key = np.asarray(key_of(position)).tobytes()
            assert core_of.setdefault(jax_key, core.position_key()) == core.position_key()
            assert jax_of.setdefault(core.position_key(), jax_key) == jax_key
            if core.is_terminal():
                break
            action = int(rng.choice(core.legal_actions()))
            core.apply_action(action)
            position = apply(position, action)
    assert len(core_of) > 800


def test_position_key_ignores_chip_order_and_tells_power_chips_apart() -> None:
    """The key is of the chips on the board, not of the order the env keeps them in: swapping
    two regular chips' places in the list keeps it; a power chip changing place with a regular
    chip of its side (same squares, same shades) changes it, and so does the player to move."""
    import jax.numpy as jnp

    from fox_envs.games.outwit.jax_rules import START_CHIPS, position_key

    chips = np.array(START_CHIPS)
    base = np.asarray(position_key(jnp.asarray(chips), jnp.int32(0)))
    swapped = chips.copy()
    swapped[0, [1, 5]] = swapped[0, [5, 1]]
    swapped[1, [2, 8]] = swapped[1, [8, 2]]
    np.testing.assert_array_equal(np.asarray(position_key(jnp.asarray(swapped), jnp.int32(0))), base)
    power_moved = chips.copy()
    power_moved[0, [0, 3]] = power_moved[0, [3, 0]]
    assert (np.asarray(position_key(jnp.asarray(power_moved), jnp.int32(0))) != base).any()
    assert (np.asarray(position_key(jnp.asarray(chips), jnp.int32(1))) != base).any()


@pytest.mark.slow
def test_long_game_fills_the_repetition_table(env) -> None:
    """max_moves=1500: random play to the last decision, truncated there."""
    import fox_envs.jax

    long_env = fox_envs.jax.make("outwit_v0", max_moves=1500)
    stats = run_lockstep(long_env, rows=2, steps=1500, seed=4, bridge_every=750)
    assert stats["truncated"] + stats["ended"] >= 1


@pytest.mark.slow
def test_heuristic_repetitive_and_random_play_in_lockstep(env) -> None:
    """32 rows: heuristic play (wins), mostly-first-legal play (repetition draws), random play
    and a mixture; every field compared with the core at every step."""
    import jax
    import jax.numpy as jnp

    from fox_envs.agents.base import heuristic_agent

    rows = 32
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(0), rows)
    state = init(keys)
    refs = [env.game.new_initial_state() for _ in range(rows)]
    decisions = [0] * rows
    agent, rng = heuristic_agent("outwit_v0", seed=0), np.random.default_rng(0)
    ends = {"win": 0, "draw": 0}
    for _ in range(250):
        actions = []
        for i, ref in enumerate(refs):
            legal, kind = ref.legal_actions(), i % 4
            if kind == 0 or (kind == 1 and rng.random() < 0.8):
                actions.append(agent.act(ref, ref.current_player()))
            elif kind == 2:
                actions.append(legal[0] if rng.random() < 0.9 else int(rng.choice(legal)))
            else:
                actions.append(int(rng.choice(legal)))
        state = step(state, jnp.asarray(actions, jnp.int32), keys)
        fields = host(state)
        for i, ref in enumerate(refs):
            mover = ref.current_player()
            ref.apply_action(actions[i])
            decisions[i] += 1
            assert_row(env, fields, i, ref, decisions[i], mover)
            expected = ref.returns() if ref.is_terminal() else np.zeros(2)
            np.testing.assert_array_equal(fields["rewards"][i], expected.astype(np.float32))
            if ref.is_terminal():
                ends["win" if ref.winner >= 0 else "draw"] += 1
        done = fields["terminated"] | fields["truncated"]
        if done.any():
            fresh = init(keys)
            state = jax.tree_util.tree_map(
                lambda new, old: jnp.where(jnp.asarray(done).reshape((rows,) + (1,) * (old.ndim - 1)), new, old),
                fresh, state)
            for i in np.flatnonzero(done):
                refs[i], decisions[i] = env.game.new_initial_state(), 0
    assert ends["win"] >= 20 and ends["draw"] >= 10
