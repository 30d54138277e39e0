"""The browser the view and report tests drive: it starts, loads a page from a loopback server
and runs its script (the view and report tests build on this)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

PAGE = b"""<!doctype html><meta charset="utf-8"><title>loopback</title>
<table id="t"><tr><td>a</td></tr></table>
<script>document.getElementById("t").insertRow().insertCell().textContent = "b";</script>"""


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_from_loopback_renders_and_runs_its_script(
    browser: WebDriver, page_url: str, screenshot: Callable[[], Path]
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(page_url)
    cells = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#t td")]
    assert cells == ["a", "b"]
    assert screenshot().stat().st_size > 1000
