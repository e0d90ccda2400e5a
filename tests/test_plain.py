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
from conftest import FROZEN, require_server
from test_cli import ROOT
from test_transcript import assert_nothing_left, url_server  # noqa: F401 - url_server is a fixture

from emq_dive.cli import output_problem
from emq_dive.course import lessons
from emq_dive.course.lessons import load
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.fate_table import FATES
from emq_dive.engine.fates.availability import unavailable_reason
from emq_dive.engine.stepper import Check
from emq_dive.present.session import Session
from emq_dive.views.text.plain import lesson as plain_lesson
from emq_dive.views.text.plain import sandbox as plain_sandbox
from emq_dive.views.text.plain.commands import COMMANDS, help_text, meaning
from emq_dive.views.text.plain.dive import Bold, NoStyle, PlainDive, style_for
from emq_dive.views.text.recorder import Recorder

LESSON = load("batches-03")
FROZEN_MS = int(FROZEN * 1000)


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
    now = re.findall(r"Now = (\d+), read once", "\n".join(steps[1:]))
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
    assert unknown == [f"Unknown command 'zz'. {help_text()}"]
    assert _heads(paragraphs(done)) == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4"]


def test_h_says_every_command_of_the_one_table() -> None:
    done = plain("h\nq\n")
    said = next(p for p in done.stdout.split("\n\n") if p.startswith("Enter: run the next step"))
    assert said == help_text()
    for command in COMMANDS:
        assert f"{command.usage}: {meaning(command)}" in said
    # the TUI's help sentence for the same action: one table says both
    assert "m: run mode: one batch ⇄ N single calls of extend_lock" in said
    assert "a [N]: says the batch table" in said  # a plain-only command keeps its own words
    typed = {key for command in COMMANDS for key in command.keys}
    assert {"", "b", "w", "f", "m", "g", "k", "p", "1", "6", "e", "c", "x", "l", "[", "]", "h", "q"} <= typed
    assert {command.action for command in COMMANDS} >= {"forward", "mode", "guard", "reap", "predict", "guess",
                                                        "sandbox", "cost", "transcript", "section(1)", "read"}


def test_the_plain_cli_reaches_the_learner_moves() -> None:
    """Through the real stdin of ``emq-dive … --plain``: m, p and a digit all reach the session."""
    done = plain("m\n\np\n1\nq\n", "--backend", "fakeredis")
    steps = paragraphs(done)
    assert _heads(steps)[1:] == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4", "Step 2 of 4 on wire 4"]
    assert steps[1].startswith("Step 0 of 4 on wire 4 (singles · extend_lock ×4):")
    assert "Predict mode on" in done.stdout
    assert "JOB02: you said re-scored, wrong: stale token decided it." in done.stdout


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
    offered = next(p for p in out.split("\n\n") if p.startswith("Fates: ")).splitlines()
    assert offered[2] == f"2 gone, row gone, a member fate: {LESSON.fates['gone']}"
    assert len(offered) == len(FATES) + 2 and offered[-1] == "Type a number, or Enter to go back."
    assert f"Fate gone, row gone: {LESSON.fates['gone']} Held: " in out
    assert "extend_lock raises Gone: EMQGONE" in out
    assert "Give gone to which member? 1 JOB01, now live; 2 JOB02, now stale;" in out
    steps = paragraphs(done)
    assert "JOB02 token 1 (gone)" in steps[-3]
    assert "Row check, HGET attempts: nil, fails." in steps[-1] and "Verdict: joins failed (gone)." in steps[-1]


