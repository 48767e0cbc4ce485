"""Lock-step checking of a JAX env against the rules core (used by the JAX tests).

``vmap``ped random legal play; each row keeps a rules-core reference. After every step the
reference applies the row's action, then the chance outcomes the row drew (read from its
history, each checked to be a possible outcome); the row's fields must then equal the
reference's: player, mask, observation (the mover's, or the last mover's at the end), rewards,
terminated and truncated. jax is imported inside the functions, so that collecting the default
test run does not import it.
"""
from __future__ import annotations

import numpy as np

from fox_envs.core.game import State as CoreState


def row(tree, i: int):
    """Row ``i`` of a batched pytree."""
    import jax

    return jax.tree_util.tree_map(lambda x: x[i], tree)


def host(state) -> dict:
    """The fields of a batched state as numpy arrays."""
    import jax

    return {name: np.asarray(value) for name, value in vars(state).items() if name != "_position"} | {
        "_position": jax.tree_util.tree_map(np.asarray, state._position)}


def apply_drawn(ref: CoreState, entries) -> None:
    """Apply chance outcomes the JAX env drew; each must be possible in the core."""
    for outcome in entries:
        assert ref.is_chance_node(), f"JAX drew {outcome} where the core has a player to move"
        assert int(outcome) in dict(ref.chance_outcomes()), f"outcome {outcome} impossible here"
        ref.apply_action(int(outcome))


def expected_observation(env, ref: CoreState, seat: int) -> np.ndarray:
    return env.layout.apply(ref.observation_tensor(seat))


def assert_row(env, fields: dict, i: int, ref: CoreState, decisions: int, last_mover: int) -> None:
    """Row ``i`` of ``fields`` against the reference ``ref`` after ``decisions`` decisions."""
    player = ref.current_player()
    assert not ref.is_chance_node(), f"row {i}: the JAX env left a chance node unresolved"
    terminal = ref.is_terminal()
    truncated = not terminal and decisions >= env.max_moves
    assert bool(fields["terminated"][i]) == terminal, f"row {i}: terminated {fields['terminated'][i]} != {terminal}"
    assert bool(fields["truncated"][i]) == truncated, f"row {i}: truncated {fields['truncated'][i]} != {truncated}"
    seat = last_mover if terminal else player
    assert fields["current_player"][i] == seat, f"row {i}: player {fields['current_player'][i]} != {seat}"
    mask = np.zeros(env.num_actions, bool) if terminal or truncated else ref.legal_actions_mask().astype(bool)
    np.testing.assert_array_equal(fields["legal_action_mask"][i], mask, err_msg=f"row {i} mask")
    np.testing.assert_array_equal(fields["observation"][i], expected_observation(env, ref, seat),
                                  err_msg=f"row {i} observation")
    assert fields["_step_count"][i] == decisions


def assert_same_state(a, b, what: str = "") -> None:
    import jax

    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b, what
    for x, y in zip(leaves_a, leaves_b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=what)


def run_lockstep(env, rows: int = 64, steps: int = 300, seed: int = 0, bridge_every: int = 100) -> dict:
    """Play ``steps`` vmapped steps of uniformly random legal actions over ``rows`` games,
    checking every row at every step against the rules core; finished games restart (fresh
    keys). Every ``bridge_every`` steps, and at the end, each row goes through the bridge:
    ``to_core_state`` gives the reference's history and ``from_core_state`` gives the row back.
    Returns counts of what happened."""
    import jax
    import jax.numpy as jnp

    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, rows))
    rng = np.random.default_rng(seed)
    fields = host(state)
    refs = [env.game.new_initial_state() for _ in range(rows)]
    decisions, movers = [0] * rows, [0] * rows
    for i, ref in enumerate(refs):
        apply_drawn(ref, fields["_history"][i, : fields["_history_len"][i]])
        assert_row(env, fields, i, ref, 0, 0)
    stats = {"ended": 0, "truncated": 0, "steps": 0, "wins": np.zeros(env.num_players)}

    def check_bridge() -> None:
        for i in range(rows):
            one = row(state, i)
            core = env.to_core_state(one)
            assert core.history() == refs[i].history(), f"row {i}: to_core_state history differs"
            if not (fields["terminated"][i] and not refs[i].is_terminal()):
                assert_same_state(env.from_core_state(core), one, f"row {i}: from_core_state")

    for t in range(steps):
        mask = fields["legal_action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int32)
        key, sub = jax.random.split(key)
        before = fields["_history_len"]
        state = step(state, jnp.asarray(actions), jax.random.split(sub, rows))
        fields = host(state)
        for i in range(rows):
            ref = refs[i]
            entries = fields["_history"][i, before[i]: fields["_history_len"][i]]
            assert entries[0] == actions[i], f"row {i}: history records {entries[0]}, played {actions[i]}"
            movers[i] = ref.current_player()
            ref.apply_action(int(actions[i]))
            apply_drawn(ref, entries[1:])
            decisions[i] += 1
            stats["steps"] += 1
            assert_row(env, fields, i, ref, decisions[i], movers[i])
            expected = ref.returns() if ref.is_terminal() else np.zeros(env.num_players)
            np.testing.assert_allclose(fields["rewards"][i], expected, err_msg=f"row {i} rewards", atol=1e-6)
            if ref.is_terminal():
                stats["ended"] += 1
                stats["wins"] += ref.returns() > 0
            stats["truncated"] += bool(fields["truncated"][i])
        if bridge_every and (t % bridge_every == bridge_every - 1 or t == steps - 1):
            check_bridge()
        done = fields["terminated"] | fields["truncated"]
        if done.any():
            key, sub = jax.random.split(key)
            fresh = init(jax.random.split(sub, rows))
            state = jax.tree_util.tree_map(
                lambda new, old: jnp.where(jnp.asarray(done).reshape((rows,) + (1,) * (old.ndim - 1)), new, old),
                fresh, state)
            fields = host(state)
            for i in np.flatnonzero(done):
                refs[i] = env.game.new_initial_state()
                apply_drawn(refs[i], fields["_history"][i, : fields["_history_len"][i]])
                decisions[i] = 0
                assert_row(env, fields, i, refs[i], 0, 0)
    return stats
