"""What a step means, made once by the engine and said alike by every view: singles' raised calls, the what-if's
removed check, the singles agreement, and the undo log's hash fields."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
import redis
from test_drivers import least_privilege  # noqa: F401  (the fixture)
from test_parity import TableApp, _run, _transcript_end
from textual.app import App, ComposeResult
from tui_support import FROZEN, dive, frozen_app, lesson, press, settle

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import keyspace, native
from emq_dive.engine.stepper import REMOVED, Raised, Stepper, Verdict
from emq_dive.engine.stepper.hosts import RUN_ID_LEARNED, probe_refused
from emq_dive.engine.stores import open_store
from emq_dive.present.session import Frame, Session
from emq_dive.present.step_words import CHECKING
from emq_dive.views.text.plain.dive import NoStyle
from emq_dive.views.text.plain.words import paragraph
from emq_dive.views.text.recorder import Recorder, record_run
from emq_dive.views.tui.screens.store_moves import BIG_MOVE
from emq_dive.views.tui.widgets.batch_table import BatchTable
from emq_dive.views.tui.widgets.mode_notes import notes
from emq_dive.views.tui.widgets.step_bar import StepBar
from emq_dive.views.tui.widgets.wire_pane import WirePane

LEASE = 30_000
CLAIM = 10_000


@pytest.mark.parametrize("wire", [4, 6])
def test_a_wrongtype_single_call_raises_on_its_own_and_the_next_call_runs(wire: int) -> None:
    frames, markdown = _run(("live", "wrongtype", "live"), wire, "singles")
    end = frames[-1]
    wrong = end.step.members[1]
    assert (wrong.verdict, wrong.raised, wrong.error_class) == (Verdict.RAISED, Raised.RESPONSE_ERROR, "WRONGTYPE")
    assert end.step.members[2].verdict is Verdict.RESCORED, "each single call stands alone: the next one ran"
    assert list(end.step.raised) == [1]
    said = [paragraph(frame, NoStyle()) for frame in frames]
    assert not any("the run stops here" in text for text in [*said, markdown])
    assert _transcript_end(markdown)["JOB02"] == "raises ResponseError (WRONGTYPE)"
    assert "Raised calls: [JOB02 ResponseError (WRONGTYPE)]." in said[-1], "singles list the raised calls"
    assert "Failed" not in said[-1], "singles build no failed list"
    raised_line = [line for line, role in notes(end) if line.startswith("raised:")]
    assert raised_line and "JOB02 ResponseError (WRONGTYPE)" in raised_line[0] and "1 of 3 calls" in raised_line[0]

    said_by_bar = bar_text(end)
    assert "raised calls: [JOB02 ResponseError (WRONGTYPE)]" in said_by_bar and "failed" not in said_by_bar


class BarApp(App[None]):
    """The step bar alone."""

    def compose(self) -> ComposeResult:
        yield StepBar()


def bar_text(frame: Frame) -> str:
    """What the step bar alone says for ``frame``, 170 columns wide."""
    async def read() -> str:
        app = BarApp()
        async with app.run_test(size=(170, 20)) as pilot:
            bar = app.query_one(StepBar)
            bar.frame = frame
            await pilot.pause()
            return bar.render().plain
    return asyncio.run(read())


def test_guard_off_says_its_removed_check_was_removed_not_unevaluated() -> None:
    frames, markdown = _run(("live", "reaped", "live"), 4, "guard-off")
    end = frames[-1]
    assert all(member.active == REMOVED for member in end.step.members)
    assert "3. in active? `ZSCORE`: removed (what-if)" in markdown
    assert "in active? `ZSCORE`: not evaluated" not in markdown
    assert "| removed (what-if) |" in markdown
    assert "Active check, ZSCORE: removed (what-if)." in paragraph(frames[1], NoStyle())

    async def read() -> tuple[str, list[str]]:
        app = TableApp()
        async with app.run_test(size=(170, 20)) as pilot:
            table = app.query_one(BatchTable)
            table.frame = end
            await pilot.pause()
            header = table.render_line(0).text
            start = header.index("in active?")
            return str(table.border_title), [table.render_line(y).text[start:start + 13].strip()
                                             for y in range(1, 4)]

    title, active = asyncio.run(read())
    assert "checked in order" not in title and "in active? check is removed" in title
    assert active == ["removed"] * 3


def test_the_singles_agreement_sees_a_store_changed_under_the_stepped_run(fake_store) -> None:
    batch = fates.build_batch(fake_store, ["live", "live", "live"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 4, "singles")
    end = stepper.end()
    assert all(member.verdict is Verdict.RESCORED for member in end.members)
    fake_store.client.delete(keyspace.job_key(fake_store.queue, "JOB02"))  # gone before the unstepped calls run
    agreement = stepper.verify()
    assert not agreement.agree
    assert any(difference.startswith("JOB02: stepped 1") and "EMQGONE" in difference
               for difference in agreement.differences), agreement.differences


@pytest.mark.parametrize("wire", [4, 6])
def test_back_puts_back_a_lease_epoch_the_row_already_had(wire: int) -> None:
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="f" * 40)
    batch = fates.build_batch(store, ["live", "live"], LEASE, CLAIM)
    rows = [keyspace.job_key(store.queue, job) for job, _ in batch.held]
    store.client.hset(rows[0], "lease_epoch", "the-old-epoch")
    before = fates.read_state(store.client, store.queue)
    stepper = Stepper(store, batch.held, LEASE, wire)
    stepper.end()
    if wire == 6:
        assert store.client.hget(rows[0], "lease_epoch") == b"f" * 40, "the write pass stamped a new epoch"
    stepper.home()
    assert store.client.hget(rows[0], "lease_epoch") == b"the-old-epoch"
    assert store.client.hget(rows[1], "lease_epoch") is None
    assert fates.read_state(store.client, store.queue) == before


def test_each_twin_call_in_singles_names_the_native_line_that_made_it(fake_store) -> None:
    batch = fates.build_batch(fake_store, ["live", "stale"], LEASE, CLAIM)
    stepper = Stepper(fake_store, batch.held, LEASE, 6, "singles")
    steps = [stepper.forward(), stepper.forward()]
    source = inspect.getsource(native).splitlines()
    methods = {b"HGET": "hget", b"ZSCORE": "zscore", b"ZADD": "zadd", b"HSET": "hset", b"TIME": "now_ms"}
    calls = [call for step in steps for call in step.calls]
    assert {call.sent[0] for call in calls} >= {b"TIME", b"HGET", b"ZSCORE", b"ZADD", b"HSET"}
    for call in calls:
        assert f"host.{methods[call.sent[0]]}(" in source[call.line - 1], (call.sent[0], call.line)


@pytest.mark.server
def test_a_stand_in_probe_the_user_may_not_run_is_a_note_not_a_refusal(least_privilege) -> None:  # noqa: F811
    """As a least-privilege URL user on wire 6, ACL DRYRUN and INFO are refused: no view shows an (error) NOPERM for
    them; the step's note says what could not be checked and why."""
    store, _, _ = least_privilege
    session = Session(store, lesson(), wire=6)
    recorder = Recorder("least privilege", store.description)
    end = record_run(session, recorder)
    frames = [entry for entry in recorder.entries if isinstance(entry, Frame)]
    assert end.step.error is None and end.wire == 6
    refused = [call for frame in frames for call in frame.step.calls if call.refused_stand_in]
    assert refused and all(call.sent[0] == b"ACL" and isinstance(call.reply, redis.exceptions.NoPermissionError)
                           for call in refused), "the probe really ran and was refused (kept for the replay)"
    assert all(probe_refused("NOPERM") in frame.step.notes for frame in frames[1:])
    assert RUN_ID_LEARNED in end.step.notes
    markdown = recorder.markdown()
    assert "(error) NOPERM" not in markdown and f"note: {probe_refused('NOPERM')}" in markdown

    async def read() -> list[str]:
        app = WireApp()
        async with app.run_test(size=(170, 40)) as pilot:
            pane = app.query_one(WirePane)
            said = []
            for frame in frames:
                pane.frame = frame
                await pilot.pause()
                said.append(pane.full_text())
            return said

    for text in asyncio.run(read())[1:]:
        assert "(error) NOPERM" not in text and "ACL DRYRUN " + store.client.connection_pool.connection_kwargs[
            "username"] not in text, text
        assert f"note: {probe_refused('NOPERM')}" in text


