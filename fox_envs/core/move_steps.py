"""Choosing a move part by part, the way the game's notation reads.

A move's notation splits into parts: words, and pieces joined by ``@`` or ``-`` (``CR@c3`` is
``CR`` then ``@c3``; ``b1-g1`` is ``b1`` then ``-g1``; ``put red on 2 as pink`` is six words).
``MoveSteps`` narrows the legal moves one part at a time: parts every remaining move shares are
filled in at once, and the next part where they differ is the choice offered (a place-and-slide
move: the piece type, then the point; a card game's move: the card, then the square, then the
declared colour). The choices are numbered, and a number typed picks one, at every step
whose labels are not numbers themselves. A whole move typed in notation is taken at any step;
so is a start of one (``put red on 2``).
"""
from __future__ import annotations

import re
from typing import Sequence

SEPARATORS = "@-"
_PART = re.compile(r"[@-]?[^\s@-]+|[@-]")


class InvalidChoice(ValueError):
    """Typed text that is neither a choice offered now nor a legal move."""


def move_parts(name: str) -> tuple[str, ...]:
    """The parts of a notation: ``"CR@c3"`` -> ``("CR", "@c3")``."""
    return tuple(_PART.findall(name))


def part_label(part: str) -> str:
    """A part as a choice is shown and typed: without its joining ``@`` / ``-``."""
    return part.lstrip(SEPARATORS) or part


def join_parts(parts: Sequence[str]) -> str:
    """Parts back into notation (words separated by spaces, ``@`` / ``-`` parts glued on)."""
    text = ""
    for part in parts:
        text += part if (part[0] in SEPARATORS or not text) else " " + part
    return text


def _folded(text: str) -> str:
    return " ".join(text.split()).lower()


class MoveSteps:
    """Step-by-step choice among the legal moves ``names`` (their notations)."""

    def __init__(self, names: Sequence[str]) -> None:
        if not names:
            raise ValueError("no legal moves to choose from")
        self.names = list(names)
        self._parts = [move_parts(name) for name in self.names]
        self._folded_names = {_folded(name): name for name in self.names}
        self.chosen: list[str] = []  # the parts fixed so far
        self._marks: list[int] = []  # len(chosen) before each choice, for back()
        self._fill_shared()

    # ----- where the choice stands --------------------------------------------------------------
    def candidates(self) -> list[str]:
        """The legal moves that start with the parts chosen so far."""
        depth = len(self.chosen)
        return [name for name, parts in zip(self.names, self._parts) if list(parts[:depth]) == self.chosen]

    def done(self) -> str | None:
        """The move, once the parts chosen name exactly one."""
        left = self.candidates()
        return left[0] if len(left) == 1 else None

    def options(self) -> list[str]:
        """The next part's possible values (labels, in the order of the legal moves)."""
        depth = len(self.chosen)
        seen: list[str] = []
        for name, parts in zip(self.names, self._parts):
            if list(parts[:depth]) == self.chosen and len(parts) > depth:
                label = part_label(parts[depth])
                if label not in seen:
                    seen.append(label)
        return seen

    def numbered(self) -> bool:
        """Whether the options are offered by number: every list is, long or short, except one
        whose labels are numbers themselves (Outfoxed's squares ``1 2 3``: typing ``2`` is the
        square), so a number typed means the same wherever numbers are shown."""
        return not any(label.isdigit() for label in self.options())

    def pending(self) -> str:
        """The move so far with ``_`` for the part being chosen, e.g. ``put red on _``."""
        depth = len(self.chosen)
        firsts = {parts[depth][0] for parts in self._parts
                  if list(parts[:depth]) == self.chosen and len(parts) > depth}
        glue = ""
        if len(firsts) == 1:
            (first,) = firsts
            glue = first if first in SEPARATORS else ""
        return join_parts(self.chosen + [glue + "_"])

    # ----- acting on typed text -----------------------------------------------------------------
    def back(self) -> bool:
        """Undo the last choice; False when there is none."""
        if not self._marks:
            return False
        del self.chosen[self._marks.pop():]
        self._fill_shared()
        return True

    def take(self, text: str) -> str | None:
        """Apply typed ``text``: a whole legal move (returned), an offered option (by label, or
        by number when numbered) or a start of legal moves. Returns the move once it is
        determined, else None; raises ``InvalidChoice`` saying what may be typed."""
        folded = _folded(text)
        if folded in self._folded_names:
            return self._folded_names[folded]
        options = self.options()
        if folded.isdigit() and self.numbered():
            number = int(folded)
            if not 1 <= number <= len(options):
                raise InvalidChoice(f"no choice number {number}: choose 1..{len(options)}")
            return self._extend([self._next_part(options[number - 1])])
        labels = {label.lower(): label for label in options}
        if folded in labels:
            return self._extend([self._next_part(labels[folded])])
        typed = [part.lower() for part in move_parts(folded)]
        for start in (self.chosen, []):  # continuing the move so far, or a start of a move
            prefix = [part.lower() for part in start] + typed
            for parts in self._parts:
                if [part.lower() for part in parts[:len(prefix)]] == prefix and len(parts) >= len(prefix):
                    return self._extend(list(parts[len(start):len(prefix)]), restart=not start)
        raise InvalidChoice(self.hint(text))

    def hint(self, text: str) -> str:
        """What may be typed instead of ``text``."""
        example = self.candidates()[0]
        return (f"{text.strip()!r} is not a choice here: type one of {', '.join(self.options())}"
                f" (or a whole move, e.g. {example!r})")

    # ----- internals -----------------------------------------------------------------------------
    def _next_part(self, label: str) -> str:
        depth = len(self.chosen)
        for parts in self._parts:
            if list(parts[:depth]) == self.chosen and len(parts) > depth and part_label(parts[depth]) == label:
                return parts[depth]
        raise InvalidChoice(f"no choice {label!r}")  # not reached: labels come from options()

    def _extend(self, parts: list[str], restart: bool = False) -> str | None:
        self._marks.append(0 if restart else len(self.chosen))
        if restart:
            self.chosen = []
        self.chosen.extend(parts)
        self._fill_shared()
        return self.done()

    def _fill_shared(self) -> None:
        """Fill in the parts every remaining move shares (nothing to choose there)."""
        while True:
            depth = len(self.chosen)
            left = [parts for parts in self._parts if list(parts[:depth]) == self.chosen]
            if len(left) < 2 or any(len(parts) <= depth for parts in left):
                return
            if len({parts[depth] for parts in left}) != 1:
                return
            self.chosen.append(left[0][depth])