def test_f_offers_every_fate_the_tui_offers_and_a_whole_call_fate_gives_no_member(fake_store) -> None:
    said, dive = dive_on(fake_store, "f\n10\n")
    offered = _said(said, "Fates: ")[0].splitlines()
    assert offered[1:-1] == [
        f"{n} {fate.key}, {fate.title}, {'a member fate' if fate.member else 'a whole-call fate'}"
        + (f" (unavailable here: {why})" if (why := unavailable_reason(fake_store, fate)) else "")
        + f": {LESSON.fates[fate.key]}" for n, fate in enumerate(FATES, 1)]
    ran = _said(said, "Fate bad-lease, ")
    assert len(ran) == 1 and LESSON.fates["bad-lease"] in ran[0] and "As raw wire commands:" in ran[0]
    assert not _said(said, "Give bad-lease to which member?")
    assert said[-1].startswith("Step 0 of 4 on wire 4") and dive.session.fates == LESSON.batch


def test_home_and_end(fake_store) -> None:
    said, _ = dive_on(fake_store, "home\n\n\nend\nend\nhome\n")
    assert "At the handle already; nothing was sent, so there is nothing to undo." in said
    steps = _heads(_said(said, "Step "))
    assert steps == ["Step 0 of 4 on wire 4", "Step 1 of 4 on wire 4", "Step 2 of 4 on wire 4",
                     "Step 4 of 4 on wire 4", "Step 0 of 4 on wire 4"]
    assert "The run is over already. home goes back to the handle." in said
    assert "The atomic run agrees" in _said(said, "Step 4 of 4")[0]
    assert _zset(fake_store, "active") == {job: FROZEN_MS + LESSON.claim_lease_ms for job in ("JOB01", "JOB02",
                                                                                              "JOB03")}


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
    now = int(re.search(r"Now = (\d+)", last).group(1))
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


# -- in one process: each learner move, against the frozen store ------------------------------------------------


def dive_on(store, lines: str, wire: int = 4, clock=None) -> tuple[list[str], PlainDive]:
    """Run the plain mode on ``store`` with ``lines`` as its stdin; its paragraphs and the dive."""
    out = io.StringIO()
    extra = {} if clock is None else {"clock": clock}
    dive = PlainDive(Session(store, LESSON, wire=wire), out, NoStyle(), Recorder(LESSON.heading, store.description),
                     output_problem, **extra)
    assert dive.run(iter(lines.splitlines(keepends=True))) == 0
    return [p for p in out.getvalue().split("\n\n") if p], dive


def _said(said: list[str], start: str) -> list[str]:
    return [p for p in said if p.startswith(start)]


def _zset(store, name: str) -> dict[str, float]:
    return {k.decode(): v for k, v in store.client.zrange(keyspace.queue_key(store.queue, name), 0, -1,
                                                          withscores=True)}


def _pending(store) -> list[str]:
    return [job.decode() for job in store.client.lrange(keyspace.queue_key(store.queue, "pending"), 0, -1)]


def test_m_runs_the_held_list_as_singles_and_back(fake_store) -> None:
    said, dive = dive_on(fake_store, "\n\nm\nm\n")
    assert said.count("Run mode: singles · extend_lock ×4. The batch ran again from its start to step 2.") == 1
    singles = _said(said, "Step 2 of 4 on wire 4 (singles · extend_lock ×4):")
    assert len(singles) == 1
    # a single call's clock read is its own: the step never calls it shared
    assert "this call's own read" in singles[0] and "shared" not in singles[0]
    clocks = _said(said, "Clock reads, one per call: 2 so far")
    assert clocks == [f"Clock reads, one per call: 2 so far ({FROZEN_MS}, {FROZEN_MS}), spread 0 ms; a batch reads "
                      "TIME once. Raised: 1 of 2 calls, each its own error: JOB02."]
    assert "Run mode: batch · extend_locks. The batch ran again from its start to step 2." in said
    assert said[-1].startswith("Step 2 of 4 on wire 4: member 2")  # back to the batch: no mode in the head
    assert dive.session.run_mode == "batch" and dive.current().played.mode == "batch"


def test_m_at_the_handle_says_no_call_has_read_the_clock_yet(fake_store) -> None:
    said, _ = dive_on(fake_store, "m\n")
    assert said[-1] == "Clock reads, one per call: 0 so far (none yet: each call reads TIME when it runs), spread " \
                       "0 ms; a batch reads TIME once. Raised: 0 of 0 calls, each its own error."


