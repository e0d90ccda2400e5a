"""The transcript: the frames a run showed, as Markdown whose facts the store itself bears out after the run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import redis
from conftest import own_server, require_server
from test_cli import BAD_OUTPUTS, _bad_outputs, _nothing_ran, _refused, emq
from test_processes import _running_in

from emq_dive.course.lessons import load
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.stepper import Check, Verdict
from emq_dive.present.session import Session
from emq_dive.views.text.recorder import Recorder, record_run
from emq_dive.views.text.transcript import default_name

LESSON = load("batches-03")


def _facts(text: str) -> dict[str, object]:
    """What the transcript's last run says: its now, failed list, reply and re-scored members."""
    run = text[text.rindex("## The batch on wire"):]
    nows = set(re.findall(r"^- now = (\d+), read once", run, re.M))
    assert len(nows) == 1, f"the run names more than one now: {nows}"
    failed = re.findall(r"^- failed: (.*)$", run, re.M)
    reply = re.search(r'^- the reply: \[(.*)\]$', run, re.M)
    assert failed and reply, run
    table = run[run.index("#### The end of the run"):]
    rescored = dict(re.findall(r"^\| \d+ \| (\w+) \|.*\| re-scored to now\+(\d+) \|$", table, re.M))
    epochs = dict(re.findall(r"^- `HSET \S+:job:(\w+) lease_epoch (\w+)`", run, re.M))
    now = int(nows.pop())
    rescored = {job: now + int(delta) for job, delta in rescored.items()}
    return {"now": now, "failed": failed[-1].strip("[]").split(", "),
            "reply": [item.strip('"') for item in reply.group(1).split(", ")], "rescored": rescored,
            "epochs": epochs}


@pytest.mark.parametrize("wire", [4, 6])
def test_a_transcripts_facts_are_the_stores_own_after_the_run(any_store, wire: int) -> None:
    session = Session(any_store, LESSON, wire=wire)
    assert session.wire == wire, any_store.native_reason
    recorder = Recorder(LESSON.heading, any_store.description)
    end = record_run(session, recorder)
    text = recorder.markdown()
    facts = _facts(text)
    client, queue = any_store.client, any_store.queue
    active = keyspace.queue_key(queue, "active")
    assert facts["now"] == end.step.now
    assert facts["failed"] == facts["reply"] == ["JOB02", "JOB04"]
    assert sorted(facts["rescored"]) == ["JOB01", "JOB03"]
    for job, score in facts["rescored"].items():
        assert int(score) == facts["now"] + LESSON.lease_ms
        assert client.zscore(active, job) == facts["now"] + LESSON.lease_ms, job
    for job in facts["failed"]:
        assert client.zscore(active, job) != facts["now"] + LESSON.lease_ms, job
    rows = {job: client.hget(keyspace.job_key(queue, job), "lease_epoch") for job in ("JOB01", "JOB02", "JOB03")}
    if wire == 6:
        run_id = any_store.run_id().decode()
        assert facts["epochs"] == {"JOB01": run_id, "JOB03": run_id}
        assert rows == {"JOB01": run_id.encode(), "JOB02": None, "JOB03": run_id.encode()}
    else:
        assert facts["epochs"] == {} and set(rows.values()) == {None}
    assert "✓ the atomic run agrees" in text
    calls = sum(len(frame.step.calls) for frame in recorder.entries)
    assert len(re.findall(r"^- line \d+: `", text, re.M)) == calls > 0


def test_a_recorded_frame_keeps_what_it_showed_after_the_run_steps_back(fake_store) -> None:
    session = Session(fake_store, LESSON)
    recorder = Recorder(LESSON.heading, fake_store.description)
    with fake_store.io():
        for step in (0, 1, 2, 3, 3):
            recorder.frame(session.goto(step) if step else session.open(0))
        recorder.frame(session.goto(1))
    steps = [entry.step.index for entry in recorder.entries]
    assert steps == [0, 1, 2, 3, 1], "the same step shown twice is kept once"
    third = recorder.entries[3].step
    assert third.members[2].ran and third.members[2].verdict is Verdict.RESCORED
    assert list(third.failed) == ["JOB02"]
    text = recorder.markdown()
    assert "*Back to step 1: the store is put back as that step left it.*" in text
    assert text.count("### Step 1 of 4") == 2


