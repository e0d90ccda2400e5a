"""The ``emq-dive`` command: open a lesson, list lessons, print a script, build the module, run the benchmark."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__, launch
from .launch import step_count, step_problem, text_mode
from .present.paths import output_problem
from .views.tui.screens.shot_size import SCREENSHOT_SIZE, screen_size

__all__ = ["main", "output_problem", "run_lesson", "step_count", "step_problem"]
_text_mode = text_mode

COMMANDS = ("list", "script", "native", "bench", "serve", "clean")
USAGE = """\
emq-dive LESSON [--backend auto|valkey|cluster|fakeredis|server|URL] [--wire 4|6] [--step K] [--screenshot FILE.svg]
emq-dive LESSON --screenshot FILE.svg [--size WxH] [...]  write the screen (default 120x40) and exit
emq-dive LESSON --transcript FILE.md [--backend B] [--wire 4|6]   run the batch to the end, write it as Markdown
emq-dive LESSON --plain [--backend B] [--wire 4|6] [--step K]     step it as lines of text, commands from stdin
emq-dive LESSON --mission N [...]  open on mission N (a goal the live store checks)
emq-dive PATH.toml [...]           open a lesson file by its path
emq-dive list                      the course's lessons and yours (the sandbox saves yours)
emq-dive script NAME               print a Lua script (extend_locks, extend_lock)
emq-dive native build              build the EMQ module and print its path
emq-dive bench [--backend B ...]   per-lease cost: one batch vs N singles vs the native twin
emq-dive serve [LESSON] [...]      the dive in a browser, an app per tab (see: emq-dive serve --help)
emq-dive clean --backend URL       delete the dive queues on that server whose owner is gone"""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"emq-dive: {message} (see: emq-dive --help)\n")


def _step_number(text: str) -> int:
    """``--step``'s value: a whole number from 0, the handle."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a step number (0 is the handle)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is below 0; steps count from 0, the handle")
    return value


def _mission_number(text: str) -> int:
    """``--mission``'s value: a mission's number, from 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a mission number (they count from 1)")
    return int(text)


def _lesson_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="emq-dive", usage=USAGE, description="Step an EchoMQ lesson against a live store.")
    parser.add_argument("--version", action="version", version=f"emq-dive {__version__}")
    parser.add_argument("lesson", help="a lesson id, such as batches-03 (see: emq-dive list), or a lesson file's "
                                       "path, such as ./my-dive.toml")
    parser.add_argument("--backend", default="auto",
                        help="auto (the default: the embedded Valkey where it runs with its module, else fakeredis), "
                             "valkey (the embedded Valkey), cluster (three embedded Valkey nodes), fakeredis, "
                             "server (spawn valkey-server or redis-server from PATH), "
                             "or a redis://, rediss:// or unix:// URL")
    parser.add_argument("--wire", type=int, choices=(4, 6), default=4,
                        help="4: EVALSHA the script (default); 6: the native EMQ.EXTENDS")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--screenshot", metavar="FILE.svg", help="write the screen to FILE.svg and exit")
    modes.add_argument("--transcript", metavar="FILE.md",
                       help="run the batch to the end without the full-screen UI and write every step to FILE.md "
                            "as Markdown: the command, each call and reply, each check, now, failed, the writes "
                            "and the agreement check")
    modes.add_argument("--plain", action="store_true",
                       help="step the dive as plain lines of text read from stdin (for screen readers and pipes): "
                            "Enter steps, h lists every command (each TUI move has one), q quits")
    parser.add_argument("--size", type=screen_size, metavar="WxH",
                        help="the columns and rows of the --screenshot, such as 80x24 (default 120x40)")
    parser.add_argument("--mission", type=_mission_number, metavar="N",
                        help="open on mission N of the lesson (M lists them in the app; missions in --plain)")
    parser.add_argument("--step", type=_step_number, default=0, metavar="K",
                        help="open at step K, in the TUI, the screenshot or --plain: 0 is the handle, then one step "
                             "per member (at least one); wire 6 adds the write pass")
    return parser


def _lesson_ids() -> list[str]:
    from .course.lessons import lesson_ids
    return lesson_ids()


def _fail(message: str) -> int:
    print(f"emq-dive: {message}", file=sys.stderr)
    return 2


def run_lesson(argv: Sequence[str]) -> int:
    """Open a lesson in the TUI (or write its screenshot, transcript or plain run) on the chosen backend."""
    args = _lesson_parser().parse_args(argv)
    if args.size is not None and args.screenshot is None:
        return _fail("--size goes with --screenshot (the TUI takes the terminal's own size)")
    if args.mission is not None and args.transcript is not None:
        return _fail("--mission goes with the TUI or --plain, not --transcript")
    from .engine.stores.credentials import BackendProblem, resolve_backend
    try:
        backend = resolve_backend(args.backend, os.environ, warn=_warn)
    except BackendProblem as err:
        return _fail(str(err))
    return launch.run(launch.LaunchOptions(
        lesson=args.lesson, backend=backend, wire=args.wire, step=args.step, screenshot=args.screenshot,
        transcript=args.transcript, plain=args.plain, size=args.size or SCREENSHOT_SIZE, mission=args.mission))


def _warn(message: str) -> None:
    print(f"emq-dive: warning: {message}", file=sys.stderr, flush=True)


def run_command(argv: Sequence[str]) -> int:
    """Run one of the non-lesson commands."""
    command, rest = argv[0], list(argv[1:])
    if command == "list":
        from .course.lesson_list import print_list
        return print_list(rest, sys.stdout)
    if command == "script":
        from .engine.echo_mq import scripts
        names = ("extend_locks", "extend_lock")
        if len(rest) != 1 or rest[0].removesuffix(".lua") not in names:
            return _fail(f"usage: emq-dive script NAME, where NAME is one of: {', '.join(names)}")
        print(scripts.load(rest[0].removesuffix(".lua")).source, end="")
        return 0
    if command == "native":
        if rest != ["build"]:
            return _fail("usage: emq-dive native build")
        from .engine.native.build import build_command
        return build_command()
    if command == "serve":
        from .views.web import serve_command
        return serve_command(rest)
    if command == "clean":
        from .engine.stores.clean import clean_command
        return clean_command(rest)
    from .tools.bench import main as bench_main
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
        from .course.lessons import is_path
        if not argv[0].startswith("-") and not is_path(argv[0]) and argv[0] not in _lesson_ids():
            near = difflib.get_close_matches(argv[0], [*_lesson_ids(), *COMMANDS], n=1, cutoff=0.4)
            hint = f"; did you mean {near[0]!r}?" if near else " (see: emq-dive list)"
            return _fail(f"no lesson or command {argv[0]!r}{hint}")
        return run_lesson(argv)
    except KeyboardInterrupt:
        print("emq-dive: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
