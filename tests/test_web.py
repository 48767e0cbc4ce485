"""The web app's HTTP API and pages (``python -m fox_envs serve``), without a browser.

A server runs in a thread on a free port; games are played through the JSON API by choosing
only labels the view offers, each of which the board's SVG must carry as ``data-action``. The
browser tests are tests/test_web_browser.py.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from html import unescape
from typing import Any

import numpy as np
import pytest

from fox_envs.core.registry import GAMES
from fox_envs.evaluation.records import GameRecord, replay_states
from fox_envs.ui.web.server import make_server

SHORT = 30  # max_moves: every game ends (or is truncated) within a few dozen requests


@pytest.fixture(scope="module")
def url():
    server = make_server(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


def call(url: str, path: str, body: Any = None, headers: dict | None = None) -> tuple[int, Any]:
    """``GET`` (``body`` None) or ``POST`` JSON; the status and the decoded reply."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            status, raw, kind = reply.status, reply.read(), reply.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get("Content-Type", "")
    return status, json.loads(raw) if kind.startswith("application/json") else raw.decode()


def ok(url: str, path: str, body: Any = None) -> dict:
    status, data = call(url, path, body)
    assert status == 200, data
    return data


def labels(svg: str) -> set[str]:
    import re

    return {unescape(label) for label in re.findall(r'data-action="([^"]*)"', svg)}


def play_by_labels(url: str, view: dict, rng: np.random.Generator) -> dict:
    """Play to the end: a random offered label on a person's turn (checking the board carries
    it), an agent's move otherwise."""
    for _ in range(2000):
        if view["over"]:
            return view
        if view["human_to_move"]:
            assert view["options"], view
            assert set(view["options"]) <= labels(view["svg"]), (view["options"], view["status"])
            label = view["options"][int(rng.integers(len(view["options"])))]
            view = ok(url, "/api/choose", {"session": view["session"], "label": label})
        else:
            view = ok(url, "/api/agent_move", {"session": view["session"]})
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("env_id", list(GAMES))
def test_a_whole_game_by_labels_against_an_agent(url, env_id):
    view = ok(url, "/api/new", {"game": env_id, "seats": "human,random", "seed": 3, "max_moves": SHORT})
    assert view["humans"] == [0] and view["viewer"] == 0 and view["svg"].startswith("<svg")
    final = play_by_labels(url, view, np.random.default_rng(0))
    assert final["result"]["code"] and final["viewer"] is None  # the full board at the end
    assert final["status"] and final["result"]["text"].startswith(("result", "truncated"))
    record = GameRecord.from_dict(ok(url, f"/api/record?session={final['session']}"))
    assert len(replay_states(record)) == len(record.history) + 1


def test_people_only_and_take_back(url):
    view = ok(url, "/api/new", {"game": "outfox_v0", "seats": ["human", "human"], "seed": 1})
    first = view["options"][0]
    view = ok(url, "/api/choose", {"session": view["session"], "label": first})
    assert view["pending"] and view["can_go_back"] and view["decisions"] == 0
    view = ok(url, "/api/back", {"session": view["session"]})
    assert not view["pending"] and not view["can_go_back"]
    status, reply = call(url, "/api/back", {"session": view["session"]})
    assert status == 409 and "nothing to take back" in reply["error"]
    final = play_by_labels(url, view, np.random.default_rng(1))
    assert final["over"]


def test_watching_agents_to_the_end(url):
    view = ok(url, "/api/new", {"game": "outfoxed_v0", "seats": "heuristic,random", "params": {"max_rounds": 2}, "seed": 5})
    assert view["humans"] == [] and view["viewer"] is None and view["options"] == []
    while not view["over"]:
        view = ok(url, "/api/agent_move", {"session": view["session"], "viewer": 1})
        assert view["over"] or view["viewer"] == 1
    assert view["result"]["code"]


def test_each_viewer_is_told_only_what_it_may_see(url):
    view = ok(url, "/api/new", {"game": "outfoxed_v0", "seats": "human,human", "seed": 2, "max_moves": 3})
    assert view["hot_seat"] and view["viewer"] == view["to_move"] == 0
    key = view["session"]
    view = ok(url, "/api/choose", {"session": key, "label": view["options"][0], "viewer": 0})  # a hidden card kept
    seen = {v: ok(url, f"/api/state?session={key}&viewer={v}") for v in ("0", "1")}
    told = {v: " ".join(line["text"] for line in seen[v]["log"]) for v in seen}
    assert "?" not in told["0"] and "keep ?" in told["1"] and seen["0"]["svg"] != seen["1"]["svg"]
    for refused in (f"/api/state?session={key}&viewer=all", f"/api/record?session={key}"):  # hidden facts, mid-game
        status, reply = call(url, refused)
        assert status == 403 and "hidden" in reply["error"]
    status, reply = call(url, "/api/choose", {"session": key, "label": view["options"][0], "viewer": "all"})
    assert status == 403
    while not view["over"]:
        view = ok(url, "/api/choose", {"session": key, "label": view["options"][0], "viewer": view["to_move"]})
    assert view["viewer"] is None and ok(url, f"/api/state?session={key}&viewer=all")["over"]
    assert ok(url, f"/api/record?session={key}")["truncated"]


