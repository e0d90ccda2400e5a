"""``emq-dive serve``: the dive in a browser, one app process and one store per tab, through textual-serve."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

USAGE = ("emq-dive serve [LESSON] [--port 8000] [--host 127.0.0.1] [--backend auto|valkey|fakeredis|server|URL] "
         "[--wire 4|6] [--max-sessions N] [--warm N] [--allow-save]")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"emq-dive serve: {message} (see: emq-dive serve --help)\n")


def _whole(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``, else ``what`` it should be."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not {what}")
        return value
    return parse


def serve_parser() -> argparse.ArgumentParser:
    """The arguments of ``emq-dive serve``."""
    parser = _Parser(prog="emq-dive serve", usage=USAGE,
                     description="Serve the dive to browsers: each tab runs its own app on its own store.")
    parser.add_argument("lesson", nargs="?", default="batches-03", help="a lesson id (default: batches-03)")
    parser.add_argument("--port", type=_whole(0, 65535, "a TCP port (0 to 65535; 0 picks a free one)"), default=8000,
                        help="the port to listen on (default 8000; 0 picks a free one and prints it)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1, this machine only)")
    parser.add_argument("--backend", default="auto",
                        help="auto (the default, as in the terminal: an embedded Valkey per tab where it runs with "
                             "its module, else fakeredis), valkey, fakeredis (an embedded store per tab), server (a "
                             "spawned server per tab), or a redis://, rediss:// or unix:// URL (a queue of its own "
                             "per tab)")
    parser.add_argument("--wire", type=int, choices=(4, 6), default=4, help="the wire each tab opens on")
    parser.add_argument("--max-sessions", type=_whole(1, 10_000, "at least 1"), default=8, metavar="N",
                        help="how many tabs may run at once (default 8); the next one gets a page saying so")
    parser.add_argument("--warm", type=_whole(0, 64, "from 0 to 64"), default=2, metavar="N",
                        help="spare tab processes kept ready, forked from one parent that imported the app once, "
                             "each with its store open (default 2; 0 starts a fresh process per tab)")
    parser.add_argument("--allow-save", action="store_true",
                        help="let a tab's sandbox save lessons, into a directory of this server's own (printed at "
                             "start); without it a tab writes no file")
    return parser


def tab_command(lesson: str, wire: int) -> str:
    """The shell command that runs one tab's app; ``exec`` makes the app the server's own child.

    The backend is not in it: a URL's password would show in every user's ``ps``; it goes in the environment.
    """
    return "exec " + shlex.join([sys.executable, "-m", "emq_dive.views.web.child", lesson, "--wire", str(wire)])


def _warn(message: str) -> None:
    print(f"emq-dive serve: warning: {message}", file=sys.stderr, flush=True)


def tab_environment(backend: str, allow_save: bool, environ: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """What each tab's app gets in its environment (its backend, where it may save), and a phrase saying so.

    With ``allow_save`` a fresh directory of this server's own is made under the user's data directory.
    """
    from ...course.lessons import user_lessons_dir
    from ...course.user_lessons import SAVE_DIR, SAVE_OFF
    from .child import BACKEND
    environment = {BACKEND: backend}
    if not allow_save:
        environment[SAVE_OFF] = "this server was started without --allow-save, so a browser tab writes no file"
        return environment, "saving lessons is off (--allow-save turns it on)"
    folder = user_lessons_dir().parent / "served" / f"{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir(parents=True, mode=0o700)
    environment[SAVE_DIR] = str(folder)
    return environment, f"tabs save lessons into {folder} only"


def _fail(message: str) -> int:
    print(f"emq-dive serve: {message}", file=sys.stderr)
    return 2


def backend_problem(backend: str) -> str | None:
    """Why a tab could not open a store on ``backend``, found by opening one and closing it, or None."""
    from ...engine.stores import StoreError, open_store
    try:
        open_store(backend).close()
    except StoreError as err:
        return str(err)
    return None


def serve_command(argv: Sequence[str]) -> int:
    """Check the lesson and the backend, then serve until Ctrl+C, SIGTERM or SIGHUP."""
    args = serve_parser().parse_args(argv)
    from ...course.lessons import LessonError, find, is_path
    from ...engine.stores.credentials import BackendProblem, resolve_backend
    from ...engine.stores.masking import masked
    try:
        lesson = find(args.lesson)
        backend = resolve_backend(args.backend, os.environ, warn=_warn)
    except (LessonError, BackendProblem) as err:
        return _fail(str(err))
    problem = backend_problem(backend)
    if problem:
        return _fail(problem)
    from .server import DiveServer, ListenError, is_loopback
    if not is_loopback(args.host):
        _warn(f"{args.host} is not a loopback address; anyone who reaches it can open up to {args.max_sessions} "
              f"dives on the {masked(backend)} backend")
    try:
        environment, saving = tab_environment(backend, args.allow_save, os.environ)
    except OSError as err:
        return _fail(f"--allow-save: cannot make the server's directory for saved lessons: {err.strerror or err}")
    from .pool import WarmPool
    opened = str(lesson.path) if is_path(args.lesson) else lesson.id
    pool = WarmPool(opened, args.wire, args.warm) if args.warm else None
    server = DiveServer(tab_command(opened, args.wire), host=args.host, port=args.port,
                        max_sessions=args.max_sessions, title=f"emq-dive · {lesson.heading}",
                        environment=environment, pool=pool)

    def ready(url: str) -> None:
        warm = f"{args.warm} warm" if server.pool is not None else "no warm pool"
        print(f"emq-dive serve: {lesson.id} at {url} · one app and one store per tab, at most "
              f"{args.max_sessions} at once ({warm}) · {saving} · Ctrl+C stops", flush=True)

    try:
        asyncio.run(server.run(ready))
    except ListenError as err:
        return _fail(str(err))
    return 0
