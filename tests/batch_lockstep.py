"""Lock-step checking of a batched env against the rules core (used by the batch tests).

Each row keeps a rules-core reference state. After every batch step the reference applies the
row's action, then the chance outcomes the row drew (read from the row's history and checked
legal by the core); the row's player, mask and observation must then equal the reference's.
A game that ends is compared with the reference's end: returns, terminal flag, final
observation; the new game's reference starts from the core's initial state.
"""
from __future__ import annotations

import numpy as np

from fox_envs.core.game import State


def apply_tail(ref: State, tail) -> None:
    """Apply chance outcomes drawn by the batch; each must be a legal chance outcome."""
    for outcome in tail:
        assert ref.is_chance_node(), f"batch drew {outcome} where the core has a player to move"
        assert outcome in dict(ref.chance_outcomes()), f"outcome {outcome} impossible here"
        ref.apply_action(int(outcome))


def expected_view(env, ref: State, player: int) -> np.ndarray:
    """The rules core's observation in the env's observation form (float32, uint8 or bits)."""
    view = ref.observation_tensor(player)
    if env.observation_dtype == "float32":
        return view
    compact = env.game.compact_observation(view)
    return np.packbits(compact.ravel()) if env.observation_dtype == "bits" else compact


def assert_row_matches(env, i: int, ref: State) -> None:
    player = ref.current_player()
    assert not ref.is_chance_node(), "the batch left a chance node unresolved"
    assert env.current_player[i] == player, f"row {i}: player {env.current_player[i]} != core {player}"
    legal = ref.legal_actions_mask().astype(bool)
    if env.has_action_mask:
        np.testing.assert_array_equal(env.action_mask[i], legal, err_msg=f"row {i} mask")
    listed = env.legal_actions[i, :env.num_legal[i]]
    assert len(set(listed.tolist())) == len(listed), f"row {i}: an action listed twice"
    np.testing.assert_array_equal(np.sort(listed), np.flatnonzero(legal), err_msg=f"row {i} legal list")
    np.testing.assert_array_equal(env.observation[i], expected_view(env, ref, player), err_msg=f"row {i} observation")


def fresh_reference(env, i: int) -> State:
    ref = env.game.new_initial_state()
    arrays = env._arrays
    apply_tail(ref, arrays["hist"][i, :arrays["hlen"][i]].tolist())
    return ref


def run_lockstep(env, steps: int, rng: np.random.Generator | None = None, check_bridge_every: int = 0) -> dict:
    """Play ``steps`` batch steps of random legal actions, checking every row at every step.
    Returns counts of what happened (games ended, truncations, wins per seat)."""
    arrays = env._arrays
    refs = [fresh_reference(env, i) for i in range(env.num_envs)]
    decisions = [0] * env.num_envs
    for i, ref in enumerate(refs):
        assert_row_matches(env, i, ref)
    stats = {"ended": 0, "truncated": 0, "steps": 0}
    for step in range(steps):
        actions = env.random_actions(rng)
        movers = env.current_player.copy()
        rewards, term, trunc = env.step(actions)
        for i in range(env.num_envs):
            ref = refs[i]
            ref.apply_action(int(actions[i]))
            decisions[i] += 1
            stats["steps"] += 1
            if term[i] or trunc[i]:
                assert not (term[i] and trunc[i])
                final = env.final_core_state(i)
                done_history = ref.history()
                assert final.history()[:len(done_history)] == done_history
                apply_tail(ref, final.history()[len(done_history):])
                if term[i]:
                    assert ref.is_terminal(), f"row {i}: batch ended a game the core goes on with"
                    np.testing.assert_array_equal(rewards[i], ref.returns().astype(np.float32))
                else:
                    assert not ref.is_terminal() and decisions[i] == env.max_moves
                    assert not rewards[i].any()
                    stats["truncated"] += 1
                np.testing.assert_array_equal(env.final_observation[i], expected_view(env, ref, int(movers[i])),
                                              err_msg=f"row {i} final observation")
                stats["ended"] += 1
                decisions[i] = 0
                refs[i] = ref = fresh_reference(env, i)
            else:
                apply_tail(ref, arrays["hist"][i, len(ref.history()):arrays["hlen"][i]].tolist())
                assert not ref.is_terminal(), f"row {i}: the core ended the game, the batch did not"
                assert not rewards[i].any()
            assert_row_matches(env, i, ref)
        if check_bridge_every and step % check_bridge_every == 0:
            i = step % env.num_envs
            assert env.core_state(i) == refs[i]
    return stats
