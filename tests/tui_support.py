"""Helpers for the TUI tests: a frozen embedded store, the lesson, and an app that has finished its store moves."""

from __future__ import annotations

from typing import Any

from emq_dive.course.lessons import load
from emq_dive.engine.stores import Store, open_store
from emq_dive.views.tui.app import DiveApp, make_app, wait_ready
from emq_dive.views.tui.screens.dive import DiveScreen

FROZEN = 1_700_000_000.0
NOW_MS = int(FROZEN * 1000)
SIZE = (120, 40)
THEME = "textual-dark"


def frozen_store() -> Store:
    """A fully deterministic embedded store: clock, queue and run_id pinned."""
    return open_store("fakeredis", clock=lambda: FROZEN, queue="dive-snap", run_id="0" * 40)


def lesson() -> Any:
    """The lesson the dive teaches."""
    return load("batches-03")


def frozen_app(store: Store | None = None, **kwargs: Any) -> DiveApp:
    """The dive app on a frozen store with the fixed theme."""
    kwargs.setdefault("theme", THEME)
    return make_app(lesson(), store or frozen_store(), **kwargs)


async def settle(app: DiveApp, pilot: Any) -> None:
    """Wait for every worker and the screen updates they cause."""
    await wait_ready(app, pilot)


async def press(app: DiveApp, pilot: Any, *keys: str) -> None:
    """Press keys one at a time, letting the store move of each finish."""
    for key in keys:
        await pilot.press(key)
        await settle(app, pilot)


def dive(app: DiveApp) -> DiveScreen:
    """The app's main screen."""
    return app.dive


def screen_text(app: DiveApp) -> str:
    """Everything on the active screen as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def asynctest(test: Any) -> Any:
    """Run an async test function to completion on a fresh event loop."""
    import asyncio
    import functools

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(test(*args, **kwargs))

    return run


def showing(widget: Any) -> bool:
    """True when ``widget`` and every widget above it are displayed and visible: what the learner can see."""
    from textual.widget import Widget

    return all(node.display and node.visible for node in (widget, *widget.ancestors) if isinstance(node, Widget))


def shown(app: DiveApp) -> str:
    """The screen's text, plus each visible pane's full text and titles unwrapped, for phrase checks.

    A hidden widget (``display: none``, ``visibility: hidden``, or inside one) says nothing to the learner, so its
    text is left out: a phrase only a hidden widget holds is not on screen.
    """
    from textual.widgets import Static

    parts = [screen_text(app)]
    for widget in app.screen.query("*"):
        if not showing(widget):
            continue
        for title in (widget.border_title, widget.border_subtitle):
            if title:
                parts.append(str(title))
        if isinstance(widget, Static):
            content = widget.content
            parts.append(getattr(content, "plain", str(content)))
        elif hasattr(widget, "full_text"):  # a pane that scrolls: all it holds, unwrapped
            parts.append(widget.full_text())
        elif type(widget).__module__.startswith("emq_dive.views.tui.widgets"):
            rendered = widget.render()
            parts.append(getattr(rendered, "plain", str(rendered)))
    return "\n".join(parts)


def record_notices(app: DiveApp) -> list[str]:
    """A list every message the app notifies from now on is appended to (wrapping the public ``App.notify``)."""
    said: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return said
