"""Outfox's rules through the JAX env, scenario by scenario, against the rules core
(integration: needs jax). jax and fox_envs.jax are imported inside fixtures and tests only."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs
from fox_envs.games.outfox import rules as core_rules
from jax_lockstep import assert_same_state

pytestmark = pytest.mark.integration

# Found by random play in the rules core; each is a whole game unless said otherwise.
# TR on a2, TY on b3, TB on c4 after the placement of TR: a line, broken by the slide b3-a3
# that must follow (not a game).
LINE_BROKEN_BY_THE_SLIDE = ["TY@b4", "TB@c4", "b4-b3", "TR@a2", "b3-a3"]
# player_0 slides player_1's SR to d3, between SY on d2 and SB on d4: one shape, three colours.
SLIDE_WINS_FOR_PLAYER_0 = ["SB@e3", "SR@e2", "e3-d4", "SY@d2", "e2-d3"]
SLIDE_WINS_FOR_PLAYER_1 = ["SB@b1", "SR@c1", "b1-b2", "TY@c2", "b2-a1", "SY@b1", "c2-d2"]
# three players: player_2 slides SY to c2, between SR on b1 and SB on d2.
THREE_PLAYERS_PLAYER_2_WINS = ["SR@c2", "SY@c3", "c2-b1", "SB@d2", "c3-c2"]
# every piece placed without a line: 18 turns, 35 decisions; the 18th turn's seat (player_1 of
# two, player_2 of three), who played last, wins.
LONGEST = {
    2: ["CB@e2", "CB@e1", "e2-d3", "SB@d1", "e1-e2", "TB@e1", "e2-e3", "SR@e2", "e3-c5", "TY@b4", "c5-c3", "TY@c5",
        "b4-c4", "CY@c2", "d1-c1", "SY@b3", "c3-b2", "SR@a1", "b2-a2", "TB@b2", "c2-d2", "CR@b4", "c4-c2", "TR@c4",
        "b3-a3", "TR@d1", "c2-b1", "CY@d4", "d3-e3", "SY@b3", "c4-c3", "CR@c2", "d2-d3", "SB@c4", "d3-d2"],
    3: ["TR@a2", "SY@b3", "a2-b2", "SB@c2", "b2-a2", "CR@b2", "b3-c4", "SY@a1", "b2-b1", "TB@c3", "c4-b3", "CR@c1",
        "b1-b2", "TY@a3", "b3-b4", "SB@c4", "b4-b3", "SR@b4", "c4-d3", "TY@e3", "d3-d1", "TB@b1", "c2-e2", "SR@c4",
        "b4-c5", "CY@d2", "c3-d3", "CB@c3", "c4-b4", "TR@d4", "d3-c4", "CY@e1", "e2-d3", "CB@c2", "d2-e2"],
}
# player_1 still holds pieces, but every empty point has only stuck neighbours: player_0 wins.
NOWHERE_TO_PLACE = ["TY@a1", "CR@a2", "a1-c1", "SY@d1", "c1-c4", "TR@c2", "d1-d3", "CR@c5", "c4-d4", "SR@e3",
                    "d3-d1", "CB@a1", "a2-b3", "CB@b2", "c2-c3", "SR@a2", "b2-b1", "CY@e2", "e3-d3", "TB@c1",
                    "b1-c2", "TB@b4", "c5-c4", "SB@b1", "a1-b2", "TY@e1", "d1-d2", "CY@a3", "b4-c5"]


class Game:
    """A JAX env with its jitted step, beside the rules core of the same params."""

    def __init__(self, max_moves: int | None = None, **params) -> None:
        import jax

        import fox_envs.jax

        self.env = fox_envs.jax.make("outfox_v0", max_moves=max_moves, **params)
        self.params = params
        self.step = jax.jit(self.env.step)
        self.observe = jax.jit(self.env.observe)

    def core(self, moves: list[str]):
        state = fox_envs.make_game("outfox_v0", **self.params).new_initial_state()
        for move in moves:
            state.apply_action(state.string_to_action(move))
        return state

    def play(self, moves: list[str]) -> list:
        """The JAX states from the start through ``moves`` (each checked against the core)."""
        import jax

        state = self.env.init(jax.random.PRNGKey(0))
        states = [state]
        core = self.core([])
        for move in moves:
            action = core.string_to_action(move)
            assert np.asarray(state.legal_action_mask)[action], f"{move} is not legal in the JAX env"
            core.apply_action(action)
            state = self.step(state, np.int32(action))
            self.assert_matches(state, core)
            states.append(state)
        return states

    def assert_matches(self, state, core) -> None:
        """Every field of ``state`` is the core's, and each seat's view is the core's."""
        terminal = core.is_terminal()
        truncated = not terminal and len(core.history()) >= self.env.max_moves  # no chance: one entry a decision
        assert bool(state.terminated) == terminal and bool(state.truncated) == truncated
        over = terminal or truncated
        mask = np.zeros(self.env.num_actions, bool) if over else core.legal_actions_mask().astype(bool)
        np.testing.assert_array_equal(np.asarray(state.legal_action_mask), mask)
        if not terminal:
            assert int(state.current_player) == core.current_player()
        for seat in range(self.env.num_players):
            np.testing.assert_array_equal(np.asarray(self.observe(state, seat)), core.observation_tensor(seat))
        expected = core.returns() if terminal else np.zeros(self.env.num_players)
        np.testing.assert_allclose(np.asarray(state.rewards), expected)


