"""Outfoxed (rules as implemented: docs/rules/outfoxed.md): a two-player bluffing race.

Three squares of cards and a race track with one lane per colour (6 = finish); the table, the
action layout and the phase numbers are drawn in fox_envs/games/outfoxed/board.py.

60 cards, 10 each of brown, black, red, pink, white, yellow (colour index in that order).

* Setup: player_0 then player_1 each secretly keep 3 scoring cards (``keep c``, one colour per
  decision, repeats allowed), out of the deck for the whole game. If both kept the same
  multiset it is revealed, forbidden to both, and both pick again in the same order. A pick is
  legal when some completion of the player's picks is not forbidden (so the third pick that
  would complete a forbidden multiset is masked and no pick leads into a dead end). If the
  identical multiset is the only one not yet forbidden, the picks stand (decision).
* Chance picks the first player of round 1 (``first player_0``/``first player_1``); then it
  alternates. Every round the 54 deck cards are shuffled and dealt one chance event per card
  (``deal red``), probability proportional to what is left: the first player's 12, then the
  second player's 10.
* 9 turns each, first player first: ``put c on s as d`` (face down, chip d), then ``call`` /
  ``pass`` on the opponent's previous card if it is still face down. A call turns it up: on a
  lie the caller chooses its chip; on the truth the caller's card just put is turned up and the
  opponent chooses its chip (``chip c``). The second player's 9th card is put face up and true
  (``put c on s as c``).
* Special turn: the first player (3 cards) then the second (1 card) ``show c on s`` face up;
  the second decides without seeing the first's choice (it is hidden until both are shown).
* Round end: a card's colour is its chip, else its face. Per square the colour with the highest
  count held by exactly one colour moves (none if no count is unique); square 1's fox moves 1,
  then square 2's moves 2, then square 3's moves 3; the game ends the moment a fox reaches 6.
* Score: each kept card scores its fox's track position; higher score wins (+1/-1), equal is a
  draw. After ``max_rounds`` rounds without a finish the game is a draw.

Actions (140): ``keep c`` 0..5; ``put c on s as d`` 6 + (s-1)*36 + c*6 + d; ``call`` 114;
``pass`` 115; ``chip c`` 116..121; ``show c on s`` 122 + (s-1)*6 + c. Chance outcomes: the
seat for ``first player_i``, the colour index for ``deal c``.

The observation layout is documented at ``OBS_LAYOUT`` below and in ``docs/rules/outfoxed.md``.
Hidden information: ``OutfoxedState.sample_determinisation`` (for search agents) redraws what a
player cannot know by rewriting the history and replaying it (see ``_determinised_history``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, Sequence

import numpy as np

from fox_envs.core.game import CHANCE, TERMINAL, Game, State, two_player_returns
from fox_envs.core.params import Param, int_range
# The board tables, also imported from this module by the kernels, agents and tests.
from fox_envs.games.outfoxed.board import (  # noqa: F401
    ACTION_NAMES, CALL, CALLING, CARDS_PER_COLOUR, CHIP0, CHIPPING, COLOUR_INDEX, COLOURS, DEAL,
    FINISH, FIRST, FIRST_HAND, KEEP, KEEP0, MULTISET_INDEX, MULTISETS, NUM_ACTIONS, NUM_COLOURS,
    OVER, PASS, PHASE_NAMES, PUT, PUT0, SECOND_HAND, SHOW, SHOW0, TURNS_PER_ROUND, put_action,
    show_action,
)

ALL_COLOURS = list(range(NUM_COLOURS))
# COMPLETIONS[partial picks][colour]: MULTISETS indices that contain the partial picks plus colour.
COMPLETIONS: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {
    partial: tuple(
        tuple(i for i, m in enumerate(MULTISETS)
              if all(m[k] >= partial[k] + (k == colour) for k in range(NUM_COLOURS)))
        for colour in range(NUM_COLOURS)
    )
    for partial in (tuple(picks.count(k) for k in range(NUM_COLOURS))
                    for size in (0, 1, 2) for picks in combinations_with_replacement(range(NUM_COLOURS), size))
}
KEEP_DECISIONS_BOUND = 6 * len(MULTISETS)  # at most 56 rounds of 6 scoring picks
ROUND_DECISIONS_BOUND = 18 + 17 + 17 + 2  # puts, call/pass, chips, shows


def _action_tables() -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Sorted put / true-put / show actions for every set of colours in hand (bit mask)."""
    puts, true_puts, shows = [], [], []
    for mask in range(64):
        held = [c for c in range(NUM_COLOURS) if mask >> c & 1]
        puts.append(sorted(put_action(c, s, d) for c in held for s in (1, 2, 3) for d in range(6)))
        true_puts.append(sorted(put_action(c, s, c) for c in held for s in (1, 2, 3)))
        shows.append(sorted(show_action(c, s) for c in held for s in (1, 2, 3)))
    return puts, true_puts, shows


PUT_TABLE, TRUE_PUT_TABLE, SHOW_TABLE = _action_tables()
CHIP_ACTIONS = list(range(CHIP0, CHIP0 + 6))
CALL_ACTIONS = [CALL, PASS]


