"""Terminal play (``fox_envs.ui.play``), driven by scripted input, and how finished games are shown."""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

import fox_envs
from fox_envs import make
from fox_envs.ui.cli import main
from fox_envs.core import ending
from fox_envs.core.game import sample_chance
from fox_envs.core.registry import make_game
from fox_envs.core.move_steps import MoveSteps, move_parts
from fox_envs.ui.play import Session
from fox_envs.core.registry import rules_summary

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"
# 42 X-Ceter-O moves: six placements, then an 18-ply cycle of jumps twice: the position after
# the placements occurs for the third time (no line is ever formed)
XCETER_O_REPETITION = ("a1 b1 c1 a2 b2 c2 " + "b3 a1 a3 c3 b1 c1 a2 b2 c2 b3 a3 c3 a1 b1 c1 a2 b2 c2 " * 2).split()
OUTWIT_REPETITION = ["f5-g5", "e5-d5", "g5-f5", "d5-e5"] * 2  # the power chips step out and back twice


@pytest.fixture(autouse=True)
def terminal(monkeypatch):
    """A terminal of 80 columns and 24 lines, whatever runs the tests (play wraps to it)."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")


def play_text(env_id: str, seats: str, script: str, **options) -> tuple[int, str]:
    out = io.StringIO()
    code = Session(env_id, seats, stdin=io.StringIO(script), out=out, redraw=False, **options).run()
    return code, out.getvalue()


class StepwisePerson(io.TextIOBase):
    """Stdin of a person who reads the screen: it answers every prompt with the first choice
    offered (its number when the choices are numbered), Enter for an only move or at a hot-seat
    gate, and, when given ``prefer``, types a whole move (notation) whenever one containing that
    text is legal. What it types is echoed on the screen, as a terminal does."""

    def __init__(self, out: io.StringIO, prefer: str | None = None) -> None:
        self.out, self.prefer, self.answers = out, prefer, []
        self.session: Session | None = None

    def readline(self) -> str:
        if self.out.getvalue().endswith("press Enter "):  # a hot-seat gate
            return self._answer("")
        lines = self.out.getvalue()[-3000:].splitlines()  # the latest prompt is near the end
        prompt = [line for line in lines if " choose: " in line or "your only move" in line][-1]
        if self.prefer and self.session is not None:
            state = self.session.state
            wanted = [state.action_to_string(a) for a in state.legal_actions() if self.prefer in state.action_to_string(a)]
            if wanted:
                return self._answer(wanted[0])
        if "your only move" in prompt:
            return self._answer("")
        first = prompt.split(" choose: ", 1)[1].split()[0]
        return self._answer(first[:-1] if first.endswith(")") else first)

    def _answer(self, text: str) -> str:
        self.answers.append(text)
        self.out.write(text + "\n")
        return text + "\n"


def play_stepwise(env_id: str, seats: str, seed: int = 1, prefer: str | None = None, **options):
    out = io.StringIO()
    person = StepwisePerson(out, prefer)
    session = Session(env_id, seats, seed=seed, stdin=person, out=out, redraw=False, **options)
    person.session = session
    return session.run(), out.getvalue(), person, session


# ----- choosing a move ------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_a_person_plays_every_game_to_the_end_step_by_step(env_id):
    n = make_game(env_id).num_players
    code, out, person, session = play_stepwise(env_id, ",".join(["human"] + ["random"] * (n - 1)))
    assert code == 0, out[-2000:]
    assert session.state.is_terminal() or "truncated" in out
    assert "result: player_0 (human)" in out
    human_moves = out.count("player_0 plays ")
    assert human_moves >= 1 and len(person.answers) >= human_moves
    # the board is drawn above every prompt: the status line right before each choice line
    for block in out.split(" choose: ")[:-1]:
        assert "player_0" in block.splitlines()[-1]


def test_outfox_placement_is_chosen_piece_then_point():
    code, out = play_text("outfox_v0", "human,random", "3\nc3\n", seed=1)
    assert "player_0 to move (171 legal moves), choose: 1) CR 2) CY 3) CB" in out
    assert "player_0 to move: CB@_   choose: 1) a1 2) a2 3) a3 4) b1" in out  # the points, numbered too
    assert "player_0 plays CB@c3" in out
    assert code == 1 and "end of input" in out  # the script ends at the next prompt


def test_outfoxed_put_is_chosen_card_then_square_then_declaration():
    out = io.StringIO()
    person = StepwisePerson(out)
    session = Session("outfoxed_v0", "human,random", seed=2, stdin=person, out=out, redraw=False)
    person.session = session
    session.run()
    text = out.getvalue()
    puts = re.findall(r"player_0 plays (put \w+ on \d as \w+)", text)
    assert puts, text[-2000:]
    assert re.search(r"player_0 to move: put \w+ on _\s+choose: 1 2 3", text)  # squares: no numbering
    assert re.search(r"player_0 to move: put \w+ on \d as _\s+choose: 1\) \w+", text)


@pytest.mark.parametrize("env_id,prefer", [("outfoxed_v0", " as yellow"), ("outwit_v0", "-"), ("outfox_v0", "@")])
def test_a_whole_move_typed_in_notation_is_played(env_id, prefer):
    code, out, person, session = play_stepwise(env_id, "human,random", seed=3, prefer=prefer)
    typed = [answer for answer in person.answers if prefer in answer]
    assert typed and all(f"player_0 plays {move}" in out for move in typed[:5])


def test_notation_is_read_whatever_the_case_and_spacing():
    steps = MoveSteps(["put red on 2 as pink", "put red on 3 as pink", "call"])
    assert steps.take("  PUT red  on 2 as Pink ") == "put red on 2 as pink"
    assert MoveSteps(["CR@c3", "CY@c3"]).take("cy@C3") == "CY@c3"
    assert move_parts("CR@c3") == ("CR", "@c3") and move_parts("b1-g1") == ("b1", "-g1")


def test_back_takes_a_choice_back():
    steps = MoveSteps(["put red on 1 as red", "put red on 2 as red", "put white on 1 as red"])
    assert steps.take("red") is None and steps.pending() == "put red on _"
    assert steps.back() and steps.pending() == "put _" and not steps.back()
    assert steps.take("put white") == "put white on 1 as red"  # a start of a move fixing it


def test_bad_input_gets_a_clear_message_and_the_prompt_again():
    script = "zz\n99\n\nb2\n"
    code, out = play_text("xceter_o_v0", "human,random", script, seed=3)
    assert "'zz' is not a move of xceter_o_v0 nor a choice here; type one of a1, b1, c1" in out
    assert "no choice number 99: choose 1..9" in out
    assert "please type a move or one of the choices" in out
    assert out.count("player_0 to move (9 legal moves), choose: 1) a1") == 4  # asked again each time
    assert "player_0 plays b2" in out


def test_a_move_not_legal_now_is_refused():
    code, out = play_text("xceter_o_v0", "human,human", "a1\na1\nb1\n", seed=0)
    assert "player_0 plays a1" in out and "'a1' is not legal now" in out and "player_1 plays b1" in out
    assert code == 1 and "end of input" in out


def words(text: str) -> str:
    """``text`` with its line breaks and runs of spaces as single spaces (wrapping undone)."""
    return " ".join(text.split())


def test_help_lists_commands_and_rules_prints_the_rules():
    code, out = play_text("xceter_o_v0", "human,random", "help\nrules\nmoves\nquit\n", seed=0)
    assert "back    take back the last choice" in out and "rules   a short summary of the rules" in out
    assert words(rules_summary("xceter_o_v0")) in words(out) and "Jump phase" in out
    assert "a1  b1  c1  a2  b2  c2  a3  b3  c3" in out  # moves: every legal move
    assert code == 1 and "game abandoned" in out


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_rules_summary_is_the_in_short_section_of_the_rules_page(env_id):
    page = (DOCS / f"{env_id.removesuffix('_v0')}.md").read_text(encoding="utf-8")
    section = page.split("## In short\n\n", 1)[1].split("\n\n(`rules`", 1)[0]
    assert section == rules_summary(env_id)
    code, out = play_text(env_id, ",".join(["human"] * make_game(env_id).num_players), "rules\n", seed=0)
    assert words(rules_summary(env_id)) in words(out)


# ----- Outfoxed: what a call shows, and only that ------------------------------------------------
def test_outfoxed_call_result_is_shown_to_the_caller():
    code, out, person, session = play_stepwise("outfoxed_v0", "human,heuristic", seed=5, prefer="call")
    calls = re.findall(r"player_0 calls player_1's card on square \d declared \w+: it is \w+, (a lie|the truth)", out)
    assert calls, out[-3000:]
    assert re.search(r"player_\d puts a \w+ chip on player_\d's \w+ card on square \d", out)
    assert "special turn: player_" in out and re.search(r"round \d+ ends: square 1: ", out)
    assert re.search(r"player_1 \(heuristic\) plays put \? on \d as \w+", out)  # faces of its puts hidden
    assert "player_1's hand" not in out and "player_1 hand: " in out  # only a count of its cards


def test_outfoxed_story_never_tells_the_viewer_a_hidden_fact():
    """What the viewer is told is the same in every game it cannot tell from the real one."""
    from fox_envs.agents.registry import make_agent

    game = make_game("outfoxed_v0")
    rng = np.random.default_rng(1)
    full = game.new_initial_state()
    agents = [make_agent("random", "outfoxed_v0", seed=1), make_agent("random", "outfoxed_v0", seed=2)]
    while not full.is_terminal():
        player = full.current_player()
        full.apply_action(sample_chance(full, rng) if player < 0 else agents[player].act(full, player))
    state = game.new_initial_state()
    for action in full.history()[:-1]:  # the last special turn of a game of several rounds
        state.apply_action(action)
    for viewer in (0, 1):
        other = state.sample_determinisation(viewer, np.random.default_rng(viewer))
        assert other.history() != state.history()

        def story(history):
            replay, lines = game.new_initial_state(), []
            for action in history:
                before = replay.clone()
                lines.append(before.action_to_string_for(action, viewer))
                replay.apply_action(action)
                lines += replay.describe_effects(before, viewer)
            return lines

        told = story(state.history())
        assert any(" calls " in line for line in told) and any(line.startswith("round 2 ends") for line in told)
        assert told == story(other.history())


# ----- how a finished game is shown ---------------------------------------------------------------
def last_board_line(out: str) -> str:
    return out.split("\nresult: ")[0].splitlines()[-1]


def test_truncation_at_max_moves_is_said_on_the_last_board(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["play", "xceter_o_v0", "--seats", "random,random", "--seed", "0", "--max-moves", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert last_board_line(out) == "game over: truncated after 3 player moves (max_moves), no result"
    assert "to move" not in out.split("\nresult: ")[0].splitlines()[-1]
    assert "result: player_0 (random) +0, player_1 (random) +0" in out


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_env_text_and_picture_say_truncation_and_illegal_moves(env_id):
    for mode in ("ansi", "rgb_array"):
        env = make(env_id, render_mode=mode, max_moves=2, render_viewer=0)
        env.reset(seed=0)
        normal = env.render()
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
        raw = env.unwrapped
        assert raw.ending == ending.truncated(2)
        shown = env.render()
        if mode == "ansi":
            assert shown.splitlines()[-1] == ending.truncated(2)
            assert shown.splitlines()[:-1] == raw.game_state.render_text(0).splitlines()[:-1]
        else:
            assert shown.shape == normal.shape and not np.array_equal(shown, raw.game_state.render_rgb(0))
    env = make(env_id, render_mode="ansi")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(10_000)  # out of range: the wrapped env ends the game
    assert env.render().splitlines()[-1] == ending.illegal_move(int(offender[-1]))
    env.reset(seed=0)
    assert env.render().splitlines()[-1] != ending.illegal_move(int(offender[-1]))  # a new game


def test_gym_view_says_how_the_episode_ended():
    import gymnasium

    env = gymnasium.make("fox_envs/XCeterO-v0", opponent="random", render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    env.step(4)  # occupied now: the episode ends
    assert env.render().splitlines()[-1] == ending.illegal_move(0)
    env = gymnasium.make("fox_envs/Outwit-v0", opponent="random", render_mode="ansi", max_moves=3)
    _, info = env.reset(seed=0)
    _, _, _, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    _, _, _, truncated, _ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert truncated and env.render().splitlines()[-1] == ending.truncated(3)


@pytest.mark.parametrize("env_id,moves", [("xceter_o_v0", XCETER_O_REPETITION), ("outwit_v0", OUTWIT_REPETITION)])
def test_repetition_is_said_on_the_last_board(env_id, moves):
    code, out = play_text(env_id, "human,human", "\n".join(moves) + "\n", seed=0)
    assert code == 0 and last_board_line(out) == "draw by threefold repetition"
    assert "result: player_0 (human) +0, player_1 (human) +0" in out


def test_a_win_is_said_on_the_last_board():
    code, out = play_text("xceter_o_v0", "human,human", "a1\na2\nb1\nb2\nc1\n", seed=0)
    assert code == 0 and last_board_line(out) == "player_0 wins"
    assert "result: player_0 (human) +1, player_1 (human) -1" in out


def test_a_draw_is_said_on_the_last_board():
    for seed in range(20):  # a round limit of 1: most games end in a draw
        code, out = play_text("outfoxed_v0", "random,random", "", seed=seed, params={"max_rounds": 1})
        if "+0, player_1" in out:
            break
    assert code == 0 and last_board_line(out) == "game over: draw after 1 rounds without a finish"
    assert "round limit (1) reached without a finish: the game is a draw" in out


@pytest.mark.parametrize("env_id", fox_envs.ENV_IDS)
def test_every_finished_game_says_how_it_ended(env_id):
    n = make_game(env_id).num_players
    code, out = play_text(env_id, ",".join(["random"] * n), "", seed=4)
    last = last_board_line(out)
    assert code == 0 and "next" not in last and "to move" not in last
    assert re.search(r"wins|win!|lose|draw|truncated", last), last


def test_replay_of_a_truncated_record_says_so(capsys, tmp_path):
    assert main(["arena", "outwit_v0", "random", "random", "--games", "1", "--max-moves", "4", "--quiet",
                 "--record-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "game_00000.json")]) == 0
    out = capsys.readouterr().out
    assert ending.truncated(4) in out and "result: not finished (truncated at max_moves)" in out


def test_bye_bye_mr_fox_tells_where_the_spun_egg_went():
    game = make_game("bye_bye_mr_fox_v0")
    rng = np.random.default_rng(3)
    told = []
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            action = sample_chance(state, rng) if state.is_chance_node() else legal[rng.integers(len(legal))]
            before = state.clone()
            state.apply_action(action)
            lines = state.describe_effects(before, None)
            told += lines
            for line in lines:
                hen = re.search(r"goes to the (\w+) hen's nest \((\d)/3\)", line)
                if hen:
                    colour = ("black", "brown", "white").index(hen.group(1))
                    assert int(hen.group(2)) == state.nests[colour] == before.nests[colour] + 1
                if "nothing happens" in line:
                    assert state.circles == before.circles and state.nests == before.nests
                if "steals" in line:
                    assert state.discarded[3] == before.discarded[3] + 1
    assert any("steals" in line for line in told) and any("hen's nest" in line for line in told)


def test_people_sharing_the_screen_of_outfoxed_are_told_only_public_facts():
    code, out, person, session = play_stepwise("outfoxed_v0", "human,human", seed=1, prefer="call")
    story = [re.sub(r"^player_\d> ", "", line) for line in out.splitlines()]
    story = [line for line in story if line.startswith(("player_0 plays", "player_1 plays", "chance", "  "))]
    puts = [re.match(r"player_\d plays put (\S+) on \d as (\w+)$", line) for line in story]
    puts = [match for match in puts if match]
    assert puts and all(match[1] in ("?", match[2]) for match in puts)  # faces hidden, but the face-up 9th cards
    assert any(match[1] == "?" for match in puts)
    keeps = [line for line in story if " plays keep " in line]
    assert keeps and all(line.endswith("keep ?") for line in keeps)
    assert not any("'s hand:" in line for line in story) and any(" calls " in line for line in story)
    assert all("deal" not in line or line.endswith("22 hidden") for line in story if line.startswith("chance"))
