"""Outfoxed's rules through the JAX env, scenario by scenario, against the rules core
(integration: needs jax). jax is imported inside the tests only.

The scenarios are the rules tests' (tests/test_outfoxed.py: scripted picks, deals and turns
from the rulebook). ``follow`` plays a scripted history through the JAX env: every decision is
played by ``env.step`` on a few copies of the JAX state, each drawing its own chance, and every
copy is compared with the core replaying what it drew; after a scripted run of chance outcomes
(the deals) the JAX state is rebuilt from the core with ``env.from_core_state`` (the rules'
``apply`` path), so the script's deals hold on.
"""
from __future__ import annotations

import numpy as np
import pytest

from fox_envs.games.outfoxed.rules import (
    CHIP0, MULTISETS, O_CHIP, O_CHIP_FACE, O_FORBIDDEN, O_PENDING, O_PHASE, OBS_SIZE,
)
from jax_lockstep import assert_row, host
from test_jax_bye_bye_mr_fox import assert_same_as_core, batch_of, decisions_of
from test_outfoxed import (FIRST_HAND, SECOND_HAND, _finish_game, _tie_round, _to_special_turn, _twin_games, deal,
                           keeps, new, play, start)

pytestmark = pytest.mark.integration
ENV_ID = "outfoxed_v0"
CHIPS = list(range(CHIP0, CHIP0 + 6))

_ENVS: dict = {}


def make_env(**params):
    """The JAX env of ``params`` with its jitted step over copies of one state (built once)."""
    import jax

    import fox_envs.jax

    key = tuple(sorted(params.items()))
    if key not in _ENVS:
        env = fox_envs.jax.make(ENV_ID, **params)
        _ENVS[key] = env, jax.jit(jax.vmap(env.step, in_axes=(0, None, 0)))
    return _ENVS[key]


def step_copies(env, step, state, core, action: int, rows: int, seed: int):
    """``rows`` copies of the JAX ``state`` (that of ``core``) play ``action``, each drawing its
    own chance; each copy is compared with the core replaying what it drew. Returns the batch
    and the cores."""
    import jax
    import jax.numpy as jnp

    batch = step(batch_of(state, rows), jnp.int32(action), jax.random.split(jax.random.PRNGKey(seed), rows))
    fields = host(batch)
    offset = len(core.history())
    decisions, _ = decisions_of(core)
    refs = []
    for i in range(rows):
        ref = core.clone()
        mover = ref.current_player()
        ref.apply_action(action)
        assert fields["_history"][i, offset] == action
        for outcome in fields["_history"][i, offset + 1: fields["_history_len"][i]]:
            assert ref.is_chance_node() and int(outcome) in dict(ref.chance_outcomes()), (i, outcome)
            ref.apply_action(int(outcome))
        assert_row(env, fields, i, ref, decisions + 1, mover)
        np.testing.assert_array_equal(fields["rewards"][i], ref.returns() if ref.is_terminal() else 0.0)
        refs.append(ref)
    return batch, refs


def follow(history: list[int], rows: int = 4, seed: int = 0, **params):
    """Play ``history`` (core ids, chance outcomes included) through the JAX env (see the module
    docstring). Returns the JAX state at its end, checked against the core, and the core."""
    import jax

    env, step = make_env(**params)
    core = new(**params)
    state = env.init(jax.random.PRNGKey(seed))  # the scoring picks come first: no chance drawn
    assert int(state._history_len) == 0
    for t, action in enumerate(history):
        if core.is_chance_node():
            core.apply_action(action)
            if not core.is_chance_node():
                state = env.from_core_state(core)
                assert_same_as_core(env, state, core)
            continue
        batch, refs = step_copies(env, step, state, core, action, rows, seed + t)
        core.apply_action(action)
        state = jax.tree_util.tree_map(lambda x: x[0], batch)
        if not core.is_chance_node():
            assert refs[0].history() == core.history()
    assert_same_as_core(env, state, core)
    return state, core


def legal(state) -> list[int]:
    return np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()


# ----- scoring picks -------------------------------------------------------------------------
def test_identical_scoring_sets_are_forbidden_and_a_pick_completing_one_is_masked():
    core = play(new(), keeps("red red pink", "pink red red") + ["keep pink", "keep red"])
    state, _ = follow(core.history())
    assert legal(state) == [0, 1, 3, 4, 5]  # "keep red" would complete the forbidden set
    forbidden = MULTISETS.index((0, 0, 2, 1, 0, 0))
    observation = np.asarray(state.observation)
    assert observation[O_FORBIDDEN + forbidden] == 1.0 and observation[O_FORBIDDEN:O_FORBIDDEN + 56].sum() == 1.0
    assert int(state._position.picks) == 2 and np.asarray(state._position.kept).sum() == 2


