"""The ``emq-dive`` command: open a lesson, list lessons, print a script, build the module, run the benchmark."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import signal
import sys
from typing import Sequence

from . import __version__

COMMANDS = ("list", "script", "native", "bench")
USAGE = """\
emq-dive LESSON [--backend fakeredis|server|URL] [--wire 4|6] [--screenshot FILE.svg [--step K]]
emq-dive list                      the lessons
emq-dive script NAME               print a Lua script (extend_locks, extend_lock)
emq-dive native build              build the EMQ module and print its path
emq-dive bench [--backend B ...]   per-lease cost: one batch vs N singles vs the native twin"""


def _lesson_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="emq-dive", usage=USAGE,
                                     description="Step an EchoMQ lesson against a live store.")
    parser.add_argument("--version", action="version", version=f"emq-dive {__version__}")
    parser.add_argument("lesson", help="a lesson id, such as batches-03 (see: emq-dive list)")
    parser.add_argument("--backend", default="fakeredis",
                        help="fakeredis (embedded, the default), server (spawn valkey-server or redis-server), "
                             "or a redis://, rediss:// or unix:// URL")
    parser.add_argument("--wire", type=int, choices=(4, 6), default=4,
                        help="4: EVALSHA the script (default); 6: the native EMQ.EXTENDS")
    parser.add_argument("--screenshot", metavar="FILE.svg", help="write the screen to FILE.svg and exit")
    parser.add_argument("--step", type=int, default=0, metavar="K", help="with --screenshot: step to K first")
    return parser


def _lesson_ids() -> list[str]:
    from .lessons import list_lessons
    return [lesson.id for lesson in list_lessons()]


def _fail(message: str) -> int:
    print(f"emq-dive: {message}", file=sys.stderr)
    return 2


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _exit_app(app: object, code: int) -> None:
    """Make SIGTERM ask the running app to exit, so it leaves the terminal as it found it."""
    signal.signal(signal.SIGTERM, lambda signum, frame: app.exit(return_code=code))  # type: ignore[attr-defined]


def run_lesson(argv: Sequence[str]) -> int:
    """Open a lesson in the TUI (or write its screenshot) on the chosen backend."""
    args = _lesson_parser().parse_args(argv)
    from .lessons import LessonError, load
    try:
        lesson = load(args.lesson)
    except LessonError as err:
        return _fail(str(err))
    from .stores import StoreError, open_store
    signal.signal(signal.SIGTERM, _terminate)
    if args.backend == "server":
        print("starting server…", file=sys.stderr, flush=True)
    try:
        store = open_store(args.backend)
    except StoreError as err:
        return _fail(str(err))
    try:
        from .app import make_app, save_screenshot
        app = make_app(lesson, store, wire=args.wire, step=args.step)
        if args.screenshot:
            asyncio.run(save_screenshot(app, args.screenshot))
            print(args.screenshot)
            return 0
        _exit_app(app, 128 + signal.SIGTERM)
        app.run()
        return app.return_code or 0
    finally:
        store.close()


def run_command(argv: Sequence[str]) -> int:
    """Run one of the non-lesson commands."""
    command, rest = argv[0], list(argv[1:])
    if command == "list":
        from .lessons import list_lessons
        for lesson in list_lessons():
            print(f"{lesson.id:<12} {lesson.heading}")
        return 0
    if command == "script":
        from .echo_mq import scripts
        names = ("extend_locks", "extend_lock")
        if len(rest) != 1 or rest[0].removesuffix(".lua") not in names:
            return _fail(f"usage: emq-dive script NAME, where NAME is one of: {', '.join(names)}")
        print(scripts.load(rest[0].removesuffix(".lua")).source, end="")
        return 0
    if command == "native":
        if rest != ["build"]:
            return _fail("usage: emq-dive native build")
        from .native.build import build_command
        return build_command()
    from .bench import main as bench_main
    return bench_main(rest)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``emq-dive`` script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        _lesson_parser().print_help()
        return 0
    if argv[0] == "--version":
        print(f"emq-dive {__version__}")
        return 0
    try:
        if argv[0] in COMMANDS:
            return run_command(argv)
        if not argv[0].startswith("-") and argv[0] not in _lesson_ids():
            near = difflib.get_close_matches(argv[0], [*_lesson_ids(), *COMMANDS], n=1, cutoff=0.4)
            hint = f"; did you mean {near[0]!r}?" if near else " (see: emq-dive list)"
            return _fail(f"no lesson or command {argv[0]!r}{hint}")
        return run_lesson(argv)
    except KeyboardInterrupt:
        print("emq-dive: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
