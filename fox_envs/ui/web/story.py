"""What each move set off, told to every viewer only as that viewer may see it.

A viewer is ``None`` (everything: a spectator, the end of the game) or a seat. For every action
the story keeps, per viewer, the move as ``State.action_to_string_for`` writes it (hidden parts
as ``?``) and the lines ``State.describe_effects`` adds. A run of chance events is one line
(repeats counted, hidden draws only counted), as in terminal play.
"""
from __future__ import annotations

from typing import TypedDict

from fox_envs.core.game import State
from fox_envs.ui.play import _grouped as grouped  # the terminal's one line for a run of chance events


class Line(TypedDict):
    kind: str  # "move", "chance" or "effect"
    text: str


def told(before: State, action: int, after: State, viewer: int | None) -> tuple[str, list[str]]:
    """``action`` (taken in ``before``, giving ``after``) as ``viewer`` sees it, and its effects."""
    return before.action_to_string_for(action, viewer), after.describe_effects(before, viewer)


class Story:
    """The lines of one game for each viewer (``None`` and every seat)."""

    def __init__(self, num_players: int) -> None:
        self.viewers: list[int | None] = [None, *range(num_players)]
        self._lines: dict[int | None, list[Line]] = {viewer: [] for viewer in self.viewers}
        self._chance: dict[int | None, list[str]] = {viewer: [] for viewer in self.viewers}

    def add(self, before: State, action: int, after: State, who: str | None) -> None:
        """Tell ``action``; ``who`` is the mover's name (``None``: chance)."""
        for viewer in self.viewers:
            text, effects = told(before, action, after, viewer)
            if who is None:
                self._chance[viewer].append(text)
                if effects:
                    self._flush(viewer)
            else:
                self._flush(viewer)
                self._lines[viewer].append(Line(kind="move", text=f"{who} plays {text}"))
            self._lines[viewer].extend(Line(kind="effect", text=line) for line in effects)

    def lines(self, viewer: int | None) -> list[Line]:
        """The story so far as ``viewer`` may see it (a pending run of chance events included)."""
        pending = self._chance[viewer]
        return self._lines[viewer] + ([Line(kind="chance", text="chance: " + grouped(pending))] if pending else [])

    def _flush(self, viewer: int | None) -> None:
        if self._chance[viewer]:
            self._lines[viewer].append(Line(kind="chance", text="chance: " + grouped(self._chance[viewer])))
            self._chance[viewer] = []


def steps_told(states: list[State], history: list[int], start: int, stop: int, viewer: int | None,
               names: list[str]) -> list[Line]:
    """The lines of the actions ``history[start:stop]`` (``states[k]`` is the state before
    action ``k``), as ``viewer`` sees them; ``names[seat]`` names the movers."""
    story = Story(states[0].game.num_players)
    story.viewers = [viewer]
    for index in range(start, stop):
        before, after = states[index], states[index + 1]
        mover = before.current_player()
        story.add(before, history[index], after, None if mover < 0 else names[mover])
    return story.lines(viewer)
