"""Outfoxed determinisation (``OutfoxedState.sample_determinisation``) for search agents.

A determinisation for ``player`` must be a genuine, legal state that ``player`` cannot tell from
the real one (same observation, information, text view and legal actions), with what it cannot
know (the opponent's scoring picks, hand, face-down faces, pending special-turn card and so the
deck) drawn at random from ``rng`` only, never copied from the real state.
"""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs import CHANCE
from fox_envs.core.game import sample_chance
from fox_envs.core.registry import state_from_json
from fox_envs.games.outfoxed.rules import CALL, COLOURS, MULTISETS, PUT0, SHOW0, OutfoxedGame

KEEP, DEAL, PUT, CALLING, SHOW = 0, 2, 3, 4, 6  # OutfoxedState.phase values


from test_outfoxed import keeps, new, play  # the scenario helpers of the rules tests


def random_game_states(seed: int, every: int = 7, prefix=(), **params):
    """Clones of the states of one random game (chance drawn with its probabilities, players
    uniform), taken every ``every`` steps and at every special turn; ``prefix`` is notation
    played first."""
    rng = np.random.default_rng(seed)
    state = play(new(**params), prefix)
    found = []
    step = 0
    while not state.is_terminal():
        if step % every == 0 or state.phase == SHOW:
            found.append(state.clone())
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        step += 1
    found.append(state.clone())
    return found


def opponent_facts(state, player: int):
    """What ``player`` may not know about the other player."""
    opp = 1 - player
    faces = tuple(card[2] for card in state.cards if card[1] == opp and not card[5])
    pending = state.pending if state.first == opp else None
    return tuple(state.kept[opp]), tuple(state.hands[opp]), faces, pending, tuple(state.deck)


def assert_indistinguishable(real, det, player: int) -> None:
    assert type(det) is type(real) and det.game == real.game
    assert np.array_equal(det.observation_tensor(player), real.observation_tensor(player))
    assert det.information(player) == real.information(player)
    if not real.finished:  # a finished game's text view turns the scoring cards and hands up
        assert det.render_text(player) == real.render_text(player)
    assert det.current_player() == real.current_player()
    assert det.move_number() == real.move_number()
    if real.current_player() == player:
        assert det.legal_actions() == real.legal_actions()
    # Only hidden parts of the history may differ: never a chance draw of the first player, a
    # call, a pass or a chip; a differing put keeps its square and declared colour.
    for a, b in zip(real.history(), det.history()):
        if a != b:
            assert a < CALL or a >= SHOW0, (a, b)
            if a >= PUT0 and a < CALL:
                assert PUT0 <= b < CALL and (a - PUT0) // 36 == (b - PUT0) // 36 and a % 6 == b % 6
            assert not CALL <= b < SHOW0


CASES = [  # (seed, max_rounds, prefix)
    (1, 20, ()),
    (2, 20, ()),
    (3, 2, ()),
    (4, 20, keeps("red red pink", "pink red red") + keeps("white white white", "white white white")),
]


@pytest.mark.parametrize("seed,max_rounds,prefix", CASES)
def test_determinisation_is_a_legal_state_the_player_cannot_tell_apart(seed, max_rounds, prefix):
    states = random_game_states(seed, every=9, prefix=prefix, max_rounds=max_rounds)
    assert len(states) > 15
    rng = np.random.default_rng(100 + seed)
    for real in states:
        before = real.clone()
        for player in (0, 1):
            det = real.sample_determinisation(player, rng)
            assert_indistinguishable(real, det, player)
            assert state_from_json(det.to_json()) == det  # a genuine, replayable history
            assert det.clone() == det
        assert real == before and real.history() == before.history()  # not mutated


def test_game_declares_hidden_information():
    assert OutfoxedGame.perfect_information is False
    assert new().game.perfect_information is False


def test_perfect_recall_of_past_rounds_is_kept():
    """Cards seen in earlier rounds (calls, the 9th card, the special turn) stay as they were, so
    the public counters and every call's outcome are unchanged."""
    states = [s for s in random_game_states(5, every=3) if s.round >= 3]
    assert states
    real = states[0]
    for player in (0, 1):
        for seed in range(5):
            det = real.sample_determinisation(player, np.random.default_rng(seed))
            assert (det.called_true, det.called_lie, det.calls) == (real.called_true, real.called_lie, real.calls)
            assert det.foxes == real.foxes and det.forbidden == real.forbidden


