"""Bye Bye Mr. Fox!'s rules through the JAX env, scenario by scenario, against the rules core
(integration: needs jax). jax is imported inside the tests only.

Default layout (sector: outer printing, spinner back end):
0 three hens -> N3, 1 black -> N4, 2 fox -> N5, 3 white -> N0, 4 fox -> N1, 5 brown -> N2.
At setup every nest circle but N3 holds an egg.

Two paths are checked: ``env.from_core_state`` replays a scripted history (chance outcomes
chosen) through the JAX rules' ``apply``; ``env.step`` on many copies of a position draws the
chance that follows a decision with ``resolve_chance``, and every copy is compared with the core
replaying the outcomes it drew.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fox_envs
from fox_envs.games.bye_bye_mr_fox.rules import (BLACK, BROWN, EGG, FOX, OBS_DISCARDED, OBS_FACE_DOWN,
                                                 OBS_NEST_CIRCLES, OBS_NESTS, WHITE)
from jax_lockstep import assert_row, host, run_lockstep
from test_bye_bye_mr_fox import EGGS_BUT_LAST, FOXES_AND_HENS  # with egg_tokens=12: every hen token flipped

pytestmark = pytest.mark.integration
ENV_ID = "bye_bye_mr_fox_v0"
THREE_FOXES = ["flip fox", "O1", "spin 0", "flip fox", "O3", "spin 0", "flip fox", "O5"]
LAST_TOKEN = FOXES_AND_HENS + EGGS_BUT_LAST + ["flip egg"]  # the last face-down token, to place on N3
EARLY_WIN = ["flip egg", "N3", "spin 1", "flip egg", "N4", "spin 1", "flip egg", "N4", "spin 1",
             "flip egg", "N4", "spin 5", "flip egg", "N2", "spin 5", "flip egg", "N2", "spin 5",
             "flip egg", "N2", "spin 3", "flip egg", "N0", "spin 3", "flip egg", "N0", "spin 0"]
CUSTOM_LAYOUT = ["fox", "white", "three_hens", "black", "fox", "brown"]

_ENVS: dict = {}


def make_env(**params):
    """The JAX env of ``params`` with its jitted batched step (built once per module)."""
    import jax

    import fox_envs.jax

    key = tuple(sorted((k, repr(v)) for k, v in params.items()))
    if key not in _ENVS:
        env = fox_envs.jax.make(ENV_ID, **params)
        _ENVS[key] = env, jax.jit(jax.vmap(env.step, in_axes=(0, None, 0)))
    return _ENVS[key]


def core_after(moves: list[str], **params):
    state = fox_envs.make_game(ENV_ID, **params).new_initial_state()
    for move in moves:
        state.apply_string(move)
    return state


def decisions_of(core) -> tuple[int, int]:
    """Player decisions in ``core``'s history and the seat that made the last one."""
    replay = core.game.new_initial_state()
    count, mover = 0, 0
    for action in core.history():
        if not replay.is_chance_node():
            count, mover = count + 1, replay.current_player()
        replay.apply_action(action)
    return count, mover


def batch_of(state, rows: int):
    import jax
    import jax.numpy as jnp

    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (rows,) + x.shape), state)


def assert_same_as_core(env, state, core) -> None:
    """One JAX state against the core state: every public field."""
    import jax

    fields = host(jax.tree_util.tree_map(lambda x: x[None], state))
    decisions, mover = decisions_of(core)
    assert_row(env, fields, 0, core, decisions, mover)
    np.testing.assert_array_equal(fields["rewards"][0], core.returns() if core.is_terminal() else 0.0)


def step_copies(core, action: str, rows: int = 64, seed: int = 0, **params) -> tuple[list, list]:
    """``rows`` copies of the JAX position of ``core`` play ``action``, each drawing its own
    chance; each copy is checked against the core replaying what it drew. Returns each copy's
    drawn outcomes and its core reference."""
    import jax
    import jax.numpy as jnp

    env, step = make_env(**params)
    start = env.from_core_state(core)
    assert_same_as_core(env, start, core)
    code = core.string_to_action(action)
    fields = host(step(batch_of(start, rows), jnp.int32(code), jax.random.split(jax.random.PRNGKey(seed), rows)))
    offset = len(core.history())
    drawn, refs = [], []
    decisions, _ = decisions_of(core)
    for i in range(rows):
        ref = core.clone()
        mover = ref.current_player()
        ref.apply_action(code)
        entries = [int(a) for a in fields["_history"][i, offset + 1: fields["_history_len"][i]]]
        assert fields["_history"][i, offset] == code
        for outcome in entries:
            assert ref.is_chance_node() and outcome in dict(ref.chance_outcomes()), (i, entries)
            ref.apply_action(outcome)
        assert_row(env, fields, i, ref, decisions + 1, mover)
        np.testing.assert_array_equal(fields["rewards"][i], ref.returns() if ref.is_terminal() else 0.0)
        drawn.append(entries)
        refs.append(ref)
    return drawn, refs


