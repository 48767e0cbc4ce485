"""Playing in the terminal against agents (``python -m fox_envs play ENV``).

``play(env_id, seats)`` runs one game: seats are ``human`` or any agent spec (``random``,
``heuristic``, ``mcts:...``). A person types a move in the game's notation (``b2``, ``CR@c3``,
``put red on 2 as pink``), or builds it step by step from the choices shown
(``fox_envs.core.move_steps``): the piece, then the point; the card, then the square, then the
declared colour. ``help``, ``moves``, ``back``, ``board``, ``rules`` and ``quit`` are commands.

The board is redrawn above every prompt (on a terminal the screen is cleared, the latest moves
listed, then the board). Every line fits the terminal's width (``shutil.get_terminal_size``, so
``COLUMNS`` counts): longer lines are wrapped at word boundaries. What an action sets off beyond
its notation (a call's result, cards turned up, the pieces moving at a round's end) is told as it
happens, only as the viewing player may see it: with one person at the table that is its view, hidden facts of the other
seats are never shown; several people sharing the screen are told only what all of them may
see (each is shown its own board when it is to move, behind a hot-seat gate: the screen is
cleared and the next person presses Enter). The last board shows everything and says how the
game ended. ``delay``: agents' moves are shown one at a time, that many seconds apart (watching
agents play).
"""
from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections import Counter
from time import sleep
from typing import Any, Callable, Sequence, TextIO

import numpy as np

from fox_envs.core import ending
from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.core.game import CHANCE, TERMINAL, State, sample_chance
from fox_envs.core.registry import make_game, rules_summary
from fox_envs.core.move_steps import InvalidChoice, MoveSteps

HUMAN = "human"
QUIT, HELP, MOVES, BACK, BOARD, RULES = ("quit", "exit", "q"), ("help", "?"), ("moves",), ("back",), ("board",), ("rules",)
LOG_LINES = 12  # moves listed under the board when the screen is redrawn
CLEAR_SCREEN = "\033[H\033[2J"
MIN_WIDTH = 20  # narrower terminals are treated as this wide


def parse_seats(seats: str | Sequence[str] | None, num_players: int, env_id: str) -> list[str]:
    """One agent spec per seat (``"human,heuristic"`` or a list); default: a person in seat 0,
    the heuristic elsewhere."""
    if seats is None:
        return [HUMAN] + ["heuristic"] * (num_players - 1)
    specs = [s.strip() for s in seats.split(",")] if isinstance(seats, str) else [str(s).strip() for s in seats]
    if len(specs) != num_players or not all(specs):
        raise InvalidParameterError(
            f"{env_id} with these params has {num_players} seats: give {num_players} comma-separated --seats, "
            f"got {len(specs)}")
    return specs


class Screen:
    """Where the game is shown. ``redraw``: clear the screen and draw the header, the latest
    moves and the board before each prompt (a terminal); otherwise lines and boards are printed
    in order (a pipe or a file). Lines are wrapped to the terminal's width."""

    def __init__(self, out: TextIO, redraw: bool, header: str) -> None:
        self.out, self.redraw, self.header = out, redraw, header
        self.log: list[str] = []
        self.say(header)

    @property
    def width(self) -> int:
        """The terminal's width now (``COLUMNS`` first; 80 when it cannot be told)."""
        return max(MIN_WIDTH, shutil.get_terminal_size().columns)

    def say(self, text: str, end: str = "\n") -> None:
        """Print ``text``, each of its lines wrapped to the width."""
        width = self.width
        print("\n".join(wrapped for line in text.split("\n") for wrapped in fit(line, width)),
              end=end, file=self.out, flush=True)

    def clear(self) -> None:
        """Hide what is shown: clear a terminal, else print a page of blank lines."""
        if self.redraw:
            self.out.write(CLEAR_SCREEN)
        else:
            self.say("\n" * shutil.get_terminal_size().lines, end="")

    def note(self, line: str) -> None:
        """A line of the game's story (a move, what it revealed)."""
        self.log.append(line)
        if not self.redraw:
            self.say(line)

    def board(self, text: str) -> None:
        if self.redraw:
            self.out.write(CLEAR_SCREEN)
            self.say(self.header)
            self.say("\n".join(self.log[-LOG_LINES:]))
        self.say(text)