class WireApp(App[None]):
    """The wire pane alone."""

    def compose(self) -> ComposeResult:
        yield WirePane()


def test_the_course_wire_and_port_names_hang_off_the_reason() -> None:
    from emq_dive.engine.echo_mq import jobs
    from emq_dive.engine.stepper import Reason

    named = {reason: (reason.course, reason.wire_class, reason.raised.value) for reason in Reason}
    assert named == {Reason.GONE: ("{:error, :gone}", "EMQGONE", "Gone"),
                     Reason.STALE: ("{:error, :stale}", "EMQSTALE", "Stale"),
                     Reason.NOT_ACTIVE: ("{:error, :not_active}", "EMQNOTACTIVE", "NotActive")}
    for reason in Reason:
        port = getattr(jobs, reason.raised.value)
        assert issubclass(port, jobs.LeaseRefused) and reason.wire_class in (port.__doc__ or "")
        assert reason.raised.reason is reason and Reason.of_wire_class(f"{reason.wire_class} why") is reason
    assert Raised.RESPONSE_ERROR.reason is None and Reason.of_wire_class("WRONGTYPE x") is None


def test_the_step_engine_and_its_words_import_no_circle() -> None:
    """Every import, at any depth in a module, among the stepper's modules, render and step_words: no module
    reaches itself (driver ⇄ modes once did, through an import inside driver_for)."""
    import emq_dive

    assert circles(Path(emq_dive.__file__).parent) == []