def test_g_runs_the_what_if_that_resurrects_the_reaped_member(fake_store) -> None:
    said, dive = dive_on(fake_store, "g\n\n\n\n\n")
    assert "Run mode: guard off (what-if). The batch ran again from its start to step 0." in said
    last = said[-1]
    assert last.startswith("Step 4 of 4 on wire 4 (guard off (what-if)):")
    assert "member 4 of 4, JOB04" in last and "Verdict: re-scored to" in last
    assert "JOB04" in _zset(fake_store, "active") and "JOB04" in _pending(fake_store)  # in both: resurrected
    assert dive.current().step.code == "extend_locks_no_guard.lua"
    assert any(p.startswith("Guard off (what-if): this run steps extend_locks_no_guard.lua") for p in said)


def test_g_is_refused_in_singles_and_g_again_puts_the_guard_back(fake_store) -> None:
    said, dive = dive_on(fake_store, "m\ng\nm\ng\ng\n")
    assert "Not here: the what-if is for the batch script: guard off runs extend_locks.lua on wire 4 only. " \
           "Nothing changed." in said
    assert said.count("Run mode: guard off (what-if). The batch ran again from its start to step 0.") == 1
    assert said[-2] == "Run mode: batch · extend_locks. The batch ran again from its start to step 0."
    assert not dive.session.guard_off


def test_g_on_wire_6_is_refused(fake_store) -> None:
    said, dive = dive_on(fake_store, "g\n", wire=6)
    assert any(p.startswith("Not here: the what-if is for the batch script") for p in said)
    assert dive.current().played.mode == "batch"


def test_k_races_a_reaper_that_waits_for_the_batch_and_lands_after_it(fake_store) -> None:
    said, _ = dive_on(fake_store, "\nk\n\n\n\nk\n")
    asked = _said(said, "The reaper: ")
    # right after start the lease still has time to run, so the lesson forces the lapse and says so
    forced = re.match(r"The reaper: forced: the reaper treats (JOB0[23])'s lease as lapsed", asked[0])
    assert forced, asked[0]
    job = forced.group(1)
    race = _said(said, "The race at this step: ")
    assert race and "reaper: the reaper lands" in race[-1] and job in race[-1]
    assert asked[-1] == "The reaper: the run is over: step back to race the reaper against the holder."
    landed = re.search(r"reaper: the reaper lands: ([^;]*)", race[-1]).group(1)
    moved = "moved" in landed and "to pending" in landed
    assert (job in _pending(fake_store)) == moved and (job in _zset(fake_store, "active")) != moved


def test_k_in_singles_lands_between_two_calls_and_the_next_call_answers_not_active(fake_store) -> None:
    said, dive = dive_on(fake_store, "m\n\n\nk\n\n")
    assert "JOB03" in _said(said, "The reaper: forced: the reaper treats")[0]
    race = _said(said, "The race at this step: ")[-1]
    assert "reaper: the reaper lands: JOB03's score was still" in race and "moved JOB03 to pending" in race
    assert "JOB03" not in _zset(fake_store, "active") and "JOB03" in _pending(fake_store)
    assert "EMQNOTACTIVE" in race  # the holder's call on JOB03, in the store's own words
    step = _said(said, "Step 3 of 4 on wire 4 (singles · extend_lock ×4): member 3 of 4, JOB03")
    assert len(step) == 1 and "Active check, ZSCORE: nil, fails." in step[0]
    assert dive.current().played.race[-1].actor == "holder"


