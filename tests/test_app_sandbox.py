"""Pilot tests: the sandbox editor (e), the cost view (c) and the transcript key (x), against the frozen store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from textual.binding import Binding

from emq_dive.course import lessons
from emq_dive.course.sandbox import current_batch
from emq_dive.engine.stepper import Reason
from emq_dive.present.session import Session
from emq_dive.views.text.transcript import default_name
from emq_dive.views.tui.app import make_app
from emq_dive.views.tui.screens.cost import CostView
from emq_dive.views.tui.screens.help import HELP
from emq_dive.views.tui.screens.sandbox import SandboxEditor
from tests.tui_support import (
    SIZE,
    THEME,
    asynctest,
    dive,
    frozen_app,
    frozen_store,
    lesson,
    press,
    record_notices,
    settle,
    shown,
)

ROOT = Path(__file__).resolve().parent.parent


async def submit(app, pilot, field: str, value: str) -> None:
    """Type ``value`` into one of the editor's fields and press Enter."""
    editor = app.screen
    assert isinstance(editor, SandboxEditor)
    box = editor.query_one(f"#sandbox-{field}")
    box.focus()
    box.value = value
    await press(app, pilot, "enter")


def _message(app) -> str:
    return str(app.screen.query_one("#sandbox-message").content)


@asynctest
async def test_the_sandbox_refuses_each_bad_input_and_changes_nothing():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, SandboxEditor)
        before = editor.edited
        assert [m.id for m in before.members] == ["JOB01", "JOB02", "JOB03", "JOB04"]
        await press(app, pilot, "down")  # member 2
        cases = [("id", "JOB 7", "ill-formed"), ("id", "JOB01", "already member 1's"),
                 ("token", "7x", "must be an integer"), ("lease", "1.5", "lease_ms must be an integer"),
                 ("size", "10001", "at most 10,000 members")]
        for field, value, said in cases:
            await submit(app, pilot, field, value)
            assert editor.edited == before, field
            assert "refused, nothing changed" in _message(app) and said in _message(app), (field, _message(app))
            assert editor.query_one("#sandbox-message").has_class("-refused")
        await press(app, pilot, "escape", "escape")  # leave the field, then the editor
        assert app.screen is dive(app)
        assert app.session.held[1][0] == "JOB02" and app.session.lesson.lease_ms == 30000


@asynctest
async def test_an_edited_batch_runs_from_step_0_on_the_live_store():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right", "e")
        editor = app.screen
        await press(app, pilot, "a")  # JOB05, live, after member 1
        await press(app, pilot, "f")  # live → gone
        assert editor.edited.members[1].id == "JOB05" and editor.edited.members[1].fate == "gone"
        await press(app, pilot, "shift+down")  # JOB05 to place 3
        await submit(app, pilot, "id", "ghost-1")
        await press(app, pilot, "up", "up")  # member 1, JOB01 (live)
        await submit(app, pilot, "token", "99")
        await submit(app, pilot, "lease", "45000")
        await press(app, pilot, "r")
        screen = dive(app)
        assert app.screen is screen
        session = screen.session
        assert [job for job, _ in session.held] == ["JOB01", "JOB02", "ghost-1", "JOB03", "JOB04"]
        assert session.held[0][1] == 99 and session.fates[2] == "gone"
        assert session.lesson.lease_ms == 45000 and session.stepper.position == 0
        assert store.client.exists(f"emq:{{{store.queue}}}:job:ghost-1") == 0  # gone: its row was removed
        await press(app, pilot, "end")
        step = screen.step
        assert step.done
        by_id = {m.id: m.reason for m in step.members}
        assert by_id["JOB01"] is Reason.STALE and by_id["ghost-1"] is Reason.GONE and by_id["JOB03"] is None
        assert {"JOB01", "ghost-1"} <= set(step.failed)


def test_an_edited_batch_sets_up_on_each_backend(any_store):
    session = Session(any_store, lesson(), wire=6 if any_store.native else 4)
    with any_store.io():
        session.open(2)
        batch = current_batch(session.lesson, session.held, session.fates)
        batch = batch.add("extra-1", "gone", 1).with_token(0, "41").with_lease("25000").move(3, 0)
        frame = session.restart(batch)
        assert frame.step.index == 0 and [job for job, _ in frame.held] == ["JOB03", "JOB01", "extra-1", "JOB02",
                                                                           "JOB04"]
        frame = session.goto(frame.step.count)
    reasons = {m.id: m.reason for m in frame.step.members}
    assert reasons == {"JOB03": None, "JOB01": Reason.STALE, "extra-1": Reason.GONE, "JOB02": Reason.STALE,
                       "JOB04": Reason.NOT_ACTIVE}
    assert frame.agreement is not None and frame.agreement.agree


