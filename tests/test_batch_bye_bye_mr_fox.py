"""Bye Bye Mr. Fox! batched kernels against the rules (SPEC 2.4) in built positions.

Each scenario builds a position with the rules core from a scripted history (chance outcomes
chosen by the script), loads it into every row of a batch, steps every row with the action that
triggers the rule, and checks each row against what the rule says (computed here from the
position before the step and the chance outcomes the row drew) and against the rules core.
The generic lock-step tests are in ``tests/test_batch.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from fox_envs.batch.env import count_decisions
from fox_envs.games.bye_bye_mr_fox.rules import (BLACK, BROWN, EGG, FLIP, FOX, GIVE_ACTION, HENS, OBS_DISCARDED,
                                           OBS_FACE_DOWN, OBS_NESTS, OBS_PHASE, OBS_VISIBLE, OUTER_ACTION, PLACE,
                                           THREE_HENS, VISIBLE_SLOT, WHITE)
from batch_lockstep import assert_row_matches, run_lockstep

ENV_ID = "bye_bye_mr_fox_v0"

# default layout: O0 three hens, O1 black, O2 fox, O3 white, O4 fox, O5 brown; N3 starts empty
WHITE_THREE = ["flip egg", "N3", "spin 3", "flip egg", "N0", "spin 3", "flip egg", "N0", "spin 3"]
BLACK_THREE = ["flip black", "O2", "spin 1", "flip egg", "N4", "spin 1", "flip egg", "N4", "spin 1"]
BROWN_TWO = ["flip brown", "O4", "spin 5", "flip egg", "N2", "spin 5"]


def scripted(moves: list[str], **params):
    """The core state after ``moves`` (notation, chance outcomes included)."""
    state = fox_envs.make_game(ENV_ID, **params).new_initial_state()
    for text in moves:
        state.apply_action(state.string_to_action(text))
    return state


def loaded(state, rows: int, seed: int = 0):
    """A batch (no auto-reset) with ``state`` loaded into every row."""
    env = fox_envs.batch.make(ENV_ID, rows, seed=seed, auto_reset=False, **state.game.params)
    for i in range(rows):
        env.load(i, state)
        assert_row_matches(env, i, state)
    return env


def step_every_row(env, state, action: int) -> list:
    """Step every row with ``action``; each row's new core state (checked: it continues
    ``state`` with ``action`` and the row is that core state). Returns the new core states."""
    rewards, term, trunc = env.step(np.full(env.num_envs, action))
    assert not trunc.any()
    prefix = state.history() + [action]
    after = []
    for i in range(env.num_envs):
        core = env.core_state(i)  # replayed by the rules core (the final state of a finished game)
        assert core.history()[:len(prefix)] == prefix
        assert term[i] == core.is_terminal()
        if term[i]:
            np.testing.assert_array_equal(rewards[i], core.returns().astype(np.float32))
            np.testing.assert_array_equal(env.final_observation[i], core.observation_tensor(0))
            assert env.current_player[i] == fox_envs.TERMINAL and not env.action_mask[i].any()
        else:
            assert_row_matches(env, i, core)
        after.append(core)
    return after


def step_alone(state, action: int, seed: int = 0):
    """A one-row batch loaded with ``state``, stepped with ``action``: (env, rewards, term)."""
    env = loaded(state, 1, seed)
    rewards, term, _ = env.step(np.array([action]))
    return env, rewards[0], term[0]


def drawn(core, before) -> list[int]:
    """The chance outcomes (and decisions) after ``before``'s history and its next action."""
    return core.history()[len(before.history()) + 1:]


def place_rule(state, token: int) -> set[int]:
    """Where the rulebook lets ``token`` go, from the visible pictures (SPEC 2.4)."""
    if token == EGG:
        return {s for s in range(6) if not state.circles[s]}
    places = set()
    for s in range(6):
        picture = state.visible[s]
        if token == FOX:
            ok = picture in HENS
        else:
            ok = picture == FOX or (picture in HENS and picture != token)
        if ok:
            places.add(OUTER_ACTION + s)
    return places