def test_when_only_one_scoring_set_is_left_identical_picks_stand():
    """55 pick phases end in a forbidden set; the 56th, identical, stands: the first-player draw
    and the deals follow at once."""
    import jax

    names = ("brown", "black", "red", "pink", "white", "yellow")
    moves = []
    for counts in MULTISETS:
        picks = " ".join(names[c] for c in range(6) for _ in range(counts[c]))
        moves += keeps(picks, picks)
    env, step = make_env()
    core = play(new(), moves[:-1])
    state = env.from_core_state(core)
    assert legal(state) == [5] and int(state.current_player) == 1
    batch, refs = step_copies(env, step, state, core, 5, rows=4, seed=1)
    assert all(ref.kept == [[0, 0, 0, 0, 0, 3]] * 2 and ref.dealt == 22 for ref in refs)
    assert np.asarray(jax.tree_util.tree_map(lambda x: x[0], batch)._position.forbidden).tolist() == [2 ** 32 - 1,
                                                                                                       2 ** 23 - 1]


# ----- chance -------------------------------------------------------------------------------
def assert_frequencies(samples: np.ndarray, probabilities: dict, what: str) -> None:
    """Observed frequencies within 5 standard deviations of the core's probabilities."""
    for outcome, probability in probabilities.items():
        frequency = float(np.mean(samples == outcome))
        sigma = np.sqrt(probability * (1 - probability) / len(samples))
        assert abs(frequency - probability) < 5 * sigma + 1e-9, (what, outcome, frequency, probability)


def test_the_first_player_and_the_deals_follow_the_core_probabilities():
    """After the sixth pick: the first player 1/2 each, then 22 deals, each colour in proportion
    to what is left (the first and the last deal, by symmetry, both as the full deck)."""
    import jax
    import jax.numpy as jnp

    env, step = make_env()
    core = play(new(), keeps("red red pink", "red white white")[:-1])
    rows = 3000
    batch = step(batch_of(env.from_core_state(core), rows), jnp.int32(4),
                 jax.random.split(jax.random.PRNGKey(11), rows))
    history = np.asarray(batch._history)
    assert (np.asarray(batch._history_len) == 6 + 1 + 22).all()
    assert_frequencies(history[:, 6], {0: 0.5, 1: 0.5}, "first player")
    deck = {0: 10 / 54, 1: 10 / 54, 2: 7 / 54, 3: 9 / 54, 4: 8 / 54, 5: 10 / 54}
    assert_frequencies(history[:, 7], deck, "first deal")
    assert_frequencies(history[:, 28], deck, "last deal")
    dealt = np.stack([np.bincount(h[7:29], minlength=6) for h in history])
    assert (dealt <= [10, 10, 7, 9, 8, 10]).all()
    hands = np.asarray(batch._position.hands).sum(axis=2)  # [row, seat]
    first = history[:, 6]
    np.testing.assert_array_equal(hands[np.arange(rows), first], 12)
    np.testing.assert_array_equal(hands[np.arange(rows), 1 - first], 10)


