"""The web server: one app process per browser tab, at most ``max_sessions`` at once, each ended when its tab goes."""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import logging
import os
import signal
from asyncio.subprocess import Process
from collections.abc import Callable
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from . import seam
from .child import SERVER_PID
from .page import focused
from .pool import WarmPool
from .relay import InputBudget, hang_up, relay

QUIT_SECONDS = 5.0
"""How long a tab's app has, after the server's quit, to close its store and exit before it gets SIGTERM."""
KILL_SECONDS = 5.0
"""How long it has after SIGTERM before SIGKILL."""
HEARTBEAT_SECONDS = 15.0
"""The websocket ping interval: a tab whose connection dropped without a close is noticed within two of them."""

log = logging.getLogger("emq-dive.serve")


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a name or an address) names this machine's loopback interface only."""
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def page(status: int, title: str, text: str) -> web.Response:
    """A short HTML page that says what happened, with ``status``."""
    body = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head>"
            f"<body style=\"font-family: sans-serif; max-width: 40em; margin: 3em auto\">"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>")
    return web.Response(status=status, text=body, content_type="text/html",
                        headers={"Retry-After": "30"} if status == 503 else None)


class ListenError(RuntimeError):
    """The server could not bind its address; the message says which and why."""


class Tab(AppService):
    """One tab's app process; ``close`` ends it for sure: the web driver's quit, then SIGTERM, then SIGKILL."""

    _closing: asyncio.Future[None] | None = None
    extra_environment: dict[str, str] | None = None
    """What the server adds to the app's environment (the backend, the save policy): never its arguments."""
    pool: WarmPool | None = None
    """Where a warm process comes from; without one (or when it has none to give) the tab starts its own."""

    @property
    def pid(self) -> int | None:
        """The app process's pid, once it started."""
        process = seam.process(self)
        return None if process is None else process.pid

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = seam.base_environment(self, width, height)
        environment.update(self.extra_environment or {})
        environment[SERVER_PID] = str(os.getpid())
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        process = await self.pool.tab(width, height) if self.pool is not None else None
        if process is None:
            return await super()._open_app_process(width, height)
        seam.adopt(self, process)
        return process  # type: ignore[return-value]  # AppService.run reads only its stdout and stderr

    def close(self) -> asyncio.Future[None]:
        """End the app process and wait until it is gone; safe to call again, from any task."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close())
        return self._closing

    async def _close(self) -> None:
        process = seam.process(self)
        stopping = asyncio.ensure_future(self.stop())
        if process is not None:
            for send, seconds in ((None, QUIT_SECONDS), (process.terminate, KILL_SECONDS), (process.kill, None)):
                if send is not None:
                    with contextlib.suppress(ProcessLookupError):
                        send()
                try:
                    await asyncio.wait_for(process.wait(), seconds)
                    break
                except TimeoutError:
                    log.warning("tab app %s did not exit within %.0f s", process.pid, seconds)
        await stopping


class DiveServer(Server):
    """textual-serve's server with a cap on live tabs, a check of who asks, and an end for every tab's process."""

    def __init__(self, command: str, *, host: str, port: int, max_sessions: int, title: str,
                 environment: dict[str, str] | None = None, pool: WarmPool | None = None) -> None:
        super().__init__(command, host=host, port=port, title=title)
        self.max_sessions = max_sessions
        self.environment = dict(environment or {})
        self.pool = pool
        self.tabs: dict[Tab, web.WebSocketResponse] = {}
        self.url = ""

    def pool_environment(self) -> dict[str, str]:
        """The warm pool's parent's environment: a tab's, before its size is known (each tab sets its own)."""
        environment = seam.base_environment(None, 80, 24, self.debug)
        environment.update(self.environment)
        environment[SERVER_PID] = str(os.getpid())
        return environment

    @property
    def full(self) -> bool:
        """Whether every session is taken (a tab still closing holds its session until its process is gone)."""
        return len(self.tabs) >= self.max_sessions

    def busy_text(self) -> str:
        """What a tab refused for want of a session is told."""
        return (f"This emq-dive server runs at most {self.max_sessions} dive(s) at once (--max-sessions), and all "
                f"are in use. Close another tab that runs the dive, then reload this page.")

    def refusal(self, request: web.Request) -> str | None:
        """Why ``request`` may not open a dive here, or None: a loopback server answers only to loopback names
        (no DNS rebinding), and a websocket must come from this server's own page (no other site's page)."""
        host = request.host
        if is_loopback(self.host) and not is_loopback(urlsplit(f"//{host}").hostname):
            return f"this server answers only at a loopback address, not at {host}"
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != host:
            return f"a page from {origin} may not open a dive on this server"
        return None

    async def on_startup(self, app: web.Application) -> None:
        """The serve command prints its own line once the socket is bound."""

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, or a short page that says why not (503 when every session is taken)."""
        problem = self.refusal(request)
        if problem:
            return page(403, "Not served here", problem)
        if self.full:
            return page(503, "All dive sessions are in use", self.busy_text())
        # the page's own links point back at the address the browser used, whatever --host was, and over TLS
        # when the proxy in front says it terminated TLS (a wrong header only breaks the asker's own page)
        forwarded = request.headers.get("X-Forwarded-Proto", "").lower()
        self.public_url = f"{forwarded if forwarded in ('http', 'https') else request.scheme}://{request.host}"
        response: web.StreamResponse = await super().handle_index(request)
        return focused(response)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Start one app process for this tab, relay it, and end it when the tab goes."""
        problem = self.refusal(request)
        if problem:
            raise web.HTTPForbidden(text=problem)
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS, max_msg_size=InputBudget.MAX_FRAME)
        await websocket.prepare(request)
        if self.full:
            await websocket.send_bytes(f"\r\n  {self.busy_text()}\r\n".encode())
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"all sessions are in use")
            return websocket

        async def close() -> None:
            await websocket.close()

        tab = Tab(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str, close=close,
                  download_manager=self.download_manager)
        tab.extra_environment = self.environment
        tab.pool = self.pool
        self.tabs[tab] = websocket
        dropped: str | None = None
        try:
            await tab.start(to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
            dropped = await relay(websocket, tab, InputBudget(asyncio.get_running_loop().time))
        except Exception:
            log.exception("tab app %s", tab.pid)
        finally:
            try:
                await asyncio.shield(tab.close())
            finally:
                self.tabs.pop(tab, None)
        if dropped is not None:
            await hang_up(websocket, dropped)
        return websocket

    async def close_tabs(self) -> None:
        """End every tab's app process, then close the tabs' connections."""
        tabs = list(self.tabs.items())
        await asyncio.gather(*(tab.close() for tab, _ in tabs))
        for _, websocket in tabs:
            await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"the server is stopping")

    async def run(self, ready: Callable[[str], None]) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP, then end every tab; ``ready`` gets the URL once it is bound."""
        runner = web.AppRunner(await seam.make_app(self), access_log=None)
        await runner.setup()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, stop.set)
        try:
            if self.pool is not None and not await self.pool.start(self.pool_environment()):
                self.pool = None
            site = web.TCPSite(runner, self.host, self.port)
            try:
                await site.start()
            except OSError as err:
                raise ListenError(f"cannot listen on {self.host}:{self.port}: {err.strerror or err}") from None
            address = runner.addresses[0]
            host = f"[{address[0]}]" if ":" in address[0] else address[0]
            self.url = f"http://{host}:{address[1]}/"
            ready(self.url)
            await stop.wait()
        finally:
            await self.close_tabs()
            if self.pool is not None:
                await self.pool.close()
            await runner.cleanup()