# ----- the spin ---------------------------------------------------------------------------------
def test_spin_moves_the_back_nest_egg_by_the_front_picture():
    """Front end at s, back end at N<(s+3) mod 6>: the egg goes to the single hen visible at s
    (printed or a token), is discarded under a fox, waits for the players' choice at the three
    hens; an empty back circle changes nothing."""
    before = scripted(["flip egg", "N3", "spin 2", "flip black"])  # N5 emptied by the fox at O2
    action = OUTER_ACTION + 2  # the black hen token covers the fox at O2
    assert action in before.legal_actions()
    visible = list(before.visible)
    visible[2] = BLACK
    env = loaded(before, 120, seed=1)
    seen = set()
    for i, core in enumerate(step_every_row(env, before, action)):
        spin = drawn(core, before)[0]
        seen.add(spin)
        back = (spin + 3) % 6
        obs = env.observation[i]
        nests = obs[OBS_NESTS:OBS_NESTS + 3] * 3
        if not before.circles[back]:
            np.testing.assert_array_equal(nests, before.nests)
            assert obs[OBS_DISCARDED + EGG] == np.float32(before.discarded[EGG] / 16)
            assert obs[:6].sum() == sum(before.circles)
            continue
        assert obs[back] == 0  # the egg left its circle
        if visible[spin] == THREE_HENS:
            assert env.current_player[i] == before.current_player() and obs[OBS_PHASE + 1] == 1
            assert sorted(np.flatnonzero(env.action_mask[i])) == [GIVE_ACTION + c for c in HENS]
            np.testing.assert_array_equal(nests, before.nests)
        elif visible[spin] == FOX:
            assert obs[OBS_DISCARDED + EGG] == np.float32((before.discarded[EGG] + 1) / 16)
            np.testing.assert_array_equal(nests, before.nests)
        else:
            expected = np.array(before.nests, np.float32)
            expected[visible[spin]] += 1
            np.testing.assert_allclose(nests, expected, rtol=1e-6)
    assert seen == set(range(6))


def test_spin_frequencies_are_uniform_mid_game():
    rows = 6000
    before = scripted(WHITE_THREE + ["flip egg"])
    env = loaded(before, rows, seed=2)
    env.step(np.full(rows, before.legal_actions()[0]))
    spins = env._arrays["last_hist"][:, len(before.history()) + 1].copy()
    alive = env.current_player >= 0
    spins[alive] = env._arrays["hist"][alive, len(before.history()) + 1]
    for s in range(6):
        frequency = np.mean(spins == s)
        assert abs(frequency - 1 / 6) < 5 * np.sqrt(5 / 36 / rows), (s, frequency)


# ----- flips ----------------------------------------------------------------------------------------
def test_flip_frequencies_follow_what_is_left_face_down():
    """A later flip (after tokens of several kinds left the pile) over many rows."""
    rows = 8000
    moves = ["flip fox", "O1", "spin 4", "flip white", "O4", "spin 4", "flip egg", "N1", "spin 2",
             "flip black", "O5", "spin 2"]
    before = scripted(moves + ["flip fox"])
    env = loaded(before, rows, seed=3)
    action = before.legal_actions()[0]
    env.step(np.full(rows, action))
    after_place = before.clone()
    after_place.apply_action(action)
    left = np.array(after_place.face_down, float)  # what is face down when the next flip comes
    probabilities = left / left.sum()
    hist, hlen = env._arrays["hist"], env._arrays["hlen"]
    n = len(before.history())
    flips = []
    for i in range(rows):
        node = after_place.clone()
        node.apply_action(int(hist[i, n + 1]))  # the row's spin
        if node.current_player() == fox_envs.CHANCE:  # the turn ended: the next flip follows
            assert dict(node.chance_outcomes()) == {k: p for k, p in enumerate(probabilities) if p}
            assert hlen[i] > n + 2
            flips.append(int(hist[i, n + 2]))
    flips = np.array(flips)
    assert len(flips) > rows // 2
    for kind, p in enumerate(probabilities):
        frequency = np.mean(flips == kind)
        assert abs(frequency - p) < 5 * np.sqrt(p * (1 - p) / len(flips)) + 1e-12, (kind, frequency, p)