def test_p_asks_before_each_member_and_scores_the_run(fake_store) -> None:
    said, dive = dive_on(fake_store, "p\n\n1\n6\n3\n1\n1\n")
    assert said[2].startswith("Predict mode on: before each member's step you say what will decide it. Predict: "
                              "what will the next step decide for JOB01? 1 re-scored; 2 no row; 3 stale token; "
                              "4 not in active; 5 WRONGTYPE. Type its number.")
    assert said[3].startswith("The step waits for your guess.")  # Enter does not step without a guess
    assert _heads(_said(said, "Step "))[1:] == [f"Step {k} of 4 on wire 4" for k in range(1, 5)]
    assert "JOB01: you said re-scored, right: re-scored decided it. Predicted 1 of 1 so far." in said
    assert any(p.startswith("'6' is no choice, so the step waits for a guess: choose 1 to 5") for p in said)
    assert "JOB02: you said stale token, right: stale token decided it. Predicted 2 of 2 so far." in said
    assert "Score: 3 of 4 predictions right." in said
    assert f"Missed JOB04: you said re-scored, but not in active: {Check.NOT_ACTIVE.explains}." in said
    assert dive.current().played.score == (3, 4)


def test_p_on_wire_6_offers_the_refused_command_and_p_again_stops(fake_store) -> None:
    said, dive = dive_on(fake_store, "p\np\n\n", wire=6)
    assert "6 refused" in said[2]
    assert "Predict mode off; the guesses made stay with their run." in said
    assert said[-1].startswith("Step 1 of 5 on wire 6")  # Enter steps again without a question
    assert not dive.current().played.predicting


def test_e_edits_the_batch_checks_each_edit_and_runs_it_on_the_store(fake_store) -> None:
    said, dive = dive_on(fake_store, "e\nf 2 gone\nt 3 7\ni 1 JOBX\na\nd 4\nf 1 nope\ni 2 bad:id\nl\nr\n")
    assert any(p.startswith("The sandbox: edit the batch, then r runs it from step 0 on the live store.") for p in said)
    assert "fate set · 4 members, lease_ms 30,000; r runs it." in said
    assert "added · 5 members, lease_ms 30,000; r runs it." in said
    assert "removed · 4 members, lease_ms 30,000; r runs it." in said
    refused = _said(said, "Refused, nothing changed: ")
    assert len(refused) == 2 and "'nope' is not a member fate" in refused[0] and "ill-formed" in refused[1]
    assert "The sandbox batch: 4 members, lease_ms 30,000. 1 JOBX, live, token claimed; 2 JOB02, gone, token " \
           "claimed; 3 JOB03, live, token 7; 4 JOB01, live, token claimed." in said
    assert said[-1].startswith("Step 0 of 4 on wire 4: the handle built the command for JOBX token 1 (live), "
                               "JOB02 token 1 (gone), JOB03 token 7 (live), JOB01 token 1 (live).")
    assert fake_store.client.exists(keyspace.job_key(fake_store.queue, "JOB02")) == 0  # set up gone, for real
    assert dive.session.held == (("JOBX", 1), ("JOB02", 1), ("JOB03", 7), ("JOB01", 1))


def test_e_sets_the_lease_the_size_and_the_order(fake_store) -> None:
    said, dive = dive_on(fake_store, "e\nh\nlease 0\nlease 5000\nn 12\nv 12 1\nl 21\nn 2\nr\n")
    assert plain_sandbox.HELP in said
    assert _said(said, "Refused, nothing changed: ")[0].startswith("Refused, nothing changed: lease_ms")
    assert "member count set · 12 members, lease_ms 5,000; r runs it." in said
    listed = _said(said, "The sandbox batch: 12 members, lease_ms 5,000. ")
    assert listed == ["The sandbox batch: 12 members, lease_ms 5,000. 12 JOB11, live, token claimed."]
    assert dive.session.lesson.lease_ms == 5000 and [job for job, _ in dive.session.held] == ["JOB12", "JOB01"]
    assert said[-1].startswith("Step 0 of 2 on wire 4: the handle built the command for JOB12 token 1 (live), "
                               "JOB01 token 1 (live).")