def square_winner(counts: list[int] | tuple[int, ...]) -> int:
    """The colour that moves from one square: the highest count held by exactly one colour
    (colours with no card do not count); -1 when no count is held by a single colour."""
    for n in sorted(set(counts), reverse=True):
        if n == 0:
            break
        holders = [c for c in range(NUM_COLOURS) if counts[c] == n]
        if len(holders) == 1:
            return holders[0]
    return -1


# ----- observation layout (flat float32 vector, everything in [0, 1]) ------------------------
O_HAND = 0  # 6: own hand by colour / 12
O_KEPT = 6  # 6: own kept scoring cards by colour / 3
O_FOX = 12  # 42: fox c at track position k, one-hot at 12 + c*7 + k
O_TABLE = 54  # 72: 54 + ((s-1)*6 + colour)*4 + g, effective colour, g = own up, own down, opp up, opp down; /20
O_OWN_FACE = 126  # 18: own face-down cards on square s by true face, 126 + (s-1)*6 + face; /20
O_UP_FACE = 144  # 18: face-up cards (both owners) on square s by true face; /20
O_CALLABLE = 162  # 9: the card I may call (opponent's previous card, face down): square (3), declared colour (6)
O_MY_LAST = 171  # 9: my latest card this round: square (3), true face (6)
O_PHASE = 180  # 6: my decision now: keep, put, call, chip, show, none (not my turn / chance / over)
O_CHIP = 186  # 5: card to be chipped: square (3), mine (1), opponent's (1)
O_CHIP_FACE = 191  # 6: that card's face (it is face up)
O_ROUND = 197  # 1: round / max_rounds
O_TURN = 198  # 1: turns completed this round / 18
O_FIRST = 199  # 1: 1 if I am this round's first player
O_SEAT = 200  # 1: my seat (player_1 = 1)
O_PICKS = 201  # 1: scoring picks made in the current pick phase / 6
O_SIZES = 202  # 2: own hand size / 12, opponent hand size / 12
O_FORBIDDEN = 204  # 56: forbidden scoring multisets (MULTISETS order)
O_PENDING = 260  # 18: my own special-turn card chosen but not yet shown: (s-1)*6 + colour
O_STATS = 278  # 8: squashed x/(x+10): for me then the opponent: cards called true, called lies, calls made, call chances
OBS_SIZE = 286

# ----- full-information state (State.state_tensor: flat float32, everything in [0, 1]) -------
S_OBS = 0  # 2 * 286: player_0's observation, then player_1's (hands, kept cards, own faces)
S_CARDS = 2 * OBS_SIZE  # the table cards of this round in the order put, one slot each:
C_SQUARE, C_OWNER, C_FACE, C_COLOUR, C_UP = 0, 3, 4, 10, 16  # square (3), owner is player_1 (1),
CARD_FEATURES = 17  # true face (6), effective colour (6), face up (1); an empty slot is all zero
MAX_TABLE_CARDS = TURNS_PER_ROUND + 2  # 18 put in turns, 2 shown on the special turn
STATE_SIZE = S_CARDS + MAX_TABLE_CARDS * CARD_FEATURES

TABLE_SCALE = 1.0 / 20.0


@dataclass(frozen=True)
class TableCard:
    """One card on the table as a given player sees it (``face`` -1 when hidden from them)."""

    square: int
    owner: int
    colour: int  # effective colour: the chip, or the face of a shown card
    declared: int  # the colour declared when it was put (-1 for a special-turn card)
    face: int
    face_up: bool


@dataclass(frozen=True)
class OutfoxedInfo:
    """Everything one player may know (``OutfoxedState.information``); agents use only this."""

    player: int
    phase: str  # keep, first, deal, put, call, chip, show, over
    to_move: bool
    hand: tuple[int, ...]
    kept: tuple[int, ...]
    picks_made: int
    forbidden: tuple[tuple[int, ...], ...]
    foxes: tuple[int, ...]
    round: int
    max_rounds: int
    turn: int
    first: int  # this round's first player, -1 before it is known
    table: tuple[TableCard, ...]
    callable_card: int  # table index of the card the player may call now (call phase), else -1
    my_last_card: int  # table index of the player's latest card this round, -1 none
    opponent_last_card: int  # table index of the opponent's latest card this round, -1 none
    chip_card: int  # table index of the card whose chip the player chooses now, else -1
    opponent_hand_size: int
    pending_show: tuple[int, int] | None  # own special-turn card (colour, square) not yet shown
    called_true: tuple[int, int]  # per seat: its cards turned up by a call that were true
    called_lie: tuple[int, int]  # per seat: its cards turned up by a call that were lies
    calls: tuple[int, int]  # per seat: calls made
    call_chances: tuple[int, int]  # per seat: call-or-pass decisions taken