def test_the_run_so_far_holds_every_wire_and_fate_the_learner_used(fake_store, tmp_path: Path) -> None:
    session = Session(fake_store, LESSON)
    recorder = Recorder(LESSON.heading, fake_store.description)
    with fake_store.io():
        recorder.frame(session.open(2))
        compared, frame = session.switch(6)
        recorder.compared(compared)
        recorder.frame(frame)
        ran, frame = session.run_fate("gone")
        recorder.fate_ran(ran)
        recorder.frame(frame)
        recorder.frame(session.apply(1, "gone"))
        recorder.frame(session.goto(2))
    path = recorder.write(tmp_path / default_name(LESSON.id, fake_store.queue))
    text = path.read_text("utf-8")
    assert path.name == f"emq-dive-batches-03-{fake_store.queue}.md"
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings == ["The batch on wire 4 (EVALSHA the script)", "Both wires from the same start",
                        "The batch on wire 6 (the native EMQ.EXTENDS)", "Fate: gone (row gone)",
                        "The batch on wire 6 (the native EMQ.EXTENDS)", "The batch on wire 6 (the native EMQ.EXTENDS)"]
    assert "wire 6 stamped lease_epoch (the server's run_id)" in text
    assert "EMQGONE" in text
    assert "JOB02 token 1 (gone)" in text
    last = text[text.rindex("## The batch on wire"):]
    assert "Verdict: joins failed (gone)." in last and "- failed after member 2: [JOB02]" in last


# -- the command ------------------------------------------------------------------------------------------------




@pytest.fixture(scope="module")
def url_server(tmp_path_factory):
    """A plain server the tests reach by URL, as a learner's own store: (its URL, a client)."""
    with own_server(tmp_path_factory.mktemp("url")) as (port, client):
        yield f"redis://127.0.0.1:{port}/0", client


def assert_nothing_left(tmp: Path, client: redis.Redis | None = None) -> None:
    """No spawned server still runs from ``tmp``, no temp dir is left in it, and a URL store holds no key."""
    assert not _running_in(tmp), "a spawned server outlived the command"
    assert not list(tmp.iterdir()), f"left behind: {list(tmp.iterdir())}"
    if client is not None:
        assert client.dbsize() == 0, client.keys()
        assert client.acl_users() == ["default"]