def walk(moves: list[str], **params) -> None:
    """Along a scripted game: at every decision the JAX state of the core's history agrees with
    the core (the apply path), and the scripted decision played by JAX with random chance
    agrees with the core (the resolve path)."""
    env, _ = make_env(**params)
    core = core_after([], **params)
    for move in moves:
        if not core.is_chance_node():
            step_copies(core, move, **params)
        core.apply_string(move)
    if not core.is_chance_node():
        assert_same_as_core(env, env.from_core_state(core), core)


def legal_names(state, core) -> list[str]:
    return [core.action_to_string(int(a)) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]


# ----- setup, params, placing -----------------------------------------------------------------------
@pytest.mark.parametrize("params", [{}, {"egg_tokens": 12, "num_players": 4}, {"egg_tokens": 14, "num_players": 1},
                                    {"layout": CUSTOM_LAYOUT}])
def test_setup_holds_an_egg_on_every_circle_but_the_white_hens(params):
    import jax

    env, _ = make_env(**params)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 64))
    layout = params.get("layout", ["three_hens", "black", "fox", "white", "fox", "brown"])
    circles = np.ones(6)
    circles[layout.index("white")] = 0
    eggs = params.get("egg_tokens", 16) - 5
    for i in range(64):
        first = int(states._history[i, 0])
        core = core_after([], **params)
        core.apply_action(first)
        assert int(states._history_len[i]) == 1 and not core.is_chance_node()  # the first token always has a place
        obs = np.asarray(states.observation[i])
        np.testing.assert_array_equal(obs[OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6], circles)
        face_down = [2, 2, 2, eggs, 4]
        face_down[first] -= 1
        np.testing.assert_allclose(obs[OBS_FACE_DOWN:OBS_FACE_DOWN + 5] * [2, 2, 2, eggs, 4], face_down, rtol=1e-6)
        assert_same_as_core(env, jax.tree_util.tree_map(lambda x: x[i], states), core)


@pytest.mark.parametrize("flip,places", [
    ("flip egg", ["N3"]),  # the one empty nest circle; a decision even with one option
    ("flip black", ["O2", "O3", "O4", "O5"]),  # a fox or a hen of another colour, never the three hens
    ("flip white", ["O1", "O2", "O4", "O5"]),
    ("flip fox", ["O1", "O3", "O5"]),  # a single hen
])
def test_where_a_flipped_token_may_go(flip, places):
    env, _ = make_env()
    core = core_after([flip])
    state = env.from_core_state(core)
    assert legal_names(state, core) == places and int(state.current_player) == 0
    assert_same_as_core(env, state, core)


def test_covered_tokens_are_discarded_and_a_hen_never_covers_its_own_colour():
    env, _ = make_env()
    walk(["flip black", "O2", "spin 0", "flip black", "O4", "spin 0", "flip white", "O2", "spin 0",
          "flip fox", "O3", "spin 0", "flip brown", "O3", "spin 0", "flip fox", "O3"])
    core = core_after(["flip black", "O2", "spin 0", "flip black"])
    assert legal_names(env.from_core_state(core), core) == ["O3", "O4", "O5"]  # not O1 nor its own token on O2
    core = core_after(["flip black", "O2", "spin 0", "flip black", "O4", "spin 0", "flip white", "O2", "spin 0",
                       "flip fox", "O3", "spin 0", "flip brown", "O3", "spin 0", "flip fox", "O3", "spin 0",
                       "flip egg"])
    obs = np.asarray(env.from_core_state(core).observation)
    discarded = obs[OBS_DISCARDED:OBS_DISCARDED + 5] * [2, 2, 2, 16, 4]
    np.testing.assert_allclose(discarded, [1, 1, 0, 0, 1])  # black under white, fox under brown, brown under fox