@pytest.mark.parametrize("player", [0, 1])
def test_the_opponents_hidden_facts_vary_with_the_seed(player):
    real = next(s for s in random_game_states(11, every=1) if s.round == 2 and s.phase == PUT
                and min(sum(c[1] == p and not c[5] for c in s.cards) for p in (0, 1)) >= 2)
    truth = opponent_facts(real, player)
    samples = [opponent_facts(real.sample_determinisation(player, np.random.default_rng(seed)), player)
               for seed in range(30)]
    for part in range(4):  # kept, hand, face-down faces, deck (no pending card now)
        values = [sample[part if part < 3 else 4] for sample in samples]
        assert len(set(values)) > 5, part
        assert sum(value == truth[part if part < 3 else 4] for value in values) < 10, part
    own = tuple(real.kept[player]), tuple(real.hands[player])
    assert all(
        (tuple(d.kept[player]), tuple(d.hands[player])) == own
        for d in (real.sample_determinisation(player, np.random.default_rng(s)) for s in range(5))
    )


def test_same_seed_gives_the_same_determinisation():
    real = random_game_states(12, every=40)[3]
    a = real.sample_determinisation(0, np.random.default_rng(7))
    b = real.sample_determinisation(0, np.random.default_rng(7))
    assert a == b and a.history() == b.history()


@pytest.mark.parametrize("player", [0, 1])
def test_determinisation_ignores_the_real_hidden_facts(player):
    """Two real states that differ only in what ``player`` cannot know (here: the second is itself
    a determinisation of the first) give the same determinisation for the same seed."""
    checked = differ = 0
    for real in random_game_states(21 + player, every=11):
        twin = real.sample_determinisation(player, np.random.default_rng(999))
        assert twin.information(player) == real.information(player)
        differ += twin.history() != real.history()
        for seed in (0, 1):
            a = real.sample_determinisation(player, np.random.default_rng(seed))
            b = twin.sample_determinisation(player, np.random.default_rng(seed))
            assert a.history() == b.history() and a == b
        checked += 1
    assert checked > 10 and differ > checked // 2


def _scripted_twins(viewer: int):
    """Two round-1 games built by hand that differ only in the opponent's scoring picks, the
    cards dealt to it and the faces of its face-down cards (nobody calls), yielding both after
    every step; when the opponent is the first player it also chooses a different (still
    hidden) special-turn card, and the twins stop there."""
    opp = 1 - viewer
    mine, theirs_a, theirs_b = "brown black red", "red pink pink", "yellow white black"
    a = play(new(), keeps(mine, theirs_a) if viewer == 0 else keeps(theirs_a, mine))
    b = play(new(), keeps(mine, theirs_b) if viewer == 0 else keeps(theirs_b, mine))
    yield a, b
    for s in (a, b):
        play(s, ["first player_1"])  # player_1 is the first player
    first = 1
    viewer_cards = ["brown", "black", "red", "pink", "white", "yellow"] * 2
    # The opponent's played cards, in order: 9 puts then the special turn; it is dealt 12 or 10.
    opp_a = "yellow yellow white white brown brown black red red white black red".split()
    opp_b = "pink pink red brown white black black yellow brown white pink yellow".split()
    size = 12 if opp == first else 10
    if opp != first:  # the second player's 9th card and its special-turn card are public
        opp_b[8:10] = opp_a[8:10]
    for s, opp_cards in ((a, opp_a[:size]), (b, opp_b[:size])):
        deals = {viewer: viewer_cards[:12 if viewer == first else 10], opp: opp_cards}
        play(s, [f"deal {c}" for c in deals[first] + deals[1 - first]])
    yield a, b
    rng = np.random.default_rng(viewer)
    puts = 0
    while a.phase in (PUT, CALLING):
        if a.phase == CALLING:
            for s in (a, b):
                s.apply_string("pass")
        elif a.current_player() == viewer:
            action = a.legal_actions()[int(rng.integers(len(a.legal_actions())))]
            for s in (a, b):
                s.apply_action(action)
        else:
            square, declared = int(rng.integers(1, 4)), COLOURS[int(rng.integers(6))]
            if a.turn == 17:
                declared = opp_a[puts]
            play(a, [f"put {opp_a[puts]} on {square} as {declared}"])
            play(b, [f"put {opp_b[puts]} on {square} as {declared}"])
            puts += 1
        yield a, b
    if opp == first:
        play(a, [f"show {opp_a[9]} on 1"])
        play(b, [f"show {opp_b[9]} on 3"])
        yield a, b