def test_e_saves_the_batch_as_a_lesson_and_c_leaves_the_run_as_it_was(fake_store) -> None:
    """s saves by id into the user's own lessons directory, never over a file, and never by a path."""
    target = lessons.user_lessons_dir() / "mine.toml"
    said, dive = dive_on(fake_store, "\ne\nf 4 wrongtype\nd 9\ns mine\ns mine\ns ../escape\ns\nc\n")
    assert f"Saved {target}: `emq-dive list` shows it and `emq-dive mine` opens it." in said
    assert any(p.startswith("Not saved: ") and "exists" in p for p in said)
    assert any(p.startswith("Not saved: ") and "../escape" in p for p in said)
    saved = lessons.user_lessons_dir() / "sandbox-1.toml"
    assert f"Saved {saved}: `emq-dive list` shows it and `emq-dive sandbox-1` opens it." in said
    assert sorted(p.name for p in lessons.user_lessons_dir().iterdir()) == ["mine.toml", "sandbox-1.toml"]
    assert "Refused, nothing changed: there is no member 9: the batch has 4." in said
    assert lessons.load_file(target).batch == ("live", "stale", "live", "wrongtype")
    assert said[-1] == "Left the sandbox; the run is as it was."
    assert dive.session.fates == LESSON.batch and dive.current().step.index == 1


def test_c_measures_the_cost_live_and_leaves_the_dives_keys(fake_store) -> None:
    ticks = iter(range(10**6))
    said, dive = dive_on(fake_store, "\n", clock=lambda: float(next(ticks)))
    before = {key: fake_store.client.type(key) for key in fake_store.client.scan_iter()}
    out = io.StringIO()
    dive.out = out
    dive._lines = iter(["c 1 2\n", "c 0\n"])
    while (line := dive.read()) is not None:
        dive.answer(line)
    said = out.getvalue().split("\n\n")
    assert said[0].startswith(f"The cost of one lease, measured now on {fake_store.description}: extends 1, 2 "
                              "leases as one batch, as N single calls, and natively with EMQ.EXTENDS")
    figures = said[1].splitlines()
    # each timed run took one tick of the test's clock: one second over the batch's leases
    assert figures[1].startswith("1 lease: one batch (script) 1000000.00 µs; N singles (script) 1000000.00 µs; "
                                 "one batch (native) 1000000.00 µs; N singles (native) 1000000.00 µs.")
    assert figures[2].startswith("2 leases: one batch (script) 500000.00 µs; N singles (script) 500000.00 µs;")
    assert said[2].startswith("The cost view measures lease counts from 1 to 10,000")
    assert {key: fake_store.client.type(key) for key in fake_store.client.scan_iter()} == before


def test_l_lists_the_sections_and_reads_each_whole(fake_store) -> None:
    count = len(LESSON.sections)
    said, dive = dive_on(fake_store, "l\n" + "".join(f"l {n}\n" for n in range(1, count + 1)) + "l 99\n")
    titles = "; ".join(f"{n} {section.title}" for n, section in enumerate(LESSON.sections, 1))
    assert f"The lesson has {count} sections: {titles}. l N reads section N; ] reads the next, [ the previous." \
           in said
    for n, section in enumerate(LESSON.sections, 1):
        read = _said(said, f"Section {n} of {count}: {section.title}.")
        assert len(read) == 1
        body = (LESSON.intro + "\n" + section.body) if n == 1 else section.body
        # every word of the section's Markdown is said, with none of its markup
        assert set(re.findall(r"[A-Za-z0-9_]+", body.replace("`", ""))) <= set(re.findall(r"[A-Za-z0-9_]+", read[0]))
        assert "`" not in read[0] and "**" not in read[0]
    assert f"There is no section '99': type l and a number from 1 to {count}." in said
    assert dive.section == count - 1


def test_brackets_browse_the_sections_round_the_lesson(fake_store) -> None:
    said, _ = dive_on(fake_store, "[\n]\n]\n")
    heads = [p.split("\n", 1)[0] for p in said if p.startswith("Section ")]
    last, n = LESSON.sections[-1].title, len(LESSON.sections)
    assert heads == [f"Section {n} of {n}: {last}.", f"Section 1 of {n}: {LESSON.sections[0].title}.",
                     f"Section 2 of {n}: {LESSON.sections[1].title}."]


