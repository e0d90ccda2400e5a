"""The plain mode: the dive as paragraphs on a normal terminal, commands read line by line from stdin."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_server
from test_cli import ROOT
from test_transcript import assert_nothing_left, url_server  # noqa: F401 - url_server is a fixture

from emq_dive.cli import output_problem
from emq_dive.echo_mq import keyspace
from emq_dive.lessons import load
from emq_dive.session import Session
from emq_dive.text_modes.plain import Bold, NoStyle, PlainDive, style_for
from emq_dive.text_modes.transcript import Recorder

LESSON = load("batches-03")


def plain(keys: str, *args: str, tmp: Path | None = None, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess:
    """``emq-dive batches-03 --plain ARGS`` with ``keys`` on its stdin, as ``printf KEYS | emq-dive …`` runs it."""
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    if tmp is not None:
        tmp.mkdir(exist_ok=True)
        environment["TMPDIR"] = str(tmp)
    return subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", "--plain", *args], cwd=ROOT,
                          env=environment, input=keys, capture_output=True, text=True, timeout=120)


def paragraphs(done: subprocess.CompletedProcess) -> list[str]:
    """The step paragraphs of a clean run (exit 0, nothing on stderr but a spawned server's notice, no escape code)."""
    assert done.returncode == 0, done.stderr
    assert done.stderr in ("", "starting server…\n"), done.stderr
    assert "\x1b" not in done.stdout
    return [p for p in done.stdout.split("\n\n") if p.startswith("Step ")]


def _heads(steps: list[str]) -> list[str]:
    return [re.match(r"Step \d+ of \d+ on wire \d", step).group(0) for step in steps]


def test_four_enters_and_q_step_the_lesson_to_its_end() -> None:
    steps = paragraphs(plain("\n\n\n\nq\n"))
    assert _heads(steps) == [f"Step {k} of 4 on wire 4" for k in range(5)]
    assert "JOB01 token 1 (live), JOB02 token 1 (stale), JOB03 token 1 (live), JOB04 token 1 (reaped)" in steps[0]
    assert 'member 2 of 4, JOB02, token 1; checks row?, token?, in active?, in order. Row check, HGET attempts: ' \
           '"2", passes. Token check: "2" is not the token "1", fails. Active check, ZSCORE: not evaluated. ' \
           'Verdict: joins failed (stale).' in steps[2]
    assert "Active check, ZSCORE: nil, fails. Verdict: joins failed (not-active)." in steps[4]
    now = re.findall(r"The shared now = (\d+), read once", "\n".join(steps[1:]))
    assert len(set(now)) == 1 and len(now) == 4
    rescored = re.findall(r"Verdict: re-scored to now\+(\d+)", "\n".join(steps))
    assert rescored and {int(delta) for delta in rescored} == {LESSON.lease_ms}
    assert [re.search(r"Failed[^:]*: ([^.]*)\.", step).group(1) for step in steps[1:]] == [
        "[]", "[JOB02]", "[JOB02]", "[JOB02, JOB04]"]
    assert 'The reply: ["JOB02", "JOB04"].' in steps[4] and "The atomic run agrees" in steps[4]


def test_the_end_of_input_ends_cleanly_without_q() -> None:
    steps = paragraphs(plain("\n\n"))
    assert _heads(steps) == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4", "Step 2 of 4 on wire 4"]


def test_back_undoes_a_step_and_says_so_at_the_handle() -> None:
    done = plain("b\n\n\nb\n")
    steps = paragraphs(done)
    assert [head[:6] for head in _heads(steps)] == ["Step 0", "Step 1", "Step 2", "Step 1"]
    assert "At the handle already" in done.stdout
    assert steps[1] == steps[3], "stepping back shows the step as it was"


def test_an_unknown_command_gets_one_line_of_help_and_the_dive_goes_on() -> None:
    done = plain("zz\n\nq\n")
    unknown = [line for line in done.stdout.splitlines() if "zz" in line]
    assert unknown == ["Unknown command 'zz'. Enter steps, b goes back, w switches the wire, f gives a member a "
                       "fate, x [FILE] writes the transcript, h is this help, q quits."]
    assert _heads(paragraphs(done)) == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4"]


def test_h_says_the_keys() -> None:
    done = plain("h\nq\n")
    assert done.stdout.count("Enter steps, b goes back") == 2  # the greeting and h


def test_w_compares_both_wires_and_carries_on_on_wire_6() -> None:
    done = plain("\n\nw\n\n\n\nq\n")
    steps = paragraphs(done)
    assert _heads(steps) == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4", "Step 2 of 4 on wire 4",
                             "Step 2 of 5 on wire 6", "Step 3 of 5 on wire 6", "Step 4 of 5 on wire 6",
                             "Step 5 of 5 on wire 6"]
    compared = next(p for p in done.stdout.split("\n\n") if p.startswith("Both wires"))
    assert "extend_locks on wire 4 returns ['JOB02', 'JOB04']" in compared
    assert "EMQ.EXTENDS on wire 6 returns ['JOB02', 'JOB04']" in compared
    assert "lease_epoch" in compared
    assert re.search(r"Writes: JOB01 re-scored to now\+30000 in active; JOB01 lease_epoch set to \w{40}",
                     steps[-1])


