"""The web app in a real browser: headless Chromium (Selenium) against ``python -m fox_envs serve``.

Integration tests (``-m integration``, extra ``web``; Debian's ``chromium`` and
``chromium-driver``). Every game is played to its end only by clicking ``[data-action]``
elements inside ``#board`` that the page highlights as legal; then a watched match (pause, step,
speed), a replay stepped back and forth, Outfoxed's hot-seat gate and a malformed record.

``FOX_WEB_SCREENSHOTS=docs/images`` saves each game's page as ``web_<game>.png`` there (a move
half built, its legal targets highlighted).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

webdriver = pytest.importorskip("selenium.webdriver", reason="needs the web extra: pip install 'fox_envs[web]'")
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("needs chromium and chromedriver (apt-get install chromium chromium-driver)", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = os.environ.get("FOX_WEB_SCREENSHOTS")
WAIT = 30.0  # seconds a page may take to settle

# one short game of each (a truncated game still ends with data-result)
GAMES = {
    "xceter_o_v0": "seats=human,random&seed=3",
    "outwit_v0": "seats=human,random&seed=1&max_moves=12",
    "outfox_v0": "seats=human,random&seed=2",
    "bye_bye_mr_fox_v0": "seats=human,human&seed=1",
    "outfoxed_v0": "seats=human,random&seed=1&max_rounds=2&max_moves=24",
}

# what the page shows, read in one call: the hooks the tests wait on
READ = """
const status = document.getElementById('status');
const gate = document.getElementById('gate');
return {busy: document.body.classList.contains('busy'),
        result: status.getAttribute('data-result'), status: status.textContent,
        legal: [...document.querySelectorAll('#board [data-action].legal')].map(e => e.dataset.action),
        actions: document.querySelectorAll('#board [data-action]').length,
        gate: gate ? !gate.hidden : false,
        pending: (document.getElementById('pending') || {}).textContent || '',
        prompt: (document.getElementById('prompt') || {}).textContent || '',
        message: document.getElementById('message').textContent,
        step: (document.getElementById('step-text') || {}).textContent || '',
        log: document.querySelectorAll('#log li').length,
        viewer: document.getElementById('board').dataset.viewer};
"""


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    """Two game records written by ``arena --record-dir``."""
    directory = tmp_path_factory.mktemp("records")
    subprocess.run([sys.executable, "-m", "fox_envs", "arena", "outfoxed_v0", "heuristic", "random", "--games", "2",
                    "--param", "max_rounds=2", "--record-dir", str(directory), "--quiet"],
                   check=True, capture_output=True, cwd=ROOT)
    return directory


@pytest.fixture(scope="module")
def server(records):
    """``python -m fox_envs serve`` on a free port; its base URL."""
    process = subprocess.Popen([sys.executable, "-m", "fox_envs", "serve", "--port", "0", "--records", str(records)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise RuntimeError(f"serve did not start: {line}{process.stderr.read()}")
    yield line.split(" on ", 1)[1].split()[0].rstrip("/")
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1000", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def read(browser) -> dict:
    return browser.execute_script(READ)


def settle(browser, ready=lambda page: True, seconds: float = WAIT, must: bool = True) -> dict:
    """Wait until no request is in flight and ``ready(page)``; the page's hooks (after
    ``seconds``: an error, or with ``must=False`` the page as it is)."""
    deadline = time.monotonic() + seconds
    while True:
        page = read(browser)
        if not page["busy"] and ready(page):
            return page
        if time.monotonic() > deadline:
            if not must:
                return page
            raise AssertionError(f"the page did not settle: {page}")
        time.sleep(0.05)


def fast(browser) -> None:
    """Agents move without a pause (the speed slider at its fastest)."""
    browser.execute_script("const s = document.getElementById('speed'); s.value = s.max;"
                           "s.dispatchEvent(new Event('input'));")


def click_legal(browser, rng: random.Random) -> bool:
    """Click one highlighted ``[data-action]`` part of ``#board``; False when none took the click."""
    parts = browser.find_elements(By.CSS_SELECTOR, "#board [data-action].legal")
    rng.shuffle(parts)
    for part in parts:
        try:
            part.click()
            return True
        except WebDriverException:  # covered by another part, or redrawn meanwhile: try another
            continue
    return False