@pytest.fixture(scope="module")
def two():
    return Game()


@pytest.fixture(scope="module")
def three():
    return Game(num_players=3)


def planes(game: Game) -> int:
    return 17 + 9 * game.env.num_players


def test_the_first_turn_is_a_placement_only(two):
    first = two.play(["CR@c3"])[-1]
    assert int(first.current_player) == 1 and not bool(first.terminated)
    mask = np.asarray(first.legal_action_mask)
    assert not mask[core_rules.NUM_PLACE:].any()  # no slide follows the first placement
    # a placement needs a neighbouring piece: only the six neighbours of c3, for each of the 9 types
    points = sorted({a % 19 for a in np.flatnonzero(mask)})
    assert [core_rules.POINT_NAMES[p] for p in points] == ["b2", "b3", "c2", "c4", "d2", "d3"]
    assert mask.sum() == 9 * 6
    obs = np.asarray(first.observation)
    assert obs[0, 0, planes(two)] == 1 and obs[0, 0, planes(two) + 1] == 0  # a placement decision


def test_a_slide_is_a_straight_run_of_a_neighbour_of_the_placed_piece_through_empty_points(two):
    core = two.core(["CR@c3", "SR@c4"])
    state = two.play(["CR@c3", "SR@c4"])[-1]
    assert int(state.current_player) == 1  # the same seat slides
    legal = {core.action_to_string(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))}
    # c3 is the only neighbour of c4 with a piece; it cannot pass through c4, and c4 itself stays
    assert legal == {"c3-c2", "c3-c1", "c3-b2", "c3-a1", "c3-b3", "c3-a3", "c3-d2", "c3-e1", "c3-d3", "c3-e3"}
    assert {core.action_to_string(a) for a in core.legal_actions()} == legal
    placed_plane = planes(two) + 2
    obs = np.asarray(state.observation)
    assert obs[2, 3, placed_plane] == 1 and obs[:, :, placed_plane].sum() == 1  # c4 is (q, r) = (1, 0)


def test_a_line_that_the_slide_breaks_does_not_win(two):
    states = two.play(LINE_BROKEN_BY_THE_SLIDE)
    after_placement = two.core(LINE_BROKEN_BY_THE_SLIDE[:-1])
    assert core_rules.has_line(after_placement.board)  # the line is there between the two decisions
    assert not any(bool(s.terminated) for s in states)
    assert int(states[-1].current_player) == 1  # player_0 broke it; player_1 is to place


@pytest.mark.parametrize("moves, winner", [(SLIDE_WINS_FOR_PLAYER_0, 0), (SLIDE_WINS_FOR_PLAYER_1, 1)])
def test_a_line_at_the_end_of_a_turn_wins_for_the_mover_whoever_placed_the_pieces(two, moves, winner):
    states = two.play(moves)
    assert [bool(s.terminated) for s in states].index(True) == len(moves)
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert np.asarray(states[-1].rewards).tolist() == expected
    assert int(states[-1].current_player) == winner  # after the game: the last mover
    assert two.env.to_core_state(states[-1]).win_lines


def test_three_players_a_win_pays_the_winner_one_and_each_loser_half(three):
    final = three.play(THREE_PLAYERS_PLAYER_2_WINS)[-1]
    assert bool(final.terminated)
    assert np.asarray(final.rewards).tolist() == [-0.5, -0.5, 1.0]


@pytest.mark.parametrize("num_players", [2, 3])
def test_the_longest_game_ends_when_the_next_seat_has_no_piece(two, three, num_players):
    """All 18 pieces placed without a line: 35 decisions, the last mover (the 18th turn's seat)
    wins; with max_moves=35 (the default) that game is not truncated, with 34 it is."""
    game = two if num_players == 2 else three
    moves = LONGEST[num_players]
    states = game.play(moves)
    final = states[-1]
    assert bool(final.terminated) and not bool(final.truncated) and int(final._step_count) == 35
    assert not any(bool(s.terminated) for s in states[:-1])
    last = 17 % num_players
    assert int(final.current_player) == last and np.asarray(final.rewards)[last] == 1.0
    assert game.env.history_capacity == 35
    assert not game.core(moves).win_lines
    short = Game(max_moves=34, **game.params)
    cut = short.play(moves[:34])[-1]
    assert bool(cut.truncated) and not bool(cut.terminated) and not np.asarray(cut.legal_action_mask).any()
    assert short.env.history_capacity == 34