def test_a_fox_with_no_single_hen_in_sight_is_discarded_without_a_decision():
    env, _ = make_env()
    core = core_after(THREE_FOXES[:-1])
    drawn, refs = step_copies(core, "O5", rows=512, seed=3)
    fox_rows = [i for i, entries in enumerate(drawn) if len(entries) > 1 and entries[1] == FOX]
    assert fox_rows, "no copy flipped the last fox"
    for i in fox_rows:  # spin, flip fox (no decision), spin, the next flip
        assert len(drawn[i]) == 4 and refs[i].discarded[FOX] == 1 and refs[i].face_down[FOX] == 0
    core = core_after(THREE_FOXES + ["spin 0", "flip fox", "spin 0", "flip egg"])
    state = env.from_core_state(core)
    assert int(state._step_count) == 3 and legal_names(state, core) == ["N3"]
    assert_same_as_core(env, state, core)


# ----- the spinner ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spin,circles,nests,stolen", [
    ("spin 1", [1, 1, 1, 1, 0, 1], [1, 0, 0], 0),  # black hen at 1: the egg from N4 to the black nest
    ("spin 5", [1, 1, 0, 1, 1, 1], [0, 1, 0], 0),  # brown hen at 5, egg from N2
    ("spin 3", [0, 1, 1, 1, 1, 1], [0, 0, 1], 0),  # white hen at 3, egg from N0
    ("spin 2", [1, 1, 1, 1, 1, 0], [0, 0, 0], 1),  # the fox at 2 steals the egg from N5
])
def test_the_spin_moves_the_egg_at_the_back_end(spin, circles, nests, stolen):
    env, _ = make_env()
    core = core_after(["flip egg", "N3", spin, "flip fox"])
    obs = np.asarray(env.from_core_state(core).observation)
    np.testing.assert_array_equal(obs[OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6], circles)
    np.testing.assert_allclose(obs[OBS_NESTS:OBS_NESTS + 3] * 3, nests, rtol=1e-6)
    assert obs[OBS_DISCARDED + EGG] * 16 == pytest.approx(stolen)
    assert_same_as_core(env, env.from_core_state(core), core)


def test_the_three_hens_space_lets_the_same_seat_choose_a_nest_that_is_not_full():
    env, _ = make_env(num_players=3)
    moves = ["flip egg", "N3", "spin 4", "flip fox", "O1", "spin 0"]
    core = core_after(moves, num_players=3)
    state = env.from_core_state(core)
    assert int(state.current_player) == 1 and legal_names(state, core) == ["give black", "give brown", "give white"]
    walk(moves + ["give brown", "flip egg", "N1"], num_players=3)
    full = ["flip egg", "N3", "spin 1", "flip egg", "N4", "spin 1", "flip egg", "N4", "spin 1",
            "flip egg", "N4", "spin 1", "flip fox", "O3", "spin 0"]  # the black nest is full: that egg is stolen
    env, _ = make_env()
    core = core_after(full)
    state = env.from_core_state(core)
    assert legal_names(state, core) == ["give brown", "give white"]
    assert np.asarray(state.observation)[OBS_DISCARDED + EGG] * 16 == pytest.approx(1)
    walk(full + ["give white"])


# ----- the end of the game ---------------------------------------------------------------------------
def test_the_last_token_s_turn_ends_the_game_won_or_lost():
    """The last flip's turn still spins: a spin that completes the nests wins (or a give that
    does: the three hens, N3's egg to brown), any other spin loses."""
    params = {"egg_tokens": 12, "num_players": 3}
    core = core_after(LAST_TOKEN, **params)
    assert core.nests == [3, 2, 3] and sum(core.face_down) == 0
    drawn, refs = step_copies(core, "N3", seed=5, **params)
    spins = {entries[0] for entries in drawn}
    assert spins == set(range(6))
    for entries, ref in zip(drawn, refs):
        if entries[0] == 0:  # the three hens: the egg from N3 can still go to the brown nest
            assert ref.current_player() == 16 % 3 and ref.legal_actions() == [13]
        else:
            assert ref.is_terminal() and ref.won == (entries[0] == 4)  # brown token on O4: N1's egg completes it
    give = refs[[entries[0] for entries in drawn].index(0)]
    _, refs = step_copies(give, "give brown", rows=4, **params)
    assert all(ref.is_terminal() and ref.won for ref in refs)
    env, _ = make_env(**params)
    lost = core_after(LAST_TOKEN + ["N3", "spin 2"], **params)  # N5 is empty: nothing, and no token left
    state = env.from_core_state(lost)
    assert bool(state.terminated) and np.asarray(state.rewards).tolist() == [-1.0] * 3
    assert_same_as_core(env, state, lost)