def circles(root: Path) -> list[str]:
    """The modules of the step engine and its words that import themselves through others."""
    import ast

    files = {f"stepper.{f.stem}": f for f in (root / "stepper").glob("*.py") if f.stem != "__init__"}
    files |= {name: root / f"{name}.py" for name in ("render", "step_words") if (root / f"{name}.py").exists()}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = "stepper." if name.startswith("stepper.") else ""
        found = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(package + node.module if node.level == 1 else node.module)
        graph[name] = {target for target in found if target in files and target != name}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    return [name for name in graph if reaches(name, name, {name})]


def test_the_text_modes_name_the_single_verb_for_a_singles_answer() -> None:
    frames, markdown = _run(("live", "stale"), 4, "singles")
    said = paragraph(frames[-1], NoStyle())
    assert "extend_lock, call by call, returns [None, Stale(" in said and "extend_locks returns" not in said
    assert "- extend_lock, call by call, returns [None, Stale(" in markdown
    frames, markdown = _run(("live", "stale"), 4, "batch")
    assert "extend_locks returns ['JOB02']" in paragraph(frames[-1], NoStyle()) and \
        "- extend_locks returns ['JOB02']" in markdown


def test_a_run_that_disagrees_says_so_with_a_cross_in_the_step_bar_and_every_text_view() -> None:
    """The store changes under the stepped run (JOB01's row goes after its call re-scored it), so the unstepped
    calls meet a gone row: the step bar, the plain mode and the transcript all say ✗ / differ, never ✓."""
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="0" * 40)
    session = Session(store, lesson(), batch=("live", "live", "live"), wire=4)
    session.run_mode = "singles"
    recorder = Recorder("disagrees", store.description)
    with store.io():
        recorder.frame(session.open(2))
        store.client.delete(keyspace.job_key(store.queue, "JOB01"))
        end = session.goto(3)
        recorder.frame(end)
    assert end.agreement is not None and not end.agreement.agree
    assert any(d.startswith("JOB01: stepped 1") for d in end.agreement.differences), end.agreement.differences
    assert "The stepped and atomic runs differ: JOB01: stepped 1" in paragraph(end, NoStyle())
    markdown = recorder.markdown()
    assert "✗ the stepped and atomic runs differ: JOB01: stepped 1" in markdown and "✓ the atomic" not in markdown

    said = bar_text(end)
    assert f"✗ run {end.run}: the stepped and atomic runs differ: JOB01: stepped 1" in said and "✓" not in said


def test_the_agreement_takes_its_shorter_wording_only_where_the_whole_one_does_not_fit() -> None:
    from dataclasses import replace

    from emq_dive.present.step_words import agreement_text
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="0" * 40)
    session = Session(store, lesson(), wire=4)
    with store.io():
        session.open()
        end = session.goto(len(session.held))
    assert end.agreement is not None and end.agreement.agree
    own = replace(end.agreement, atomic_now=end.agreement.stepped_now + 638)
    whole = agreement_text(own)
    assert whole == "the atomic run agrees: the same store, the same reply, a now of its own (+638 ms)"
    assert agreement_text(own, len(whole)) == whole
    short = agreement_text(own, len(whole) - 1)
    assert short == "the atomic run agrees: same store, same reply, its own now (+638 ms)"
    assert agreement_text(own, len(short)) == short
    assert agreement_text(own, len(short) - 1) == "the atomic run agrees: same store, same reply, now +638 ms"
    same = agreement_text(end.agreement, 40)
    assert same == "the atomic run agrees: same store, same reply, same now"
    assert agreement_text(end.agreement) == "the atomic run agrees: the same store, the same reply, the same now"


