"""``emq-dive serve`` as a learner meets it: keys work as soon as the page has loaded, with no click, on the store the
terminal would run (the embedded Valkey), and its header names that store without ``chosen with --backend``.

Headless system Chromium through Playwright (nothing downloaded); every answer is read from xterm.js's own buffer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import require_embedded_valkey
from serve_support import Screen, browser, poll, served

from emq_dive.engine.fates import FATES
from emq_dive.views.web.page import focused

pytestmark = pytest.mark.browser

INPUT = "xterm-helper-textarea"
"""The class of xterm.js's input element: the one that has the focus when keys reach the terminal."""


@pytest.mark.server
def test_keys_work_with_no_click_on_the_embedded_valkey_and_the_restricted_fate_runs(tmp_path: Path) -> None:
    require_embedded_valkey()
    with served(tmp_path) as server, browser() as chromium:
        assert "(2 warm)" in server.banner
        tab = Screen(chromium, server.url)
        assert tab.open().status == 200
        first = tab.settled("step 0 of 4", "the dive's first screen")
        header = first.splitlines()[0]
        assert "valkey" in header and "embedded" in header, header
        assert "chosen with --backend" not in first, "no flag was given"
        assert INPUT in tab.focused(), "the page gave the terminal the focus without a click"
        tab.press("ArrowRight")
        assert "step 1 of 4" in tab.settled("step 1 of 4", "the step the key asked for")
        tab.press("f")
        tab.settled("restricted", "the fate picker")
        for _ in range([fate.key for fate in FATES].index("restricted")):
            tab.press("ArrowDown")
        tab.press("Enter")
        shown = tab.settled("NOPERM", "the restricted user's answers, from the tab's own Valkey")
        assert "NOPERM EMQ.EXTENDS may not write a job row" in " ".join(shown.split()), shown
        assert "needs a real server" not in shown
        tab.close()
        poll(lambda: not server.tabs(), "the closed tab's app to exit")


def test_fakeredis_asked_for_says_it_was_chosen(tmp_path: Path) -> None:
    with served(tmp_path, "--backend", "fakeredis", "--warm", "0") as server, browser() as chromium:
        assert "(no warm pool)" in server.banner
        tab = Screen(chromium, server.url)
        tab.open()
        first = tab.settled("step 0 of 4", "the dive's first screen")
        assert "fakeredis" in first.splitlines()[0] and "chosen with --backend" in first
        assert INPUT in tab.focused()
        tab.press("ArrowRight")
        tab.settled("step 1 of 4", "the step, in a tab started without the warm pool")
        tab.close()


def test_the_page_focuses_the_terminal_and_links_no_other_host() -> None:
    from aiohttp import web
    page = ('<html><head><link\n      rel="stylesheet"\n      href="https://fonts.googleapis.com/css?family=Roboto%20Mono"'
            '\n    /></head><body><div id="terminal"></div></body></html>')
    text = focused(web.Response(text=page, content_type="text/html")).text or ""
    assert "fonts.googleapis.com" not in text
    assert "xterm-helper-textarea" in text and text.index(".focus(") < text.index("</body>")
