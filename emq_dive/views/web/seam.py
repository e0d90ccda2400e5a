"""The one place emq-dive leans on textual-serve's private parts; ``moved`` names any that a release took away.

textual-serve has no public hook for a process's pid, its environment or its aiohttp app, so these three are read
here and nowhere else, and a test fails naming the part when the library moves it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from .pool import TabProcess, WarmProcess

USED = {
    "textual_serve.app_service.AppService._process": "the app process (its pid, and the process to end)",
    "textual_serve.app_service.AppService._stdin": "the app process's stdin, set for a process the pool forked",
    "textual_serve.app_service.AppService._build_environment": "the app process's environment, which we extend",
    "textual_serve.app_service.AppService._open_app_process": "overridden: a tab's process comes from the warm pool",
    "textual_serve.server.Server._make_app": "the aiohttp application with textual-serve's routes",
}
"""Each private name used, and what for."""


def process(service: AppService) -> TabProcess | None:
    """The app process ``service`` started (or was given), or None before it started."""
    found: TabProcess | None = service._process
    return found


def adopt(service: AppService, process: WarmProcess) -> None:
    """Make ``process`` (forked by the warm pool) the one ``service`` relays, as if it had started it."""
    service._process = process  # type: ignore[assignment]
    service._stdin = process.stdin


def base_environment(service: AppService | None, width: int, height: int, debug: bool = False) -> dict[str, str]:
    """The environment textual-serve gives an app process of ``width`` × ``height`` (``service`` None: the pool's
    parent's, before any tab)."""
    owner = service if service is not None else SimpleNamespace(debug=debug)
    environment: dict[str, str] = AppService._build_environment(owner, width, height)  # type: ignore[arg-type]
    return environment


async def make_app(server: Server) -> web.Application:
    """textual-serve's aiohttp application for ``server``, routes and all."""
    app: web.Application = await server._make_app()
    return app


def _has(owner: type, name: str, source: Callable[..., object]) -> bool:
    if hasattr(owner, name):
        return True
    # an attribute set in __init__ is found in its source, as ``self.<name>``
    return f"self.{name}" in inspect.getsource(source)


def moved() -> list[str]:
    """The private names above that the installed textual-serve no longer has (empty while it has them all)."""
    owners = {"AppService": AppService, "Server": Server}
    gone = []
    for dotted in USED:
        owner_name, name = dotted.split(".")[-2:]
        owner = owners[owner_name]
        if not _has(owner, name, getattr(owner, "__init__")):  # noqa: B009
            gone.append(dotted)
    return gone