def test_the_team_wins_the_moment_every_nest_is_full_with_tokens_left():
    core = core_after(EARLY_WIN, num_players=4)
    assert core.nests == [3, 3, 2] and core.current_player() == 8 % 4
    _, refs = step_copies(core, "give white", rows=8, num_players=4)
    assert all(ref.is_terminal() and ref.won and sum(ref.face_down) == 12 for ref in refs)
    env, _ = make_env(num_players=4)
    won = core_after(EARLY_WIN + ["give white"], num_players=4)
    state = env.from_core_state(won)
    assert bool(state.terminated) and np.asarray(state.rewards).tolist() == [1.0] * 4
    assert not np.asarray(state.legal_action_mask).any() and int(state.current_player) == 0


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_seats_take_turns_in_order(num_players):
    env, _ = make_env(num_players=num_players)
    core = core_after([], num_players=num_players)
    seats = []
    for turn in range(6):
        core.apply_string("flip egg" if turn == 0 else "flip fox" if turn % 2 else "flip black")
        state = env.from_core_state(core)
        seats.append(int(state.current_player))
        assert_same_as_core(env, state, core)
        core.apply_action(core.legal_actions()[0])
        core.apply_string("spin 2")  # the first empties N5, later ones do nothing
    assert seats == [t % num_players for t in range(6)]


def test_a_scripted_full_game_agrees_step_by_step():
    walk(FOXES_AND_HENS + EGGS_BUT_LAST + ["flip egg", "N3", "spin 0", "give brown"],
         egg_tokens=12, num_players=3)


# ----- the observation, the history, max params -----------------------------------------------------
def test_the_observation_is_the_same_for_every_seat():
    import jax.numpy as jnp

    env, _ = make_env(num_players=4, egg_tokens=14)
    core = core_after(["flip black", "O2", "spin 1", "flip fox", "O3", "spin 0", "flip egg"],
                      num_players=4, egg_tokens=14)
    state = env.from_core_state(core)
    for seat in range(4):
        np.testing.assert_array_equal(np.asarray(env.observe(state, jnp.int32(seat))), core.observation_tensor(seat))


def test_history_capacity_bounds_the_longest_games():
    """At most 2 decisions and 2 chance outcomes per turn, one turn per face-down token; random
    games run to their end within the default max_moves (42) and the history."""
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    assert fox_envs.jax.make(ENV_ID, max_moves=100_000).history_capacity == 42 + 42
    assert fox_envs.jax.make(ENV_ID, max_moves=1).history_capacity == 1 + 42
    assert fox_envs.jax.make(ENV_ID, egg_tokens=12).history_capacity == 34 + 34
    env = fox_envs.jax.make(ENV_ID)
    rows = 512
    step = jax.jit(jax.vmap(env.step))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(11), rows))
    key = jax.random.PRNGKey(12)
    final_rewards = np.zeros((rows, env.num_players), np.float32)  # rewards come in the step that ends a game
    for _ in range(env.max_moves):
        key, pick, chance = jax.random.split(key, 3)
        actions = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        was_over = np.asarray(state.terminated)
        state = step(state, actions.astype(jnp.int32), jax.random.split(chance, rows))
        ended_now = np.asarray(state.terminated) & ~was_over
        final_rewards[ended_now] = np.asarray(state.rewards)[ended_now]
    assert np.asarray(state.terminated).all() and not np.asarray(state.truncated).any()
    lengths = np.asarray(state._history_len)
    assert lengths.max() <= env.history_capacity
    for i in np.flatnonzero(lengths == lengths.max())[:3]:  # the longest games replay in the core
        core = env.to_core_state(jax.tree_util.tree_map(lambda x: x[i], state))
        assert core.is_terminal()
        np.testing.assert_array_equal(final_rewards[i], core.returns())


@pytest.mark.parametrize("params", [{"layout": CUSTOM_LAYOUT, "num_players": 3},
                                    {"layout": ["white", "fox", "brown", "fox", "three_hens", "black"],
                                     "egg_tokens": 12, "num_players": 4}])
def test_other_layouts_agree_in_lockstep(params):
    import fox_envs.jax

    stats = run_lockstep(fox_envs.jax.make(ENV_ID, **params), rows=16, steps=80, seed=4, bridge_every=40)
    assert stats["ended"] > 0


# ----- chance -----------------------------------------------------------------------------------------
def assert_frequencies(samples, probabilities: dict, what: str) -> None:
    """Each outcome's frequency within 5 standard deviations of its probability (and nothing else)."""
    samples = np.asarray(samples)
    assert set(np.unique(samples)) <= set(probabilities), what
    for outcome, probability in probabilities.items():
        frequency = np.mean(samples == outcome)
        sigma = np.sqrt(float(probability) * (1 - float(probability)) / len(samples))
        assert abs(frequency - float(probability)) < 5 * sigma + 1e-12, (what, outcome, frequency, probability)