class OutfoxedGame(Game):
    name = "outfoxed_v0"
    PARAMS = {"max_rounds": Param(20, int_range(1, 10_000), "an integer 1..10000")}
    zero_sum = True
    perfect_information = False  # search agents use OutfoxedState.sample_determinisation
    state_shape = (STATE_SIZE,)  # OutfoxedState.state_tensor

    def _setup(self) -> None:
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.max_rounds: int = self.params["max_rounds"]
        # No legal game has more decisions: 56 rounds of scoring picks at most, 54 per round.
        self.max_moves_default = KEEP_DECISIONS_BOUND + ROUND_DECISIONS_BOUND * self.max_rounds

    def observation_scale(self) -> np.ndarray:
        """What each plane counts: hand cards (of 12), kept cards (of 3), table cards (of 20),
        the round (of ``max_rounds``), turns (of 18), picks (of 6), hand sizes (of 12); the
        statistics planes are not fractions of a count (see ``compact_observation``)."""
        scale = np.ones(OBS_SIZE, np.float32)
        scale[O_HAND:O_HAND + 6] = 12
        scale[O_KEPT:O_KEPT + 6] = 3
        scale[O_TABLE:O_UP_FACE + 18] = 20
        scale[O_ROUND] = self.max_rounds
        scale[O_TURN] = TURNS_PER_ROUND
        scale[O_PICKS] = 6
        scale[O_SIZES:O_SIZES + 2] = 12
        return scale

    def compact_high(self, num_planes: int) -> np.ndarray:
        high = super().compact_high(num_planes)
        high[O_STATS:O_STATS + 8] = 255
        return high

    def compact_observation(self, observation: np.ndarray) -> np.ndarray:
        """``Game.compact_observation``, with each statistics plane (``x / (x + 10)``) as the
        count ``x`` itself (capped at 255)."""
        values = np.asarray(observation)
        compact = super().compact_observation(values)
        squashed = values[..., O_STATS:O_STATS + 8].astype(np.float64)
        compact[..., O_STATS:O_STATS + 8] = np.minimum(np.rint(10.0 * squashed / (1.0 - squashed)), 255)
        return compact

    def new_initial_state(self) -> "OutfoxedState":
        return OutfoxedState(self)