def test_f_lists_the_member_fates_runs_the_verbs_and_gives_one_to_a_member() -> None:
    done = plain("f\n2\n2\n\n\nq\n")
    out = done.stdout
    assert "Fates: 1 live, live lease; 2 gone, row gone; 3 stale, stale token; 4 reaped, reaped to pending; " \
           "5 wrongtype, WRONGTYPE row mid-batch; 6 lane, lane job (has a group)." in out
    assert "Fate gone, row gone: extend_lock raises Gone: EMQGONE" in out
    assert "Give gone to which member? 1 JOB01, now live; 2 JOB02, now stale;" in out
    steps = paragraphs(done)
    assert "JOB02 token 1 (gone)" in steps[-3]
    assert "Row check, HGET attempts: nil, fails." in steps[-1] and "Verdict: joins failed (gone)." in steps[-1]


def test_f_with_no_choice_keeps_the_batch() -> None:
    done = plain("\nf\n\nq\n")
    assert "No fate chosen." in done.stdout
    assert _heads(paragraphs(done)) == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4"]


def test_x_writes_the_transcript_of_the_run_so_far(tmp_path: Path) -> None:
    target = tmp_path / "so-far.md"
    done = plain(f"\n\nx {target}\nx /proc/nope.md\nq\n")
    assert f"The transcript so far is in {target}." in done.stdout
    assert "Cannot write the transcript: /proc/nope.md is under /proc" in done.stdout
    text = target.read_text("utf-8")
    assert re.findall(r"^### Step (\d)", text, re.M) == ["0", "1", "2"]


@pytest.mark.parametrize("wire", ["4", "6"])
def test_plain_on_every_wire_ends_with_the_stores_agreement(wire: str) -> None:
    steps = paragraphs(plain("\n" * 6, "--wire", wire))
    assert steps[-1].startswith(f"Step {4 if wire == '4' else 5} of {4 if wire == '4' else 5} on wire {wire}")
    assert "The atomic run agrees" in steps[-1]


@pytest.mark.server
@pytest.mark.parametrize("wire", ["4", "6"])
def test_plain_on_a_spawned_server_leaves_no_process_and_no_temp_dir(tmp_path: Path, wire: str) -> None:
    require_server()
    done = plain("\n" * 6 + "q\n", "--backend", "server", "--wire", wire, tmp=tmp_path / "tmp")
    steps = paragraphs(done)
    assert "The atomic run agrees" in steps[-1] and "Failed: [JOB02, JOB04]." in steps[-1]
    assert_nothing_left(tmp_path / "tmp")


@pytest.mark.server
def test_plain_on_a_url_store_leaves_no_key(url_server, tmp_path: Path) -> None:  # noqa: F811
    url, client = url_server
    done = plain("\n\nw\nf\n3\n1\n\n", "--backend", url, tmp=tmp_path / "tmp")
    out = done.stdout
    assert "Wire 6 is not on this backend" in out and "Staying on wire 4" in out
    assert "Fate stale, stale token:" in out
    assert paragraphs(done)[-1].startswith("Step 1 of 4 on wire 4")
    assert_nothing_left(tmp_path / "tmp", client)


# -- in one process: what the paragraphs say is what the store holds -------------------------------------------


def test_the_paragraphs_say_what_the_store_holds(fake_store) -> None:
    out = io.StringIO()
    session = Session(fake_store, LESSON, wire=6)
    dive = PlainDive(session, out, NoStyle(), Recorder(LESSON.heading, fake_store.description),
                     output_problem)
    assert dive.run(iter(["\n"] * 5)) == 0
    last = out.getvalue().split("\n\n")[-2]
    now = int(re.search(r"The shared now = (\d+)", last).group(1))
    active = keyspace.queue_key(fake_store.queue, "active")
    rescored = re.findall(r"(JOB\d+) re-scored to now\+(\d+)", last)
    assert sorted({job for job, _ in rescored}) == ["JOB01", "JOB03"], "the writes and the verdicts name them"
    for job, delta in rescored:
        assert fake_store.client.zscore(active, job) == now + int(delta) == now + LESSON.lease_ms
    epochs = re.findall(r"(JOB\d+) lease_epoch set to (\w+)", last)
    assert epochs == [("JOB01", fake_store.run_id().decode()), ("JOB03", fake_store.run_id().decode())]
    for job, epoch in epochs:
        assert fake_store.client.hget(keyspace.job_key(fake_store.queue, job), "lease_epoch") == epoch.encode()


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty, environ, bold", [
    (True, {}, True), (False, {}, False), (True, {"NO_COLOR": "1"}, False), (True, {"TERM": "dumb"}, False)])
def test_only_a_terminal_without_no_color_gets_bold(tty: bool, environ: dict[str, str], bold: bool) -> None:
    assert isinstance(style_for(_Stream(tty), environ), Bold if bold else NoStyle)


@pytest.mark.parametrize("no_color", [False, True])
def test_on_a_real_terminal_no_color_leaves_no_escape_code(no_color: bool) -> None:
    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm")
    env.pop("NO_COLOR", None)
    if no_color:
        env["NO_COLOR"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--plain"], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    _, err = proc.communicate(b"\nq\n", timeout=120)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    out = b"".join(chunks).decode()
    assert proc.returncode == 0, err
    assert "Step 1 of 4 on wire 4" in out
    assert ("\x1b" in out) == (not no_color)


def test_a_reader_that_stops_early_ends_the_plain_mode_quietly(tmp_path: Path) -> None:
    """``emq-dive … --plain | head -1``: the pipe closes under the dive, which stops without a traceback."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--plain", "--backend", "fakeredis"],
                            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    assert "Batches · dive 03" in proc.stdout.readline().decode()
    proc.stdout.close()  # the reader goes away
    _, err = proc.communicate(b"\n" * 6 + b"q\n", timeout=60)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