@pytest.mark.slow
def test_spins_are_uniform_and_flips_follow_the_face_down_pile():
    """After the second black hen is placed: a spin (1/6 each; none gives an egg away, N3 is
    empty), then a flip from brown 2, white 2, egg 11, fox 4 out of 19."""
    import jax
    import jax.numpy as jnp

    env, step = make_env()
    core = core_after(["flip black", "O2", "spin 0", "flip black"])
    rows = 24_000
    state = step(batch_of(env.from_core_state(core), rows), jnp.int32(core.string_to_action("O4")),
                 jax.random.split(jax.random.PRNGKey(21), rows))
    at = len(core.history()) + 1
    history = np.asarray(state._history)
    assert (np.asarray(state._history_len) == at + 2).all()
    assert_frequencies(history[:, at], {s: Fraction(1, 6) for s in range(6)}, "spin")
    assert_frequencies(history[:, at + 1], {BROWN: Fraction(2, 19), WHITE: Fraction(2, 19), EGG: Fraction(11, 19),
                                            FOX: Fraction(4, 19)}, "flip")
    joint = history[:, at] * 5 + history[:, at + 1]  # the spin and the flip are independent
    assert_frequencies(joint, {s * 5 + k: Fraction(1, 6) * p for s in range(6)
                               for k, p in {BROWN: Fraction(2, 19), WHITE: Fraction(2, 19), EGG: Fraction(11, 19),
                                            FOX: Fraction(4, 19)}.items()}, "spin and flip")


@pytest.mark.slow
def test_the_chance_after_a_discarded_fox_follows_the_pile_left():
    """After the third fox is placed, a flipped fox (1 in 18) has no place: its spin is uniform
    and the next flip comes from the 17 tokens left (2, 2, 2 hens, 11 eggs)."""
    import jax
    import jax.numpy as jnp

    env, step = make_env()
    core = core_after(THREE_FOXES[:-1])
    rows = 40_000
    state = step(batch_of(env.from_core_state(core), rows), jnp.int32(core.string_to_action("O5")),
                 jax.random.split(jax.random.PRNGKey(22), rows))
    at = len(core.history()) + 1
    history, lengths = np.asarray(state._history), np.asarray(state._history_len)
    assert_frequencies(history[:, at + 1], {k: Fraction(n, 18) for k, n in enumerate([2, 2, 2, 11, 1])}, "flip")
    run = history[:, at + 1] == FOX
    assert (lengths[run] == at + 4).all() and (lengths[~run] == at + 2).all()
    assert_frequencies(history[run, at + 2], {s: Fraction(1, 6) for s in range(6)}, "spin after the fox")
    assert_frequencies(history[run, at + 3], {k: Fraction(n, 17) for k, n in enumerate([2, 2, 2, 11])},
                       "flip after the fox")


def test_chance_weights_are_the_core_probabilities():
    """At every chance node of a scripted game, flips and spins, the weights are the core's
    probabilities exactly."""
    import jax
    import jax.numpy as jnp

    env, _ = make_env(egg_tokens=12)
    rules = env.rules
    apply, weights = jax.jit(rules.apply), jax.jit(rules.chance_weights)
    core = core_after([], egg_tokens=12)
    position = rules.initial()
    for move in FOXES_AND_HENS + EGGS_BUT_LAST:
        if core.is_chance_node():
            w = np.asarray(weights(position)).tolist()
            total = sum(w)
            expected = dict(core.chance_outcomes())
            assert {k: Fraction(v, total) for k, v in enumerate(w) if v} == \
                {k: Fraction(p).limit_denominator(100) for k, p in expected.items()}
        action = core.string_to_action(move)
        core.apply_action(action)
        position = apply(position, jnp.int32(action))


def test_a_ticket_is_a_fixed_point_fraction_of_the_span():
    """``floor(U * span / 2**64)`` for the 64-bit number of two random words, exactly."""
    import jax.numpy as jnp

    from fox_envs.games.bye_bye_mr_fox.jax_rules import _ticket

    rng = np.random.default_rng(0)
    words = rng.integers(0, 2 ** 32, (2, 2000), dtype=np.uint64)
    words[:, :3] = [[0, 2 ** 32 - 1, 2 ** 31], [0, 2 ** 32 - 1, 0]]
    for span in (1, 6, 7, 102, 126):
        got = np.asarray(_ticket(jnp.asarray(words[0].astype(np.uint32)), jnp.asarray(words[1].astype(np.uint32)),
                                 jnp.int32(span)))
        expected = [(int(hi) << 32 | int(lo)) * span >> 64 for hi, lo in words.T]
        assert got.tolist() == expected