# ----- turns --------------------------------------------------------------------------------
def test_a_call_on_a_lie_lets_the_caller_chip_it():
    core = play(deal(start(first=0), FIRST_HAND, SECOND_HAND),
                ["put brown on 2 as red", "put yellow on 1 as pink", "call"])
    state, _ = follow(core.history())
    assert int(state.current_player) == 1 and legal(state) == CHIPS
    observation = np.asarray(state.observation)
    assert observation[O_PHASE + 3] == 1.0  # chip
    assert observation[O_CHIP + 1] == 1.0 and observation[O_CHIP + 4] == 1.0  # square 2, the opponent's card
    assert observation[O_CHIP_FACE + 0] == 1.0  # a brown card called as red
    play(core, ["chip yellow", "put pink on 3 as pink", "call", "chip black"])  # yellow as pink: a lie too
    state, _ = follow(core.history())
    assert core.square_counts(1) == [0, 1, 0, 0, 0, 0] and core.square_counts(2) == [0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(np.asarray(state._position.stats), [[0, 1, 1, 1], [0, 1, 1, 1]])


def test_a_call_on_the_truth_turns_the_callers_card_up_and_the_opponent_chips_it():
    core = play(deal(start(first=0), FIRST_HAND, SECOND_HAND),
                ["put brown on 2 as brown", "put yellow on 1 as red", "call"])
    state, _ = follow(core.history())
    assert int(state.current_player) == 0 and legal(state) == CHIPS
    observation = np.asarray(state.observation)
    assert observation[O_CHIP + 0] == 1.0 and observation[O_CHIP + 4] == 1.0  # square 1, the opponent's card
    assert observation[O_CHIP_FACE + 5] == 1.0  # the caller's yellow, turned up
    play(core, ["chip brown", "put black on 3 as white"])
    state, _ = follow(core.history())
    assert int(state.current_player) == 1 and 114 not in legal(state)  # player_1's card is up: nothing to call
    assert core.square_counts(1) == [1, 0, 0, 0, 0, 0] and core.square_counts(2) == [1, 0, 0, 0, 0, 0]


def test_the_special_turn_hides_the_first_players_card_until_both_are_shown():
    import jax

    env, _ = make_env()
    observe = jax.jit(env.observe)
    a, b = _to_special_turn(), _to_special_turn()
    a.apply_string("show pink on 2")
    b.apply_string("show pink on 3")
    state_a, state_b = env.from_core_state(a), env.from_core_state(b)
    np.testing.assert_array_equal(state_a.observation, state_b.observation)  # player_1's view, to move
    np.testing.assert_array_equal(state_a.legal_action_mask, state_b.legal_action_mask)
    seen_a, seen_b = np.asarray(observe(state_a, 0)), np.asarray(observe(state_b, 0))
    assert seen_a[O_PENDING + 6 + 3] == 1.0 and seen_b[O_PENDING + 12 + 3] == 1.0  # player_0's own choice
    np.testing.assert_array_equal(seen_a, a.observation_tensor(0))
    # both shown: square 1 pink 4 moves 1, square 2 pink moves 2, square 3 pink moves 3: 6, nobody kept pink
    state, _ = follow(play(a, ["show pink on 3"]).history())
    assert bool(state.terminated) and np.asarray(state.rewards).tolist() == [0.0, 0.0]
    assert np.asarray(state._position.foxes).tolist() == [0, 0, 0, 6, 0, 0]


# ----- round end, game end ----------------------------------------------------------------------
def test_the_round_end_moves_the_square_winners_and_deals_the_next_round():
    """Square 1: red 3, pink 3, white 2, brown 1: white moves 1; square 2: all tied, nobody;
    square 3: yellow 3 moves 3. Then round 2, player_1 first, 22 fresh deals (drawn)."""
    history = _tie_round().history()  # it ends with the last show; round 2's deals are still to draw
    state, before = follow(history[:-1])
    env, step = make_env()
    batch, refs = step_copies(env, step, state, before, history[-1], rows=8, seed=5)
    position = batch._position
    np.testing.assert_array_equal(np.asarray(position.foxes), [[0, 0, 0, 0, 1, 3]] * 8)
    assert (np.asarray(position.round) == 2).all() and (np.asarray(position.first) == 1).all()
    assert (np.asarray(batch.current_player) == 1).all() and (np.asarray(position.table) == 0).all()
    assert all(ref.round == 2 and ref.dealt == 22 and ref.hands[1] != [0] * 6 for ref in refs)
    assert len({tuple(ref.history()) for ref in refs}) > 1  # each copy dealt its own cards


def test_max_rounds_ends_in_a_draw():
    state, _ = follow(_tie_round(max_rounds=1).history(), max_rounds=1)
    assert bool(state.terminated) and np.asarray(state.rewards).tolist() == [0.0, 0.0]
    assert not np.asarray(state.legal_action_mask).any()


@pytest.mark.parametrize("kept0, kept1, rewards", [
    ("red red pink", "red white white", [1.0, -1.0]),  # 6 + 6 + 0 against 6 + 0 + 0
    ("pink white yellow", "red black black", [-1.0, 1.0]),  # 0 against 6
    ("red brown brown", "red black black", [0.0, 0.0]),  # 6 against 6
])
def test_the_game_ends_the_moment_a_fox_reaches_six_and_kept_cards_score(kept0, kept1, rewards):
    """Round 2: red moves 1 from square 1 (3 to 4) and 2 from square 2 (to 6): the end, pink
    (square 3) does not move."""
    state, _ = follow(_finish_game(kept0, kept1).history())
    assert bool(state.terminated) and np.asarray(state.rewards).tolist() == rewards
    assert np.asarray(state._position.foxes).tolist() == [0, 0, 6, 0, 0, 0]
    assert int(state.current_player) == 0  # the last mover: player_0, second in round 2, showed last


# ----- hidden information ------------------------------------------------------------------------
@pytest.mark.parametrize("viewer", [0, 1])
def test_observations_do_not_depend_on_the_opponents_hidden_cards(viewer):
    """Two games that differ only in the opponent's kept cards, its deals and the faces of its
    face-down cards: the viewer's JAX observation is the same in both (and the core's); the
    opponent's differs."""
    import jax

    env, _ = make_env()
    observe = jax.jit(env.observe)
    compared = opponent_differs = 0
    for a, b in _twin_games(viewer, seed=viewer + 1):
        if a.is_chance_node():
            continue
        state_a, state_b = env.from_core_state(a), env.from_core_state(b)
        seen = np.asarray(observe(state_a, viewer))
        np.testing.assert_array_equal(seen, np.asarray(observe(state_b, viewer)))
        np.testing.assert_array_equal(seen, a.observation_tensor(viewer))
        if int(state_a.current_player) == viewer:
            np.testing.assert_array_equal(state_a.legal_action_mask, state_b.legal_action_mask)
        opponent_differs += not np.array_equal(observe(state_a, 1 - viewer), observe(state_b, 1 - viewer))
        compared += 1
    assert compared > 40 and opponent_differs > compared // 2
    assert seen.shape == (OBS_SIZE,)