class OutfoxedState(State):
    game: OutfoxedGame

    def __init__(self, game: OutfoxedGame) -> None:
        super().__init__(game)
        self.phase = KEEP
        self.picks = 0  # scoring picks made in the current pick phase (0..6)
        self.kept = [[0] * 6, [0] * 6]
        self.forbidden: list[int] = []  # MULTISETS indices, in the order they were forbidden
        self.foxes = [0] * 6
        self.round = 0
        self.first = -1
        self.deck = [0] * 6
        self.dealt = 0
        self.hands = [[0] * 6, [0] * 6]
        # Cards on the table this round: [square, owner, face, declared, chip, face_up].
        self.cards: list[list[int]] = []
        self.turn = 0  # turns completed this round (0..18)
        self.last_card = [-1, -1]  # table index of each player's latest card this round
        self.chip_card = -1
        self.chip_player = -1
        self.pending: tuple[int, int] | None = None  # first player's special-turn (colour, square)
        self.called_true = [0, 0]
        self.called_lie = [0, 0]
        self.calls = [0, 0]
        self.call_chances = [0, 0]
        self.moved: list[int] = []  # colours that moved from squares 1..3 at the last round end
        self.finished = False  # a fox reached 6
        self.scores = [0, 0]

    # ----- whose decision --------------------------------------------------------------------
    def mover(self) -> int:
        """The player whose put-and-declare turn it is."""
        return self.first if self.turn % 2 == 0 else 1 - self.first

    def current_player(self) -> int:
        phase = self.phase
        if phase == PUT or phase == CALLING:
            return self.first if self.turn % 2 == 0 else 1 - self.first
        if phase == DEAL or phase == FIRST:
            return CHANCE
        if phase == CHIPPING:
            return self.chip_player
        if phase == SHOW:
            return self.first if self.pending is None else 1 - self.first
        if phase == KEEP:
            return 0 if self.picks < 3 else 1
        return TERMINAL

    # ----- legal actions -----------------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PUT:
            player = self.mover()
            table = TRUE_PUT_TABLE if self.turn == TURNS_PER_ROUND - 1 else PUT_TABLE
            return table[self._hand_mask(player)]
        if phase == CALLING:
            return CALL_ACTIONS
        if phase == CHIPPING:
            return CHIP_ACTIONS
        if phase == DEAL:
            return [c for c in range(6) if self.deck[c]]
        if phase == SHOW:
            return SHOW_TABLE[self._hand_mask(self.current_player())]
        if phase == FIRST:
            return [0, 1]
        if phase == KEEP:
            return self._keep_options()
        return []

    def _hand_mask(self, player: int) -> int:
        """Bit c set when the player holds a card of colour c."""
        a, b, c, d, e, f = self.hands[player]
        return (a > 0) | (b > 0) << 1 | (c > 0) << 2 | (d > 0) << 3 | (e > 0) << 4 | (f > 0) << 5

    def _keep_options(self) -> list[int]:
        """Colours whose pick still allows a completion that is not a forbidden multiset."""
        if not self.forbidden:
            return ALL_COLOURS
        player = 0 if self.picks < 3 else 1
        completions = COMPLETIONS[tuple(self.kept[player])]
        forbidden = set(self.forbidden)
        return [colour for colour in range(6) if not forbidden.issuperset(completions[colour])]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == DEAL:
            deck = self.deck
            total = sum(deck)
            return [(c, deck[c] / total) for c in range(6) if deck[c]]
        if self.phase == FIRST:
            return [(0, 0.5), (1, 0.5)]
        return []

    # ----- applying actions --------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == DEAL:
            receiver = self.first if self.dealt < FIRST_HAND else 1 - self.first
            self.hands[receiver][action] += 1
            self.deck[action] -= 1
            self.dealt += 1
            if self.dealt == FIRST_HAND + SECOND_HAND:
                self.phase = PUT
        elif phase == PUT:
            self._put(action)
        elif phase == CALLING:
            self._call_or_pass(action)
        elif phase == CHIPPING:
            self.cards[self.chip_card][4] = action - CHIP0
            self.chip_card = self.chip_player = -1
            self._end_turn()
        elif phase == SHOW:
            self._show(action)
        elif phase == KEEP:
            self._keep(action)
        elif phase == FIRST:
            self.first = action
            self.round = 1
            self._start_round()

    def _keep(self, colour: int) -> None:
        """A scoring pick; after the sixth, identical multisets are forbidden and re-picked."""
        player = 0 if self.picks < 3 else 1
        self.kept[player][colour] += 1
        self.picks += 1
        if self.picks < 6:
            return
        if self.kept[0] == self.kept[1] and len(self.forbidden) < len(MULTISETS) - 1:
            self.forbidden.append(MULTISET_INDEX[tuple(self.kept[0])])
            self.kept = [[0] * 6, [0] * 6]
            self.picks = 0
            return
        self.phase = FIRST

    def _start_round(self) -> None:
        """Shuffle the 54 deck cards (everything but the kept ones) and start dealing."""
        self.deck = [CARDS_PER_COLOUR - self.kept[0][c] - self.kept[1][c] for c in range(6)]
        self.hands = [[0] * 6, [0] * 6]
        self.cards = []
        self.dealt = 0
        self.turn = 0
        self.last_card = [-1, -1]
        self.pending = None
        self.phase = DEAL

    def _put(self, action: int) -> None:
        """Put a card face down with a declared chip (the second player's 9th face up, true)."""
        code = action - PUT0
        square, colour, declared = code // 36 + 1, code % 36 // 6, code % 6
        player = self.mover()
        self.hands[player][colour] -= 1
        face_up = int(self.turn == TURNS_PER_ROUND - 1)
        self.cards.append([square, player, colour, declared, declared, face_up])
        self.last_card[player] = len(self.cards) - 1
        target = self.last_card[1 - player]
        if target >= 0 and not self.cards[target][5]:
            self.phase = CALLING
        else:
            self._end_turn()

    def _call_or_pass(self, action: int) -> None:
        """Call: turn the opponent's previous card up; a lie gives the caller its chip, the truth
        turns the caller's card up and gives the opponent its chip."""
        player = self.mover()
        self.call_chances[player] += 1
        if action == PASS:
            self._end_turn()
            return
        self.calls[player] += 1
        opponent = 1 - player
        target = self.cards[self.last_card[opponent]]
        target[5] = 1
        self.phase = CHIPPING
        if target[2] != target[4]:
            self.called_lie[opponent] += 1
            self.chip_card, self.chip_player = self.last_card[opponent], player
        else:
            self.called_true[opponent] += 1
            own = self.last_card[player]
            self.cards[own][5] = 1
            self.chip_card, self.chip_player = own, opponent

    def _end_turn(self) -> None:
        self.turn += 1
        self.phase = SHOW if self.turn == TURNS_PER_ROUND else PUT

    def _show(self, action: int) -> None:
        """Special turn: the first player's choice waits hidden until the second has chosen."""
        code = action - SHOW0
        colour, square = code % 6, code // 6 + 1
        if self.pending is None:
            self.pending = (colour, square)
            return
        for player, (c, s) in ((self.first, self.pending), (1 - self.first, (colour, square))):
            self.hands[player][c] -= 1
            self.cards.append([s, player, c, -1, c, 1])
        self.pending = None
        self._end_round()

    def square_counts(self, square: int) -> list[int]:
        """Cards on ``square`` by effective colour (the chip, or the face of a shown card)."""
        counts = [0] * 6
        for card in self.cards:
            if card[0] == square:
                counts[card[4]] += 1
        return counts

    def _end_round(self) -> None:
        """Move the square winners 1, 2, 3 in order; stop the moment a fox reaches 6."""
        self.moved = []
        for square in (1, 2, 3):
            colour = square_winner(self.square_counts(square))
            self.moved.append(colour)
            if colour >= 0:
                self.foxes[colour] = min(FINISH, self.foxes[colour] + square)
                if self.foxes[colour] == FINISH:
                    self.finished = True
                    break
        if self.finished:
            self.scores = [sum(k * f for k, f in zip(self.kept[p], self.foxes)) for p in (0, 1)]
            self.phase = OVER
        elif self.round >= self.game.max_rounds:
            self.phase = OVER
        else:
            self.round += 1
            self.first = 1 - self.first
            self._start_round()

    def returns(self) -> np.ndarray:
        if self.phase == OVER and self.finished and self.scores[0] != self.scores[1]:
            return two_player_returns(0 if self.scores[0] > self.scores[1] else 1)
        return two_player_returns(-1)

    # ----- one player's information ------------------------------------------------------------
    def callable_card(self, player: int) -> int:
        """Table index of the card ``player`` may call now (its call phase), else -1."""
        if self.phase == CALLING and self.mover() == player:
            return self.last_card[1 - player]
        return -1

    def information(self, player: int) -> OutfoxedInfo:
        """What ``player`` may know: its hand and kept cards, the public table with the faces of
        face-up cards and of its own face-down cards, and the public history facts."""
        table = tuple(
            TableCard(s, owner, chip, declared, face if (up or owner == player) else -1, bool(up))
            for s, owner, face, declared, chip, up in self.cards
        )
        mine = self.current_player() == player
        return OutfoxedInfo(
            player=player,
            phase=PHASE_NAMES[self.phase],
            to_move=mine,
            hand=tuple(self.hands[player]),
            kept=tuple(self.kept[player]),
            picks_made=self.picks,
            forbidden=tuple(MULTISETS[i] for i in self.forbidden),
            foxes=tuple(self.foxes),
            round=self.round,
            max_rounds=self.game.max_rounds,
            turn=self.turn,
            first=self.first,
            table=table,
            callable_card=self.callable_card(player),
            my_last_card=self.last_card[player],
            opponent_last_card=self.last_card[1 - player],
            chip_card=self.chip_card if self.chip_player == player else -1,
            opponent_hand_size=sum(self.hands[1 - player]),
            pending_show=self.pending if (self.pending is not None and player == self.first) else None,
            called_true=tuple(self.called_true),
            called_lie=tuple(self.called_lie),
            calls=tuple(self.calls),
            call_chances=tuple(self.call_chances),
        )

    def observation_tensor(self, player: int) -> np.ndarray:
        obs = [0.0] * OBS_SIZE  # filled as a Python list, converted once (much faster)
        hand, kept, foxes = self.hands[player], self.kept[player], self.foxes
        for c in range(6):
            obs[O_HAND + c] = hand[c] / 12.0
            obs[O_KEPT + c] = kept[c] / 3.0
            obs[O_FOX + c * 7 + foxes[c]] = 1.0
        for s, owner, face, _declared, chip, up in self.cards:
            group = (0 if up else 1) if owner == player else (2 if up else 3)
            obs[O_TABLE + ((s - 1) * 6 + chip) * 4 + group] += TABLE_SCALE
            if up:
                obs[O_UP_FACE + (s - 1) * 6 + face] += TABLE_SCALE
            elif owner == player:
                obs[O_OWN_FACE + (s - 1) * 6 + face] += TABLE_SCALE
        target = self.callable_card(player)
        if target >= 0:
            card = self.cards[target]
            obs[O_CALLABLE + card[0] - 1] = 1.0
            obs[O_CALLABLE + 3 + card[4]] = 1.0
        own = self.last_card[player]
        if own >= 0:
            card = self.cards[own]
            obs[O_MY_LAST + card[0] - 1] = 1.0
            obs[O_MY_LAST + 3 + card[2]] = 1.0
        phase = self.phase
        if self.current_player() != player:
            obs[O_PHASE + 5] = 1.0
        else:
            obs[O_PHASE + OBS_PHASE_SLOT[phase]] = 1.0
            if phase == CHIPPING:
                card = self.cards[self.chip_card]
                obs[O_CHIP + card[0] - 1] = 1.0
                obs[O_CHIP + (3 if card[1] == player else 4)] = 1.0
                obs[O_CHIP_FACE + card[2]] = 1.0
        obs[O_ROUND] = self.round / self.game.max_rounds
        obs[O_TURN] = self.turn / TURNS_PER_ROUND
        obs[O_FIRST] = float(self.first == player)
        obs[O_SEAT] = float(player)
        obs[O_PICKS] = self.picks / 6.0
        obs[O_SIZES] = sum(hand) / 12.0
        obs[O_SIZES + 1] = sum(self.hands[1 - player]) / 12.0
        for i in self.forbidden:
            obs[O_FORBIDDEN + i] = 1.0
        if self.pending is not None and player == self.first:
            colour, square = self.pending
            obs[O_PENDING + (square - 1) * 6 + colour] = 1.0
        base = O_STATS
        for seat in (player, 1 - player):
            for value in (self.called_true[seat], self.called_lie[seat], self.calls[seat], self.call_chances[seat]):
                obs[base] = value / (value + 10.0)
                base += 1
        return np.array(obs, dtype=np.float32)

    def state_tensor(self) -> np.ndarray:
        """Both players' observations, then every table card with its true face (which of them
        are lies): all the hidden facts, the same whoever asks (layout at ``S_OBS`` above)."""
        state = np.zeros(STATE_SIZE, dtype=np.float32)
        state[S_OBS:S_OBS + OBS_SIZE] = self.observation_tensor(0)
        state[S_OBS + OBS_SIZE:S_CARDS] = self.observation_tensor(1)
        slots = state[S_CARDS:].reshape(MAX_TABLE_CARDS, CARD_FEATURES)
        for slot, (square, owner, face, _declared, chip, up) in zip(slots, self.cards):
            slot[C_SQUARE + square - 1] = 1.0
            slot[C_OWNER] = owner
            slot[C_FACE + face] = 1.0
            slot[C_COLOUR + chip] = 1.0
            slot[C_UP] = up
        return state

    # ----- notation ----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.phase == DEAL and 0 <= action < 6:
            return f"deal {COLOURS[action]}"
        if self.phase == FIRST and action in (0, 1):
            return f"first player_{action}"
        if 0 <= action < NUM_ACTIONS:
            return ACTION_NAMES[action]
        raise ValueError(f"outfoxed_v0: no action {action}")

    def action_to_string_for(self, action: int, viewer: int | None) -> str:
        """What ``viewer`` sees: its own actions and deals in full; the opponent's scoring picks,
        the cards dealt to it, the face of a card it puts face down and its special-turn card
        as ``?`` (the declared colour, the square and calls/chips are public)."""
        text = self.action_to_string(action)
        phase = self.phase
        if viewer is None:
            return text
        if phase == DEAL:
            receiver = self.first if self.dealt < FIRST_HAND else 1 - self.first
            return text if receiver == viewer else "deal ?"
        if phase == FIRST or self.current_player() == viewer:
            return text
        if KEEP0 <= action < PUT0:
            return "keep ?"
        if PUT0 <= action < CALL and self.turn != TURNS_PER_ROUND - 1:  # the 9th card of the second player is face up
            square = (action - PUT0) // 36 + 1
            return f"put ? on {square} as {COLOURS[(action - PUT0) % 6]}"
        if action >= SHOW0:
            return "show ?"
        return text

    def string_to_action(self, text: str) -> int:
        if isinstance(text, str):
            wanted = " ".join(text.split())
            if self.phase == DEAL and wanted.startswith("deal ") and wanted[5:] in COLOUR_INDEX:
                action = COLOUR_INDEX[wanted[5:]]
                if action in self._cached_legal():
                    return action
            elif self.phase == FIRST and wanted in ("first player_0", "first player_1"):
                return int(wanted[-1])
            elif self.phase not in (DEAL, FIRST) and wanted in _NAME_TO_ACTION:
                return _NAME_TO_ACTION[wanted]
        return super().string_to_action(text)

    # ----- equality, copying -------------------------------------------------------------------
    def _full_key(self) -> Any:
        return (
            self.phase, self.picks, tuple(map(tuple, self.kept)), tuple(self.forbidden), tuple(self.foxes),
            self.round, self.first, tuple(self.deck), self.dealt, tuple(map(tuple, self.hands)),
            tuple(map(tuple, self.cards)), self.turn, tuple(self.last_card), self.chip_card,
            self.chip_player, self.pending, tuple(self.called_true), tuple(self.called_lie),
            tuple(self.calls), tuple(self.call_chances), tuple(self.moved), self.finished,
            tuple(self.scores),
        )

    def clone(self) -> "OutfoxedState":
        new = OutfoxedState.__new__(OutfoxedState)
        new.__dict__.update(self.__dict__)
        new._history = self._history[:]
        new.kept = [self.kept[0][:], self.kept[1][:]]
        new.forbidden = self.forbidden[:]
        new.foxes = self.foxes[:]
        new.deck = self.deck[:]
        new.hands = [self.hands[0][:], self.hands[1][:]]
        new.cards = [card[:] for card in self.cards]
        new.last_card = self.last_card[:]
        new.called_true = self.called_true[:]
        new.called_lie = self.called_lie[:]
        new.calls = self.calls[:]
        new.call_chances = self.call_chances[:]
        new.moved = self.moved[:]
        new.scores = self.scores[:]
        return new

    # ----- determinisation (search agents) -----------------------------------------------------
    def sample_determinisation(self, player: int, rng: np.random.Generator,
                               kept_log_prior: Sequence[float] | None = None,
                               truth: Sequence[float] | None = None) -> "OutfoxedState":
        """A genuine state ``player`` cannot tell from this one (same information, observation and
        public history), with what it cannot know drawn with ``rng``: the opponent's scoring
        picks, the cards dealt to it every round (so the deck), the faces of its face-down cards
        and its pending special-turn card. The hidden parts of the history are rewritten and the
        history is replayed from the start, so the result is legal. See ``_determinised_history``.

        An opponent model may bias the draw (both default to none): ``kept_log_prior``, 56 log
        weights in ``MULTISETS`` order, is added to the log weight of every multiset the opponent
        may keep (``-inf`` rules one out); ``truth[k]`` is the chance that an unseen face-down card
        of the opponent is drawn with its declared colour (when the round's deck can still hold
        one), ``k`` being how many cards of that colour the drawn multiset holds (4 values)."""
        if player not in (0, 1):
            raise ValueError(f"outfoxed_v0: player must be 0 or 1, got {player!r}")
        if kept_log_prior is not None and len(kept_log_prior) != len(MULTISETS):
            raise ValueError(f"outfoxed_v0: kept_log_prior needs {len(MULTISETS)} values, got {len(kept_log_prior)}")
        if truth is not None and (len(truth) != 4 or not all(0.0 <= t <= 1.0 for t in truth)):
            raise ValueError(f"outfoxed_v0: truth needs 4 probabilities in [0, 1], got {truth!r}")
        state = OutfoxedState(self.game)
        for action in _determinised_history(self, player, rng, kept_log_prior, truth):
            state.apply_action(action)
        return state

    # ----- pictures ----------------------------------------------------------------------------
    def render_text(self, viewer: int | None = None) -> str:
        from fox_envs.games.outfoxed.render import text_board

        return text_board(self, viewer)

    def __str__(self) -> str:
        return self.render_text(None)

    def describe_effects(self, before: "OutfoxedState", viewer: int | None) -> list[str]:
        """A call's result, chips, the special turn, the round's movement (``outfoxed_events``)."""
        from fox_envs.games.outfoxed.events import effects

        return effects(before, self, viewer)

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:
        from fox_envs.games.outfoxed.render import rgb_picture

        return rgb_picture(self, viewer, status)