@pytest.mark.parametrize("viewer", [0, 1])
def test_scripted_twins_differing_only_in_hidden_facts_give_the_same_determinisation(viewer):
    steps = 0
    for a, b in _scripted_twins(viewer):
        assert a.information(viewer) == b.information(viewer)
        assert a.history() != b.history()
        for seed in (3, 4):
            da = a.sample_determinisation(viewer, np.random.default_rng(seed))
            db = b.sample_determinisation(viewer, np.random.default_rng(seed))
            assert da == db and da.history() == db.history()
        steps += 1
    assert steps > 20
    if viewer == 0:
        assert a.phase == SHOW and a.pending != b.pending  # ended on the hidden special-turn card


def test_pending_special_turn_card_is_redrawn_from_the_opponents_hand():
    real = next(s for s in random_game_states(31, every=1)
                if s.phase == SHOW and s.pending is not None)
    second = 1 - real.first
    pendings = set()
    for seed in range(40):
        det = real.sample_determinisation(second, np.random.default_rng(seed))
        assert det.pending is not None and det.hands[real.first][det.pending[0]] > 0
        assert det.legal_actions() == real.legal_actions()
        pendings.add(det.pending)
    assert len(pendings) > 4
    # The first player knows its own pending card.
    for seed in range(5):
        assert real.sample_determinisation(real.first, np.random.default_rng(seed)).pending == real.pending


def test_forbidden_and_identical_scoring_sets_are_never_sampled():
    """red red red was picked by both (revealed, forbidden); player_0 then kept white white white,
    so player_1 cannot have kept red red red (forbidden) nor white white white (identical sets are
    revealed and picked again)."""
    state = play(new(), keeps("red red red", "red red red") + keeps("white white white", "pink pink yellow"))
    play(state, ["first player_0"])
    for seed in range(60):
        det = state.sample_determinisation(0, np.random.default_rng(seed))
        assert det.history()[:6] == state.history()[:6]  # the revealed first picks (order aside)
        assert tuple(det.kept[1]) not in {(0, 0, 3, 0, 0, 0), (0, 0, 0, 0, 3, 0)}
        assert det.forbidden == state.forbidden
    # During the picks: player_1 sees player_0 has picked 2; any legal prefix is possible.
    mid = play(new(), keeps("red red red", "red red red") + ["keep red", "keep red"])
    prefixes = set()
    for seed in range(60):
        det = mid.sample_determinisation(1, np.random.default_rng(seed))
        assert det.picks == 2 and sum(det.kept[0]) == 2 and det.current_player() == 0
        if det.kept[0][2] == 2:
            assert 2 not in det.legal_actions()  # red red red stays forbidden
        prefixes.add(tuple(det.kept[0]))
    assert len(prefixes) > 5


def test_when_only_one_scoring_set_is_left_the_opponent_kept_it():
    state = new()
    for counts in MULTISETS[:-1]:
        picks = " ".join(COLOURS[c] for c in range(6) for _ in range(counts[c]))
        play(state, keeps(picks, picks))
    play(state, ["keep yellow"] * 6 + ["first player_1"])
    det = state.sample_determinisation(0, np.random.default_rng(0))
    assert det.kept[1] == [0, 0, 0, 0, 0, 3] and det == state_from_json(det.to_json())


def test_the_sample_respects_the_cards_the_player_holds():
    """player_0 was dealt all 10 yellow cards, so player_1 can hold or have kept no yellow."""
    state = play(new(), keeps("brown black red", "white white pink") + ["first player_0"])
    play(state, ["deal yellow"] * 10 + ["deal brown", "deal black"])
    play(state, [f"deal {c}" for c in ["red"] * 4 + ["pink"] * 6])
    # player_0 calls the truth: player_1's red card just put is turned up too.
    play(state, ["put yellow on 1 as yellow", "put red on 2 as red", "call", "chip pink"])
    assert state.cards[1][5] == 1
    for seed in range(40):
        det = state.sample_determinisation(0, np.random.default_rng(seed))
        assert det.kept[1][5] == 0 and det.hands[1][5] == 0
        assert det.cards[1][2] == 2  # the red card player_0 saw
        assert det.deck[5] == 0 and sum(det.deck) == 32


def test_mcts_agent_uses_the_determinisation():
    from fox_envs.agents.mcts import MCTSAgent

    real = next(s for s in random_game_states(41, every=1) if s.round == 1 and s.phase == PUT and s.turn == 5)
    before = real.clone()
    action = MCTSAgent(seed=0, simulations=20, rollout_limit=40).act(real, real.current_player())
    assert action in real.legal_actions() and real == before