def waiting_for_player(page: dict) -> bool:
    return bool(page["result"] or page["legal"] or page["gate"] or page["message"])


def play_to_the_end(browser, rng: random.Random, shot: Path | None = None, take_seat: bool = False,
                    one_part: bool = False) -> dict:
    """Click legal parts (and take the seat when the hot-seat gate asks) until ``data-result``;
    ``shot``: a screenshot after a few moves with a move half built (``one_part``: moves are one
    click, no move is ever half built)."""
    shot_taken = False
    for clicks in range(600):
        page = settle(browser, waiting_for_player)
        assert not page["message"], page["message"]
        if page["result"]:
            if shot and not shot_taken:
                browser.save_screenshot(str(shot))
            return page
        if page["gate"]:
            assert take_seat and page["actions"] == 0, page  # nothing of the board shows behind the gate
            browser.find_element(By.ID, "take-seat").click()
            continue
        if shot and not shot_taken and (page["pending"] or one_part) and clicks >= (2 if one_part else 6):
            browser.save_screenshot(str(shot))
            shot_taken = True
        before = page["log"], page["pending"], page["legal"]
        assert click_legal(browser, rng), page
        # the move goes on (a click that landed on no legal part changes nothing: click again)
        settle(browser, lambda now, before=before: (now["log"], now["pending"], now["legal"]) != before
               or bool(now["result"]), seconds=5, must=False)
    raise AssertionError("the game did not end after 600 clicks")


@pytest.mark.parametrize("env_id", list(GAMES))
def test_a_whole_game_by_clicks_on_the_board(server, browser, env_id, tmp_path):
    browser.get(f"{server}/play?game={env_id}&{GAMES[env_id]}")
    fast(browser)
    shot = Path(SCREENSHOTS) / f"web_{env_id.rsplit('_v', 1)[0]}.png" if SCREENSHOTS else tmp_path / "page.png"
    page = play_to_the_end(browser, random.Random(env_id), shot, one_part=env_id == "xceter_o_v0")
    assert page["result"] and page["status"]
    assert page["legal"] == []
    assert browser.find_element(By.CSS_SELECTOR, "#board svg")


def test_watching_a_match_with_pause_step_and_speed(server, browser):
    browser.get(f"{server}/watch?game=outfoxed_v0&seats=heuristic,random&seed=3&max_rounds=2")
    settle(browser, lambda page: page["status"] != "loading...")
    assert browser.find_element(By.ID, "controls").is_displayed()
    browser.find_element(By.ID, "pause").click()
    paused = settle(browser, lambda page: page["prompt"].startswith("paused") and not page["result"])
    time.sleep(1.2)  # paused: no agent moves
    assert read(browser)["log"] == paused["log"]
    browser.find_element(By.ID, "step").click()
    stepped = settle(browser, lambda page: page["log"] > paused["log"])
    assert stepped["log"] > paused["log"] and not stepped["result"]
    viewer = browser.find_element(By.ID, "viewer")
    viewer.find_element(By.CSS_SELECTOR, "option[value='0']").click()  # player_0's view
    settle(browser)
    fast(browser)
    browser.find_element(By.ID, "pause").click()  # resume
    page = settle(browser, lambda page: bool(page["result"]))
    assert page["result"] and page["legal"] == []