def test_no_legal_placement_ends_the_game_for_the_last_mover(two):
    final = two.play(NOWHERE_TO_PLACE)[-1]
    core = two.core(NOWHERE_TO_PLACE)
    assert any(core.hands[1]) and not core_rules.legal_points(core.board)
    assert bool(final.terminated) and np.asarray(final.rewards).tolist() == [1.0, -1.0]
    assert int(final._position.points) == 0


@pytest.mark.parametrize("moves", [SLIDE_WINS_FOR_PLAYER_1, NOWHERE_TO_PLACE, LONGEST[2][:20]])
def test_the_bridge_rebuilds_the_stepped_state(two, moves):
    stepped = two.play(moves)[-1]
    assert_same_state(two.env.from_core_state(two.core(moves)), stepped)


# ----- the tables on arbitrary boards (reachable or not) --------------------------------------
def random_board(rng: np.random.Generator) -> list[int]:
    fill = rng.uniform(0.1, 0.9)
    return [int(rng.integers(9)) if rng.random() < fill else -1 for _ in range(core_rules.NUM_POINTS)]


def test_lines_and_legal_points_match_the_core_on_random_boards():
    import jax
    import jax.numpy as jnp

    from fox_envs.games.outfox.jax_rules import grid, has_line, legal_point_bits

    rng = np.random.default_rng(7)
    boards = [random_board(rng) for _ in range(3000)] + [[-1] * 19]
    array = jnp.asarray(boards, jnp.int8)
    lines = np.asarray(jax.jit(jax.vmap(lambda b: has_line(grid(b).reshape(5, 5))))(array))
    occupied = jnp.asarray([sum(1 << p for p, t in enumerate(b) if t >= 0) for b in boards], jnp.int32)
    points = np.asarray(jax.jit(jax.vmap(legal_point_bits))(occupied))
    assert lines.any() and not lines.all()
    for board, line, bits in zip(boards, lines, points):
        assert bool(line) == core_rules.has_line(board), board
        assert [p for p in range(19) if bits >> p & 1] == core_rules.legal_points(board), board


@pytest.mark.parametrize("num_players", [2, 3])
def test_mask_and_every_view_match_the_core_on_random_positions(num_players):
    """Hand-made positions (any board, hands, seat, decision, winner) set on a core state and on
    a JAX position: the same mask for the seat to move and the same view for every seat."""
    import jax
    import jax.numpy as jnp

    import fox_envs.jax
    from fox_envs.games.outfox.jax_rules import Position

    rules = fox_envs.jax.make("outfox_v0", num_players=num_players).rules
    game = fox_envs.make_game("outfox_v0", num_players=num_players)
    mask = jax.jit(rules.legal_mask)
    observe = jax.jit(rules.observe)
    rng = np.random.default_rng(num_players)
    for _ in range(150):
        core = game.new_initial_state()
        board = random_board(rng)
        occupied = [p for p in range(19) if board[p] >= 0]
        hands = [[int(rng.integers(game.hand_max + 1)) if game.start_hands[s][t] else 0 for t in range(9)]
                 for s in range(num_players)]
        slide = bool(rng.integers(2)) and bool(occupied)
        core.board, core.hands, core.to_move = board, hands, int(rng.integers(num_players))
        core.phase = core_rules.SLIDE if slide else core_rules.PLACE
        core.placed = int(rng.choice(occupied)) if slide else -1
        core.turns = int(rng.integers(1, 10))
        core.winner = int(rng.integers(num_players)) if rng.random() < 0.2 else -1
        points = sum(1 << p for p in core_rules.legal_points(board))
        position = Position(jnp.asarray(board, jnp.int8), jnp.asarray(hands, jnp.int8), jnp.int32(core.to_move),
                            jnp.int32(core.phase), jnp.int32(core.placed), jnp.int32(core.turns),
                            jnp.int32(core.winner), jnp.int32(points))
        if core.winner < 0:
            np.testing.assert_array_equal(np.asarray(mask(position)), core.legal_actions_mask().astype(bool))
        for seat in range(num_players):
            np.testing.assert_array_equal(np.asarray(observe(position, jnp.int32(seat))),
                                          core.observation_tensor(seat))
