"""A short summary of each game's rules, as ``play``'s ``rules`` command prints it.

Each text is also the "In short" section of ``docs/rules/<game>.md`` (a test keeps them equal);
the rest of that page holds the full rules as implemented.
"""
from __future__ import annotations

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import ENV_IDS

RULES_SUMMARY: dict[str, str] = {
    "xceter_o_v0": """\
- Two players on a 3x3 board (squares a1..c3). player_0 owns pieces 1, 3, 5 (X), player_1 owns
  2, 4, 6 (O); player_0 starts.
- Placement: moves 1 to 6 place piece 1, 2, ..., 6 in that order on any empty square.
- Jump phase: from move 7 on, cycling 1 to 6 again, the owner of the next piece jumps that piece
  to any empty square (no need to be adjacent; staying put is not a move).
- You win the moment your three pieces stand in a row, column or diagonal, in either phase.
  With ordered_rows=true the line must read 1-3-5 (2-4-6) along it.
- The third time the same position (board and next piece) occurs, the game is a draw.
- A move is the target square, e.g. b2: the piece is always the next one in the cycle.""",
    "outwit_v0": """\
- Two players on a 10x9 board (a1..j9). player_0 (dark x, power chip X) owns the corner a7..c9,
  player_1 (light o, power chip O) owns h1..j3; player_0 starts.
- A move slides one of your chips in a straight line through empty squares, e.g. b1-g1.
- A regular chip moves orthogonally and must slide as far as it can (to the edge, a chip, or
  the opponent's corner). A power chip moves in any of 8 directions and may stop anywhere.
- No chip enters or crosses the opponent's corner. A chip that is in, or enters, its own corner
  never leaves it again.
- You win when all nine of your chips are in your own corner.
- With no legal move you must pass. Two passes in a row, or the same position (chips and player
  to move) for the third time, is a draw.""",
    "outfox_v0": """\
- Two or three players on a hexagon of 19 points (rows a..e). Pieces are shapes C S T in
  colours R Y B (CR = red circle). With two players each has one piece of each of the 9 types;
  with three, seat i has the six pieces of colour i.
- A turn: place one of your pieces on an empty point (e.g. CR@c3), then slide a piece next to
  it, of any owner but not the placed one, one or more points in a straight line through empty
  points (e.g. c4-c5). The very first turn of the game is a placement only.
- A placement must let some neighbouring piece slide afterwards.
- After your slide, if three consecutive points in a line hold three different shapes of one
  colour, or one shape in three different colours, you win, whoever placed those pieces.
- If the next player has no legal turn (no piece left, or nowhere to place), the player who
  played last wins. There are no draws.""",
    "bye_bye_mr_fox_v0": """\
- Cooperative: 1 to 4 players win or lose together. Goal: three eggs in each hen's nest
  (black, brown, white) before the face-down tokens run out.
- A turn: a token is flipped at random, you place it, then the spinner is spun.
- Place a hen token on an outer circle showing a fox or a hen of another colour (never on the
  three-hens space), an egg on an empty circle of the central nest (N0..N5), a fox token on an
  outer circle showing a single hen. A token with no place is discarded.
- The spin points at a sector s and its back end at nest circle N(s+3). An egg there goes to
  the nest of the hen shown at s (discarded if that nest is full), is stolen if a fox is shown,
  and at the three-hens space you give it to a nest that is not full.
- The team wins as soon as every nest holds 3 eggs, and loses when a turn ends with no token
  left face down.""",
    "outfoxed_v0": """\
- Two players, 60 cards in six colours (brown, black, red, pink, white, yellow), three squares
  1, 2, 3 and a race track 0..6 for a fox of each colour.
- First each player secretly keeps three scoring cards (keep red); identical sets are revealed,
  forbidden, and both pick again.
- Each round the deck is dealt: the first player gets 12 cards, the second 10 (the first
  player alternates every round). Then nine turns each: put a card face down on a square and
  declare a colour with a chip (put red on 2 as pink).
- Then you may call or pass on the opponent's previous card if it is still face down. Calling a
  lie turns it up and you choose its chip; calling the truth turns it and your own new card up,
  and the opponent chooses the chip of your card.
- The second player's ninth card goes face up and true. Special turn: both show one more card
  face up (show red on 3); the second player chooses before seeing the first's card.
- Round end: on each square the colour (chip, else face) with the highest count held by one
  colour alone moves its fox 1, 2 or 3 steps (square 1, 2, 3 in that order).
- The game ends the moment a fox reaches 6: each kept card scores its fox's position and the
  higher score wins; equal scores, or max_rounds rounds without a finish, are a draw.""",
}


def rules_summary(env_id: str) -> str:
    """The short rules of ``env_id``."""
    if env_id not in RULES_SUMMARY:
        raise InvalidParameterError(f"no rules summary for {env_id!r}; games: {', '.join(ENV_IDS)}")
    return RULES_SUMMARY[env_id]
