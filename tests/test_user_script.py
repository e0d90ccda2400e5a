"""The learner's own script: edited, stepped for real and checked atomically, refused whole when it cannot run."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from emq_dive.course import lessons
from emq_dive.course.user_state import UserState
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.echo_mq.connector import raw
from emq_dive.engine.stepper import Verdict
from emq_dive.engine.stepper.user_script import (
    ATOMIC_OFF,
    KeyRefused,
    ScriptRefused,
    changed_lines,
    course_script,
)
from emq_dive.engine.stores import open_store, snapshot
from emq_dive.present import yours
from emq_dive.present.session import Session

BATCH = ["live", "stale", "live", "reaped"]
REPO = Path(__file__).resolve().parent.parent
COURSE = course_script("extend_locks").source
GUARD = "if att and att == token -- @check-token\n    and redis.call('ZSCORE', active, id) then -- @check-active"
NO_GUARD = COURSE.replace(GUARD, "if att and att == token then -- @check-token")


def _session(store) -> Session:
    session = Session(store, lessons.load("batches-03"), BATCH)
    session.open(0)
    return session


def _state(tmp_path: Path, monkeypatch) -> UserState:
    monkeypatch.setenv("EMQ_DIVE_DATA_DIR", str(tmp_path / "data"))
    return UserState.from_environ()


def _checkout() -> dict[str, str]:
    """Every file of the checkout but caches, by its path, with the SHA1 of its bytes."""
    skip = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".venv"}
    return {str(path.relative_to(REPO)): hashlib.sha1(path.read_bytes()).hexdigest()
            for path in REPO.rglob("*") if path.is_file() and not skip & set(path.relative_to(REPO).parts)}


def _where(store, job_id: str) -> tuple[bool, bool]:
    """(in active, in pending) for ``job_id``, read from the store."""
    active = raw(store.client, "ZSCORE", keyspace.queue_key(store.queue, "active"), job_id) is not None
    pending = raw(store.client, "LPOS", keyspace.queue_key(store.queue, "pending"), job_id) is not None
    return active, pending


def _round_trip(store, state: UserState) -> None:
    session = _session(store)
    reaped = session.held[3][0]
    assert NO_GUARD != COURSE
    loaded = yours.load(session, NO_GUARD, state)
    assert loaded.frame.step.index == 0 and session.stepper is not None
    assert session.stepper.driver.code == loaded.script.file != "extend_locks.lua"
    end = session.goto(99)
    assert end.step.code == loaded.script.file  # the pane shows the script that ran: yours
    assert end.step.members[3].verdict is Verdict.RESCORED
    assert _where(store, reaped) == (True, True)  # resurrected: in active and in pending
    assert end.agreement is not None and end.agreement.agree, end.agreement
    assert end.agreement.command[:2] == (b"EVALSHA", loaded.script.sha.encode())  # the server ran yours whole
    assert state.read_script(session.lesson.id, "extend_locks") == NO_GUARD

    put_back = yours.load(session, COURSE, state)  # the guard put back by hand: a script of yours again
    end = session.goto(99)
    assert put_back.script.yours and end.step.members[3].verdict is Verdict.FAILED
    assert reaped in end.step.failed and _where(store, reaped) == (False, True)
    assert end.agreement is not None and end.agreement.agree

    restored = yours.restore(session, state)
    assert not restored.script.yours and session.goto(99).step.code == "extend_locks.lua"
    assert state.read_script(session.lesson.id, "extend_locks") is None


def test_the_round_trip_on_the_embedded_store_writes_nothing_into_the_checkout(fake_store, tmp_path,
                                                                               monkeypatch) -> None:
    before = _checkout()
    _round_trip(fake_store, _state(tmp_path, monkeypatch))
    assert _checkout() == before


@pytest.mark.server
def test_the_round_trip_on_a_spawned_server(server_store, tmp_path, monkeypatch) -> None:
    _round_trip(server_store, _state(tmp_path, monkeypatch))


@pytest.mark.parametrize("source, said", [
    ("local x = \n", "Lua syntax error, extend_locks.lua:2:"),
    ("local a = redis.call('TIME')\nlocal b = nil + 1\nreturn a", "extend_locks.lua:2: attempt to perform arithmetic"),
    ("local a = 1\nwhile true do end\nreturn a", "extend_locks.lua:2: runaway: stopped after"),
    ("while true do redis.call('TIME') end", "runaway: stopped before its command"),
])
def test_a_script_that_cannot_run_is_reported_and_changes_nothing(fake_store, tmp_path, monkeypatch, source,
                                                                  said) -> None:
    state = _state(tmp_path, monkeypatch)
    session = _session(fake_store)
    session.goto(2)
    store_before = snapshot.read(fake_store.client, fake_store.queue)
    code = session.stepper.driver.code
    with pytest.raises(ScriptRefused, match=said.replace("(", r"\(")) as refused:
        yours.load(session, source, state)
    assert "nothing was changed" in str(refused.value)
    assert session.yours == {} and session.stepper.driver.code == code and session.stepper.position == 2
    assert snapshot.read(fake_store.client, fake_store.queue) == store_before
    assert state.read_script(session.lesson.id, "extend_locks") is None


def test_changed_lines_are_the_edited_ones() -> None:
    line = COURSE.splitlines().index("    and redis.call('ZSCORE', active, id) then -- @check-active") + 1
    assert changed_lines(COURSE, NO_GUARD) == {line - 1}
    assert changed_lines(COURSE, COURSE) == frozenset()


@pytest.mark.server
def test_on_a_url_store_your_script_runs_stepped_only_and_a_foreign_key_is_refused(server_store, tmp_path,
                                                                                  monkeypatch) -> None:
    state = _state(tmp_path, monkeypatch)
    kwargs = server_store.client.connection_pool.connection_kwargs
    store = open_store(f"redis://:{kwargs['password']}@{kwargs['host']}:{kwargs['port']}/0")
    try:
        session = _session(store)
        foreign = NO_GUARD.replace("local failed = {}", "local failed = {}\nredis.call('SET', 'emq:elsewhere', 1)")
        with pytest.raises(KeyRefused, match="'emq:elsewhere', a key outside this dive's emq:"):
            yours.load(session, foreign, state)
        assert not server_store.client.exists("emq:elsewhere")  # refused before it was sent
        assert session.yours == {}
        yours.load(session, NO_GUARD, state)
        end = session.goto(99)
        assert end.agreement is None and ATOMIC_OFF in end.step.notes
        assert end.step.members[3].verdict is Verdict.RESCORED
        course = yours.restore(session, state)
        assert not course.script.yours and session.goto(99).agreement is not None  # the course's still checks
    finally:
        store.close()


def _runaway_stepper(store):
    from emq_dive.engine import fates
    from emq_dive.engine.echo_mq import scripts
    from emq_dive.engine.stepper import Stepper

    held = fates.build_batch(store, BATCH, 30_000, 10_000).held
    looping = COURSE.replace("local i = 2", "local i = 2\nwhile true do end")
    script = scripts.edited(course_script("extend_locks"), looping)
    return Stepper(store, held, 30_000, yours={"extend_locks": script}), script


def test_a_runaway_the_stepped_run_stopped_is_never_checked_atomically(fake_store) -> None:
    stepper, _ = _runaway_stepper(fake_store)
    assert "runaway: stopped" in (stepper.end().error or "")
    assert stepper.verify() is None


@pytest.mark.server
def test_a_runaway_never_reaches_the_server_whole(server_store) -> None:
    stepper, script = _runaway_stepper(server_store)
    assert stepper.verify() is None
    assert server_store.client.script_exists(script.sha) == [False]  # never loaded, so never run atomically