def test_token_without_a_place_is_discarded_without_a_decision():
    """Foxes on every single hen: a flipped fox has no place, so the spin follows at once."""
    moves = ["flip fox", "O1", "spin 2", "flip fox", "O3", "spin 2", "flip fox"]
    before = scripted(moves)
    assert before.legal_actions() == [OUTER_ACTION + 5]
    env = loaded(before, 400, seed=4)
    discarded_rows = 0
    for i, core in enumerate(step_every_row(env, before, OUTER_ACTION + 5)):
        tail = drawn(core, before)
        replay = before.clone()
        replay.apply_action(OUTER_ACTION + 5)
        replay.apply_action(tail[0])  # spin
        if replay.current_player() != fox_envs.CHANCE or tail[1] != FOX:
            continue
        discarded_rows += 1
        # flip fox, then at once the spin: no decision in between
        replay.apply_action(FOX)
        assert replay.current_player() == fox_envs.CHANCE and replay.discarded[FOX] == 1
        # turn 3 (player_1's) had no decision: three places made, turn 4 (player_0) places next
        # (N3 stays empty, so the next token always has a place)
        assert env.moves[i] == 3 == count_decisions(core) and env.current_player[i] == 0
        assert env.observation[i][OBS_DISCARDED + FOX] == np.float32(1 / 4)
        assert env.observation[i][OBS_FACE_DOWN + FOX] == np.float32(0)
    assert discarded_rows > 0


def test_places_follow_the_visible_pictures_in_random_play():
    """Every place decision of random batch play offers exactly the rule's circles."""
    for params in ({}, {"layout": ["fox", "white", "three_hens", "brown", "fox", "black"]}):
        env = fox_envs.batch.make(ENV_ID, 16, seed=5, **params)
        checked = 0
        for _ in range(80):
            env.step(env.random_actions())
            for i in range(env.num_envs):
                state = env.core_state(i)
                if state.phase == PLACE:
                    assert set(np.flatnonzero(env.action_mask[i])) == place_rule(state, state.token)
                    checked += 1
        assert checked > 500


def test_a_fox_token_covers_a_hen_token_and_discards_it():
    before = scripted(["flip white", "O2", "spin 2", "flip fox"])  # a white hen token on O2
    assert OUTER_ACTION + 2 in before.legal_actions()
    env = loaded(before, 4, seed=6)
    step_every_row(env, before, OUTER_ACTION + 2)
    obs = env.observation[0]
    assert obs[OBS_DISCARDED + WHITE] == np.float32(0.5)
    assert obs[OBS_VISIBLE + 5 * 2 + VISIBLE_SLOT[FOX]] == 1.0
    assert obs[OBS_VISIBLE + 5 * 2 + VISIBLE_SLOT[WHITE]] == 0.0


# ----- nests, the give decision, the end ------------------------------------------------------------
def test_full_nest_discards_and_is_not_offered():
    before = scripted(WHITE_THREE + ["flip egg"])
    assert before.nests[WHITE] == 3 and before.legal_actions() == [0]
    env = loaded(before, 200, seed=7)
    spins = set()
    for i, core in enumerate(step_every_row(env, before, 0)):
        spin = drawn(core, before)[0]
        spins.add(spin)
        if spin == 3:  # the white hen: her nest is full, the egg from N0 is discarded
            assert env.observation[i][OBS_NESTS + WHITE] == np.float32(1.0)
            assert env.observation[i][OBS_DISCARDED + EGG] == np.float32(1 / 16)
            assert env.observation[i][0] == 0.0
        if spin == 0:  # the three hens: a choice among the nests not full
            assert sorted(np.flatnonzero(env.action_mask[i])) == [GIVE_ACTION + BLACK, GIVE_ACTION + BROWN]
            assert env.current_player[i] == before.current_player()
    assert {0, 3} <= spins


def test_three_hens_give_is_a_decision_of_the_same_seat():
    before = scripted(["flip egg", "N3", "spin 2", "flip egg"], num_players=3)
    env = loaded(before, 60, seed=8)
    after = step_every_row(env, before, before.legal_actions()[0])
    giving = [i for i, core in enumerate(after) if drawn(core, before)[0] == 0]
    assert giving
    seat = before.current_player()
    for i in giving:
        assert env.current_player[i] == seat and env.moves[i] == 2  # N3, N5; the give is next
        state = after[i]
        one, _, _ = step_alone(state, GIVE_ACTION + BROWN, seed=i)
        state.apply_action(GIVE_ACTION + BROWN)
        assert one.observation[0][OBS_NESTS + BROWN] == np.float32(1 / 3)
        ref = one.core_state(0)
        assert ref.history()[:len(state.history())] == state.history() and ref.nests[BROWN] == 1
        assert_row_matches(one, 0, ref)
        assert one.current_player[0] == (seat + 1) % 3  # the next turn


