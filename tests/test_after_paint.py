"""The collector's pass after a shown frame: booked by the first paint asked for, one pass, after the latest paint."""

from __future__ import annotations

from typing import Any

from textual.messages import Update

from emq_dive.views.tui import heap
from emq_dive.views.tui.screens import after_paint


class Timer:
    def __init__(self, callback: Any) -> None:
        self.callback, self.stopped = callback, False

    def stop(self) -> None:
        self.stopped = True


class Signal:
    def __init__(self) -> None:
        self.listeners: list[Any] = []

    def subscribe(self, node: object, callback: Any, immediate: bool = False) -> None:
        assert immediate, "the paint is booked as the ask arrives, not a turn later"
        self.listeners.append(callback)


class Screen:
    """What AfterPaint asks of a screen: its messages, a callback after its refresh, and a timer."""

    def __init__(self) -> None:
        self.message_signal = Signal()
        self.after_refresh: list[Any] = []
        self.timers: list[Timer] = []

    def call_after_refresh(self, callback: Any) -> None:
        self.after_refresh.append(callback)

    def set_timer(self, delay: float, callback: Any, name: str) -> Timer:
        assert delay == after_paint.WRITTEN_AFTER
        self.timers.append(Timer(callback))
        return self.timers[-1]

    def ask(self, message: object) -> None:
        for listener in self.message_signal.listeners:
            listener(message)

    def paint(self) -> None:
        callbacks, self.after_refresh = self.after_refresh, []
        for callback in callbacks:
            callback()


def test_one_pass_a_moment_after_the_paint_of_the_latest_frame(monkeypatch: Any) -> None:
    passes: list[int] = []
    monkeypatch.setattr(heap, "tidy", lambda: passes.append(1))
    screen = Screen()
    booked = after_paint.AfterPaint(screen)  # type: ignore[arg-type]
    booked.frame_shown()
    screen.ask(object())
    assert screen.after_refresh == [], "only a pane's ask for a paint books the pass"
    screen.ask(Update(None))  # type: ignore[arg-type]
    screen.ask(Update(None))  # type: ignore[arg-type]
    assert len(screen.after_refresh) == 1, "the first ask books it, once"
    screen.paint()
    first = screen.timers[-1]
    booked.frame_shown()  # the next frame lands before the pass ran: the pass waits for its paint instead
    assert first.stopped and passes == []
    screen.ask(Update(None))  # type: ignore[arg-type]
    booked.frame_shown()  # and a third lands before that paint: both paints come in one
    screen.ask(Update(None))  # type: ignore[arg-type]
    screen.paint()
    (last,) = [timer for timer in screen.timers if not timer.stopped]  # one pass, after the one paint
    last.callback()
    assert passes == [1] and booked.timer is None
