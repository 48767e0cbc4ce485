"""The HTTP server of the web app: ``serve(host, port)``, standard library only.

Routes: the pages (``pages.PAGES``), ``/static/<file>`` and the JSON API (``/api/...``). It binds
127.0.0.1 unless told otherwise; when bound to a loopback address it answers only requests whose
``Host`` is a loopback name (a web page elsewhere cannot reach it through DNS rebinding).
"""
from __future__ import annotations

import json
import mimetypes
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr
from fox_envs.ui.web.api import Api
from fox_envs.ui.web.pages import PAGES, page

MAX_BODY = 8 * 1024 * 1024  # bytes of a request body (a game record)
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
}


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def static_file(name: str) -> bytes | None:
    """The bytes of ``static/<name>`` (a plain file name), or ``None``."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    found = resources.files("fox_envs.ui.web").joinpath("static", name)
    return found.read_bytes() if found.is_file() else None


def single_values(text: str) -> dict[str, str]:
    """A query string as ``{key: value}``; a key given twice is a bad request."""
    try:
        pairs = parse_qs(text, keep_blank_values=True, strict_parsing=False, max_num_fields=200)
    except ValueError as error:
        raise BadRequest(400, f"bad query string: {error}") from None
    repeated = sorted(key for key, values in pairs.items() if len(values) > 1)
    if repeated:
        raise BadRequest(400, f"give each query argument once: {', '.join(repeated)}")
    return {key: values[0] for key, values in pairs.items()}


class Handler(BaseHTTPRequestHandler):
    """One request: a page, a static file or an API call."""

    server: WebServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_HEAD(self) -> None:
        self._answer("GET", head=True)

    def _answer(self, method: str, head: bool = False) -> None:
        try:
            status, kind, body = self._route(method)
        except BadRequest as error:
            self.close_connection = True  # its body may be unread
            status, kind, body = error.status, "application/json", _json({"error": str(error)})
        except Exception as error:  # noqa: BLE001  (a fault of the app, not of the request: said, and logged)
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            status, kind, body = 500, "application/json", _json({"error": f"internal error: {type(error).__name__}: {error}"})
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _route(self, method: str) -> tuple[int, str, bytes]:
        self._check_host()
        url = urlsplit(self.path)
        query = single_values(url.query)
        body = self._body() if method == "POST" else b""
        if url.path.startswith("/api/"):
            status, data = self.server.api.handle(method, url.path, query, body)
            return status, "application/json", _json(data)
        if method != "GET":
            raise BadRequest(405, f"{method} is not allowed on {url.path}")
        if url.path in PAGES:
            status, text = page(self.server.api, url.path, query)
            return status, "text/html; charset=utf-8", text.encode("utf-8")
        if url.path.startswith("/static/"):
            data = static_file(url.path[len("/static/"):])
            if data is not None:
                kind = mimetypes.guess_type(url.path)[0] or "application/octet-stream"
                return 200, kind + ("; charset=utf-8" if kind.startswith("text/") or kind.endswith("javascript") else ""), data
        raise BadRequest(404, f"no page {url.path}")

    def _body(self) -> bytes:
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit():
            raise BadRequest(411, "a POST needs a Content-Length")
        if int(length) > MAX_BODY:
            raise BadRequest(413, f"the body is over {MAX_BODY // (1024 * 1024)} MiB")
        return self.rfile.read(int(length))

    def _check_host(self) -> None:
        if not self.server.loopback_only:
            return
        host = self.headers.get("Host") or ""
        name = host.partition("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
        if name not in LOOPBACK:
            raise BadRequest(403, f"this server answers only requests to {self.server.url}")

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)


class WebServer(ThreadingHTTPServer):
    """The app's server: an ``Api`` and where it listens."""

    daemon_threads = True

    def __init__(self, host: str, port: int, api: Api, verbose: bool = False) -> None:
        super().__init__((host, port), Handler)
        self.api, self.verbose = api, verbose
        self.loopback_only = host in LOOPBACK

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host if ':' not in str(host) else f'[{host}]'}:{port}/"


def _json(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")


def make_server(host: str = "127.0.0.1", port: int = 8000, records_dir: str | Path | None = None,
                policy_dir: str | Path | None = None, verbose: bool = False) -> WebServer:
    """The server, bound but not yet serving (``port=0``: a free port, see ``server.url``)."""
    for folder, option in ((records_dir, "--records"), (policy_dir, "--policies")):
        if folder and not Path(folder).is_dir():
            raise InvalidParameterError(f"{option} {short_repr(str(folder))} is not a directory")
    api = Api(records_dir=Path(records_dir) if records_dir else None, policy_dir=Path(policy_dir) if policy_dir else None)
    return WebServer(host, port, api, verbose)


def serve(host: str = "127.0.0.1", port: int = 8000, records_dir: str | Path | None = None,
          policy_dir: str | Path | None = None, verbose: bool = False, open_browser: bool = False) -> int:
    """Serve until interrupted; prints the address first (one line, flushed)."""
    try:
        server = make_server(host, port, records_dir, policy_dir, verbose)
    except OSError as error:
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror or error} (another port: --port N, any free one: --port 0)") from None
    print(f"fox_envs web app on {server.url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0


mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("image/svg+xml", ".svg")
mimetypes.add_type("text/css", ".css")
