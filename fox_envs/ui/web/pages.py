"""The HTML pages: static templates with the session id (or the error) filled in.

``/play`` and ``/watch`` make the game named by their query (``/play?game=xceter_o_v0&seats=human,random``)
and answer the game page holding its session id; ``/replay`` answers the replay page (holding a
replay's session id when ``?file=`` names a file of ``serve --records DIR``). A bad query answers
the same page with status 4xx and the message, which the page shows.
"""
from __future__ import annotations

import html
from collections.abc import Mapping
from importlib import resources

from fox_envs.ui.web.api import REFUSED, Api, error_reply

PAGES = {"/": "index.html", "/play": "game.html", "/watch": "game.html", "/replay": "replay.html"}


def template(name: str) -> str:
    """A page of ``static/``."""
    return resources.files("fox_envs.ui.web").joinpath("static", name).read_text(encoding="utf-8")


def fill(page: str, session: str = "", error: str = "", mode: str = "") -> str:
    """``page`` with its ``{{session}}``, ``{{error}}`` and ``{{mode}}`` slots filled (escaped)."""
    for slot, value in (("session", session), ("error", error), ("mode", mode)):
        page = page.replace("{{" + slot + "}}", html.escape(value, quote=True))
    return page


def page(api: Api, path: str, query: Mapping[str, str]) -> tuple[int, str]:
    """The status and HTML of page ``path`` (one of ``PAGES``)."""
    name = PAGES[path]
    mode = path.strip("/") or "index"
    try:
        if path in ("/play", "/watch"):
            return 200, fill(template(name), session=api.new_game(query), mode=mode)
        if path == "/replay" and query.get("file"):
            return 200, fill(template(name), session=api.open_record_file(query["file"]), mode=mode)
    except REFUSED as error:
        status, body = error_reply(error)
        return status, fill(template(name), error=body["error"], mode=mode)
    return 200, fill(template(name), mode=mode)
