"""The default backend: the embedded Valkey where it runs with its module, started behind the app, else fakeredis
saying why; and the header that says which store runs."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import IN_CI
from test_valkey_store import require_wheel
from tui_support import asynctest, frozen_app, lesson, screen_text, settle

from emq_dive import cli
from emq_dive.engine import fates
from emq_dive.engine.echo_mq.connector import error_text
from emq_dive.engine.stores import open_at_exit, open_store, spawned
from emq_dive.views.tui.app import make_app

ROOT = Path(__file__).resolve().parent.parent


def _screen_of(svg: Path) -> str:
    """The text an SVG screenshot shows, spaces as spaces."""
    cells = re.findall(r"<text[^>]*>([^<]*)</text>", svg.read_text())
    return html.unescape("".join(cells)).replace("\xa0", " ")


def _run(tmp_path: Path, path: str, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``emq-dive batches-03 ARGS --screenshot`` with ``PATH`` set to ``path``, a private TMPDIR and module cache."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "screen.svg"
    environ = {k: v for k, v in os.environ.items() if k not in ("EMQ_DIVE_SERVER", "CC")}
    environ.update(PATH=path, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir), XDG_CACHE_HOME=str(tmp_path / "cache"),
                   **env)
    done = subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", *args, "--screenshot", str(out)],
                          cwd=tmp_path, env=environ, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert not list(tmpdir.iterdir()), "the run left its server's work dir behind"
    return done, out


def _compiler_only(tmp_path: Path) -> str:
    """A PATH that holds a C compiler and the tools it calls, and no redis-server or valkey-server."""
    compiler = shutil.which("cc")
    if compiler is None:
        if IN_CI:
            pytest.fail("CI must build the EMQ module, but there is no C compiler")
        pytest.skip("no C compiler to build the EMQ module with")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "cc").symlink_to(compiler)
    # gcc finds its own cc1, as and ld by its install prefix; `as` and `ld` come from binutils on PATH
    for tool in ("as", "ld"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def test_the_default_opens_the_embedded_valkey_with_no_server_on_path(tmp_path: Path) -> None:
    """A fresh machine: no server installed, no module built yet; wire 6 runs the C module in the header's Valkey."""
    require_wheel()
    path = _compiler_only(tmp_path)
    assert not any(shutil.which(name, path=path) for name in ("redis-server", "valkey-server"))
    done, out = _run(tmp_path, path, "--wire", "6", "--step", "5")
    assert done.returncode == 0, done.stderr
    screen = _screen_of(out)
    assert re.search(r"│ valkey 9\.\d+\.\d+ · embedded on 127\.0\.0\.1:\d+", screen), screen[:400]
    # the write pass on wire 6, and the atomic run the server's C module answered, agreeing with it
    assert "6 · EMQ.EXTENDS" in screen and "the write pass: re-score every live member" in screen
    assert "the atomic run agrees" in screen
    assert list((tmp_path / "cache" / "emq-dive").glob("emq-*.so")), "the module was built into the fresh cache"