_NAME_TO_ACTION = {name: i for i, name in enumerate(ACTION_NAMES)}


# ----- determinisation ---------------------------------------------------------------------------
def _log_deal_table() -> list[list[list[float]]]:
    """``LOG_DEAL[d][o][k]``: log of C(d, o) * d'!/(d'-k)! with d' = d - o: up to a factor that
    does not depend on d, the chance that a round's shuffle of a deck holding ``d`` cards of a
    colour deals the viewer ``o`` of them and the opponent the ``k`` it later showed (-inf when
    the deck cannot hold them)."""
    table = []
    for d in range(CARDS_PER_COLOUR + 1):
        rows = []
        for o in range(FIRST_HAND + 1):
            row = []
            for k in range(FIRST_HAND + 1):
                if o + k > d:
                    row.append(-math.inf)
                else:
                    row.append(math.log(math.comb(d, o)) + math.log(math.perm(d - o, k)))
            rows.append(row)
        table.append(rows)
    return table


LOG_DEAL = _log_deal_table()
MULTISET_CARDS = tuple(tuple(c for c in range(NUM_COLOURS) for _ in range(m[c])) for m in MULTISETS)


@dataclass
class _RoundFacts:
    """One round of the history as the viewer saw it."""

    own: list[int]  # cards dealt to the viewer, by colour
    known: list[int]  # the opponent's cards the viewer has seen (turned up or shown), by colour
    opp_deals: list[int]  # history indices of the deal events that gave the opponent a card
    known_cards: list[int]  # the colours counted in ``known``
    hidden: list[int]  # history indices of the opponent's puts / pending show with unseen faces


