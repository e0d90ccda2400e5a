"""Run one lesson as the options say: the TUI, its screenshot, its transcript or the plain mode, on one store.

Both the ``emq-dive`` command and a browser tab's child call it, so neither imports the other.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .present.paths import output_problem
from .views.tui import heap


@dataclass(frozen=True)
class LaunchOptions:
    """What to open and how: the lesson (an id or a ``.toml`` path), the backend, the wire, the step, the mode."""

    lesson: str
    backend: str = "auto"
    wire: int = 4
    step: int = 0
    screenshot: str | None = None
    transcript: str | None = None
    plain: bool = False
    size: tuple[int, int] = (120, 40)
    """The columns and rows of the screenshot."""
    mission: int | None = None
    """The mission (from 1) to open on, in the TUI or the plain mode."""
    ready: Callable[[], None] | None = None
    """Called once the store is open, before the app starts: a warm browser tab waits there for its browser."""


def fail(message: str) -> int:
    """Say ``message`` as one line on stderr; the exit status of a refused run."""
    print(f"emq-dive: {message}", file=sys.stderr)
    return 2


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


def run(options: LaunchOptions) -> int:
    """Open the lesson on the chosen backend and run it in the chosen mode; the exit status."""
    heap.hold_for_start_up()  # the app gives the collector back once its first frame has settled
    try:
        return _run(options)
    finally:
        heap.release()


def _run(args: LaunchOptions) -> int:
    problem = output_problem(args.screenshot) if args.screenshot is not None else None
    if problem:
        return fail(f"--screenshot: {problem}")
    problem = output_problem(args.transcript, "transcript.md") if args.transcript is not None else None
    if problem:
        return fail(f"--transcript: {problem}")
    from .course.lessons import LessonError, find
    try:
        lesson = find(args.lesson)
    except LessonError as err:
        return fail(str(err))
    problem = step_problem(args.step, lesson.id, len(lesson.batch), args.wire)
    if problem:
        return fail(problem)
    if args.mission is not None and not 1 <= args.mission <= len(lesson.missions):
        return fail(f"--mission {args.mission}: {lesson.id} has missions 1 to {len(lesson.missions)}"
                    if lesson.missions else f"--mission: {lesson.id} has no missions")
    from .engine.stores import StoreError, open_store
    for signum in (signal.SIGTERM, signal.SIGHUP):  # a closed terminal ends the run as q does
        signal.signal(signum, _terminate)
    erase = args.backend in ("server", "cluster") and sys.stderr.isatty()  # a terminal gets the line back
    if args.backend in ("server", "cluster"):
        print(f"starting {args.backend}…", file=sys.stderr, end="" if erase else "\n", flush=True)
    try:
        # the embedded Valkey starts on a thread of its own while the app starts; the app shows it starting
        store = open_store(args.backend, background=args.backend in ("auto", "valkey"))
    except StoreError as err:
        return fail(str(err))
    finally:
        print("\r\x1b[2K" if erase else "", end="", file=sys.stderr, flush=True)
    if args.backend == "fakeredis":  # auto falls back to fakeredis on its own, saying why
        store.description += " · chosen with --backend"
    try:
        if args.ready is not None:
            args.ready()
        if args.wire == 6 and step_problem(args.step, lesson.id, len(lesson.batch), 4):
            try:  # such a step exists only when wire 6 is served, which a starting server says once it answers
                store.wait_started()
            except StoreError as err:
                return fail(str(err))
        if args.transcript is not None or args.plain:
            return text_mode(args, lesson, store)
        return _tui(args, lesson, store)
    finally:
        store.close()


def _tui(args: LaunchOptions, lesson: Any, store: Any) -> int:
    """The full-screen app, or its screenshot."""
    from .views.tui.app import make_app, save_screenshot
    # a store without the native twin runs the lesson on wire 4, which has fewer steps
    served = args.wire if args.wire == 4 or store.native else 4
    problem = step_problem(args.step, lesson.id, len(lesson.batch), served)
    if problem:
        if served != args.wire:
            problem += f" (wire {args.wire} is not served here: {store.native_reason})"
        return fail(problem)
    app = make_app(lesson, store, wire=args.wire, step=args.step, mission=args.mission)
    if args.screenshot is not None:
        try:
            asyncio.run(save_screenshot(app, args.screenshot, args.size))
        except OSError as err:
            if err.filename is None:
                raise
            return fail(f"--screenshot: cannot write {args.screenshot}: {err.strerror or err}")
        print(args.screenshot)
        return 0
    _exit_app(app, 128 + signal.SIGTERM)
    app.run()
    return app.return_code or 0


def text_mode(args: Any, lesson: Any, store: Any) -> int:
    """Run the lesson without the full-screen UI: its transcript, or the plain line mode on stdin and stdout."""
    import redis

    from .engine.stores import StoreError
    from .present.session import Session
    from .views.text.recorder import Recorder, record_run
    session = Session(store, lesson, wire=args.wire)
    recorder = Recorder(lesson.heading, lambda: store.description)
    try:
        if args.transcript is not None:
            record_run(session, recorder)
            try:
                recorder.write(args.transcript)
            except OSError as err:
                return fail(f"--transcript: cannot write {args.transcript}: {err.strerror or err}")
            print(args.transcript)
            return 0
        from .views.text.plain.dive import PlainDive, style_for
        dive = PlainDive(session, sys.stdout, style_for(sys.stdout, os.environ), recorder,
                         lambda path: output_problem(path, "transcript.md"), prompt=sys.stdin.isatty())
        return dive.run(iter(sys.stdin.readline, ""), args.step, getattr(args, "mission", None))
    except BrokenPipeError:
        # the reader went away (| head, say): stop quietly; the store still closes on the way out
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (redis.RedisError, StoreError) as err:
        sys.stdout.flush()
        print(f"emq-dive: the store failed: {err}", file=sys.stderr)
        return 1