def test_the_default_falls_back_to_fakeredis_without_a_compiler_and_says_why(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done, out = _run(tmp_path, str(empty))
    assert done.returncode == 0, done.stderr
    assert "│ fakeredis 2." in _screen_of(out) and "· no C compiler for the module" in _screen_of(out)


def test_fakeredis_chosen_on_the_command_line_says_so(tmp_path: Path) -> None:
    done, out = _run(tmp_path, os.environ["PATH"], "--backend", "fakeredis")
    assert done.returncode == 0, done.stderr
    assert "· chosen with --backend" in _screen_of(out)


def test_the_backend_defaults_to_auto() -> None:
    assert cli._lesson_parser().parse_args(["batches-03"]).backend == "auto"


def test_a_narrow_header_keeps_the_store_s_name() -> None:
    @asynctest
    async def check() -> str:
        app = frozen_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            return screen_text(app).splitlines()[0]

    header = check()
    assert "│ embedded fakeredis 2." in header and "│ wire  4 · EVALSHA" in header
    assert header.lstrip().startswith("Batches · dive")


@pytest.mark.server
def test_the_app_shows_the_valkey_starting_then_the_dive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server starts behind the app: the first paint says it is starting, the dive follows once it answers."""
    require_wheel()
    gate = threading.Event()
    launch = spawned.launch

    def held_launch(*args: object, **kwargs: object) -> spawned.Launched:
        gate.wait(30)
        return launch(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(spawned, "launch", held_launch)
    store = open_store("valkey", background=True)
    try:
        assert not store.started and store.description == "starting valkey…" and store.owned

        @asynctest
        async def check() -> tuple[str, str]:
            app = make_app(lesson(), store)
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                before = screen_text(app)
                gate.set()
                await settle(app, pilot)
                return before, screen_text(app)

        before, after = check()
    finally:
        gate.set()
        store.close()
    assert "│ starting valkey…" in before.splitlines()[0] and "reading…" in before
    assert re.search(r"│ valkey 9\.\d+\.\d+ · embedded", after.splitlines()[0]), after.splitlines()[0]
    assert "JOB01" in after and store.pid is not None and not os.path.exists(f"/proc/{store.pid}/cmdline")


@pytest.mark.server
def test_a_server_that_cannot_start_behind_the_app_raises_in_io(monkeypatch: pytest.MonkeyPatch) -> None:
    require_wheel()
    monkeypatch.setenv("EMQ_DIVE_SERVER", "false")  # /bin/false: it exits at once
    store = open_store("valkey", background=True)
    try:
        with pytest.raises(Exception, match="the server exited at start"):
            with store.io():
                pass
    finally:
        store.close()


@pytest.mark.server
def test_the_restricted_fate_runs_on_the_embedded_valkey(embedded_store) -> None:
    """The app started this server itself, so it creates the ACL user: the answers are the server's own."""
    run = fates.run_fate(embedded_store, "restricted")
    verbs = {answer.verb: answer for answer in run.answers}
    assert not any(answer.unavailable for answer in run.answers)
    assert verbs["extend_locks"].value == []
    assert error_text(verbs["EMQ.EXTENDS"].value) == "NOPERM EMQ.EXTENDS may not write a job row"


@pytest.mark.server
def test_the_restricted_fate_creates_no_user_on_a_server_it_did_not_start(embedded_store) -> None:
    password = embedded_store.client.connection_pool.connection_kwargs["password"]
    port = embedded_store.client.connection_pool.connection_kwargs["port"]
    store = open_store(f"redis://:{password}@127.0.0.1:{port}/0")
    try:
        assert not store.owned
        run = fates.run_fate(store, "restricted")
        assert {answer.unavailable for answer in run.answers} == {
            "the app creates ACL users only on a server it started"}
    finally:
        store.close()


def test_no_hashtag_off_a_cluster_says_it_needs_one(fake_store) -> None:
    run = fates.run_fate(fake_store, "no-hashtag")
    assert len(run.answers) == 4
    for answer in run.answers:
        assert "--backend cluster" in answer.unavailable and answer.exchanges == ()


@pytest.mark.server
@pytest.mark.parametrize("started", [False, True], ids=["before the thread starts", "as it starts"])
def test_an_exit_signal_while_the_server_starts_behind_leaves_no_work_dir(
        started: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGTERM (the launcher's SystemExit) cut into the start of the thread that holds the server: the exit
    handlers still stop what began and remove its work dir."""
    require_wheel()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(spawned.tempfile, "tempdir", None)  # re-read TMPDIR
    before = {id(store) for store in open_at_exit()}
    real_start = threading.Thread.start

    def start(self) -> None:
        if started or not self.name.startswith("emq-dive"):
            real_start(self)
        if self.name.startswith("emq-dive"):
            raise SystemExit(143)

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(SystemExit):
        open_store("valkey", background=True)
    monkeypatch.undo()
    cut = [store for store in open_at_exit() if id(store) not in before]
    assert cut, "the store's close is registered to run at exit before its thread starts"
    for store in cut:  # what the exit handler does for it (the others are the session's own, still in use)
        store.close()
    assert not list(tmp_path.glob("emq-dive-*")), "the work dir of a start cut short is removed"
    servers = [pid for pid in os.listdir("/proc") if pid.isdigit()
               and Path(f"/proc/{pid}/cmdline").exists() and str(tmp_path) in _cmdline(pid)]
    assert not servers, "no server of the cut start still runs"


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
