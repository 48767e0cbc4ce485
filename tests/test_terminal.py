"""Terminal play as a person sees it: every line fits the terminal, choices are numbered
consistently, Outfoxed's board (its key, the whole table at the end), Bye Bye Mr. Fox!'s spinner
marker, the hot-seat gate, watching agents with ``--delay``, ``--version`` and the release files."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import tomllib
from importlib import metadata, resources
from pathlib import Path

import numpy as np
import pytest

import fox_envs
from fox_envs.core.game import sample_chance
from fox_envs.core.registry import make_game, rules_summary
from fox_envs.games.outfoxed.board import MULTISETS
from fox_envs.ui import play as play_module
from fox_envs.ui.cli import main
from fox_envs.core.move_steps import MoveSteps
from fox_envs.ui.play import CLEAR_SCREEN, Session
from test_play import StepwisePerson, play_text

ROOT = Path(__file__).resolve().parents[1]
GATE = re.compile(r"pass to player_(\d), press Enter ")


@pytest.fixture(autouse=True)
def terminal(monkeypatch):
    """A terminal of 80 columns and 24 lines, whatever runs the tests."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")


class CommandsFirst(StepwisePerson):
    """A person who first asks for ``help``, ``rules`` and ``moves``, then plays step by step."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__(out)
        self.commands = ["help", "rules", "moves"]

    def readline(self) -> str:
        if self.commands and self.out.getvalue().endswith("> "):
            return self._answer(self.commands.pop(0))
        return super().readline()


def play_as(person_class, env_id: str, seats: str, seed: int = 1, **options):
    out = io.StringIO()
    person = person_class(out)
    session = Session(env_id, seats, seed=seed, stdin=person, out=out, redraw=False, **options)
    person.session = session
    return session.run(), out.getvalue(), person, session


def choice_lists(out: str) -> list[list[str]]:
    """The choices of every prompt (a wrapped list read back as one)."""
    found = []
    for block in re.findall(r" choose: (.*?)\n(?=\S)", out, re.S):
        found.append(block.split())
    return found


# ----- every line fits the terminal ---------------------------------------------------------------
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_every_line_of_a_whole_game_fits_80_columns(env_id):
    n = make_game(env_id).num_players
    for seats in (",".join(["human"] + ["random"] * (n - 1)), ",".join(["human"] * n)):
        code, out, person, session = play_as(CommandsFirst, env_id, seats)
        assert code == 0 and "\nresult: " in out and not person.commands
        too_long = [line for line in out.splitlines() if len(line) > 80]
        assert not too_long, too_long[:3]
        assert words(rules_summary(env_id)) in words(out)  # wrapped between words, none cut


def test_lines_follow_the_terminals_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    code, out, person, session = play_as(CommandsFirst, "outfox_v0", "human,random", max_moves=6)
    assert max(len(line) for line in out.splitlines()) <= 50
    assert words(rules_summary("outfox_v0")) in words(out)
    pieces = [f"{i}) {piece}" for i, piece in enumerate(["CR", "CY", "CB", "SR", "SY", "SB", "TR", "TY", "TB"], 1)]
    assert "player_0 to move (171 legal moves), choose: 1) CR\n    2) CY" in out  # wrapped between choices
    assert choice_lists(out)[0] == " ".join(pieces).split()


def words(text: str) -> str:
    return " ".join(text.split())


# ----- numbered choices -------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_choices_are_numbered_wherever_their_labels_are_not_numbers(env_id):
    n = make_game(env_id).num_players
    code, out, person, session = play_as(StepwisePerson, env_id, ",".join(["human"] + ["random"] * (n - 1)))
    assert code == 0
    lists = choice_lists(out)
    assert lists
    for items in lists:
        numbers, labels = items[0::2], items[1::2]
        if items[0] == "1)":  # numbered: 1) .. k), each with a label that is not a number
            assert numbers == [f"{i + 1})" for i in range(len(numbers))] and not any(label.isdigit() for label in labels)
        else:  # numbers themselves: Outfoxed's squares
            assert all(item.isdigit() for item in items), items
    assert "is not a choice here" not in out and "no choice number" not in out  # each number typed was taken


def test_outfox_takes_a_number_at_the_point_as_at_the_piece():
    code, out = play_text("outfox_v0", "human,random", "3\n3\n", seed=1)
    assert "player_0 to move: CB@_   choose: 1) a1 2) a2 3) a3" in out
    assert "player_0 plays CB@a3" in out and "is not a choice here" not in out


def test_long_lists_are_numbered_and_number_labels_are_not():
    steps = MoveSteps([f"x{i}" for i in range(20)])
    assert steps.numbered() and steps.take("15") == "x14"
    squares = MoveSteps(["put red on 1 as red", "put red on 2 as red", "put red on 3 as red"])
    assert squares.options() == ["1", "2", "3"] and not squares.numbered()
    assert squares.take("3") == "put red on 3 as red"


# ----- Bye Bye Mr. Fox!: the spinner ---------------------------------------------------------------
@pytest.mark.parametrize("sector", [1, 2, 3, 4, 5])
def test_the_spinner_marker_is_beside_the_nest_circle_the_spin_empties(sector):
    state = make_game("bye_bye_mr_fox_v0").new_initial_state()
    for move in ("flip black", "O2"):
        state.apply_action(state.string_to_action(move))
    before = list(state.circles)
    state.apply_action(state.string_to_action(f"spin {sector}"))
    marked = [line for line in str(state).splitlines() if "<- spinner" in line]
    assert len(marked) == 1
    nest = int(re.search(r" N(\d) ", marked[0])[1])
    assert nest == (sector + 3) % 6 and f"points at O{sector}" in marked[0]
    assert before[nest] == 1 and state.circles[nest] == 0  # the rules took the egg from that nest


# ----- Outfoxed: the key, a compact table, everything at the end ---------------------------------
def outfoxed_states(seed: int, count: int):
    """Random Outfoxed games, most cards put on square 1 (the longest square lines)."""
    game, rng = make_game("outfoxed_v0"), np.random.default_rng(seed)
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            on_one = [a for a in legal if " on 1 " in state.action_to_string(a)]
            pool = on_one if on_one and rng.random() < 0.9 else legal
            state.apply_action(pool[int(rng.integers(len(pool)))])
            yield state


def test_outfoxed_board_lines_are_short_and_keep_every_card_whole():
    longest = 0
    for state in outfoxed_states(seed=0, count=3):
        for viewer in (None, 0, 1):
            text = state.render_text(viewer)
            longest = max(longest, max(len(line) for line in text.splitlines()))
            squares = re.findall(r"square \d: (.*?)\n(?=\S)", text, re.S)
            for cards in squares:
                for card in re.findall(r"\d:(?:\[[^\]]*\]|\S+)", cards):
                    assert re.fullmatch(r"[01]:(\w+(=>\w+)?|\[(\w+|\?) as \w+\])", card), card
    assert 60 < longest <= 78


def test_outfoxed_board_has_a_key_of_its_notation():
    state = next(outfoxed_states(seed=1, count=1))
    for viewer in (None, 0, 1):
        text = state.render_text(viewer)
        assert "key: 0:/1: whose card" in text and "face hidden from you" in text and "=>" in text
        assert text.splitlines()[-1].startswith("next: ")  # the status line stays last


def test_outfoxed_many_forbidden_sets_are_listed_as_the_allowed_ones():
    state = next(outfoxed_states(seed=2, count=1)).clone()
    state.forbidden = list(range(40))
    text = state.render_text(0)
    assert "forbidden scoring sets" not in text
    listed = words(text).split("allowed scoring sets (the other 40 are forbidden): ")[1].split(" key: ")[0]
    assert len(listed.split("; ")) == len(MULTISETS) - 40
    assert max(len(line) for line in text.splitlines()) <= 78


def test_outfoxed_end_shows_the_whole_table_with_its_key():
    """A draw after one round: player_0's own view of the end would still hide player_1's hand."""
    code, out, person, session = play_as(StepwisePerson, "outfoxed_v0", "human,heuristic", seed=2,
                                         params={"max_rounds": 1})
    state = session.state
    assert code == 0 and state.is_terminal()
    assert "player_1 hand: 2 cards  kept: hidden" in state.render_text(0)
    last = "Outfoxed (" + out.split("Outfoxed (")[-1].split("\nresult: ")[0]
    assert last == state.render_text(None) and "player_1 hand: 2 cards" not in last
    assert "key: 0:/1: whose card" in last and last.splitlines()[-1].startswith("game over: draw")
    assert "[? as " in out.split("Outfoxed (")[-2]  # during the game player_0 saw only its own faces


# ----- the hot-seat gate -------------------------------------------------------------------------------
def test_hot_seat_gate_between_two_people_at_outfoxed():
    code, out, person, session = play_as(StepwisePerson, "outfoxed_v0", "human,human", seed=1,
                                         params={"max_rounds": 2})
    assert code == 0
    pieces = GATE.split(out)  # text, seat, text after that gate, seat, ...
    assert len(pieces) > 20
    for before, seat, after in zip(pieces[0::2], pieces[1::2], pieces[2::2]):
        other = 1 - int(seat)
        assert before.endswith("\n" * 24)  # the last view scrolled off by a page of blank lines
        assert f"player_{seat}'s view" in after and f"player_{other}'s view" not in after
        assert f"player_{other} to move" not in after and f"player_{other}> " not in after


def test_the_gate_clears_a_terminal_and_waits_for_enter():
    out = io.StringIO()
    session = Session("outfoxed_v0", "human,human", seed=1, stdin=io.StringIO(""), out=out, redraw=True)
    while session.state.is_chance_node():
        session.state.apply_action(sample_chance(session.state, session.rng))
    player = session.state.current_player()
    session.last_person = 1 - player
    assert session.ask(player) is None
    assert out.getvalue().endswith(f"{CLEAR_SCREEN}pass to player_{player}, press Enter \nend of input: game abandoned\n")
    assert "player_1's view" not in out.getvalue() and "player_0's view" not in out.getvalue()


@pytest.mark.parametrize("env_id,seats", [("xceter_o_v0", "human,human"), ("outfoxed_v0", "human,random")])
def test_no_gate_without_hidden_views_to_keep_apart(env_id, seats):
    code, out, person, session = play_as(StepwisePerson, env_id, seats, params={} if env_id == "xceter_o_v0" else
                                         {"max_rounds": 1})
    assert code == 0 and "pass to player_" not in out


# ----- watching agents: --delay -----------------------------------------------------------------------
def test_delay_shows_agents_moves_one_at_a_time(capsys, monkeypatch):
    shown: list[tuple[float, str]] = []
    monkeypatch.setattr(play_module, "sleep", lambda seconds: shown.append((seconds, capsys.readouterr().out)))
    code = main(["play", "outfox_v0", "--seats", "heuristic,random", "--seed", "3", "--delay", "0.25", "--plain"])
    last = capsys.readouterr().out
    moves = [line for _, out in shown for line in out.splitlines() if " plays " in line]
    assert code == 0 and len(shown) > 5 and all(seconds == 0.25 for seconds, _ in shown)
    for seconds, out in shown:
        assert len(re.findall(r"^player_\d \(\w+\) plays ", out, re.M)) == 1, out  # one move per pause
    for _, out in shown[:-1]:
        board = out.split(" plays ")[1].splitlines()[1:]  # the board after the move
        assert board[0].startswith("a ") and board[-1].startswith("next: player_")
    assert len(moves) == len(shown) and " plays " not in last and "result: " in last


def test_without_delay_agents_play_without_pauses(capsys, monkeypatch):
    monkeypatch.setattr(play_module, "sleep", lambda seconds: pytest.fail("paused without --delay"))
    assert main(["play", "xceter_o_v0", "--seats", "random,random", "--seed", "0"]) == 0
    assert main(["play", "xceter_o_v0", "--seats", "random,random", "--delay", "-1"]) == 2


# ----- version and release files -----------------------------------------------------------------------
def test_version_is_the_installed_packages(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"fox-envs {metadata.version('fox_envs')}\n"
    done = subprocess.run([sys.executable, "-m", "fox_envs", "--version"], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout == f"fox-envs {fox_envs.__version__}\n"


def test_version_falls_back_to_the_module_attribute(capsys, monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"fox-envs {fox_envs.__version__}\n"


def test_the_package_ships_py_typed_and_the_release_files():
    assert resources.files("fox_envs").joinpath("py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["fox_envs"]
    assert project["project"]["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[?([^\]\s]+)\]?", changelog, re.M)
    assert releases[:2] == ["Unreleased", project["project"]["version"]]
