"""The sandbox: edits checked before anything is written, set up on a live store, and saved as a lesson that loads."""

from __future__ import annotations

import pytest

from emq_dive.course import lessons
from emq_dive.course.sandbox import (
    MAX_MEMBERS,
    SandboxBatch,
    SandboxError,
    SandboxMember,
    from_lesson,
    save_lesson,
    setup,
)
from emq_dive.engine import fates
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.stepper import Stepper

LESSON = lessons.load("batches-03")


def test_the_lesson_batch_is_the_starting_point():
    batch = from_lesson(LESSON)
    assert batch.fates == LESSON.batch and batch.lease_ms == LESSON.lease_ms
    assert [m.id for m in batch.members] == ["JOB01", "JOB02", "JOB03", "JOB04"]


def test_edits_add_remove_reorder_refate_retoken_and_release():
    batch = from_lesson(LESSON).add("JOB09", "gone", at=0).remove(4).move(0, 3).with_fate(0, "wrongtype")
    batch = batch.with_token(1, "7").with_lease("45000")
    assert [(m.id, m.fate, m.token) for m in batch.members] == [
        ("JOB01", "wrongtype", None), ("JOB02", "stale", 7), ("JOB03", "live", None), ("JOB09", "gone", None)]
    assert batch.lease_ms == 45_000
    assert batch.with_token(1, "").members[1].token is None


@pytest.mark.parametrize(("edit", "message"), [
    (lambda b: b.add("JOB 7"), "ill-formed: it contains whitespace"),
    (lambda b: b.add("a:b"), "ill-formed: it contains a ':'"),
    (lambda b: b.add("JOB02"), "is already member 2's"),
    (lambda b: b.with_token(0, "1.5"), "must be an integer, not '1.5'"),
    (lambda b: b.with_token(0, "x"), "must be an integer"),
    (lambda b: b.with_lease("1.5"), "lease_ms must be an integer, not '1.5'"),
    (lambda b: b.with_lease("0"), "lease_ms must be a positive integer"),
    (lambda b: b.with_fate(0, "empty"), "is not a member fate"),
    (lambda b: b.remove(9), "there is no member 10"),
])
def test_bad_input_is_refused_with_one_message_and_changes_nothing(edit, message):
    batch = from_lesson(LESSON)
    with pytest.raises(SandboxError, match=message) as refused:
        edit(batch)
    assert "\n" not in str(refused.value)
    assert batch == from_lesson(LESSON)


def test_more_than_ten_thousand_members_is_refused():
    members = tuple(SandboxMember(f"J{n}", "live") for n in range(MAX_MEMBERS))
    full = SandboxBatch(members, 30_000)
    with pytest.raises(SandboxError, match="at most 10,000 members"):
        full.add("ONE-MORE")


def test_the_edited_batch_runs_on_the_live_store(fake_store):
    batch = from_lesson(LESSON).with_token(0, 5).add("X-1", "gone").with_lease(40_000)
    held = setup(fake_store, batch, LESSON.claim_lease_ms)
    assert held[0] == ("JOB01", 5) and held[-1][0] == "X-1"
    assert not fake_store.client.exists(keyspace.job_key(fake_store.queue, "X-1"))
    stepper = Stepper(fake_store, held, batch.lease_ms)
    last = stepper.end()
    assert list(last.reply) == [b"JOB01", b"JOB02", b"JOB04", b"X-1"], "the token 5 is stale; X-1 has no row"
    assert stepper.verify().agree


def test_a_saved_lesson_loads_back(tmp_path):
    batch = from_lesson(LESSON).add("ODD\"ID", "lane").with_token(1, -3).with_lease(12_345)
    path = save_lesson(batch, "my-dive", LESSON, tmp_path, title="My dive · \"quoted\"\tand tabbed")
    loaded = lessons.load_file(path)
    assert loaded.id == "my-dive" and loaded.title == "My dive · \"quoted\"\tand tabbed"
    assert loaded.batch == batch.fates and loaded.lease_ms == 12_345
    assert [(m.id, m.fate, m.token) for m in loaded.members] == [(m.id, m.fate, m.token) for m in batch.members]
    assert loaded.sections == LESSON.sections and dict(loaded.fates) == dict(LESSON.fates)
    assert from_lesson(loaded) == batch


def test_a_saved_lesson_without_a_title_is_named_after_its_base_and_its_id(tmp_path):
    path = save_lesson(from_lesson(LESSON), "my-dive", LESSON, tmp_path)
    loaded = lessons.load_file(path)
    assert loaded.title == f"{LESSON.title} · my-dive, from the sandbox"
    assert loaded.heading != LESSON.heading


def test_a_lesson_file_with_bad_members_is_refused(tmp_path):
    path = save_lesson(from_lesson(LESSON), "bad", LESSON, tmp_path)
    text = path.read_text()
    path.write_text(text.replace('id = "JOB02"', 'id = "JOB01"', 1))
    with pytest.raises(lessons.LessonError, match="already the id of another member"):
        lessons.load_file(path)
    path.write_text(text.replace('id = "JOB02"', 'id = "JOB 2"', 1))
    with pytest.raises(lessons.LessonError, match="ill-formed"):
        lessons.load_file(path)


def test_save_takes_an_id_not_a_path(tmp_path):
    for text in ("x.txt", "../../x", str(tmp_path / "abs"), "~nosuchuser/x"):
        with pytest.raises(SandboxError, match="not a lesson id"):
            save_lesson(from_lesson(LESSON), text, LESSON, tmp_path)
    assert not list(tmp_path.iterdir())
    path = save_lesson(from_lesson(LESSON), "x.toml", LESSON, tmp_path / "missing")
    assert path == tmp_path / "missing" / "x.toml", "a trailing .toml is dropped and the folder is made"


def test_fates_build_the_same_start_as_the_sandbox(fake_store):
    built = fates.build_batch(fake_store, list(LESSON.batch), LESSON.lease_ms, LESSON.claim_lease_ms)
    state = fates.read_state(fake_store.client, fake_store.queue)
    held = setup(fake_store, from_lesson(LESSON), LESSON.claim_lease_ms)
    assert held == built.held and fates.read_state(fake_store.client, fake_store.queue) == state