def _transcript_cli(tmp_path: Path, wire: int, backend: str) -> str:
    target = tmp_path / "run.md"
    done = emq("batches-03", "--transcript", str(target), "--wire", str(wire), "--backend", backend,
               env=_nothing_ran(tmp_path / "tmp"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == f"{target}\n"
    return target.read_text("utf-8")


def _check_lesson_facts(text: str, wire: int) -> None:
    """The lesson's batch is live, stale, live, reaped: the transcript says what each fate makes of its member."""
    facts = _facts(text)
    assert f"## The batch on wire {wire}" in text
    assert facts["failed"] == facts["reply"] == ["JOB02", "JOB04"]
    assert {job: int(score) - facts["now"] for job, score in facts["rescored"].items()} == {
        "JOB01": LESSON.lease_ms, "JOB03": LESSON.lease_ms}
    assert "| 2 | JOB02 | 1 | \"2\", passes | \"2\" is not the token \"1\", fails | not evaluated | joins failed " \
           "(stale) |" in text
    assert "| 4 | JOB04 | 1 | \"1\", passes | \"1\" is the token \"1\", passes | nil, fails | joins failed " \
           "(not-active) |" in text
    assert ("lease_epoch set to" in text) == (wire == 6)
    assert "✓ the atomic run agrees" in text


@pytest.mark.parametrize("wire", [4, 6])
def test_the_command_writes_the_transcript_and_prints_its_path(tmp_path: Path, wire: int) -> None:
    _check_lesson_facts(_transcript_cli(tmp_path, wire, "fakeredis"), wire)
    assert_nothing_left(tmp_path / "tmp")


@pytest.mark.server
@pytest.mark.parametrize("wire", [4, 6])
def test_the_transcript_of_a_spawned_server_leaves_no_process_and_no_temp_dir(tmp_path: Path, wire: int) -> None:
    require_server()
    _check_lesson_facts(_transcript_cli(tmp_path, wire, "server"), wire)
    assert_nothing_left(tmp_path / "tmp")


@pytest.mark.server
def test_the_transcript_of_a_url_store_leaves_no_key(url_server, tmp_path: Path) -> None:
    url, client = url_server
    text = _transcript_cli(tmp_path, 4, url)
    _check_lesson_facts(text, 4)
    assert_nothing_left(tmp_path / "tmp", client)


@pytest.mark.parametrize("kind", BAD_OUTPUTS)
def test_a_transcript_path_that_cannot_be_written_is_refused_before_anything_runs(tmp_path: Path, kind: str) -> None:
    path, word = _bad_outputs(tmp_path)[kind]
    env = _nothing_ran(tmp_path / "tmp")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = emq("batches-03", "--backend", "server", "--transcript", path, env=env)
    line = _refused(done)
    assert "--transcript" in line and word in line, line
    assert "starting server" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not list((tmp_path / "tmp").iterdir()), "a server was spawned for a transcript that cannot be written"


def test_a_directory_given_as_the_transcript_suggests_a_markdown_file(tmp_path: Path) -> None:
    line = _refused(emq("batches-03", "--transcript", str(tmp_path)))
    assert str(tmp_path / "transcript.md") in line


def test_transcript_and_screenshot_together_are_one_usage_line(tmp_path: Path) -> None:
    line = _refused(emq("batches-03", "--transcript", str(tmp_path / "a.md"), "--screenshot", str(tmp_path / "a.svg")))
    assert "not allowed with" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("mode", ["transcript", "plain"])
def test_a_store_that_fails_under_a_text_mode_is_one_line_and_exit_1(fake_store, tmp_path: Path, capsys,
                                                                    mode: str) -> None:
    import argparse

    from emq_dive.cli import _text_mode
    args = argparse.Namespace(transcript=str(tmp_path / "t.md") if mode == "transcript" else None,
                              plain=mode == "plain", wire=4, step=0)
    fake_store.close()
    assert _text_mode(args, LESSON, fake_store) == 1
    err = capsys.readouterr().err
    assert err == "emq-dive: the store failed: the store is closed\n"
    assert not (tmp_path / "t.md").exists()


def test_the_default_backend_names_the_store_that_answered(tmp_path: Path) -> None:
    """The default store starts behind the app: the transcript names the server it became, not "starting"."""
    text = _transcript_cli(tmp_path, 4, "auto")
    run_against = next(line for line in text.splitlines() if line.startswith("Run against "))
    assert "starting" not in run_against and ("valkey" in run_against or "fakeredis" in run_against), run_against
    _check_lesson_facts(text, 4)


def test_a_transcript_holds_the_race_and_the_predictions_and_their_score(fake_store) -> None:
    session = Session(fake_store, LESSON, wire=4)
    session.run_mode = "singles"
    recorder = Recorder(LESSON.heading, fake_store.description)
    with fake_store.io():
        recorder.frame(session.open(0))
        session.predict(True)
        reaped, _ = session.reap()
        guesses = [Check.RESCORED, Check.STALE, Check.RESCORED, Check.RESCORED]
        for index, guess in enumerate(guesses):
            frame = session.guess(index, guess, index + 1)
            recorder.frame(frame)
    assert frame.step.done
    text = recorder.markdown()
    race = text[text.index("#### The race with the reaper"):]
    assert f"step 0, reaper: {reaped.text}" in race
    assert any(event.actor == "reaper" and event.kind == "lands" for event in frame.played.race)
    for event in frame.played.race:
        assert f"step {event.step}, {event.actor}: {event.text}" in race
    right, judged = frame.played.score
    assert judged == 4 and f"#### Predictions: {right} of 4 right" in text
    for one in frame.played.judged:
        mark = "✓" if one.right else "✗"
        assert (f"- {one.prediction.job_id}: guessed {one.prediction.guess.value} at step {one.prediction.step}; "
                f"decided by {one.actual.value} {mark}") in text