@pytest.mark.parametrize(("wire", "mode"), [(4, "batch"), (4, "singles"), (6, "batch"), (6, "singles")])
def test_a_member_says_what_was_written_for_it(wire: int, mode: str) -> None:
    frames, _ = _run(("live", "stale", "live"), wire, mode)
    end = frames[-1].step
    store_epoch = b"0" * 40 if wire == 6 else None  # the run_id _run pins; the scripts stamp no epoch
    written = [(m.verdict, m.new_score is not None, m.epoch) for m in end.members]
    failed = Verdict.RAISED if mode == "singles" else Verdict.FAILED
    assert written == [(Verdict.RESCORED, True, store_epoch), (failed, False, None),
                       (Verdict.RESCORED, True, store_epoch)]


def test_a_run_that_ends_is_shown_first_and_checked_after_and_every_record_keeps_the_checked_frame() -> None:
    """End's frame comes before its agreement check (``checking``): the session makes it, the step bar says the
    check runs, and the checked frame that follows takes its place in the record rather than adding a second end."""
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="0" * 40)
    session = Session(store, lesson(), wire=4)
    recorder = Recorder("two-phase", store.description)
    with store.io():
        recorder.frame(session.open())
        first = session.goto(len(session.held), check=False)
        recorder.frame(first)
        checked = session.frame()
        recorder.frame(checked)
        again = session.goto(len(session.held), check=False)
    assert first.step.done and first.checking and first.agreement is None and first.answer == "" and first.run == 0
    assert not checked.checking and checked.agreement is not None and checked.agreement.agree and checked.run == 1
    assert checked.answer and checked.step is first.step, "the check ran on the step already shown"
    assert not again.checking and again.run == 1, "a checked run is not checked again"
    assert [entry.step.index for entry in recorder.entries] == [0, len(session.held)]
    assert recorder.entries[-1] is checked

    assert CHECKING in bar_text(first) and "✓" not in bar_text(first)
    assert CHECKING not in bar_text(checked) and "✓ run 1: the atomic run agrees" in bar_text(checked)


@pytest.mark.parametrize("big", [True, False])
def test_end_in_the_app_posts_the_last_step_before_its_check_under_one_move_on_a_big_batch(monkeypatch,
                                                                                         big: bool) -> None:
    """Where the check is slow (CHECK_AFTER members or more; lowered here), the end is shown first and its check
    after; a small batch's End posts one checked frame."""
    from emq_dive.views.tui.screens import store_moves
    monkeypatch.setattr(store_moves, "CHECK_AFTER", 4 if big else 5)
    async def run() -> list[Frame]:
        app = frozen_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = dive(app)
            seen: list[Frame] = []
            record = screen.recorder.frame
            screen.recorder.frame = lambda frame: (seen.append(frame), record(frame))[1]
            await press(app, pilot, "end")
            assert screen.frame is seen[-1]
            return seen

    seen = asyncio.run(run())
    if not big:
        assert [(frame.checking, frame.agreement is not None) for frame in seen] == [(False, True)]
        return
    first, checked = seen
    assert first.checking and first.step.done and first.agreement is None
    assert not checked.checking and checked.agreement is not None and checked.seq == first.seq


def test_a_long_move_says_in_the_step_bar_where_it_runs_to_until_its_frame_lands() -> None:
    size = BIG_MOVE + 8

    async def run() -> tuple[str, str, str, str]:
        app = frozen_app(batch=("live", "stale") * (size // 2))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = dive(app)
            await press(app, pilot, "right")
            short = screen.busy  # one step: nothing to say
            screen.action_end()
            long, during = screen.busy, app.query_one(StepBar).render().plain
            await settle(app, pilot)
            bar = app.query_one(StepBar).render().plain
            return short, long, during, screen.busy, bar

    short, long, during, after, bar = asyncio.run(run())
    assert (short, long, after) == ("", f"running to step {size:,}…", "")
    assert f"step 1 of {size}" in during and f"running to step {size:,}…" in during
    assert f"step {size} of {size}" in bar and "running to" not in bar