def test_win_as_soon_as_every_nest_holds_three():
    """Black 3, white 3, brown 2 with tokens left: the delivery to brown wins at once (a spin
    at a brown hen, printed or a token, or a give to brown at the three hens)."""
    before = scripted(WHITE_THREE + BLACK_THREE + BROWN_TWO + ["flip egg"])
    assert before.nests == [3, 2, 3] and sum(before.face_down) > 0
    env = loaded(before, 200, seed=9)
    after = step_every_row(env, before, 2)  # the egg on N2, in front of the brown spin
    winning_spins, give = set(), 0
    for i, core in enumerate(after):
        spin = drawn(core, before)[0]
        back = (spin + 3) % 6
        egg = before.circles[back] or back == 2
        picture = before.visible[spin]
        if egg and picture == BROWN:
            assert env._arrays["term"][i] and (env._arrays["rewards"][i] == 1).all()
            assert len(drawn(core, before)) == 1  # nothing drawn after the winning spin
            winning_spins.add(spin)
        elif egg and picture == THREE_HENS:
            give += 1
            assert not env._arrays["term"][i] and env.action_mask[i, GIVE_ACTION + BROWN]
            one, rewards, term = step_alone(core, GIVE_ACTION + BROWN)
            assert term and (rewards == 1).all() and one.core_state(0).returns().tolist() == [1, 1]
        else:
            assert not env._arrays["term"][i]
    assert winning_spins == {4, 5} and give  # O4 shows a brown hen token, O5 the printed one


def _play_until_one_left(params: dict) -> "object":
    """A scripted game (eggs first, then foxes and hens; every spin at sector 2, never the three
    hens) up to the place decision of the token flipped when one token is left face down."""
    state = fox_envs.make_game(ENV_ID, **params).new_initial_state()
    while True:
        if state.phase == FLIP:
            if sum(state.face_down) == 1:
                return previous
            order = [EGG, FOX, BLACK, BROWN, WHITE]
            state.apply_action(next(k for k in order if state.face_down[k]))
        elif state.is_chance_node():
            state.apply_action(2)
        else:
            previous = state.clone()
            state.apply_action(state.legal_actions()[0])


@pytest.mark.parametrize("egg_tokens", [16, 14, 12])
def test_loss_at_the_end_of_the_turn_of_the_last_flip(egg_tokens):
    before = _play_until_one_left({"egg_tokens": egg_tokens})
    assert sum(before.face_down) == 1
    env = loaded(before, 50, seed=10)
    after = step_every_row(env, before, before.legal_actions()[0])
    continued = 0
    for i, core in enumerate(after):
        one = loaded(core, 1, seed=i) if not core.is_terminal() else None
        while one is not None and sum(core.face_down) and one.current_player[0] >= 0:
            one.step(one.random_actions())  # a give before the last flip
            core = one.core_state(0)
        if core.is_terminal():  # the last token had no place: its spin ended the turn
            assert not core.won and core.returns().tolist() == [-1, -1]
            continue
        # the last token is face up but the game goes on until its turn ends
        continued += 1
        assert sum(core.face_down) == 0 and one.current_player[0] >= 0
        assert not one.observation[0][OBS_FACE_DOWN:OBS_FACE_DOWN + 5].any()
        while one.current_player[0] >= 0:  # the last place, perhaps a give
            rewards, term, _ = one.step(one.random_actions())
        assert term[0] and (rewards[0] == -1).all()
        final = one.core_state(0)
        assert final.is_terminal() and not final.won and sum(final.face_down) == 0
    assert continued


