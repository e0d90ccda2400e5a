"""The ``emq-dive`` command: open a lesson, list lessons, print a script, build the module, run the benchmark."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__, heap
from .screens.shot_size import SCREENSHOT_SIZE, screen_size

COMMANDS = ("list", "script", "native", "bench", "serve")
USAGE = """\
emq-dive LESSON [--backend auto|valkey|cluster|fakeredis|server|URL] [--wire 4|6] [--step K] [--screenshot FILE.svg]
emq-dive LESSON --screenshot FILE.svg [--size WxH] [...]  write the screen (default 120x40) and exit
emq-dive LESSON --transcript FILE.md [--backend B] [--wire 4|6]   run the batch to the end, write it as Markdown
emq-dive LESSON --plain [--backend B] [--wire 4|6] [--step K]     step it as lines of text, commands from stdin
emq-dive list                      the lessons
emq-dive script NAME               print a Lua script (extend_locks, extend_lock)
emq-dive native build              build the EMQ module and print its path
emq-dive bench [--backend B ...]   per-lease cost: one batch vs N singles vs the native twin
emq-dive serve [LESSON] [...]      the dive in a browser, an app per tab (see: emq-dive serve --help)"""


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


def _lesson_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="emq-dive", usage=USAGE, description="Step an EchoMQ lesson against a live store.")
    parser.add_argument("--version", action="version", version=f"emq-dive {__version__}")
    parser.add_argument("lesson", help="a lesson id, such as batches-03 (see: emq-dive list)")
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
    parser.add_argument("--step", type=_step_number, default=0, metavar="K",
                        help="open at step K, in the TUI, the screenshot or --plain: 0 is the handle, then one step "
                             "per member (at least one); wire 6 adds the write pass")
    return parser


def _lesson_ids() -> list[str]:
    from .lessons import list_lessons
    return [lesson.id for lesson in list_lessons()]


def _fail(message: str) -> int:
    print(f"emq-dive: {message}", file=sys.stderr)
    return 2


NO_FILES_UNDER = ("/proc", "/sys")
"""Kernel filesystems: a screenshot written there would vanish or be refused."""


def output_problem(path: str, example: str = "screen.svg") -> str | None:
    """Why the file ``path`` cannot be written, or None; checked before the lesson runs."""
    if not path:
        return "the output path is empty"
    target = Path(os.path.abspath(path))
    resolved = target.resolve()
    for root in NO_FILES_UNDER:
        if resolved.is_relative_to(root):
            return f"{path} is under {root}, the kernel's own filesystem; write the file elsewhere"
    if resolved.is_dir():
        return f"{path} is a directory; give a file in it, such as {Path(path) / example}"
    if resolved.exists() and not resolved.is_file():
        return f"{path} exists and is not a regular file"
    parent = resolved.parent
    if not parent.exists():
        return f"there is no directory {target.parent} to write {target.name} in"
    if not parent.is_dir():
        return f"{target.parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {target.parent} (permission denied)"
    try:
        if resolved.exists():
            with open(resolved, "ab"):
                pass
        else:
            handle, probe = tempfile.mkstemp(dir=parent, prefix=".emq-dive-probe-")
            os.close(handle)
            os.unlink(probe)
    except OSError as err:
        return f"cannot write {path}: {err.strerror or err}"
    return None


def step_count(members: int, wire: int) -> int:
    """How many steps follow the handle: one per member (at least one); wire 6 adds its write pass."""
    return max(1, members) if wire == 4 else members + 1


def step_problem(step: int, lesson_id: str, members: int, wire: int) -> str | None:
    """Why ``--step`` is out of range for this batch on this wire, or None."""
    last = step_count(members, wire)
    if step <= last:
        return None
    return f"--step {step} is out of range: {lesson_id} on wire {wire} has steps 0 (the handle) to {last}"


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _exit_app(app: object, code: int) -> None:
    """Make SIGTERM ask the running app to exit, so it leaves the terminal as it found it."""
    signal.signal(signal.SIGTERM, lambda signum, frame: app.exit(return_code=code))  # type: ignore[attr-defined]


def run_lesson(argv: Sequence[str]) -> int:
    """Open a lesson in the TUI (or write its screenshot) on the chosen backend."""
    heap.hold_for_start_up()  # the app gives the collector back once its first frame has settled
    try:
        return _run_lesson(argv)
    finally:
        heap.release()


def _run_lesson(argv: Sequence[str]) -> int:
    args = _lesson_parser().parse_args(argv)
    if args.size is not None and args.screenshot is None:
        return _fail("--size goes with --screenshot (the TUI takes the terminal's own size)")
    problem = output_problem(args.screenshot) if args.screenshot is not None else None
    if problem:
        return _fail(f"--screenshot: {problem}")
    problem = output_problem(args.transcript, "transcript.md") if args.transcript is not None else None
    if problem:
        return _fail(f"--transcript: {problem}")
    from .lessons import LessonError, load
    try:
        lesson = load(args.lesson)
    except LessonError as err:
        return _fail(str(err))
    problem = step_problem(args.step, lesson.id, len(lesson.batch), args.wire)
    if problem:
        return _fail(problem)
    from .stores import StoreError, open_store
    signal.signal(signal.SIGTERM, _terminate)
    if args.backend in ("server", "cluster"):
        print(f"starting {args.backend}…", file=sys.stderr, flush=True)
    try:
        # the embedded Valkey starts on a thread of its own while the app starts; the app shows it starting
        store = open_store(args.backend, background=args.backend in ("auto", "valkey"))
    except StoreError as err:
        return _fail(str(err))
    if args.backend == "fakeredis":
        store.description += " · chosen with --backend"
    try:
        if args.wire == 6 and step_problem(args.step, lesson.id, len(lesson.batch), 4):
            try:  # such a step exists only when wire 6 is served, which a starting server says once it answers
                store.wait_started()
            except StoreError as err:
                return _fail(str(err))
        if args.transcript is not None or args.plain:
            return _text_mode(args, lesson, store)
        from .app import make_app, save_screenshot
        # a store without the native twin runs the lesson on wire 4, which has fewer steps
        served = args.wire if args.wire == 4 or store.native else 4
        problem = step_problem(args.step, lesson.id, len(lesson.batch), served)
        if problem:
            if served != args.wire:
                problem += f" (wire {args.wire} is not served here: {store.native_reason})"
            return _fail(problem)
        app = make_app(lesson, store, wire=args.wire, step=args.step)
        if args.screenshot is not None:
            try:
                asyncio.run(save_screenshot(app, args.screenshot, args.size or SCREENSHOT_SIZE))
            except OSError as err:
                if err.filename is None:
                    raise
                return _fail(f"--screenshot: cannot write {args.screenshot}: {err.strerror or err}")
            print(args.screenshot)
            return 0
        _exit_app(app, 128 + signal.SIGTERM)
        app.run()
        return app.return_code or 0
    finally:
        store.close()


def _text_mode(args: argparse.Namespace, lesson: Any, store: Any) -> int:
    """Run the lesson without the full-screen UI: its transcript, or the plain line mode on stdin and stdout."""
    import redis

    from .session import Session
    from .stores import StoreError
    from .text_modes.transcript import Recorder, record_run
    session = Session(store, lesson, wire=args.wire)
    recorder = Recorder(lesson.heading, lambda: store.description)
    try:
        if args.transcript is not None:
            record_run(session, recorder)
            try:
                recorder.write(args.transcript)
            except OSError as err:
                return _fail(f"--transcript: cannot write {args.transcript}: {err.strerror or err}")
            print(args.transcript)
            return 0
        from .text_modes.plain import PlainDive, style_for
        dive = PlainDive(session, sys.stdout, style_for(sys.stdout, os.environ), recorder,
                         lambda path: output_problem(path, "transcript.md"), prompt=sys.stdin.isatty())
        return dive.run(iter(sys.stdin.readline, ""), args.step)
    except BrokenPipeError:
        # the reader went away (| head, say): stop quietly; the store still closes on the way out
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (redis.RedisError, StoreError) as err:
        sys.stdout.flush()
        print(f"emq-dive: the store failed: {err}", file=sys.stderr)
        return 1


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
    if command == "serve":
        from .web import serve_command
        return serve_command(rest)
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