def test_the_lesson_follows_the_code_that_runs(fake_store) -> None:
    said, dive = dive_on(fake_store, "\n\nb\nb\n")
    follows = _said(said, "The lesson goes with this step in section ")
    lua, n = LESSON.section_for("lua"), len(LESSON.sections)
    assert follows == [f"The lesson goes with this step in section 2 of {n}, {lua.title}: l 2 reads it.",
                       f"The lesson goes with this step in section 1 of {n}, {LESSON.sections[0].title}: l 1 reads it."]
    assert dive.section == 0


def test_a_lesson_table_list_and_code_become_plain_lines() -> None:
    markdown = ("Say `ZADD` *now*:\n\n1. one\n2. two\n\n- a\n- b\n\n```\nKEYS a b\n```\n\n"
                "| | single | batch |\n|---|---|---|\n| ids | one | many |\n")
    assert plain_lesson.paragraphs(markdown) == [
        "Say ZADD now:", "1. one", "2. two", "- a", "- b", "Code:", "    KEYS a b", "End of code.",
        "A table, row by row:", "ids: single: one; batch: many."]


def test_s_v_and_o_say_the_store_the_wire_and_the_code_panes(fake_store) -> None:
    said, dive = dive_on(fake_store, "\n\n\n\ns\nv\no\n")
    frame = dive.current()
    store = _said(said, "The store, members 1 to 4 of 4:")[0]
    active = _zset(fake_store, "active")
    assert f"Active holds {len(active)}:" in store and "JOB04 not a member" in store
    assert f"JOB01 now+{LESSON.lease_ms}" in store and active["JOB01"] == FROZEN_MS + LESSON.lease_ms
    assert f"Pending holds 1: {', '.join(_pending(fake_store))}." in store
    assert "JOB02 attempts 2" in store
    calls = _said(said, f"Step 4 sent {len(frame.step.calls)} command")[0]
    assert "ZSCORE" in calls and f"line {frame.step.calls[0].line} of extend_locks.lua:" in calls
    code = _said(said, "This step ran extend_locks.lua, lines ")[0]
    scripts = Path(__file__).parent.parent / "emq_dive" / "engine" / "echo_mq" / "scripts"
    source = (scripts / "extend_locks.lua").read_text()
    assert code.endswith(f"Its line {frame.step.focus}: {source.splitlines()[frame.step.focus - 1].strip()}")


def test_c_says_a_failed_measurement_and_the_dive_goes_on(fake_store) -> None:
    server = fake_store.client.connection_pool.connection_kwargs["server"]
    said, dive = dive_on(fake_store, "\n")
    dive._lines = iter(["c 1\n", "\n"])
    out = io.StringIO()
    dive.out = out
    server.connected = False  # the store goes away under the measurement
    try:
        dive.answer(dive.read() or "")
    finally:
        server.connected = True
    dive.answer(dive.read() or "")
    said = out.getvalue().split("\n\n")
    assert said[1].startswith("The measurement failed: ConnectionError:") and said[1].endswith("The dive goes on.")
    assert said[2].startswith("Step 2 of 4 on wire 4: member 2 of 4, JOB02")


def test_a_says_the_batch_table_as_far_as_the_run_has_read(fake_store) -> None:
    said, dive = dive_on(fake_store, "\n\na\ne\nn 30\nr\na 21\n")
    table = _said(said, "The batch at step 2, 4 members: ")[0]
    assert 'JOB02, token 1: row "2", passes; token "2" is not the token "1", fails; in active not evaluated; ' \
           "verdict joins failed (stale)." in table
    assert table.endswith("3 JOB03, token 1: verdict waiting. 4 JOB04, token 1: verdict waiting.")
    assert len(dive.current().step.members) == 30
    paged = _said(said, "The batch at step 0, 30 members: ")
    assert paged == ["The batch at step 0, 30 members: " + ". ".join(
        f"{n} JOB{n:02d}, token 1: verdict waiting" for n in range(21, 31)) + "."]
