"""Mission tables: a bad one names the file and the key; list counts the done ones; the plain mode's missions."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from emq_dive.course import lessons
from emq_dive.course.lesson_list import print_list
from emq_dive.course.user_state import UserState
from emq_dive.engine.stores import open_store
from emq_dive.present.session import Session
from emq_dive.views.text.plain.dive import NoStyle, PlainDive
from emq_dive.views.text.recorder import Recorder

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "lessons" / "batches-03.toml"
GOOD = '''
[[mission]]
id = "extra"
title = "An extra"
goal = "Re-score a member."
hint = "Step."
proves = "The batch never raises over one bad lease."
route = "f"
'''


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("EMQ_DIVE_DATA_DIR", str(tmp_path / "state"))


def _with(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "batches-03.toml"
    path.write_text(SHIPPED.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return path


def test_an_author_adds_a_mission_without_python(tmp_path):
    lesson = lessons.load_file(_with(tmp_path, GOOD + "[[mission.check]]\n[[mission.check.member]]\n"
                                     'verdict = "re-scored"\n'))
    extra = lesson.missions[-1]
    assert extra.id == "extra" and extra.stages[0].members[0].verdict.value == "re-scored"


@pytest.mark.parametrize(("extra", "key", "problem"), [
    (GOOD + "[[mission.check]]\n[[mission.check.member]]\nverdict = \"sideways\"\n",
     "mission[15].check[0].member[0].verdict", "is not one of"),
    (GOOD, "mission[15].check", "missing"),
    (GOOD.replace('hint = "Step."\n', "") + "[[mission.check]]\ndone = true\n", "mission[15].hint", "missing"),
    (GOOD.replace("The batch never raises over one bad lease.", "Batches are magic.") +
     "[[mission.check]]\ndone = true\n", "mission[15].proves", "not a sentence of this lesson"),
    (GOOD + "[[mission.check]]\ncolour = \"red\"\n", "mission[15].check[0].colour", "unexpected key"),
    (GOOD + "needs = [\"wings\"]\n[[mission.check]]\ndone = true\n", "mission[15].needs[0]", "is not one of"),
    (GOOD.replace('id = "extra"', 'id = "resurrect"') + "[[mission.check]]\ndone = true\n", "mission[15].id",
     "already the id"),
    (GOOD + "start = { batch = [\"zombie\"] }\n[[mission.check]]\ndone = true\n", "mission[15].start.batch[0]",
     "not a member fate"),
    (GOOD + "[[mission.check]]\n", "mission[15].check[0]", "asks nothing"),
])
def test_a_bad_mission_table_names_the_file_and_the_key(tmp_path, extra, key, problem):
    path = _with(tmp_path, extra)
    with pytest.raises(lessons.LessonError) as caught:
        lessons.load_file(path)
    message = str(caught.value)
    assert str(path) in message or path.name in message
    assert f"key {key!r}" in message and problem in message, message


def test_list_counts_each_lessons_missions_done(tmp_path):
    out = io.StringIO()
    print_list([], out)
    total = len(lessons.load("batches-03").missions)
    assert f"batches-03   Batches · dive 03 — Batch lease extension · 0/{total} missions" in out.getvalue()
    state = UserState.from_environ()
    state.mark_done("batches-03", "resurrect")
    state.mark_done("batches-03", "unpaired")
    state.mark_done("batches-03", "no-such-mission")  # an old id the file no longer has is not counted
    out = io.StringIO()
    print_list([], out)
    assert f"· 2/{total} missions" in out.getvalue()


def _plain(lines: list[str], mission: int | None = None) -> str:
    store = open_store("fakeredis", clock=lambda: 1_700_000_000.0, run_id="f" * 40)
    try:
        lesson = lessons.load("batches-03")
        out = io.StringIO()
        dive = PlainDive(Session(store, lesson), out, NoStyle(), Recorder(lesson.heading, lambda: "fakeredis"),
                         lambda _path: None)
        dive.run(iter(lines), 0, mission)
        return out.getvalue()
    finally:
        store.close()


def test_the_plain_mode_lists_starts_hints_resets_and_meets_a_mission():
    number = next(i for i, m in enumerate(lessons.load("batches-03").missions, 1) if m.id == "resurrect")
    said = _plain(["missions", f"missions {number}", "hint", "goal", "end", "reset", "g", "end", "q"])
    assert "Missions, 0 of " in said and "skipped here:" in said
    assert "Resurrection: Put a reaped lease back in active" in said
    assert "Hint: The ZSCORE guard stops it." in said and "The goal: " in said and "pending" in said
    before_g = said.split("Run mode:")[0]
    assert "Mission met" not in before_g, "the end with the guard on does not meet it"
    assert "Mission met: Resurrection. This proves: Without the `ZSCORE` guard" in said
    assert "resurrect" in UserState.from_environ().progress().done("batches-03")


def test_the_plain_mode_opens_on_a_mission_and_refuses_one_that_cannot_run():
    missions = lessons.load("batches-03").missions
    noperm = next(i for i, m in enumerate(missions, 1) if m.id == "noperm")
    said = _plain(["q"], mission=noperm)
    assert "is skipped here:" in said and "ACL" in said


def test_the_command_line_refuses_a_mission_there_is_not(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", "--mission", "99", "--plain",
                           "--backend", "fakeredis"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, input="q\n")
    assert done.returncode == 2 and "--mission 99: batches-03 has missions 1 to" in done.stderr
    done = subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", "--mission", "1", "--plain",
                           "--backend", "fakeredis"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, input="hint\nq\n")
    assert done.returncode == 0, done.stderr
    assert "Mission 1, Four deadlines" in done.stdout and "Hint: One batch reads TIME once" in done.stdout