class Session:
    """One game at the table: the loop over chance, agents and people."""

    def __init__(self, env_id: str, seats: str | Sequence[str] | None = None, *, seed: int | None = None,
                 params: dict[str, Any] | None = None, max_moves: int | None = None,
                 stdin: TextIO | None = None, out: TextIO | None = None, redraw: bool | None = None,
                 delay: float = 0.0) -> None:
        from fox_envs.agents.registry import make_agent

        self.env_id = env_id
        self.game = make_game(env_id, **(params or {}))
        n = self.game.num_players
        self.seats = parse_seats(seats, n, env_id)
        self.seed = seed if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        children = np.random.SeedSequence(self.seed).spawn(n + 1)
        self.rng = np.random.default_rng(children[0])
        self.agents = [None if spec == HUMAN else make_agent(spec, env_id, seed=int(children[k + 1].generate_state(1)[0]))
                       for k, spec in enumerate(self.seats)]
        humans = [k for k, spec in enumerate(self.seats) if spec == HUMAN]
        # whose view the story and the last board show: the one person at the table, else all;
        # several people sharing the screen of a hidden-information game are told only what
        # every one of them may see
        self.viewer = humans[0] if len(humans) == 1 else None
        shared = len(humans) > 1 and not self.game.perfect_information
        self.audience: list[int | None] = humans if shared else [self.viewer]
        self.gated = shared  # a hot-seat gate before each person's view when the seat changes
        self.last_person: int | None = None  # the seat whose view was shown last
        if not (isinstance(delay, (int, float)) and delay >= 0):
            raise InvalidParameterError(f"{env_id}: bad delay {delay!r}; allowed: seconds >= 0")
        self.delay = float(delay)
        self.max_moves = self.game.max_moves_default if max_moves is None else max_moves
        if type(self.max_moves) is not int or self.max_moves < 1:
            raise InvalidParameterError(f"{env_id}: bad max_moves {self.max_moves!r}; allowed: an integer >= 1")
        self.stdin = stdin if stdin is not None else sys.stdin
        out = out if out is not None else sys.stdout
        if redraw is None:
            redraw = _is_terminal(out) and _is_terminal(self.stdin)
        header = (f"{env_id} {json.dumps(self.game.params, sort_keys=True)}, seed {self.seed}: "
                  + ", ".join(f"player_{k} = {spec}" for k, spec in enumerate(self.seats)))
        self.screen = Screen(out, redraw, header)
        self.state: State = self.game.new_initial_state()

    # ----- the game ---------------------------------------------------------------------------
    def run(self) -> int:
        """Play to the end: 0 when the game finished (or was truncated), 1 when abandoned."""
        from fox_envs.evaluation.match import checked_action

        state, screen = self.state, self.screen
        decisions, chance_seen = 0, []
        truncated = False
        while True:
            player = state.current_player()
            if player == CHANCE:
                action = sample_chance(state, self.rng)
                chance_seen.append(self._seen(action))
                effects = self._apply(action)
                if effects:  # the run of chance events up to this one, then what it set off
                    for line in ["chance: " + _grouped(chance_seen)] + effects:
                        screen.note(line)
                    chance_seen = []
                continue
            if chance_seen:  # a run of chance events as one line
                screen.note("chance: " + _grouped(chance_seen))
                chance_seen = []
            if player == TERMINAL:
                break
            if decisions >= self.max_moves:
                truncated = True
                break
            if self.agents[player] is None:
                action = self.ask(player)
                if action is None:
                    return 1
                shown = f"player_{player} plays {self._seen(action)}"
            else:
                who = f"agent {self.seats[player]!r} in seat {player}"
                action = checked_action(state, self.agents[player].act(state, player), who)
                shown = f"player_{player} ({self.seats[player]}) plays {self._seen(action)}"
            screen.note(shown)
            for line in self._apply(action):
                screen.note(line)
            decisions += 1
            if self.delay and self.agents[player] is not None:
                self._watch()
        final = ending.truncated(self.max_moves) if truncated else None
        screen.board(ending.board_text(state, None, final))  # the game is over: everything
        returns = state.returns() if state.is_terminal() else np.zeros(self.game.num_players)
        screen.say("result: " + ", ".join(f"player_{k} ({self.seats[k]}) {r:+g}" for k, r in enumerate(returns)))
        return 0

    def _watch(self) -> None:
        """After an agent's move (``delay``): the board as the audience may see it, then a pause."""
        if not self.state.is_terminal() and len(self.audience) == 1:  # shared screens: the story only
            self.screen.board(self.state.render_text(viewer=self.audience[0]))
        sleep(self.delay)

    def _seen(self, action: int) -> str:
        """``action`` (about to be applied) as the audience sees it: with hidden parts as ``?``
        if any of them may not see them."""
        texts = [self.state.action_to_string_for(action, viewer) for viewer in self.audience]
        return next((text for text in texts if "?" in text), texts[0])

    def _apply(self, action: int) -> list[str]:
        """Apply ``action``; the lines telling what it set off that the whole audience may see."""
        before = self.state.clone()
        self.state.apply_action(action)
        told = [self.state.describe_effects(before, viewer) for viewer in self.audience]
        return ["  " + line for line in told[0] if all(line in lines for lines in told[1:])]

    # ----- a person's move ----------------------------------------------------------------------
    def ask(self, player: int) -> int | None:
        """Read ``player``'s move from the input; None when the input ends or the person quits."""
        state, screen = self.state, self.screen
        legal = state.legal_actions()
        names = [state.action_to_string(a) for a in legal]
        steps = MoveSteps(names)
        if self.gated and self.last_person not in (None, player) and not self._pass_to(player):
            return None
        self.last_person = player
        screen.board(state.render_text(viewer=player))
        while True:
            for line in self._choice_lines(player, steps):
                screen.say(line)
            text = self._read(f"player_{player}> ")
            if text is None:
                return None
            word = text.lower()
            command = self._command(word, player, steps)
            if command is not None:
                command()
                continue
            if not text:
                only = steps.done()
                if only is not None:
                    return legal[names.index(only)]
                screen.say("please type a move or one of the choices ('help' explains)")
                continue
            try:
                move = steps.take(text)
            except InvalidChoice as error:
                screen.say(self._refusal(text, steps, error))
                continue
            if move is not None:
                return legal[names.index(move)]

    def _pass_to(self, player: int) -> bool:
        """The hot-seat gate: hide the last person's view, then wait until ``player`` presses
        Enter; False when the input ends or they quit."""
        self.screen.clear()
        return self._read(f"pass to player_{player}, press Enter ") is not None

    def _read(self, prompt: str) -> str | None:
        """The line typed after ``prompt``, stripped; None when the input ends or the person quits."""
        self.screen.say(prompt, end="")
        line = self.stdin.readline()
        if not line:
            self.screen.say("\nend of input: game abandoned")
            return None
        text = line.strip()
        if text.lower() in QUIT:
            self.screen.say("game abandoned")
            return None
        return text

    def _command(self, word: str, player: int, steps: MoveSteps) -> Callable[[], None] | None:
        say = self.screen.say
        if word in HELP:
            return lambda: say(help_text(steps, self.screen.width))
        if word in MOVES:
            return lambda: say(_columns(steps.candidates(), self.screen.width))
        if word in BACK:
            return lambda: None if steps.back() else say("nothing to take back: no part of the move chosen yet")
        if word in BOARD:
            return lambda: self.screen.board(self.state.render_text(viewer=player))
        if word in RULES:
            return lambda: say(reflow(rules_summary(self.env_id), self.screen.width))
        return None

    def _choice_lines(self, player: int, steps: MoveSteps) -> list[str]:
        """The choices offered now, wrapped between choices to the screen's width."""
        only = steps.done()
        if only is not None:
            return [f"player_{player}, your only move: {only} (press Enter)"]
        options = steps.options()
        shown = [f"{i + 1}) {o}" for i, o in enumerate(options)] if steps.numbered() else options
        so_far = f": {steps.pending()}  " if steps.chosen else f" ({len(steps.candidates())} legal moves),"
        return wrap_items(f"player_{player} to move{so_far} choose:", shown, self.screen.width)

    def _refusal(self, text: str, steps: MoveSteps, error: InvalidChoice) -> str:
        try:
            self.state.string_to_action(text)  # a move of the game, only not legal now
        except IllegalActionError:
            if str(error).startswith("no choice number"):
                return str(error)
            return f"{text!r} is not a move of {self.env_id} nor a choice here; {_what_to_type(steps)}"
        return f"{text!r} is not legal now; {_what_to_type(steps)}"