def test_a_replay_steps_back_and_forth_as_any_viewer(url):
    view = ok(url, "/api/new", {"game": "outfoxed_v0", "seats": "random,random", "params": {"max_rounds": 2}, "seed": 4})
    while not view["over"]:
        view = ok(url, "/api/agent_move", {"session": view["session"]})
    record = ok(url, f"/api/record?session={view['session']}")
    first = ok(url, "/api/replay", json.dumps(record).encode())
    key, steps = first["session"], first["steps"]
    assert first["step"] == 0 and steps > 2 and first["result"] is None
    last = ok(url, f"/api/replay?session={key}&step={steps - 1}")
    assert last["result"]["code"] == view["result"]["code"]
    middle = ok(url, f"/api/replay?session={key}&step=1&viewer=0")
    assert middle["viewer"] == 0 and middle["log"]
    wrapped = ok(url, "/api/replay", {"record": record})  # the record inside an object also opens
    assert wrapped["steps"] == steps


BAD_REQUESTS = [
    ("/api/new", {"game": "nope_v0", "seats": "human,random"}, 400, "unknown game"),
    ("/api/new", {"game": "outfox_v0", "params": {"num_players": 9}}, 400, "num_players"),
    ("/api/new", {"game": "xceter_o_v0", "seats": "human,wizard"}, 400, "unknown seat"),
    ("/api/new", {"game": "xceter_o_v0", "seats": "human,os:system"}, 400, "unknown seat"),
    ("/api/new", {"game": "xceter_o_v0", "seats": "human,/etc/passwd.json"}, 400, "unknown seat"),
    ("/api/new", {"game": "xceter_o_v0", "seats": "human"}, 400, "2 seats"),
    ("/api/new", {"game": "xceter_o_v0", "seed": -1}, 400, "bad seed"),
    ("/api/new", {"game": "xceter_o_v0", "max_moves": "x"}, 400, "bad max_moves"),
    ("/api/new", {"game": "xceter_o_v0", "colour": "red"}, 400, "unknown key"),
    ("/api/new", b"{not json", 400, "not valid JSON"),
    ("/api/new", b"[1, 2]", 400, "JSON object"),
    ("/api/choose", {"session": "nope", "label": "a1"}, 404, "no session"),
    ("/api/choose", {"label": "a1"}, 400, "session id"),
    ("/api/replay", b'{"game": "xceter_o_v0", "params": {}, "history": [0, 0]}', 400, "illegal"),
    ("/api/replay", b'{"game": "xceter_o_v0"', 400, "not valid JSON"),
    ("/api/replay", b'{"format": "fox_envs.record/1", "game": "chess_v0", "params": {}, "history": []}', 400, "unknown game"),
    ("/api/replay", b"", 400, "game record"),
    ("/api/replay?session=nope&step=0", None, 404, "no session"),
    ("/api/nothing", None, 404, "no API route"),
    ("/api/new", None, 405, "not allowed"),
    ("/api/state?session=a&session=b", None, 400, "once"),
]


@pytest.mark.parametrize("path, body, status, words", BAD_REQUESTS, ids=[f"{p} {w}" for p, _, _, w in BAD_REQUESTS])
def test_bad_requests_are_4xx_with_a_message(url, path, body, status, words):
    got, reply = call(url, path, body)
    assert got == status and words in reply["error"], reply


def test_moves_out_of_turn_or_illegal_are_refused(url):
    view = ok(url, "/api/new", {"game": "xceter_o_v0", "seats": "human,random", "seed": 0})
    key = view["session"]
    status, reply = call(url, "/api/choose", {"session": key, "label": "z9"})
    assert status == 400 and "not a choice here" in reply["error"]
    status, reply = call(url, "/api/agent_move", {"session": key})
    assert status == 409 and "person" in reply["error"]
    status, reply = call(url, f"/api/state?session={key}&viewer=7")
    assert status == 400 and "bad viewer" in reply["error"]
    status, reply = call(url, f"/api/replay?session={key}&step=0")  # a game's id is no replay's
    assert status == 404
    ok(url, "/api/choose", {"session": key, "label": "b2"})
    status, reply = call(url, "/api/choose", {"session": key, "label": "a1"})  # the agent's turn
    assert status == 409 and "agent" in reply["error"]
    ok(url, "/api/agent_move", {"session": key})
    status, reply = call(url, "/api/choose", {"session": key, "label": "b2"})  # taken
    assert status == 400


