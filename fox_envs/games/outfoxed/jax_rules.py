"""Outfoxed in JAX (``fox_envs.jax``): the rules of ``rules.py`` as pure array functions.

The position keeps counts instead of the core's list of table cards: ``table[owner, square,
chip, up]`` (what the round end and the observation read), the true faces of the face-up cards
by square and of each player's face-down cards by square, and each player's latest card (square,
face, chip, face up: the only cards a call or a chip choice touches). The forbidden scoring
multisets are two 32-bit words (``MULTISETS`` order). The state holds the position as two
arrays (``Packed``: the int32 fields and the int8 ones), which the rules read as a ``Position``:
a step then writes, selects and materializes two arrays instead of 23, each a kernel of its own
on a CPU.

Chance: the first player (1/2 each), then the round's 22 deals. A deal draws a colour with
probability proportional to what is left: the same as taking the ``t``-th card still in the deck
(in colour order) for ``t`` uniform below the cards left. So the 22 deals are 22 independent
tickets (ticket ``i`` uniform below 54 - i: every round deals from the 54 cards nobody kept),
each from two random words as ``jax.random.randint`` draws it (uniform up to 2**-64), and the
cards they take are found all at once by decoding the tickets as an inversion table (see
``_cards_taken``): the same draws the generic loop makes, without a ``while_loop`` and without
a chain from deal to deal. A card's colour is how many colours' cumulative counts it reaches.
The outcomes go into the history in the core's order (first player, then the first player's
12 cards, then the second's 10), as one block written at the history's end (an in-place
update).

Every position ``resolve_chance`` returns is materialized (its two arrays): the observation and
the mask read it per element, and XLA would otherwise redo the whole ``apply`` for each of their
elements.

Exact floats: the observation's fractions (hand / 12, turn / 18, ...) are looked up in float32
tables of the core's float64 quotients, since XLA turns a division by a constant into a product
by its reciprocal, one ulp off.

Layouts (``s`` square 0..2, ``o`` owner seat; ``chip`` and ``face`` colours 0..5 in ``COLOURS``
order)::

    table[((o * 3 + s) * 6 + chip) * 2 + up]   cards by owner, square, effective colour, face up
    up_face[s * 6 + face]                       face-up cards (both owners) by true face
    down_face[(o * 3 + s) * 6 + face]           face-down cards by true face
    stats[seat]                                 called true, called lies, calls made, call chances
"""
from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.game import CHANCE, TERMINAL
from fox_envs.games.outfoxed.rules import (
    CALL, CALLING, CARDS_PER_COLOUR, CHIP0, CHIPPING, COMPLETIONS, DEAL, FINISH, FIRST, FIRST_HAND, KEEP,
    MULTISET_INDEX, MULTISETS, NUM_ACTIONS, OBS_PHASE_SLOT, OBS_SIZE, OVER, PUT, PUT0, SECOND_HAND, SHOW, SHOW0,
    TABLE_SCALE, TURNS_PER_ROUND, OutfoxedGame,
)
from fox_envs.jax import keys
from fox_envs.jax.fusion import materialize
from fox_envs.jax.rules import JaxRules
from fox_envs.jax.sparse import only_where

DEAL_TOTAL = FIRST_HAND + SECOND_HAND  # 22 chance events a round
NUM_MULTISETS = len(MULTISETS)
BLOCK = 1 + DEAL_TOTAL  # the most chance outcomes one resolve appends
MIN_ROUND_DECISIONS = TURNS_PER_ROUND + 2  # 18 puts and 2 shows at least
KEEP_DECISIONS = 6  # one pick phase at least

POW3 = np.array([3 ** c for c in range(6)], np.int32)
POW4 = np.array([4 ** c for c in range(6)], np.int32)