def _what_to_type(steps: MoveSteps) -> str:
    return (f"type one of {', '.join(steps.options())}, a whole move such as {steps.candidates()[0]!r}, "
            "or 'help'")


def help_text(steps: MoveSteps, width: int = 80) -> str:
    """How to type a move, and the commands, wrapped to ``width``."""
    intro = (f"Type a move in the game's notation (e.g. {steps.candidates()[0]}), or build it step by step: "
             "type one of the choices shown after the move so far, or its number when the choices are "
             "numbered; the parts every legal move shares are filled in for you. Commands:")
    return "\n".join(textwrap.wrap(intro, max(MIN_WIDTH, width), break_on_hyphens=False) + [
        "  moves   list the legal moves that fit the choices made so far",
        "  back    take back the last choice",
        "  board   show the board again",
        "  rules   a short summary of the rules",
        "  help    this text",
        "  quit    abandon the game",
    ])


def _grouped(texts: list[str]) -> str:
    """Chance events as one line: repeats counted, hidden ones (``?``) only counted."""
    counts = Counter(texts)
    shown = [text if counts[text] == 1 else f"{text} x{counts[text]}" for text in dict.fromkeys(texts) if "?" not in text]
    hidden = sum(n for text, n in counts.items() if "?" in text)
    if hidden:
        shown.append(f"{hidden} hidden")
    return ", ".join(shown)


