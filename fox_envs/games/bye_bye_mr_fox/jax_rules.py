"""Bye Bye Mr. Fox! in JAX (``fox_envs.jax``): the rules of ``rules.py`` as pure array functions.

The position holds what the rules core's ``State`` holds, packed into int32 words so that every
rule is a handful of integer operations per game (see ``Position``): bit masks over the six
sectors for the eggs on the nest circles, the covered outer circles and, one mask per kind of
picture, what each outer circle shows; 2-bit counts of the eggs in the hens' nests; 5-bit
counts of the face-down and discarded tokens of each kind.

Chance comes in runs after a decision: a spin, then (the turn over) the next flip; only a
discarded token (one with no legal place) makes a run longer. ``resolve_chance`` draws one
ticket uniform in ``0 .. 6 * left - 1`` per spin-and-flip pair (``left``: the tokens face down
at that flip; pair ``m`` of a run flips with ``left - m``, each earlier pair having discarded
exactly one): ``ticket % 6`` is the sector and ``ticket // 6`` the rank of the flipped token
among the face-down ones, so each kind comes with probability count / left and each sector
with 1/6, independently, as in the core. A ticket is a random 64-bit fixed-point fraction
times the span: uniform up to 2**-64 per outcome, as ``jax.random.randint``. The first pair
is unrolled; a ``while_loop`` runs only the further pairs of runs with discarded tokens.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.game import CHANCE, TERMINAL
from fox_envs.games.bye_bye_mr_fox.board import (BLACK, BROWN, EGG, FLIP, FOX, GIVE, GIVE_ACTION, NEST_CAPACITY,
                                                 NUM_ACTIONS, OUTER_ACTION, OVER, PLACE, SPIN, THREE_HENS, WHITE)
from fox_envs.games.bye_bye_mr_fox.rules import (OBS_COVERED, OBS_DISCARDED, OBS_FACE_DOWN, OBS_NEST_CIRCLES,
                                                 OBS_NESTS, OBS_PHASE, OBS_SIZE, OBS_SPIN, OBS_TOKEN, OBS_VISIBLE,
                                                 VISIBLE_SLOT, ByeByeMrFoxGame)
from fox_envs.jax import keys
from fox_envs.jax.rules import JaxRules

# ----- packing ------------------------------------------------------------------------------------
# ``visible``: bit 6 * slot + s is set when outer circle O<s> shows the picture of that slot; the
# slots are the observation's (black 0, brown 1, white 2, fox 3, three hens 4).
SLOT = VISIBLE_SLOT
KIND_OF_SLOT = (BLACK, BROWN, WHITE, FOX, THREE_HENS)
SECTOR_MASK = 63
COLUMN = sum(1 << (6 * slot) for slot in range(5))  # the five slot bits of sector 0
COVERABLE = (1 << (6 * SLOT[THREE_HENS])) - 1  # slots 0-3: the three-hens space is never covered
HEN_SLOTS = (1 << (6 * SLOT[FOX])) - 1  # slots 0-2: what a fox token may cover
COUNT_BITS, NEST_BITS = 5, 2  # a count of one kind is at most egg_tokens <= 16; a nest holds <= 3
FULL_NESTS = sum(NEST_CAPACITY << (NEST_BITS * hen) for hen in range(3))
EGG_UNIT = 1 << (COUNT_BITS * EGG)
assert NEST_CAPACITY == 3  # the 2-bit nest counts and the give mask's full test rely on it


def _count_word(counts) -> int:
    """Five counts (one per kind of token) packed into one int32."""
    return sum(int(n) << (COUNT_BITS * k) for k, n in enumerate(counts))


def _visible_word(printed) -> int:
    return sum(1 << (6 * SLOT[kind] + s) for s, kind in enumerate(printed))


# The observation from the packed words: entry i is ``(word[SOURCE[i]] >> SHIFT[i]) & WIDTH[i]``
# (an integer), times ``SCALE[i]`` in float32, as the core multiplies its float32 counts.
W_CIRCLES, W_VISIBLE, W_COVERED, W_NESTS, W_TOKEN, W_SPIN, W_FACE_DOWN, W_DISCARDED, W_PHASE = range(9)


def _observation_tables(game: ByeByeMrFoxGame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    source = np.zeros(OBS_SIZE, np.int32)
    shift = np.zeros(OBS_SIZE, np.int32)
    width = np.ones(OBS_SIZE, np.int32)
    scale = np.ones(OBS_SIZE, np.float32)

    def block(start: int, n: int, word: int, shifts, bits: int = 1, factor=None) -> None:
        source[start:start + n] = word
        shift[start:start + n] = shifts
        width[start:start + n] = (1 << bits) - 1
        if factor is not None:
            scale[start:start + n] = factor

    block(OBS_NEST_CIRCLES, 6, W_CIRCLES, range(6))
    block(OBS_VISIBLE, 30, W_VISIBLE, [6 * j + s for s in range(6) for j in range(5)])
    block(OBS_COVERED, 6, W_COVERED, range(6))
    block(OBS_NESTS, 3, W_NESTS, [NEST_BITS * c for c in range(3)], NEST_BITS, np.float32(1.0 / NEST_CAPACITY))
    block(OBS_TOKEN, 5, W_TOKEN, range(5))
    block(OBS_SPIN, 6, W_SPIN, range(6))
    block(OBS_FACE_DOWN, 5, W_FACE_DOWN, [COUNT_BITS * k for k in range(5)], COUNT_BITS, game.face_down_scale)
    block(OBS_DISCARDED, 5, W_DISCARDED, [COUNT_BITS * k for k in range(5)], COUNT_BITS, game.discard_scale)
    block(OBS_PHASE, 2, W_PHASE, range(2))
    return source, shift, width, scale


class Position(NamedTuple):
    circles: jax.Array  # int32: bit s set = an egg on nest circle N<s>
    visible: jax.Array  # int32: bit 6 * slot + s set = O<s> shows the picture of slot (see SLOT)
    covered: jax.Array  # int32: bit s set = a token lies on O<s>
    nests: jax.Array  # int32: 2 bits per hen (black, brown, white): the eggs in its nest
    face_down: jax.Array  # int32: 5 bits per kind (black, brown, white, egg, fox): tokens face down
    discarded: jax.Array  # int32: 5 bits per kind: tokens discarded
    phase: jax.Array  # int32: FLIP, PLACE, SPIN, GIVE or OVER
    token: jax.Array  # int32: the last flipped token (-1 before the first flip)
    spin: jax.Array  # int32: the sector of the last spin (-1 before the first)
    turn: jax.Array  # int32: turns started before the current one
    won: jax.Array  # bool: every nest got full


def _bit(n: jax.Array) -> jax.Array:
    return jnp.left_shift(jnp.int32(1), n)


def _field(word: jax.Array, index: jax.Array, bits: int) -> jax.Array:
    return (word >> (bits * index)) & ((1 << bits) - 1)


def _select(condition: jax.Array, if_true: Position, if_false: Position) -> Position:
    return jax.tree_util.tree_map(lambda a, b: jnp.where(condition, a, b), if_true, if_false)


def _slot_at(visible: jax.Array, sector: jax.Array) -> jax.Array:
    """The slot of the picture O<sector> shows (exactly one slot bit is set per sector)."""
    column = visible >> sector
    return sum(slot * ((column >> (6 * slot)) & 1) for slot in range(1, 5))


def _kind_of_slot(slot: jax.Array) -> jax.Array:
    """Slot -> kind: black, brown, white keep their number, fox 3 -> FOX, three hens 4 -> THREE_HENS."""
    return jnp.where(slot >= SLOT[FOX], slot + (FOX - SLOT[FOX]), slot)


def _fold(masks: jax.Array) -> jax.Array:
    """The sectors set in any of the five slot masks."""
    return (masks | masks >> 6 | masks >> 12 | masks >> 18 | masks >> 24) & SECTOR_MASK


def _full_hens(nests: jax.Array) -> jax.Array:
    """3 bits: the hens whose nest holds 3 eggs (both bits of its count set)."""
    both = nests & (nests >> 1)
    return (both & 1) | ((both >> 1) & 2) | ((both >> 2) & 4)


def _ticket(hi: jax.Array, lo: jax.Array, span: jax.Array) -> jax.Array:
    """``floor(U * span / 2**64)`` for the 64-bit number ``U = hi * 2**32 + lo`` of two random
    words: uniform in ``0 .. span - 1`` (``span`` < 2**8) up to 2**-64 per outcome, computed over
    16-bit limbs without a division."""
    span = span.astype(jnp.uint32)
    carry = jnp.uint32(0)
    for word in (lo, hi):
        for shift in (0, 16):
            carry = (((word >> shift) & 0xFFFF) * span + carry) >> 16
    return carry.astype(jnp.int32)


LOOP_KEYS = 1 << 20  # fold_in data of the keys for runs longer than one pair (clear of bits' counters)


class ByeByeMrFoxJax(JaxRules):
    num_actions = NUM_ACTIONS
    observation_shape = (OBS_SIZE,)
    max_chance_outcomes = 6

    def __init__(self, game: ByeByeMrFoxGame, max_moves: int) -> None:
        super().__init__(game, max_moves)
        self.num_players = game.num_players
        self.max_turns = game.max_turns
        self.start_circles = SECTOR_MASK & ~(1 << game.white_sector)
        self.start_visible = _visible_word(game.printed)
        self.start_face_down = _count_word(game.initial_face_down)
        source, shift, width, scale = _observation_tables(game)
        self.obs_source, self.obs_shift, self.obs_width = source, shift, width
        self.obs_scale = scale

    def history_capacity(self) -> int:
        """At most 2 decisions and 2 chance outcomes (a flip, a spin) per turn, one turn per
        face-down token."""
        return min(self.max_moves, 2 * self.max_turns) + 2 * self.max_turns

    def initial(self) -> Position:
        i32 = jnp.int32
        return Position(i32(self.start_circles), i32(self.start_visible), i32(0), i32(0), i32(self.start_face_down),
                        i32(0), i32(FLIP), i32(-1), i32(-1), i32(0), jnp.bool_(False))

    def player(self, position: Position) -> jax.Array:
        phase = position.phase
        chance = (phase == FLIP) | (phase == SPIN)
        return jnp.where(chance, CHANCE, jnp.where(phase == OVER, TERMINAL, position.turn % self.num_players)
                         ).astype(jnp.int32)

    # ----- where a token may go ---------------------------------------------------------------
    @staticmethod
    def _places(position: Position, token: jax.Array) -> jax.Array:
        """12 bits, one per action N0..N5, O0..O5, where ``token`` may go: an egg on an empty
        nest circle; a hen on a fox or a hen of another colour; a fox on a single hen."""
        egg = token == EGG
        allowed = jnp.where(token == FOX, HEN_SLOTS, COVERABLE & ~(SECTOR_MASK << (6 * jnp.clip(token, 0, 2))))
        outer = _fold(position.visible & allowed)
        return jnp.where(egg, ~position.circles & SECTOR_MASK, outer << OUTER_ACTION)

    def _legal_bits(self, position: Position) -> jax.Array:
        places = jnp.where(position.phase == PLACE, self._places(position, position.token), 0)
        give = jnp.where(position.phase == GIVE, (~_full_hens(position.nests) & 7) << GIVE_ACTION, 0)
        return places | give

    def legal_mask(self, position: Position) -> jax.Array:
        return ((self._legal_bits(position) >> jnp.arange(NUM_ACTIONS)) & 1).astype(bool)

    def chance_weights(self, position: Position) -> jax.Array:
        """A flip: the face-down count of each kind; a spin: 1 for each sector."""
        flip = jnp.where(jnp.arange(6) < 5, _field(position.face_down, jnp.minimum(jnp.arange(6), 4), COUNT_BITS), 0)
        return jnp.where(position.phase == FLIP, flip, 1).astype(jnp.int32)

    def returns(self, position: Position) -> jax.Array:
        value = jnp.where(position.won, 1.0, -1.0) * (position.phase == OVER)
        return jnp.full(self.num_players, value, jnp.float32)

    # ----- the rules ----------------------------------------------------------------------------
    @staticmethod
    def _end_turn(position: Position) -> Position:
        """Win when every nest is full; else a loss when no token is left face down; else the
        next turn's flip."""
        won = position.nests == FULL_NESTS
        over = won | (position.face_down == 0)
        return position._replace(phase=jnp.where(over, OVER, FLIP).astype(jnp.int32),
                                 turn=position.turn + (~over).astype(jnp.int32), won=won)

    def _flip(self, position: Position, token: jax.Array) -> Position:
        """Turn ``token`` face up; with no legal place it is discarded and the spin follows."""
        unit = _bit(COUNT_BITS * token)
        placeable = self._places(position, token) != 0
        return position._replace(face_down=position.face_down - unit, token=token,
                                 discarded=position.discarded + jnp.where(placeable, 0, unit),
                                 phase=jnp.where(placeable, PLACE, SPIN).astype(jnp.int32))

    @staticmethod
    def _place(position: Position, action: jax.Array) -> Position:
        """Put the token down; a token covered on an outer circle is discarded."""
        on_nest = action < OUTER_ACTION
        sector = jnp.clip(action - OUTER_ACTION, 0, 5)
        here = _bit(sector)
        covering = ~on_nest & ((position.covered & here) != 0)
        old = _kind_of_slot(_slot_at(position.visible, sector))
        token_slot = jnp.where(position.token == FOX, SLOT[FOX], jnp.clip(position.token, 0, 2))
        shown = (position.visible & ~(COLUMN << sector)) | _bit(6 * token_slot + sector)
        return position._replace(
            circles=position.circles | jnp.where(on_nest, _bit(jnp.clip(action, 0, 5)), 0),
            visible=jnp.where(on_nest, position.visible, shown),
            covered=position.covered | jnp.where(on_nest, 0, here),
            discarded=position.discarded + jnp.where(covering, _bit(COUNT_BITS * old), 0),
            phase=jnp.int32(SPIN))

    def _spin(self, position: Position, sector: jax.Array) -> Position:
        """The back end's egg (if any) goes to the hen, the fox or the players' choice."""
        back = (sector + 3) % 6
        egg = ((position.circles >> back) & 1) == 1
        slot = _slot_at(position.visible, sector)
        hen = slot < SLOT[FOX]
        full = ((_full_hens(position.nests) >> slot) & 1) == 1
        to_nest = egg & hen & ~full
        stolen = egg & ((slot == SLOT[FOX]) | (hen & full))
        spun = position._replace(
            circles=jnp.where(egg, position.circles & ~_bit(back), position.circles),
            nests=position.nests + jnp.where(to_nest, _bit(NEST_BITS * slot), 0),
            discarded=position.discarded + jnp.where(stolen, EGG_UNIT, 0),
            spin=sector, phase=jnp.int32(GIVE))
        return _select(egg & (slot == SLOT[THREE_HENS]), spun, self._end_turn(spun))

    def _give(self, position: Position, hen: jax.Array) -> Position:
        return self._end_turn(position._replace(nests=position.nests + _bit(NEST_BITS * jnp.clip(hen, 0, 2))))

    def apply(self, position: Position, action: jax.Array) -> Position:
        """A flip (token 0..4), a place (N0..N5, O0..O5), a spin (sector 0..5) or a give (12..14),
        by the phase."""
        action = jnp.asarray(action, jnp.int32)
        phase = position.phase
        decided = _select(phase == PLACE, self._place(position, action), self._give(position, action - GIVE_ACTION))
        drawn = _select(phase == FLIP, self._flip(position, jnp.clip(action, 0, 4)), self._spin(position, action % 6))
        moved = _select((phase == FLIP) | (phase == SPIN), drawn, decided)
        return _select(phase == OVER, position, moved)

    # ----- chance ---------------------------------------------------------------------------------
    def _pair(self, position: Position, ticket: jax.Array, history: jax.Array, length: jax.Array):
        """A spin (if one is due) to sector ``ticket % 6``, then a flip (if the turn went on) of
        the face-down token of rank ``ticket // 6``; each outcome appended to ``history``."""
        sector = ticket % 6
        spinning = position.phase == SPIN
        position = _select(spinning, self._spin(position, sector), position)
        spun_length = length + spinning.astype(jnp.int32)
        flipping = position.phase == FLIP
        rank, cumulative, token = ticket // 6, 0, 0
        for kind in range(4):
            cumulative = cumulative + _field(position.face_down, kind, COUNT_BITS)
            token = token + (cumulative <= rank).astype(jnp.int32)
        position = _select(flipping, self._flip(position, token), position)
        slots = jnp.arange(history.shape[0])
        history = jnp.where(spinning & (slots == length), sector.astype(history.dtype),
                            jnp.where(flipping & (slots == spun_length), token.astype(history.dtype), history))
        return position, history, spun_length + flipping.astype(jnp.int32)

    def resolve_chance(self, position: Position, key: jax.Array, history: jax.Array,
                       length: jax.Array) -> tuple[Position, jax.Array, jax.Array]:
        """Spin-and-flip pairs until a decision or the end of the game."""
        left = position.face_down
        left = sum(_field(left, kind, COUNT_BITS) for kind in range(5))

        def span(m: jax.Array) -> jax.Array:
            return 6 * jnp.maximum(left - m, 1)

        words = keys.bits(key, (2,))
        position, history, length = self._pair(position, _ticket(words[0], words[1], span(0)), history, length)

        def pending(carry: tuple) -> jax.Array:
            phase = carry[0].phase
            return (phase == SPIN) | (phase == FLIP)

        def more(carry: tuple) -> tuple:
            position, history, length, m = carry
            words = keys.bits(keys.fold_in(key, LOOP_KEYS + m), (2,))
            position, history, length = self._pair(position, _ticket(words[0], words[1], span(m)), history, length)
            return position, history, length, m + 1

        position, history, length, _ = jax.lax.while_loop(pending, more, (position, history, length, jnp.int32(1)))
        return position, history, length

    # ----- observation ----------------------------------------------------------------------------
    def observe(self, position: Position, player: jax.Array) -> jax.Array:
        """The same for every seat (all is public): the core's 68 floats."""
        placing, giving = position.phase == PLACE, position.phase == GIVE
        words = jnp.stack([
            position.circles, position.visible, position.covered, position.nests,
            jnp.where(placing, _bit(jnp.maximum(position.token, 0)), 0),
            jnp.where(giving, _bit(jnp.maximum(position.spin, 0)), 0),
            position.face_down, position.discarded,
            placing.astype(jnp.int32) | (giving.astype(jnp.int32) << 1)])
        values = (words[self.obs_source] >> self.obs_shift) & self.obs_width
        return values.astype(jnp.float32) * self.obs_scale