def _completion_words() -> np.ndarray:
    """``[3**6, 6, 2]`` uint32: for partial picks (base-3 code of the counts, each at most 2) and a
    colour, the multisets that contain both, as bits (low word: multisets 0..31)."""
    words = np.zeros((3 ** 6, 6, 2), np.uint32)
    for partial, per_colour in COMPLETIONS.items():
        code = int(np.dot(partial, POW3))
        for colour, indices in enumerate(per_colour):
            for index in indices:
                words[code, colour, index // 32] |= np.uint32(1 << (index % 32))
    return words


def _multiset_of_code() -> np.ndarray:
    """``[4**6]`` int32: the ``MULTISETS`` index of three picks (base-4 code of the counts)."""
    table = np.zeros(4 ** 6, np.int32)
    for counts, index in MULTISET_INDEX.items():
        table[int(np.dot(counts, POW4))] = index
    return table


COMPLETION_WORDS = _completion_words()
MULTISET_OF_CODE = _multiset_of_code()
PHASE_SLOT = np.array(OBS_PHASE_SLOT, np.int32)


def _fractions(count: int, denominator: int) -> np.ndarray:
    """float32 ``[count + 1]``: ``k / denominator`` for ``k = 0 .. count``, the float64 quotient
    rounded once, as the core writes it. A lookup, because XLA turns a division by a constant
    into a product by its reciprocal, one ulp off (5/6 gives 0.83333337, the core 0.8333333)."""
    return np.array([k / denominator for k in range(count + 1)], np.float32)


TWELFTHS = _fractions(12, 12)  # hand sizes and counts by colour (at most the first player's 12)
THIRDS = _fractions(3, 3)  # kept cards by colour
SIXTHS = _fractions(6, 6)  # scoring picks made
EIGHTEENTHS = _fractions(TURNS_PER_ROUND, TURNS_PER_ROUND)  # turns completed
# table cards of one square and group, the core's running sums of TABLE_SCALE (20 cards at most)
TWENTIETHS = np.cumsum([0.0] + [TABLE_SCALE] * (TURNS_PER_ROUND + 2)).astype(np.float32)
FORBIDDEN_WORD = np.arange(NUM_MULTISETS) // 32  # the forbidden word that holds multiset m
FORBIDDEN_SHIFT = (np.arange(NUM_MULTISETS) % 32).astype(np.uint32)  # and its bit
# table[owner, square, chip, up] flattened: the index of a card
TABLE_SIZE = 2 * 3 * 6 * 2


class Position(NamedTuple):
    phase: jax.Array  # int32: the core's phase (KEEP .. OVER)
    picks: jax.Array  # int32: scoring picks made in this pick phase (0..6)
    kept: jax.Array  # int8 [2, 6]: kept scoring cards per seat and colour
    forbidden: jax.Array  # uint32 [2]: forbidden multisets as bits (MULTISETS order)
    foxes: jax.Array  # int8 [6]: track positions
    round: jax.Array  # int32: 0 while picking, then 1..max_rounds
    first: jax.Array  # int32: this round's first player, -1 before the draw
    deck: jax.Array  # int8 [6]: cards left to deal by colour
    dealt: jax.Array  # int32: cards dealt this round (0..22)
    hands: jax.Array  # int8 [2, 6]
    turn: jax.Array  # int32: turns completed this round (0..18)
    table: jax.Array  # int8 [72]: cards by (owner, square, chip, face up)
    up_face: jax.Array  # int8 [18]: face-up cards by (square, true face)
    down_face: jax.Array  # int8 [36]: face-down cards by (owner, square, true face)
    last_square: jax.Array  # int8 [2]: each seat's latest card this round: square 1..3, 0 none
    last_face: jax.Array  # int8 [2]: its true face
    last_chip: jax.Array  # int8 [2]: its chip (effective colour)
    last_up: jax.Array  # bool [2]: whether it is face up
    chip_player: jax.Array  # int32: who chooses a chip now, -1 none
    chip_owner: jax.Array  # int32: whose latest card gets that chip, -1 none
    pending: jax.Array  # int32: the first player's special-turn card, square0 * 6 + colour, -1 none
    stats: jax.Array  # int32 [2, 4]: per seat called true, called lies, calls made, call chances
    finished: jax.Array  # bool: a fox reached 6


DECK_SIZE = 6 * CARDS_PER_COLOUR - 6  # a round deals from the 54 cards nobody kept
# deal i's ticket: uniform below the cards left, 54 - i
TICKET_SPANS = np.array([DECK_SIZE - i for i in range(DEAL_TOTAL)], np.uint32)
# 2**32 mod span, as jax.random.randint computes it: (2**16 mod span)**2 mod span
TICKET_MULTIPLIERS = np.array([(1 << 32) % int(span) for span in TICKET_SPANS], np.uint32)
EARLIER = np.tril(np.ones((DEAL_TOTAL, DEAL_TOTAL), bool), -1)  # [i, j]: j < i


def _tickets(words: jax.Array) -> jax.Array:
    """The 22 deal tickets, ticket ``i`` uniform below ``54 - i``, each from two random words as
    ``jax.random.randint`` draws it: ``(high mod span) * (2**32 mod span) + low mod span``, mod
    span (uniform up to ``span / 2**64``). Independent tickets: one elementwise kernel."""
    spans = jnp.asarray(TICKET_SPANS)
    high, low = words[:DEAL_TOTAL], words[DEAL_TOTAL: 2 * DEAL_TOTAL]
    return (((high % spans) * jnp.asarray(TICKET_MULTIPLIERS) + low % spans) % spans).astype(jnp.int32)


def _cards_taken(tickets: jax.Array) -> jax.Array:
    """The card (0..53, in colour order) each deal takes when deal ``i`` takes the ``tickets[i]``-th
    card still in the deck: the inversion table decoded per deal, from the latest earlier deal
    back to the first, each earlier ticket at or below the running index pushing it one card on.
    Each deal's chain reads only its own index (no fan-in): XLA fuses the 21 steps of all 22
    deals into one kernel."""
    index = tickets
    for j in range(DEAL_TOTAL - 2, -1, -1):
        index = index + (jnp.asarray(EARLIER[:, j]) & (index >= tickets[j])).astype(jnp.int32)
    return index


def _deal(key: jax.Array, deck: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The first-player draw (a random bit) and the 22 deals' colours from ``deck`` (int32
    counts by colour): deal ``i`` takes the ``tickets[i]``-th card still in the deck, in colour
    order; a card's colour is how many colours' cumulative counts it reaches."""
    words = keys.bits(key, (2 * DEAL_TOTAL + 1,))
    tickets = materialize(_tickets(words))  # once per row: the chain below reads each ticket 21 times
    cards = materialize(_cards_taken(tickets))  # once per row: each read 5 times below
    starts = jnp.stack([jnp.sum(deck[: k + 1]) for k in range(5)])
    deals = jnp.sum((cards[:, None] >= starts[None, :]).astype(jnp.int32), axis=1)
    return (words[-1] & 1).astype(jnp.int32), deals


# ----- the position as two arrays -----------------------------------------------------------------
# The state keeps the position as one int32 and one int8 array (``Packed``): a step then writes,
# selects and materializes two arrays, not 23 (on a CPU each is a kernel of its own).
_WIDE = ("phase", "picks", "round", "first", "dealt", "turn", "chip_player", "chip_owner", "pending", "stats",
         "forbidden")  # int32 (forbidden: uint32 bits)
_NARROW = ("kept", "foxes", "deck", "hands", "table", "up_face", "down_face", "last_square", "last_face", "last_chip",
           "last_up", "finished")  # int8 (last_up, finished: bool)
_SHAPES = {"kept": (2, 6), "forbidden": (2,), "foxes": (6,), "deck": (6,), "hands": (2, 6), "table": (TABLE_SIZE,),
           "up_face": (18,), "down_face": (36,), "last_square": (2,), "last_face": (2,), "last_chip": (2,),
           "last_up": (2,), "stats": (2, 4)}


def _offsets(names: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Each field's start and end in the array of ``names``, in that order."""
    offsets, start = {}, 0
    for name in names:
        size = int(np.prod(_SHAPES.get(name, ())))
        offsets[name] = (start, start + size)
        start += size
    return offsets


_WIDE_AT, _NARROW_AT = _offsets(_WIDE), _offsets(_NARROW)


def _count_places() -> np.ndarray:
    """int32 ``[seat, 108]``: where each count of the observation's table part sits in the narrow
    array: per square and chip the seat's cards face up, face down, then the opponent's; the
    seat's face-down cards by true face; the face-up ones."""
    table = np.arange(*_NARROW_AT["table"]).reshape(2, 3, 6, 2)
    down_face = np.arange(*_NARROW_AT["down_face"]).reshape(2, 18)
    up_face = np.arange(*_NARROW_AT["up_face"])
    return np.stack([np.concatenate([np.concatenate([table[s, ..., ::-1], table[1 - s, ..., ::-1]], axis=-1).ravel(),
                                     down_face[s], up_face]) for s in (0, 1)]).astype(np.int32)


COUNT_PLACES = _count_places()


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Packed:
    """A ``Position`` as two arrays (numpy for ``initial()``, else jax; any leading batch axes).
    Its fields read as the ``Position``'s (``packed.hands``)."""

    wide: Any  # int32 [..., 19]
    narrow: Any  # int8 [..., 171]

    def __getattr__(self, name: str) -> Any:
        if name in _WIDE_AT or name in _NARROW_AT:
            return _field(self, name)
        raise AttributeError(name)


def _field(packed: Packed, name: str) -> Any:
    """One ``Position`` field of ``packed``, in its own dtype and shape."""
    wide = name in _WIDE_AT
    array = packed.wide if wide else packed.narrow
    start, stop = (_WIDE_AT if wide else _NARROW_AT)[name]
    xp = np if isinstance(array, np.ndarray) else jnp
    value = array[..., start:stop].reshape(array.shape[:-1] + _SHAPES.get(name, ()))
    if name == "forbidden":
        return value.view(np.uint32) if xp is np else jax.lax.bitcast_convert_type(value, jnp.uint32)
    if name in ("last_up", "finished"):
        return value != 0
    return value


def _unpacked(position: Any) -> "Position":
    """The ``Position`` of ``position`` (packed or not)."""
    if isinstance(position, Position):
        return position
    return Position(**{name: _field(position, name) for name in Position._fields})


def _packed(position: "Position") -> Packed:
    """``position`` as two arrays (numpy if its fields are numpy)."""
    xp = np if isinstance(position.phase, np.ndarray) else jnp

    def part(name: str, dtype: Any) -> Any:
        value = getattr(position, name)
        if name == "forbidden":
            value = value.view(np.int32) if xp is np else jax.lax.bitcast_convert_type(value, jnp.int32)
        return xp.asarray(value).astype(dtype).reshape(-1)

    return Packed(xp.concatenate([part(name, np.int32) for name in _WIDE]),
                  xp.concatenate([part(name, np.int8) for name in _NARROW]))


def _hot(size: int, index: jax.Array) -> jax.Array:
    """A one-hot int32 vector (all zero for an index outside ``0..size-1``)."""
    return (jnp.arange(size) == index).astype(jnp.int32)


def _seat_row(array: jax.Array, seat: jax.Array) -> jax.Array:
    """``array[seat]`` for a leading axis of 2, as a select (cheaper than a gather under vmap)."""
    return jnp.where(seat == 0, array[0], array[1])


def _seat_hot(seat: jax.Array) -> jax.Array:
    """bool ``[2]``: True at ``seat``."""
    return jnp.arange(2) == seat


def _card(owner: jax.Array, square0: jax.Array, chip: jax.Array, up: jax.Array) -> jax.Array:
    """The ``table`` index of a card."""
    return ((owner * 3 + square0) * 6 + chip) * 2 + up.astype(jnp.int32)


class OutfoxedJax(JaxRules):
    """Outfoxed's rules on a ``Position`` (see the module docstring); ``max_rounds`` from the
    game's params."""

    num_players = 2
    num_actions = NUM_ACTIONS
    observation_shape = (OBS_SIZE,)
    max_chance_outcomes = 6

    def __init__(self, game: OutfoxedGame, max_moves: int) -> None:
        super().__init__(game, max_moves)
        self.max_rounds = int(game.params["max_rounds"])
        self.round_fractions = _fractions(self.max_rounds, self.max_rounds)  # round / max_rounds

    def history_capacity(self) -> int:
        """``max_moves`` decisions, the first-player draw and 22 deals for every round that can
        start within them (a round takes 20 decisions at least, the picks 6), plus room for one
        block of chance outcomes written past the end."""
        if self.max_moves < KEEP_DECISIONS:
            rounds = 0
        else:
            rounds = min(self.max_rounds, (self.max_moves - KEEP_DECISIONS) // MIN_ROUND_DECISIONS + 1)
        return self.max_moves + (1 + DEAL_TOTAL * rounds if rounds else 0) + BLOCK

    def initial(self) -> Packed:
        """The scoring picks to make, as numpy arrays: values known while tracing, so that
        ``resolve_chance`` draws nothing for ``Env.init`` (no chance before the picks)."""
        i8, i32 = np.int8, np.int32
        return _packed(Position(
            phase=np.asarray(KEEP, i32), picks=np.asarray(0, i32), kept=np.zeros((2, 6), i8),
            forbidden=np.zeros(2, np.uint32), foxes=np.zeros(6, i8), round=np.asarray(0, i32),
            first=np.asarray(-1, i32), deck=np.zeros(6, i8), dealt=np.asarray(0, i32), hands=np.zeros((2, 6), i8),
            turn=np.asarray(0, i32), table=np.zeros(TABLE_SIZE, i8), up_face=np.zeros(18, i8),
            down_face=np.zeros(36, i8), last_square=np.zeros(2, i8), last_face=np.zeros(2, i8),
            last_chip=np.zeros(2, i8), last_up=np.zeros(2, bool), chip_player=np.asarray(-1, i32),
            chip_owner=np.asarray(-1, i32), pending=np.asarray(-1, i32), stats=np.zeros((2, 4), i32),
            finished=np.asarray(False)))

    # ----- whose decision ---------------------------------------------------------------------
    @staticmethod
    def _mover(position: Position) -> jax.Array:
        """The seat whose put-and-declare turn it is."""
        return jnp.where(position.turn % 2 == 0, position.first, 1 - position.first)

    def player(self, position: Packed | Position) -> jax.Array:
        position = _unpacked(position)
        mover = self._mover(position)
        first = position.first
        return jax.lax.select_n(
            jnp.clip(position.phase, 0, 7),
            jnp.where(position.picks < 3, 0, 1).astype(jnp.int32),  # KEEP
            jnp.int32(CHANCE), jnp.int32(CHANCE),  # FIRST, DEAL
            mover, mover,  # PUT, CALLING
            position.chip_player,  # CHIPPING
            jnp.where(position.pending < 0, first, 1 - first).astype(jnp.int32),  # SHOW
            jnp.int32(TERMINAL)).astype(jnp.int32)

    # ----- legal actions ----------------------------------------------------------------------
    def legal_mask(self, position: Packed | Position) -> jax.Array:
        """Keep: a colour some allowed multiset completes; put: any held colour on any square as
        any colour (the second player's 9th as its own colour); call or pass; any chip; show:
        any held colour on any square."""
        position = _unpacked(position)
        phase = position.phase
        seat = jnp.clip(self.player(position), 0, 1)
        held = materialize(_seat_row(position.hands, seat) > 0)  # [6], once per row (read by 126 entries)
        code = jnp.sum(jnp.minimum(_seat_row(position.kept, seat), 2).astype(jnp.int32) * POW3)
        words = jnp.asarray(COMPLETION_WORDS)[code]  # [6, 2]
        keep = jnp.any((words & ~position.forbidden) != 0, axis=1) & (phase == KEEP)
        truthful = position.turn == TURNS_PER_ROUND - 1
        put = held[:, None] & (~truthful | jnp.eye(6, dtype=bool))  # [colour, declared]
        put = jnp.broadcast_to(put & (phase == PUT), (3, 6, 6)).reshape(-1)
        show = jnp.broadcast_to(held & (phase == SHOW), (3, 6)).reshape(-1)
        return jnp.concatenate([keep, put, jnp.broadcast_to(phase == CALLING, (2,)),
                                jnp.broadcast_to(phase == CHIPPING, (6,)), show])

    def chance_weights(self, position: Packed | Position) -> jax.Array:
        """First player 1:1; a deal: the cards of each colour left in the deck."""
        position = _unpacked(position)
        return jnp.where(position.phase == FIRST, jnp.asarray([1, 1, 0, 0, 0, 0], jnp.int32),
                         position.deck.astype(jnp.int32))

    def returns(self, position: Packed | Position) -> jax.Array:
        """The higher score (kept cards times their foxes' positions) wins once a fox finished;
        equal scores, or the last round without a finish, are a draw."""
        position = _unpacked(position)
        foxes = position.foxes.astype(jnp.int32)
        scores = jnp.sum(position.kept.astype(jnp.int32) * foxes, axis=1)
        decided = (position.phase == OVER) & position.finished & (scores[0] != scores[1])
        winner = jnp.where(scores[0] > scores[1], 0, 1)
        return jnp.where(decided, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0).astype(jnp.float32)

    # ----- applying actions -------------------------------------------------------------------
    def apply(self, position: Packed | Position, action: jax.Array) -> Packed:
        """The core's ``_apply_action``: every phase's update computed, the one of the position's
        phase kept (selects, no branches)."""
        p = _unpacked(position)
        a = action.astype(jnp.int32)
        phase = p.phase
        is_keep, is_first, is_deal = phase == KEEP, phase == FIRST, phase == DEAL
        is_put, is_call, is_chip, is_show = phase == PUT, phase == CALLING, phase == CHIPPING, phase == SHOW
        mover = self._mover(p)
        other = 1 - mover
        kept = p.kept.astype(jnp.int32)
        hands = p.hands.astype(jnp.int32)
        deck = p.deck.astype(jnp.int32)
        table = p.table.astype(jnp.int32)
        up_face = p.up_face.astype(jnp.int32)
        down_face = p.down_face.astype(jnp.int32)
        colour_hot = _hot(6, a)  # keep c / deal c

        # keep: a scoring pick; after the sixth, identical multisets are forbidden and re-picked
        picker = jnp.where(p.picks < 3, 0, 1)
        kept = kept + (is_keep & _seat_hot(picker))[:, None] * colour_hot[None, :]
        picks = p.picks + is_keep
        sixth = is_keep & (picks == 6)
        n_forbidden = jnp.sum(jax.lax.population_count(p.forbidden)).astype(jnp.int32)
        repick = sixth & jnp.all(kept[0] == kept[1]) & (n_forbidden < NUM_MULTISETS - 1)
        index = jnp.asarray(MULTISET_OF_CODE)[jnp.sum(jnp.minimum(kept[0], 3) * POW4)]
        bit = jnp.left_shift(jnp.uint32(1), (index % 32).astype(jnp.uint32))
        word_bit = jnp.where(jnp.arange(2) == index // 32, bit, jnp.uint32(0))
        forbidden = p.forbidden | jnp.where(repick, word_bit, jnp.uint32(0))
        kept = jnp.where(repick, 0, kept)
        picks = jnp.where(repick, 0, picks)

        # deal: the receiver gets the colour
        receiver = jnp.where(p.dealt < FIRST_HAND, p.first, 1 - p.first)
        hands = hands + (is_deal & _seat_hot(receiver))[:, None] * colour_hot[None, :]
        deck = deck - is_deal * colour_hot
        dealt = p.dealt + is_deal

        # put c on s as d: face down (the second player's 9th face up), chip d
        code = a - PUT0
        square0, colour, declared = code // 36, code % 36 // 6, code % 6
        face_up = p.turn == TURNS_PER_ROUND - 1
        hands = hands - (is_put & _seat_hot(mover))[:, None] * _hot(6, colour)[None, :]
        table = table + is_put * _hot(TABLE_SIZE, _card(mover, square0, declared, face_up))
        up_face = up_face + (is_put & face_up) * _hot(18, square0 * 6 + colour)
        down_face = down_face + (is_put & ~face_up) * _hot(36, (mover * 3 + square0) * 6 + colour)
        putter = is_put & _seat_hot(mover)
        last_square = jnp.where(putter, square0 + 1, p.last_square.astype(jnp.int32))
        last_face = jnp.where(putter, colour, p.last_face.astype(jnp.int32))
        last_chip = jnp.where(putter, declared, p.last_chip.astype(jnp.int32))
        last_up = jnp.where(putter, face_up, p.last_up)
        callable_next = (_seat_row(p.last_square, other) > 0) & ~_seat_row(p.last_up, other)

        # call: turn the opponent's latest card up; a lie gives the caller its chip, the truth
        # turns the caller's card up too and gives the opponent the chip of that one
        calls = is_call & (a == CALL)
        target_square0 = _seat_row(last_square, other) - 1
        target_face = _seat_row(last_face, other)
        target_chip = _seat_row(last_chip, other)
        lie = target_face != target_chip
        own_square0 = _seat_row(last_square, mover) - 1
        own_face = _seat_row(last_face, mover)
        own_chip = _seat_row(last_chip, mover)
        own_turns = calls & ~lie & ~_seat_row(last_up, mover)
        target_down = _card(other, target_square0, target_chip, jnp.bool_(False))
        own_down = _card(mover, own_square0, own_chip, jnp.bool_(False))
        table = table + calls * (_hot(TABLE_SIZE, target_down + 1) - _hot(TABLE_SIZE, target_down)) \
            + own_turns * (_hot(TABLE_SIZE, own_down + 1) - _hot(TABLE_SIZE, own_down))
        up_face = up_face + calls * _hot(18, target_square0 * 6 + target_face) \
            + own_turns * _hot(18, own_square0 * 6 + own_face)
        down_face = down_face - calls * _hot(36, (other * 3 + target_square0) * 6 + target_face) \
            - own_turns * _hot(36, (mover * 3 + own_square0) * 6 + own_face)
        last_up = last_up | (calls & _seat_hot(other)) | (calls & ~lie & _seat_hot(mover))
        stat_hot = _seat_hot(mover)[:, None] & (jnp.arange(4) == 3)[None, :]
        stat_hot = stat_hot | (calls & _seat_hot(mover))[:, None] & (jnp.arange(4) == 2)[None, :]
        stat_hot = stat_hot | (calls & _seat_hot(other))[:, None] & (jnp.arange(4) == lie.astype(jnp.int32))[None, :]
        stats = p.stats + (is_call & stat_hot)
        chip_player = jnp.where(calls, jnp.where(lie, mover, other), p.chip_player)
        chip_owner = jnp.where(calls, jnp.where(lie, other, mover), p.chip_owner)

        # chip c: the chosen card's chip
        chip = a - CHIP0
        chip_owner_now = jnp.clip(p.chip_owner, 0, 1)
        chipped = _card(chip_owner_now, _seat_row(last_square, chip_owner_now) - 1,
                        _seat_row(last_chip, chip_owner_now), jnp.bool_(True))
        table = table + is_chip * (_hot(TABLE_SIZE, chipped + (chip - _seat_row(last_chip, chip_owner_now)) * 2)
                                   - _hot(TABLE_SIZE, chipped))
        last_chip = jnp.where(is_chip & _seat_hot(chip_owner_now), chip, last_chip)
        chip_player = jnp.where(is_chip, -1, chip_player)
        chip_owner = jnp.where(is_chip, -1, chip_owner)

        # show c on s: the first player's waits hidden; the second's shows both, face up
        show_code = a - SHOW0
        shown = show_code  # square0 * 6 + colour
        pending = jnp.where(is_show & (p.pending < 0), shown, p.pending)
        both = is_show & (p.pending >= 0)
        first, second = p.first, 1 - p.first
        pending_square0, pending_colour = p.pending // 6, p.pending % 6
        hands = hands - both * (_seat_hot(first)[:, None] * _hot(6, pending_colour)[None, :]
                                + _seat_hot(second)[:, None] * _hot(6, show_code % 6)[None, :])
        table = table + both * (_hot(TABLE_SIZE, _card(first, pending_square0, pending_colour, jnp.bool_(True)))
                                + _hot(TABLE_SIZE, _card(second, show_code // 6, show_code % 6, jnp.bool_(True))))
        up_face = up_face + both * (_hot(18, p.pending) + _hot(18, shown))
        pending = jnp.where(both, -1, pending)

        # round end: square 1's winner moves 1, square 2's 2, square 3's 3, stopping at a finish
        foxes, finished = self._move_foxes(table, p.foxes.astype(jnp.int32), both)
        over = both & (finished | (p.round >= self.max_rounds))
        next_round = both & ~over

        # turn ends
        ends_turn = (is_put & ~callable_next) | (is_call & ~calls) | is_chip
        turn = p.turn + ends_turn
        phase_after = jax.lax.select_n(
            jnp.clip(phase, 0, 7),
            jnp.where(sixth & ~repick, FIRST, KEEP),
            jnp.int32(DEAL),
            jnp.where(dealt == DEAL_TOTAL, PUT, DEAL),
            jnp.where(callable_next, CALLING, jnp.where(turn == TURNS_PER_ROUND, SHOW, PUT)),
            jnp.where(calls, CHIPPING, jnp.where(turn == TURNS_PER_ROUND, SHOW, PUT)),
            jnp.where(turn == TURNS_PER_ROUND, SHOW, PUT),
            jnp.where(over, OVER, jnp.where(next_round, DEAL, SHOW)),
            jnp.int32(OVER)).astype(jnp.int32)

        # a new round (after the first-player draw, or after a round end without a finish)
        starts = is_first | next_round
        first_now = jnp.where(is_first, a, jnp.where(next_round, 1 - p.first, p.first))
        round_now = jnp.where(is_first, 1, p.round + next_round)
        fresh_deck = CARDS_PER_COLOUR - kept[0] - kept[1]
        i8 = jnp.int8
        return _packed(Position(
            phase=phase_after, picks=picks.astype(jnp.int32), kept=kept.astype(i8), forbidden=forbidden,
            foxes=foxes.astype(i8), round=round_now.astype(jnp.int32), first=first_now.astype(jnp.int32),
            deck=jnp.where(starts, fresh_deck, deck).astype(i8),
            dealt=jnp.where(starts, 0, dealt).astype(jnp.int32),
            hands=jnp.where(starts, 0, hands).astype(i8),
            turn=jnp.where(starts, 0, turn).astype(jnp.int32),
            table=jnp.where(starts, 0, table).astype(i8),
            up_face=jnp.where(starts, 0, up_face).astype(i8),
            down_face=jnp.where(starts, 0, down_face).astype(i8),
            last_square=jnp.where(starts, 0, last_square).astype(i8),
            last_face=jnp.where(starts, 0, last_face).astype(i8),
            last_chip=jnp.where(starts, 0, last_chip).astype(i8),
            last_up=jnp.where(starts, False, last_up),
            chip_player=chip_player.astype(jnp.int32), chip_owner=chip_owner.astype(jnp.int32),
            pending=jnp.where(starts, -1, pending).astype(jnp.int32), stats=stats,
            finished=p.finished | (both & finished)))

    @staticmethod
    def _move_foxes(table: jax.Array, foxes: jax.Array, active: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Per square the colour with the highest count held by exactly one colour moves 1, 2, 3
        (square order); none moves after a fox reaches 6. Returns the foxes and the finish."""
        counts = jnp.sum(table.reshape(2, 3, 6, 2), axis=(0, 3))  # [square, colour]
        ties = jnp.sum(counts[:, :, None] == counts[:, None, :], axis=2)  # colours with the same count
        unique = (counts > 0) & (ties == 1)
        best = jnp.max(jnp.where(unique, counts, 0), axis=1, keepdims=True)
        winner = unique & (counts == best)  # one-hot per square, or all False
        finished = jnp.bool_(False)
        for square0 in range(3):
            moves = winner[square0] & active & ~finished
            foxes = jnp.where(moves, jnp.minimum(FINISH, foxes + square0 + 1), foxes)
            finished = finished | jnp.any(moves & (foxes == FINISH))
        return foxes, finished

    # ----- chance -------------------------------------------------------------------------------
    def resolve_chance(self, position: Packed, key: jax.Array, history: jax.Array,
                       length: jax.Array) -> tuple[Packed, jax.Array, jax.Array]:
        """The first-player draw (if due), then the round's 22 deals (if due): deal ``i`` takes
        the ``tickets[i]``-th card still in the deck, in colour order, as ``draw_chance`` draws
        one event at a time (see the module docstring). The outcomes are written as one block.
        Nothing is drawn for ``initial()``'s position (numpy arrays: the scoring picks come
        first)."""
        if isinstance(position.wide, np.ndarray) and int(position.phase) == KEEP:
            return jax.tree_util.tree_map(jnp.asarray, position), history, length  # initial(): no chance yet
        position = _unpacked(position)
        at_first = position.phase == FIRST
        fresh_deck = CARDS_PER_COLOUR - position.kept[0] - position.kept[1]
        at_deal = at_first | (position.phase == DEAL)
        deck = jnp.where(at_first, fresh_deck, position.deck).astype(jnp.int32)
        # drawn for the rows that deal now only (one decision in twenty or so)
        first_draw, deals = only_where(_deal, at_deal, key, deck)
        first = jnp.where(at_first, first_draw, position.first)
        dealt = (deals[:, None] == jnp.arange(6)).astype(jnp.int32)  # [deal, colour]
        first_hand = jnp.sum(dealt[:FIRST_HAND], axis=0)
        second_hand = jnp.sum(dealt[FIRST_HAND:], axis=0)
        left = deck - first_hand - second_hand
        by_seat = jnp.where((jnp.arange(2) == first)[:, None], first_hand[None, :], second_hand[None, :])
        position = position._replace(
            first=first.astype(jnp.int32),
            round=jnp.where(at_first, 1, position.round).astype(jnp.int32),
            deck=jnp.where(at_deal, left, deck).astype(jnp.int8),
            hands=jnp.where(at_deal, position.hands.astype(jnp.int32) + by_seat, position.hands).astype(jnp.int8),
            dealt=jnp.where(at_deal, DEAL_TOTAL, position.dealt).astype(jnp.int32),
            phase=jnp.where(at_deal, PUT, position.phase).astype(jnp.int32))
        block = jnp.where(at_first, jnp.concatenate([first_draw[None], deals]),
                          jnp.concatenate([deals, jnp.zeros(1, jnp.int32)]))
        history = jax.lax.dynamic_update_slice(history, block.astype(history.dtype), (length,))
        packed = _packed(position)
        packed = Packed(materialize(packed.wide), materialize(packed.narrow))
        return packed, history, length + at_first + DEAL_TOTAL * at_deal

    # ----- observation --------------------------------------------------------------------------
    def observe(self, position: Packed | Position, player: jax.Array) -> jax.Array:
        """The core's ``observation_tensor(player)``: the player's hand and kept cards, the table
        by effective colour (own and opponent's, face up and down), true faces of face-up and of
        the player's own face-down cards, and public facts; nothing the player cannot know."""
        p = _unpacked(position)
        f32 = jnp.float32
        seat = jnp.clip(player, 0, 1).astype(jnp.int32)
        other = 1 - seat
        hand = _seat_row(p.hands, seat).astype(jnp.int32)
        other_hand = _seat_row(p.hands, other).astype(jnp.int32)
        kept = _seat_row(p.kept, seat).astype(jnp.int32)
        foxes = (p.foxes.astype(jnp.int32)[:, None] == jnp.arange(7)).astype(f32).reshape(-1)
        # the 108 counts: each seat's order as a constant gather from the position's narrow array
        # (not reversed and concatenated slices, which XLA indexes entry by entry)
        narrow = (position if isinstance(position, Packed) else _packed(p)).narrow
        counts = jnp.asarray(TWENTIETHS)[jnp.where(seat == 0, narrow[COUNT_PLACES[0]],
                                                   narrow[COUNT_PLACES[1]]).astype(jnp.int32)]

        phase = p.phase
        mover = self._mover(p)
        current = self.player(p)
        calling = (phase == CALLING) & (mover == seat)
        callable_square = _seat_row(p.last_square, other).astype(jnp.int32) - 1
        callable_chip = _seat_row(p.last_chip, other).astype(jnp.int32)
        callable_part = jnp.concatenate([_hot(3, callable_square), _hot(6, callable_chip)]) * calling
        my_square = _seat_row(p.last_square, seat).astype(jnp.int32)
        my_last = jnp.concatenate([_hot(3, my_square - 1), _hot(6, _seat_row(p.last_face, seat).astype(jnp.int32))])
        my_last = my_last * (my_square > 0)
        to_move = current == seat
        phase_slot = jnp.where(to_move, jnp.asarray(PHASE_SLOT)[jnp.clip(phase, 0, 7)], 5)
        chipping = to_move & (phase == CHIPPING)
        owner = jnp.clip(p.chip_owner, 0, 1)
        chip_square = _seat_row(p.last_square, owner).astype(jnp.int32) - 1
        chip_part = jnp.concatenate([_hot(3, chip_square), _hot(2, jnp.where(owner == seat, 0, 1)),
                                     _hot(6, _seat_row(p.last_face, owner).astype(jnp.int32))]) * chipping
        sizes = jnp.asarray(TWELFTHS)[jnp.stack([jnp.sum(hand), jnp.sum(other_hand)])]
        # multiset m is bit m % 32 of word m // 32 (constant per entry: no reshape of the words' bits)
        words = jnp.where(jnp.asarray(FORBIDDEN_WORD) == 0, p.forbidden[0], p.forbidden[1])
        forbidden = (jnp.right_shift(words, jnp.asarray(FORBIDDEN_SHIFT)) & 1).astype(f32)
        pending = _hot(18, p.pending) * (seat == p.first)
        stats = jnp.concatenate([_seat_row(p.stats, seat), _seat_row(p.stats, other)]).astype(f32)
        scalars = jnp.stack([
            jnp.asarray(self.round_fractions)[p.round],
            jnp.asarray(EIGHTEENTHS)[p.turn],
            (p.first == seat).astype(f32),
            seat.astype(f32),
            jnp.asarray(SIXTHS)[p.picks],
        ])
        return jnp.concatenate([
            jnp.asarray(TWELFTHS)[hand], jnp.asarray(THIRDS)[kept], foxes, counts,
            callable_part.astype(f32), my_last.astype(f32), _hot(6, phase_slot).astype(f32),
            chip_part.astype(f32), scalars, sizes, forbidden, pending.astype(f32),
            stats / (stats + f32(10.0)),  # not a constant divisor: the correctly rounded quotient
        ])