@pytest.mark.parametrize("egg_tokens", [16, 14, 12])
def test_a_lost_game_flips_every_token(egg_tokens):
    env = fox_envs.batch.make(ENV_ID, 64, seed=11, auto_reset=False, egg_tokens=egg_tokens)
    while (env.current_player >= 0).any():
        rewards, term, trunc = env.step(env.random_actions())
    lost = 0
    for i in range(env.num_envs):
        state = env.core_state(i)
        replay = state.game.new_initial_state()
        flips = []
        for action in state.history():
            if replay.phase == FLIP:
                flips.append(action)
            replay.apply_action(action)
        if state.won:
            assert state.nests == [3, 3, 3]
        else:
            lost += 1
            assert len(flips) == egg_tokens - 5 + 6 + 4
            assert flips.count(EGG) == egg_tokens - 5 and flips.count(FOX) == 4
    assert lost > 0


# ----- seats, layouts ---------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_seats_take_turns_in_order(num_players):
    env = fox_envs.batch.make(ENV_ID, 8, seed=12, num_players=num_players)
    for _ in range(60):
        env.step(env.random_actions())
        for i in range(env.num_envs):
            state = env.core_state(i)
            replay = state.game.new_initial_state()
            turns = sum(1 for a in state.history() if (replay.phase == FLIP, replay.apply_action(a))[0])
            assert env.current_player[i] == (turns - 1) % num_players


@pytest.mark.parametrize("layout", [
    ["black", "three_hens", "white", "fox", "brown", "fox"],
    ["fox", "fox", "brown", "three_hens", "black", "white"],
])
def test_custom_layouts(layout):
    env = fox_envs.batch.make(ENV_ID, 6, seed=13, auto_reset=False, layout=layout)
    start = fox_envs.make_game(ENV_ID, layout=layout).new_initial_state()
    white = layout.index("white")
    for i in range(env.num_envs):
        state = env.core_state(i)
        replay = start.clone()
        replay.apply_action(state.history()[0])
        assert replay.circles == [0 if s == white else 1 for s in range(6)]
        for s in range(6):  # the printed pictures are visible, the white hen's circle empty
            kind = {"three_hens": THREE_HENS, "fox": FOX, "black": BLACK, "brown": BROWN, "white": WHITE}[layout[s]]
            assert env.observation[i][OBS_VISIBLE + 5 * s + VISIBLE_SLOT[kind]] == 1.0
            assert env.observation[i][s] == (0.0 if s == white else 1.0)
    lockstep = fox_envs.batch.make(ENV_ID, 6, seed=14, layout=layout, num_players=3)
    assert run_lockstep(lockstep, 150)["ended"] > 0


def test_load_at_a_chance_node_draws_until_a_decision():
    before = scripted(["flip egg", "N3"])  # the spin is next
    env = loaded_chance(before, 30)
    for i in range(env.num_envs):
        core = env.core_state(i)
        assert core.history()[:2] == before.history() and len(core.history()) >= 3
        assert_row_matches(env, i, core)


def test_load_at_a_chance_node_whose_chance_ends_the_game():
    """The winning spin drawn by a load: without auto-reset the row is finished (term, +1 each,
    TERMINAL) with the core's final state; with auto-reset a new game starts in that row at once
    and the ended one is its final_core_state. The other rows wait for their decision."""
    before = scripted(WHITE_THREE + BLACK_THREE + BROWN_TWO + ["flip egg", "N2"])  # the spin is next
    env = loaded_chance(before, 60, auto_reset=False)
    restarting = loaded_chance(before, 60, auto_reset=True)
    finished = 0
    for i in range(env.num_envs):
        core = env.core_state(i)
        assert core.history()[:len(before.history())] == before.history()
        if env.current_player[i] == fox_envs.TERMINAL:
            finished += 1
            assert core.is_terminal() and core.won and env._arrays["term"][i]
            assert (env._arrays["rewards"][i] == 1).all() and not env.action_mask[i].any()
            np.testing.assert_array_equal(env.observation[i], core.observation_tensor(0))
            assert restarting.final_core_state(i) == core
            assert len(restarting.core_state(i).history()) < len(before.history())  # a new game
            assert_row_matches(restarting, i, restarting.core_state(i))
        else:
            assert_row_matches(env, i, core)
            assert restarting.core_state(i) == core  # the same stream drew the same chance
    assert 0 < finished < env.num_envs


def loaded_chance(state, rows, auto_reset=True):
    env = fox_envs.batch.make(ENV_ID, rows, seed=15, auto_reset=auto_reset, **state.game.params)
    for i in range(rows):
        env.load(i, state)
    return env