@asynctest
async def test_a_saved_lesson_loads_opens_and_is_listed(tmp_path, monkeypatch):
    app = frozen_app()
    mine = tmp_path / "data" / "emq-dive" / "lessons"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "e")
        await submit(app, pilot, "id", "first-job")
        await press(app, pilot, "down", "f")  # JOB02 stale → reaped
        await submit(app, pilot, "lease", "20000")
        await press(app, pilot, "s")
        field = app.screen.query_one("#sandbox-path")
        assert field.value == "sandbox-1", "the sandbox asks for an id, not a path"
        await press(app, pilot, "enter")
        assert "emq-dive sandbox-1" in _message(app) and str(mine / "sandbox-1.toml") in _message(app)
    saved = mine / "sandbox-1.toml"
    lesson = lessons.load_file(saved)
    assert lesson.id == "sandbox-1" and lesson.lease_ms == 20000
    assert [(m.id, m.fate) for m in lesson.members][:2] == [("first-job", "live"), ("JOB02", "reaped")]
    assert [lesson.id for lesson in lessons.list_lessons()] == ["batches-03", "sandbox-1"]
    assert [p.name for p in tmp_path.iterdir()] == ["data"], "nothing is written in the working directory"
    assert not (lessons.lessons_dir() / "sandbox-1.toml").exists(), "nor in the course's lessons"

    opened = make_app(lesson, frozen_store(), theme=THEME)
    async with opened.run_test(size=SIZE) as pilot:
        await settle(opened, pilot)
        await press(opened, pilot, "right", "right")
        assert [job for job, _ in opened.session.held][:2] == ["first-job", "JOB02"]
        assert "first-job" in shown(opened)
        assert dive(opened).step.members[1].reason is Reason.NOT_ACTIVE  # reaped: no longer in active

    # the command line lists it as the user's and opens it by id
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    listed = subprocess.run([sys.executable, "-m", "emq_dive", "list"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60, check=True)
    line = next(line for line in listed.stdout.splitlines() if line.startswith("sandbox-1"))
    assert line.endswith("(yours)") and "batches-03" in listed.stdout
    ran = subprocess.run([sys.executable, "-m", "emq_dive", "sandbox-1", "--transcript", "out.md",
                          "--backend", "fakeredis"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "first-job" in (tmp_path / "out.md").read_text(encoding="utf-8")


@asynctest
async def test_x_writes_the_run_so_far_and_says_where(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = frozen_store()
    app = frozen_app(store)
    notices = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right", "w")
        await press(app, pilot, "escape", "x")
        path = tmp_path / default_name("batches-03", store.queue)
        assert path.is_file()
        text = path.read_text(encoding="utf-8")
        assert "### Step 1 of" in text and "### Step 2 of" in text and "JOB02" in text
        assert "wire 4 (EVALSHA the script)" in text and "wire 6 (the native EMQ.EXTENDS)" in text
        assert "## Both wires from the same start" in text
        assert any(str(path) in said for said in notices)
        path.unlink()
        path.mkdir()  # a directory where the file goes: the OSError is what the learner reads
        await press(app, pilot, "x")
        assert any("cannot write the transcript" in said for said in notices)


@asynctest
async def test_the_cost_view_measures_here_and_leaves_the_dive_as_it_was():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right")
        keys = {key: store.client.dump(key) for key in store.own_keys()}
        frame = dive(app).frame
        await press(app, pilot, "c")
        view = app.screen
        assert isinstance(view, CostView)
        costs = view.costs
        assert costs is not None and tuple(costs.rows) == (1, 100, 1000)
        assert all(value is not None and value > 0 for row in costs.rows.values()
                   for way, value in row.items() if not way.startswith("server"))
        text = shown(app)
        assert store.description in text and "this machine's" in text
        assert f"{costs.rows[100]['batch script']:.2f} µs" in text and "█" in text
        assert {key: store.client.dump(key) for key in store.own_keys()} == keys
        assert [k for k in store.client.scan_iter(match="emq:*") if store.queue.encode() not in k] == []
        await press(app, pilot, "escape")
        assert dive(app).frame is frame and app.session.stepper.position == 2


@asynctest
async def test_each_new_key_has_a_description_and_is_in_the_help_and_the_palette():
    from emq_dive.views.tui.screens.palette import DiveCommands

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        titles = [hit.text async for hit in DiveCommands(app.screen).discover()]
        bindings = {b.key: b for b in dive(app).BINDINGS if isinstance(b, Binding)}
    for key, title in (("e", "Edit the batch"), ("c", "Measure the cost"), ("x", "Write the transcript")):
        assert f"\n| {key} | " in HELP and bindings[key].description and title in titles
