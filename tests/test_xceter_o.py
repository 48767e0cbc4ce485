"""X-Ceter-O rule scenarios, from the rulebook (x_ceter_o.txt) and SPEC 2.1."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs import TERMINAL, IllegalActionError
from fox_envs.agents import RandomAgent, make_agent
from fox_envs.games.xceter_o.rules import LINES, SQUARE_NAMES

PLACEMENT = ["a1", "b1", "c2", "a2", "b3", "c3"]  # X1 a1, O2 b1, X3 c2, O4 a2, X5 b3, O6 c3: no line
# An 18-ply cycle (each piece jumps three times) that returns to the position after PLACEMENT.
CYCLE = ["c1", "a1", "b1", "a3", "b2", "c2", "a2", "b3", "c1", "c3", "a3", "b2", "a1", "b1", "c2", "a2", "b3", "c3"]


def play(moves, **params):
    state = fox_envs.make_game("xceter_o_v0", **params).new_initial_state()
    for move in moves:
        state.apply_string(move)
    return state


def test_square_indexing_follows_spec():
    assert SQUARE_NAMES[0] == "a1" and SQUARE_NAMES[8] == "c3" and SQUARE_NAMES[5] == "c2"
    state = play([])
    assert state.string_to_action("b2") == 4 and state.action_to_string(7) == "b3"


def test_pieces_are_placed_in_number_order_by_alternating_players():
    state = play([])
    for ply, move in enumerate(PLACEMENT):
        assert state.current_player() == ply % 2  # player_0 owns 1, 3, 5 and starts
        assert state.next_piece() == ply + 1
        assert len(state.legal_actions()) == 9 - ply  # any empty square
        state.apply_string(move)
    assert list(state.board) == [1, 2, 0, 4, 0, 3, 0, 5, 6]


def test_cannot_place_on_an_occupied_square():
    state = play(["b2"])
    with pytest.raises(IllegalActionError, match="b2"):
        state.apply_string("b2")
    assert state.history() == [4]


def test_placement_phase_row_wins_immediately():
    state = play(["a1", "b1", "a2", "b2", "a3"])  # X1 a1, X3 a2, X5 a3: column a
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns().tolist() == [1.0, -1.0]
    assert state.legal_actions() == []


def test_second_player_can_win_in_placement_with_a_diagonal():
    state = play(["a2", "a1", "c1", "b2", "b1", "c3"])  # O2 a1, O4 b2, O6 c3
    assert state.is_terminal() and state.returns().tolist() == [-1.0, 1.0]


def test_movement_phase_starts_with_piece_one_and_cycles_in_strict_order():
    state = play(PLACEMENT)
    assert not state.is_terminal()
    expected_pieces = [1, 2, 3, 4, 5, 6, 1, 2]
    for ply, piece in enumerate(expected_pieces):
        assert state.next_piece() == piece
        assert state.current_player() == (piece - 1) % 2
        # the piece to move may jump to any empty square, never stay put or land on a piece
        assert state.legal_actions() == [s for s in range(9) if state.board[s] == 0]
        state.apply_string(CYCLE[ply])
        assert state.square_of[piece] == SQUARE_NAMES.index(CYCLE[ply])


def test_a_jump_frees_the_old_square():
    state = play(PLACEMENT + ["c1"])  # X1 jumps a1 -> c1
    assert state.board[0] == 0 and state.board[2] == 1
    assert "a1" in [state.action_to_string(a) for a in state.legal_actions()]


def test_movement_phase_win_by_jump():
    # X1 c3, O2 b1, X3 a1, O4 b2, X5 a2, O6 c1: no line after placement.
    state = play(["c3", "b1", "a1", "b2", "a2", "c1"])
    assert not state.is_terminal()
    state.apply_string("a3")  # X1 jumps c3 -> a3: column a (a1 X3, a2 X5, a3 X1)
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]


def test_only_the_piece_whose_turn_it_is_moves():
    state = play(["c3", "b1", "a1", "b2", "a2", "c1"])
    state.apply_string("b3")  # X1 c3 -> b3 (no line: a1, a2, b3)
    assert not state.is_terminal()
    # O6 could complete column b (b1, b2, b3 is blocked by X1 now) -- O2 moves next, not O6
    assert state.next_piece() == 2 and state.current_player() == 1
    state.apply_string("c3")  # O2 b1 -> c3
    assert state.square_of[2] == 8 and state.square_of[6] == 2


def test_ordered_rows_variant_counts_only_numbered_order():
    moves = ["a2", "b1", "a1", "b2", "a3"]  # X1 a2, X3 a1, X5 a3: column a reads 3-1-5
    assert play(moves).is_terminal()
    ordered = play(moves, ordered_rows=True)
    assert not ordered.is_terminal()
    # 5-3-1 from top to bottom is 1-3-5 read the other way: it counts
    reversed_order = play(["a1", "b1", "a2", "b2", "a3"], ordered_rows=True)
    assert reversed_order.is_terminal() and reversed_order.returns().tolist() == [1.0, -1.0]
    top_down = play(["a3", "b1", "a2", "b2", "a1"], ordered_rows=True)
    assert top_down.is_terminal()


def test_ordered_rows_movement_phase_win():
    # X1 a2, X3 a1, X5 a3 (column a reads 3-1-5: no ordered line); O2 b1, O4 c2, O6 c1
    state = play(["a2", "b1", "a1", "c2", "a3", "c1"], ordered_rows=True)
    assert not state.is_terminal()
    state.apply_string("c3")  # X1 a2 -> c3
    state.apply_string("a2")  # O2 b1 -> a2
    assert not state.is_terminal()
    state.apply_string("b3")  # X3 a1 -> b3: row 3 reads X5 X3 X1, i.e. 1-3-5 from the right
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]


def test_threefold_repetition_is_a_draw():
    state = play(PLACEMENT)
    assert state.repetition_count() == 1  # the position after the last placement counts once
    for move in CYCLE:
        state.apply_string(move)
        assert not state.is_terminal()
    assert state.repetition_count() == 2
    for move in CYCLE[:-1]:
        state.apply_string(move)
        assert not state.is_terminal()
    state.apply_string(CYCLE[-1])
    assert state.is_terminal() and state.returns().tolist() == [0.0, 0.0]
    assert "draw" in str(state)


def test_text_board_shows_piece_numbers_and_next_piece():
    state = play(["b2", "a1"])
    text = str(state)
    assert "X1" in text and "O2" in text and "next: player_0 to place X3" in text


def test_observation_is_from_the_observer_point_of_view():
    state = play(["b2", "a1"])
    mine, theirs = state.observation_tensor(0), state.observation_tensor(1)
    assert mine[1, 1, 0] == 1 and theirs[1, 1, 3] == 1  # X1 on b2 (row 2, column b)
    assert mine[0, 0, 3] == 1 and theirs[0, 0, 0] == 1  # O2 on a1
    assert mine[..., 9].all()  # placement phase
    assert mine[..., 6].sum() == 7


def test_rgb_picture_shape():
    picture = play(PLACEMENT).render_rgb()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 3


@pytest.mark.slow
def test_ten_thousand_random_games_through_env():
    env = fox_envs.make("xceter_o_v0")
    rng = np.random.default_rng(0)
    finished = 0
    for seed in range(10_000):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        finished += 1
    assert finished == 10_000


def test_heuristic_beats_random_clearly():
    game = fox_envs.make_game("xceter_o_v0")
    heuristic, random_agent = make_agent("heuristic", "xceter_o_v0", seed=1), RandomAgent(2)
    wins = 0
    for index in range(200):
        seats = (heuristic, random_agent) if index % 2 == 0 else (random_agent, heuristic)
        state = game.new_initial_state()
        while not state.is_terminal() and state.move_number() < 200:
            player = state.current_player()
            state.apply_action(seats[player].act(state, player))
        wins += state.returns()[index % 2] > 0
    assert wins >= 170


def test_incremental_observation_matches_the_position_along_random_games():
    game = fox_envs.make_game("xceter_o_v0")
    rng = np.random.default_rng(4)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal() and state.move_number() < 60:
            for viewer in (0, 1):
                np.testing.assert_array_equal(state.observation_tensor(viewer), _reference_observation(state, viewer))
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])


def _reference_observation(state, viewer):
    """The observation computed from scratch from the board (planes as in the module doc)."""
    expected = np.zeros((9, 10), dtype=np.float32)
    for square in range(9):
        piece = state.board[square]
        if piece:
            expected[square, (piece - 1) // 2 + (0 if (piece - 1) % 2 == viewer else 3)] = 1
        else:
            expected[square, 6] = 1
    for plane, piece in ((7, state.next_piece()), (8, state.next_piece() % 6 + 1)):
        if state.square_of[piece] >= 0:
            expected[state.square_of[piece], plane] = 1
    expected[:, 9] = state.move_number() < 6
    return expected.reshape(3, 3, 10)


@pytest.mark.parametrize("ordered_rows", [False, True])
def test_incremental_bookkeeping_matches_a_from_scratch_reference(ordered_rows):
    """Win check, repetition count, mask and observation (terminal states too) against a
    reference recomputed from the board, along random games and games that cycle into draws."""
    import pickle

    game = fox_envs.make_game("xceter_o_v0", ordered_rows=ordered_rows)
    rng = np.random.default_rng(7)
    draws = wins = 0
    for index in range(60):
        state = game.new_initial_state()
        seen: dict[tuple, int] = {}
        while True:
            mask = [0] * 9 if state.is_terminal() else [int(not piece) for piece in state.board]
            assert state.legal_actions_mask().tolist() == mask
            for viewer in (0, 1):
                np.testing.assert_array_equal(state.observation_tensor(viewer), _reference_observation(state, viewer))
            key = (bytes(state.board), state.move_number() % 6)
            assert state.repetition_count() == seen.get(key, 0)
            if state.is_terminal() or state.move_number() >= 120:
                break
            copy = pickle.loads(pickle.dumps(state))
            assert copy == state and copy.observation_tensor(0).tolist() == state.observation_tensor(0).tolist()
            legal = state.legal_actions()
            # half the games play a position-only policy after placement, which cycles into draws
            cycling = index % 2 and state.move_number() >= 6
            mover = state.current_player()
            choice = (state.move_number() // 7) % len(legal) if cycling else rng.integers(len(legal))
            state.apply_action(legal[choice])
            key = (bytes(state.board), state.move_number() % 6)
            if state.move_number() >= 6 and state.winner < 0:  # a winning ply ends the game first
                seen[key] = seen.get(key, 0) + 1
            squares = [state.square_of[mover + 1 + 2 * k] for k in range(3)]
            line = any(
                set(squares) == set(line) and (not ordered_rows or tuple(squares) in (line, line[::-1]))
                for line in LINES
            )
            assert (state.winner == mover) == line
            assert state.drawn == (not line and seen.get(key, 0) >= 3)
        draws += state.drawn
        wins += state.winner >= 0
    assert draws and wins


def test_illegal_actions_change_nothing_and_returned_arrays_are_the_callers():
    state = play(PLACEMENT)
    before = (state.history(), state.observation_tensor(0), state.legal_actions_mask(), state.repetition_count())
    for bad in (0, 9, -1, np.int64(1), 4.0, None, "b2"):  # a1 and b1 are occupied
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    after = (state.history(), state.observation_tensor(0), state.legal_actions_mask(), state.repetition_count())
    assert before[0] == after[0] and before[3] == after[3]
    np.testing.assert_array_equal(before[1], after[1])
    np.testing.assert_array_equal(before[2], after[2])
    obs, mask = state.observation_tensor(1), state.legal_actions_mask()
    obs[:] = 7
    mask[:] = 7
    assert state.observation_tensor(1).max() == 1 and state.legal_actions_mask().max() == 1
    state.apply_action(np.int64(4))  # numpy integers are accepted: X1 a1 -> b2
    assert state.history()[-1] == 4 and type(state.history()[-1]) is int
    won = play(["a2", "a1", "c1", "b2", "b1", "c3"])  # O wins with the sixth placement
    assert won.is_terminal() and won.legal_actions_mask().tolist() == [0] * 9
    assert not won.observation_tensor(0)[..., 9].any()  # the placement phase is over
    with pytest.raises(IllegalActionError, match="game is over"):
        won.apply_action(3)