def test_pages_open_from_their_url_and_bad_ones_say_why(url):
    status, page = call(url, "/play?game=xceter_o_v0&seats=human,random&seed=2")
    assert status == 200 and 'data-session="' in page and 'data-error=""' in page and 'id="board"' in page
    status, page = call(url, "/play?game=outfox_v0&seats=human,random&num_players=3")
    assert status == 400 and "3 seats" in page
    status, page = call(url, "/watch?game=nope&seats=random,random")
    assert status == 400 and "unknown game" in page
    status, page = call(url, "/replay?file=x.json")
    assert status == 404 and "--records" in page
    for path in ("/", "/replay", "/static/game.js", "/static/style.css"):
        assert call(url, path)[0] == 200
    assert call(url, "/static/../api.py")[0] == 404
    assert call(url, "/static/nothing.js")[0] == 404


def test_only_loopback_host_names_are_answered(url):
    status, reply = call(url, "/api/games", headers={"Host": "evil.example:80"})
    assert status == 403 and "127.0.0.1" in reply["error"]
    assert call(url, "/api/games", headers={"Host": "localhost"})[0] == 200


def test_records_directory_lists_and_opens_files(tmp_path):
    state_view = None
    server = make_server(port=0, records_dir=tmp_path)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = server.url
        state_view = ok(base, "/api/new", {"game": "xceter_o_v0", "seats": "random,random", "seed": 1})
        while not state_view["over"]:
            state_view = ok(base, "/api/agent_move", {"session": state_view["session"]})
        (tmp_path / "game_00000.json").write_text(json.dumps(ok(base, f"/api/record?session={state_view['session']}")))
        (tmp_path / "broken.json").write_text("{")
        assert ok(base, "/api/records")["files"] == ["broken.json", "game_00000.json"]
        status, page = call(base, "/replay?file=game_00000.json")
        assert status == 200 and 'data-error=""' in page
        status, page = call(base, "/replay?file=broken.json")
        assert status == 400 and "not valid JSON" in page
        assert call(base, "/replay?file=../x.json")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_serve_is_a_command_and_fox_envs_does_not_import_the_web_app():
    code = "import sys, fox_envs; assert not any(m.startswith('fox_envs.ui') for m in sys.modules), 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
    shown = subprocess.run([sys.executable, "-m", "fox_envs", "serve", "--help"], capture_output=True, text=True, check=True)
    assert "--host" in shown.stdout and "--port" in shown.stdout


def test_policy_files_only_from_the_policies_directory_and_as_data(tmp_path):
    from fox_envs.agents.registry import save_policy

    save_policy(tmp_path / "learned.json", "fox_envs.agents.learned:make_learned", "outwit_v0")
    save_policy(tmp_path / "code.json", "os:system", "outwit_v0", command="echo hi")
    (tmp_path / "agent.pkl").write_bytes(b"not read")
    server = make_server(port=0, policy_dir=tmp_path)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = server.url
        assert ok(base, "/api/games")["policies"] == ["code.json", "learned.json"]
        view = ok(base, "/api/new", {"game": "outwit_v0", "seats": "learned.json,random", "seed": 0})
        assert view["seats"] == ["learned.json", "random"]
        assert ok(base, "/api/agent_move", {"session": view["session"]})["decisions"] == 1
        for seat, words in (("code.json", "would run code"), ("agent.pkl", "unknown seat"),
                            (str(tmp_path / "learned.json"), "unknown seat"), ("../learned.json", "unknown seat")):
            status, reply = call(base, "/api/new", {"game": "outwit_v0", "seats": f"{seat},random"})
            assert status == 400 and words in reply["error"], (seat, reply)
    finally:
        server.shutdown()
        server.server_close()


def test_the_pages_load_nothing_from_elsewhere():
    from importlib import resources

    static = resources.files("fox_envs.ui.web").joinpath("static")
    for item in static.iterdir():
        text = item.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, item.name


GARBAGE = [None, 0, -1, 1.5, 10**40, "", "x" * 5000, [], {}, [1, "a"], {"a": {"b": []}}, True]


@pytest.mark.parametrize("route", ["/api/new", "/api/choose", "/api/back", "/api/agent_move", "/api/replay"])
def test_garbage_in_any_field_is_a_4xx(url, route):
    live = ok(url, "/api/new", {"game": "outfoxed_v0", "seats": "human,random", "seed": 1})["session"]
    fields = {"/api/new": ["game", "seats", "params", "seed", "max_moves"], "/api/replay": ["game", "params", "history", "moves", "players"]}
    base = {"/api/new": {"game": "outfoxed_v0", "seats": "human,random"},
            "/api/replay": {"game": "xceter_o_v0", "params": {}, "history": [], "moves": [], "players": []}}
    for field in fields.get(route, ["session", "label", "viewer"]):
        for value in GARBAGE:
            body = {**base.get(route, {"session": live, "label": "keep red"}), field: value}
            status, reply = call(url, route, body)
            assert status < 500 and (status == 200 or reply["error"]), (field, value, reply)
    for query in ("session=&viewer=0", f"session={live}&viewer=-1", f"session={live}&viewer=1e9", f"session={live}&viewer=%ff"):
        assert 400 <= call(url, f"/api/state?{query}")[0] < 500