def _round_facts(history: list[int], start: int, first: int, viewer: int) -> tuple[_RoundFacts, int]:
    """Parse one round starting at ``history[start]`` (its first deal). Returns the facts and the
    index after the round. Only public facts and the viewer's own are read: a put's face is
    read only when the viewer saw it (the second player's 9th card, a called card, or the
    caller's own card turned up because the called card was true)."""
    n = len(history)
    opp = 1 - viewer
    own, known = [0] * 6, [0] * 6
    opp_deals: list[int] = []
    end = min(start + FIRST_HAND + SECOND_HAND, n)
    for j in range(start, end):
        if (first if j - start < FIRST_HAND else 1 - first) == viewer:
            own[history[j]] += 1
        else:
            opp_deals.append(j)
    pos = end
    puts: list[int] = []  # history indices of the puts, in turn order
    revealed: list[bool] = []
    shows: list[int] = []
    while pos < n:
        action = history[pos]
        pos += 1
        if action >= SHOW0:
            shows.append(pos - 1)
            if len(shows) == 2:
                break
        elif action < CALL:  # a put; the second player's 9th is face up
            puts.append(pos - 1)
            revealed.append(len(puts) == TURNS_PER_ROUND)
        elif action == CALL:  # turns up the previous card, and the caller's own if that was true
            revealed[-2] = True
            code = history[puts[-2]] - PUT0
            if code % 36 // 6 == code % 6:
                revealed[-1] = True
    known_cards: list[int] = []
    hidden: list[int] = []
    for turn, (j, up) in enumerate(zip(puts, revealed)):
        if (first if turn % 2 == 0 else 1 - first) == opp:
            if up:
                known_cards.append((history[j] - PUT0) % 36 // 6)
            else:
                hidden.append(j)
    if len(shows) == 2:
        known_cards.append((history[shows[0] if first == opp else shows[1]] - SHOW0) % 6)
    elif len(shows) == 1 and first == opp:
        hidden.append(shows[0])  # the opponent's special-turn card, chosen but not yet shown
    for colour in known_cards:
        known[colour] += 1
    return _RoundFacts(own, known, opp_deals, known_cards, hidden), pos


def _sample_kept(candidates: list[int], own_kept: list[int], rounds: list[_RoundFacts],
                 rng: np.random.Generator, log_prior: Sequence[float] | None = None) -> tuple[int, ...]:
    """One of ``candidates`` (MULTISETS indices) drawn with probability proportional to the
    chance of the viewer's dealt hands and of the opponent's seen cards given that the opponent
    keeps it, times the prior (uniform unless ``log_prior`` is given)."""
    logs = [0.0] * len(candidates) if log_prior is None else [float(log_prior[i]) for i in candidates]
    if rounds:
        factor = []  # factor[c][x]: log-likelihood of colour c's deals if the opponent keeps x
        for c in range(NUM_COLOURS):
            row = []
            for x in range(4):
                table = LOG_DEAL[CARDS_PER_COLOUR - own_kept[c] - x]
                row.append(sum(table[r.own[c]][r.known[c]] for r in rounds))
            factor.append(row)
        for i, index in enumerate(candidates):
            m = MULTISETS[index]
            logs[i] += (factor[0][m[0]] + factor[1][m[1]] + factor[2][m[2]]
                       + factor[3][m[3]] + factor[4][m[4]] + factor[5][m[5]])
    top = max(logs)
    if top == -math.inf:  # the prior rules out every candidate: fall back to the deals alone
        return _sample_kept(candidates, own_kept, rounds, rng)
    weights = [math.exp(value - top) for value in logs]
    target = rng.random() * sum(weights)
    chosen = candidates[0]
    for index, weight in zip(candidates, weights):
        if weight > 0.0:  # (the last possible one if rounding leaves target >= 0)
            chosen = index
            target -= weight
            if target < 0.0:
                break
    return MULTISETS[chosen]


def _unseen_faces(pool: list[int], count: int, declared: list[int], kept: tuple[int, ...],
                  truth: Sequence[float] | None, rng: np.random.Generator) -> list[int]:
    """``count`` cards drawn without replacement from ``pool``; the first ``len(declared)`` are
    the faces of face-down cards declared as ``declared``: each is its declared colour with
    chance ``truth[kept[colour]]`` when the pool still holds one, else a uniform draw."""
    if truth is None:
        return [pool[i] for i in rng.permutation(len(pool))[:count]]
    pool = pool[:]
    drawn = []
    for j in range(count):
        colour = declared[j] if j < len(declared) else -1
        if colour >= 0 and colour in pool and rng.random() < truth[kept[colour]]:
            pool.remove(colour)
        else:
            colour = pool.pop(int(rng.integers(len(pool))))
        drawn.append(colour)
    return drawn


def _determinised_history(state: OutfoxedState, viewer: int, rng: np.random.Generator,
                          kept_log_prior: Sequence[float] | None = None,
                          truth: Sequence[float] | None = None) -> list[int]:
    """``state``'s history with every fact hidden from ``viewer`` redrawn with ``rng``.

    Kept: every public action, the viewer's own picks and deal outcomes, and the faces of the
    cards the viewer saw. Redrawn: the opponent's picks (earlier pick phases ended in the now
    forbidden multiset, so only their order is redrawn; the last multiset is drawn from the
    ones the viewer cannot rule out, weighted by how likely they make the deals it saw), then
    per round the opponent's unseen cards without replacement from what the deck can still
    hold, its deal order, the faces of its face-down cards and its pending special-turn card
    (colour and square). Only public facts, the viewer's own, ``rng`` and the optional opponent
    model (``kept_log_prior``, ``truth``: see ``sample_determinisation``) decide the draw."""
    history = state._history
    new = history[:]
    opp = 1 - viewer
    forbidden = state.forbidden
    in_keep = state.phase == KEEP
    for phase, index in enumerate(forbidden):  # earlier pick phases: the revealed multiset
        cards = MULTISET_CARDS[index]
        order = rng.permutation(3)
        base = 6 * phase + 3 * opp
        for j in range(3):
            new[base + j] = cards[order[j]]
    own_kept = state.kept[viewer]
    rounds: list[_RoundFacts] = []
    if in_keep:
        opp_picks = min(state.picks, 3) if opp == 0 else max(0, state.picks - 3)
        if not opp_picks:
            return new
        banned = set(forbidden)
        candidates = [i for i in range(len(MULTISETS)) if i not in banned]
    else:
        opp_picks = 3
        start = 6 * (len(forbidden) + 1)
        if start < len(history):
            first, pos = history[start], start + 1
            while pos < len(history):
                facts, pos = _round_facts(history, pos, first, viewer)
                rounds.append(facts)
                first = 1 - first
        # Identical last picks would have been forbidden, unless only one multiset was left.
        banned = set(forbidden)
        if len(forbidden) < len(MULTISETS) - 1:
            banned.add(MULTISET_INDEX[tuple(own_kept)])
        candidates = [i for i in range(len(MULTISETS)) if i not in banned]
    kept = _sample_kept(candidates, own_kept, rounds, rng, kept_log_prior)
    cards = MULTISET_CARDS[MULTISET_INDEX[kept]]
    order = rng.permutation(3)
    base = 6 * len(forbidden) + 3 * opp
    for j in range(opp_picks):
        new[base + j] = cards[order[j]]
    for facts in rounds:
        pool = [c for c in range(NUM_COLOURS)
                for _ in range(CARDS_PER_COLOUR - own_kept[c] - kept[c] - facts.own[c] - facts.known[c])]
        unseen_count = len(facts.opp_deals) - len(facts.known_cards)
        declared = [(history[j] - PUT0) % 6 if history[j] < SHOW0 else -1 for j in facts.hidden]
        unseen = _unseen_faces(pool, unseen_count, declared, kept, truth, rng)
        for j, colour in zip(facts.hidden, unseen):
            action = history[j]
            if action >= SHOW0:  # the pending special-turn card: colour and square unseen
                new[j] = show_action(colour, int(rng.integers(1, 4)))
            else:  # a face-down put: same square and chip, unseen face
                code = action - PUT0
                new[j] = put_action(colour, code // 36 + 1, code % 6)
        dealt = facts.known_cards + unseen
        for j, i in zip(facts.opp_deals, rng.permutation(len(dealt))):
            new[j] = dealt[i]
    return new


# The O_PHASE slot of each phase (keep 0, put 1, call 2, chip 3, show 4; 5: no decision of
# the viewer's), as ``observation_tensor`` writes it: the batched kernels' table.
OBS_PHASE_SLOT = (0, 5, 5, 1, 2, 3, 4, 5)
