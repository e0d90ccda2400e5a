"""The plain mode's E: your edited script from a file or your saved copy, and the course's back."""

from __future__ import annotations

import io

from emq_dive.course.lessons import load
from emq_dive.present.session import Session
from emq_dive.views.text.plain.dive import PlainDive
from emq_dive.views.text.plain.state import NoStyle
from emq_dive.views.text.recorder import Recorder
from tests.test_user_script import BATCH, NO_GUARD

LESSON = load("batches-03")


def _said(store, lines: list[str]) -> tuple[list[str], Session]:
    out = io.StringIO()
    session = Session(store, LESSON, BATCH)
    dive = PlainDive(session, out, NoStyle(), Recorder(LESSON.heading, store.description), lambda path: "")
    assert dive.run(iter(lines)) == 0
    return out.getvalue().split("\n\n"), session


def test_E_loads_a_file_then_the_saved_copy_refuses_a_broken_one_and_puts_the_course_back(fake_store, tmp_path,
                                                                                          monkeypatch) -> None:
    monkeypatch.setenv("EMQ_DIVE_DATA_DIR", str(tmp_path / "data"))
    edit, broken = tmp_path / "mine.lua", tmp_path / "broken.lua"
    edit.write_text(NO_GUARD)
    broken.write_text("local x = \n")
    said, session = _said(fake_store, ["E", f"E {edit}", "end", "o", f"E {broken}", "q"])
    text = "\n\n".join(said)
    assert "The run sends extend_locks.lua: the course's script." in text
    assert "Your extend_locks.lua @" in text and "runs from step 0, stepped for real; saved to" in text
    assert "JOB04 re-scored" in text and "This step ran your extend_locks.lua @" in text
    assert "Your script was not run: Lua syntax error, extend_locks.lua:2:" in text
    assert set(session.yours) == {"extend_locks"}

    said, session = _said(fake_store, ["E", "E saved", "E course", "E saved", "q"])  # a later run: the saved copy
    text = "\n\n".join(said)
    assert "The run sends extend_locks.lua: the course's, and your saved copy waits, 3 lines differ" in text
    assert "Your extend_locks.lua @" in text
    assert "The course's extend_locks.lua runs again from step 0; your saved copy is deleted." in text
    assert "You have no saved copy of extend_locks.lua" in text
    assert session.yours == {}
