"""The dive's page as textual-serve renders it, changed so keys work at once: the terminal takes the focus on load.

It also drops the page's link to a web font on another host, so a classroom without the internet (or with a slow
one) never waits on it; the terminal falls back to the machine's monospace font.
"""

from __future__ import annotations

import re

from aiohttp import web

FOCUS = """<script>
(() => {
  // keys go to the terminal as soon as it exists, without a click; and again whenever the window comes back
  const focus = () => {
    const area = document.querySelector('#terminal .xterm-helper-textarea');
    if (area && document.activeElement !== area) area.focus({preventScroll: true});
    return area !== null;
  };
  if (!focus()) {
    const watch = new MutationObserver(() => { if (focus()) watch.disconnect(); });
    watch.observe(document.documentElement, {childList: true, subtree: true});
  }
  window.addEventListener('focus', focus);
})();
</script>
"""
"""Focuses xterm.js's input (its helper textarea) once textual.js has made it."""
WEB_FONT = re.compile(r"<link\s[^>]*fonts\.googleapis\.com[^>]*>\s*", re.IGNORECASE)


def focused(response: web.StreamResponse) -> web.StreamResponse:
    """``response`` (the page) with the focus script before ``</body>`` and without the web font's link."""
    if not isinstance(response, web.Response) or response.text is None or "</body>" not in response.text:
        return response
    text = WEB_FONT.sub("", response.text)
    response.text = text.replace("</body>", FOCUS + "</body>", 1)
    return response