def fit(line: str, width: int) -> list[str]:
    """``line`` wrapped at word boundaries to ``width`` columns; continuation lines are indented
    two more than the line (a word longer than a whole line is cut as a last resort)."""
    if len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip())][:width // 2] + "  "
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [line]


def wrap_items(head: str, items: Sequence[str], width: int, indent: str = "    ") -> list[str]:
    """``head`` followed by ``items`` separated by spaces, in lines of at most ``width`` columns
    broken only between items (a choice ``3) CB`` is never split)."""
    lines, line = [], head
    for item in items:
        if len(line) + 1 + len(item) > width and line.strip():
            lines.append(line)
            line = indent + item
        else:
            line += " " + item
    return lines + [line]


def reflow(text: str, width: int) -> str:
    """Text of ``- `` items whose continuation lines are indented (a rules summary), refilled to
    ``width`` with the same hanging indent."""
    blocks: list[str] = []
    for line in text.splitlines():
        if blocks and blocks[-1].strip() and line.strip() and not line.lstrip().startswith("- "):
            blocks[-1] += " " + line.strip()
        else:
            blocks.append(line)
    lines: list[str] = []
    for block in blocks:
        hang = "  " if block.lstrip().startswith("- ") else ""
        lines += textwrap.wrap(block, width, subsequent_indent=hang, break_on_hyphens=False) or [""]
    return "\n".join(lines)


def _columns(names: list[str], width: int = 80) -> str:
    column = max(len(name) for name in names) + 2
    per_line = max(1, width // column)
    return "\n".join("".join(name.ljust(column) for name in names[i:i + per_line]).rstrip()
                     for i in range(0, len(names), per_line))


def _is_terminal(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", None) and stream.isatty())


def play(env_id: str, seats: str | Sequence[str] | None = None, **options: Any) -> int:
    """Play one game in the terminal (see ``Session`` for the options); the exit code."""
    return Session(env_id, seats, **options).run()
