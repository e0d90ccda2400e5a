"""Relay one tab's browser messages to its app, within a budget: a frame's size and the input rate are capped.

A tab over either cap, or one that sends what is not textual-serve's protocol, is dropped: its app quits and deletes
what it wrote, as when the tab closes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, ClassVar

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService

log = logging.getLogger("emq-dive.serve")


class InputBudget:
    """A token bucket of input bytes: ``BURST`` at once, refilled at ``RATE`` bytes a second on ``clock``."""

    MAX_FRAME: ClassVar[int] = 16 * 1024
    """The largest websocket frame a tab may send (a key press is a few bytes; a paste may be a few KiB)."""
    RATE: ClassVar[int] = 4 * 1024
    """Bytes a second, far above typing (a key is about 20 bytes of JSON) and far below what floods an app."""
    BURST: ClassVar[int] = 16 * 1024

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.left = float(self.BURST)
        self.at = clock()

    def spend(self, size: int) -> bool:
        """Take ``size`` bytes from the bucket; False (taking none) when the tab sends faster than the budget allows."""
        now = self.clock()
        self.left = min(float(self.BURST), self.left + (now - self.at) * self.RATE)
        self.at = now
        if size > self.left:
            return False
        self.left -= size
        return True


def _envelope(data: str) -> list[Any] | None:
    try:
        envelope = json.loads(data)
    except ValueError:
        return None
    return envelope if isinstance(envelope, list) and envelope and isinstance(envelope[0], str) else None


async def hang_up(websocket: web.WebSocketResponse, why: str) -> None:
    """Close a dropped tab's connection saying ``why`` (once its app is ended: the close waits on the peer)."""
    await websocket.close(code=WSCloseCode.POLICY_VIOLATION, message=why.encode()[:120])


def _dropping(why: str) -> str:
    log.warning("dropping a tab: %s", why)
    return why


async def relay(websocket: web.WebSocketResponse, service: AppService, budget: InputBudget) -> str | None:
    """Pass each stdin, resize, ping, blur and focus message to ``service`` until the tab goes (None) or breaks the
    budget or the protocol (why it is dropped)."""
    async for message in websocket:
        if message.type == WSMsgType.ERROR:
            return _dropping(str(websocket.exception() or "its connection failed"))
        if message.type != WSMsgType.TEXT:
            continue
        if not budget.spend(len(message.data)):
            return _dropping(f"input faster than {InputBudget.RATE // 1024} KiB/s")
        envelope = _envelope(message.data)
        if envelope is None:
            return _dropping("a message that is not textual-serve's JSON envelope")
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int) and 1 <= width <= 1000 and 1 <= height <= 1000:
                await service.set_terminal_size(width, height)
        elif kind == "ping":
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()
    return None