def test_a_replay_steps_back_and_forth(server, browser, records):
    browser.get(f"{server}/replay")
    name = min(records.iterdir()).name
    WebDriverWait(browser, WAIT).until(lambda driver: driver.find_elements(By.LINK_TEXT, name))[0].click()  # a record of arena --record-dir, listed by serve --records
    settle(browser, lambda page: page["step"].startswith("step 1 of"))
    browser.find_element(By.ID, "next").click()
    settle(browser, lambda page: page["step"].startswith("step 2 "))
    browser.find_element(By.ID, "next").click()
    settle(browser, lambda page: page["step"].startswith("step 3 "))
    browser.find_element(By.ID, "prev").click()
    settle(browser, lambda page: page["step"].startswith("step 2 "))
    browser.find_element(By.ID, "viewer").find_element(By.CSS_SELECTOR, "option[value='1']").click()
    page = settle(browser, lambda page: page["step"].startswith("step 2 "))
    assert not page["result"] and page["legal"] == []
    browser.find_element(By.ID, "last").click()
    page = settle(browser, lambda page: bool(page["result"]))
    record = json.loads((records / name).read_text())
    assert page["result"] == ",".join(f"{r:+g}" for r in record["returns"])
    browser.find_element(By.ID, "first").click()
    page = settle(browser, lambda page: page["step"].startswith("step 1 "))
    assert not page["result"]


def test_uploading_a_record_opens_it(server, browser, records):
    browser.get(f"{server}/replay")
    path = max(records.iterdir())
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    settle(browser, lambda page: page["step"].startswith("step 1 of"))
    browser.find_element(By.ID, "last").click()
    assert settle(browser, lambda page: bool(page["result"]))["result"]


def test_a_malformed_record_is_refused_with_a_message(server, browser, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "fox_envs.record/1", "game": "outfoxed_v0", "params": {}, "history": [99999]}')
    request = urllib.request.Request(f"{server}/api/replay", data=bad.read_bytes(), method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 400
    browser.get(f"{server}/replay")
    browser.find_element(By.ID, "record-file").send_keys(str(bad))
    page = settle(browser, lambda page: bool(page["message"]))
    assert "illegal" in page["message"] and page["status"] == "could not open the record"
    assert page["actions"] == 0


def test_a_bad_game_url_shows_why(server, browser):
    browser.get(f"{server}/play?game=outfox_v0&seats=human,wizard")
    page = settle(browser, lambda page: bool(page["message"]))
    assert "unknown seat 'wizard'" in page["message"] and page["actions"] == 0


def test_hot_seat_outfoxed_asks_for_the_seat_before_each_view(server, browser):
    browser.get(f"{server}/play?game=outfoxed_v0&seats=human,human&seed=2&max_rounds=2&max_moves=10")
    page = settle(browser, lambda page: page["gate"])
    gate_text = browser.find_element(By.ID, "gate-text").text
    assert "player_0" in gate_text and page["actions"] == 0 and not page["log"]
    browser.find_element(By.ID, "take-seat").click()
    page = settle(browser, lambda page: bool(page["legal"]))
    assert page["viewer"] == "0"
    rng = random.Random(0)
    while not page["gate"]:  # player_0 moves until player_1 is to move
        assert click_legal(browser, rng)
        page = settle(browser, waiting_for_player)
    assert "player_1" in browser.find_element(By.ID, "gate-text").text and page["actions"] == 0
    page = play_to_the_end(browser, rng, take_seat=True)
    assert page["result"] and not page["gate"] and page["viewer"] == "all"  # the end shows the full board


def test_the_menu_starts_a_game_with_its_params(server, browser):
    browser.get(f"{server}/")
    WebDriverWait(browser, WAIT).until(lambda driver: driver.find_elements(By.CSS_SELECTOR, "#game option"))
    browser.find_element(By.CSS_SELECTOR, "#game option[value='outfox_v0']").click()
    players = browser.find_element(By.CSS_SELECTOR, "#params input[name='num_players']")
    players.send_keys("3")
    browser.find_element(By.ID, "seed").click()  # the change event: the seats fit the new count
    WebDriverWait(browser, WAIT).until(lambda driver: driver.find_elements(By.ID, "seat-2"))
    for seat in (1, 2):
        field = browser.find_element(By.ID, f"seat-{seat}")
        field.clear()
        field.send_keys("random")
    browser.find_element(By.ID, "play-button").click()
    page = settle(browser, lambda page: bool(page["legal"]))
    assert "num_players=3" in browser.current_url and "seats=human%2Crandom%2Crandom" in browser.current_url
    assert page["viewer"] == "0"
    assert browser.find_element(By.ID, "title").text.count("player_") == 3
