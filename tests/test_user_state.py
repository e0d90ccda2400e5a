"""The learner's state file: flags and missions survive a new process, a read-only directory is said, not fatal."""

from __future__ import annotations

import pytest

from emq_dive.course.user_state import DATA_DIR, STATE_OFF, StateProblem, UserState


def test_flags_and_missions_survive_a_new_reader(tmp_path):
    state = UserState.from_environ({DATA_DIR: str(tmp_path)})
    state.set_flag("tour-seen")
    state.mark_done("batches-03", "differ")
    state.mark_done("batches-03", "stale-single")
    again = UserState.from_environ({DATA_DIR: str(tmp_path)}).progress()
    assert again.flags == {"tour-seen"}
    assert again.done("batches-03") == {"differ", "stale-single"}
    assert again.done("other") == frozenset()


def test_the_default_directory_is_the_users_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert UserState.from_environ({}).root == tmp_path / "emq-dive"


def test_an_edited_script_is_kept_apart_from_the_course(tmp_path):
    state = UserState(tmp_path)
    assert state.read_script("batches-03", "extend_locks") is None
    path = state.write_script("batches-03", "extend_locks", "return {}\n")
    assert path == tmp_path / "scripts" / "batches-03" / "extend_locks.lua"
    assert state.read_script("batches-03", "extend_locks") == "return {}\n"
    state.forget_script("batches-03", "extend_locks")
    assert state.read_script("batches-03", "extend_locks") is None


@pytest.mark.parametrize("name", ["../x", "a/b", "", ".hidden", "a..b"])
def test_a_name_that_would_be_a_path_is_refused(tmp_path, name):
    with pytest.raises(ValueError):
        UserState(tmp_path).mark_done(name, "m")


def test_a_directory_that_cannot_be_written_gives_one_line_and_keeps_the_old_file(tmp_path):
    state = UserState(tmp_path)
    state.set_flag("tour-seen")
    before = (tmp_path / "progress.json").read_bytes()
    blocked = UserState(tmp_path / "progress.json" / "inner")  # a file where a directory must be: even root fails
    with pytest.raises(StateProblem, match="cannot save into"):
        blocked.mark_done("batches-03", "differ")
    assert (tmp_path / "progress.json").read_bytes() == before
    assert blocked.progress().done("batches-03") == frozenset()


def test_state_off_says_why_and_reads_as_nothing_done(tmp_path):
    state = UserState.from_environ({STATE_OFF: "the browser's tabs share this server", DATA_DIR: str(tmp_path)})
    assert state.progress().done("batches-03") == frozenset()
    with pytest.raises(StateProblem, match="share this server"):
        state.set_flag("tour-seen")
    assert state.script_path("batches-03", "extend_locks") is None


def test_a_damaged_state_file_reads_as_none_yet(tmp_path):
    (tmp_path / "progress.json").write_text("{not json")
    assert UserState(tmp_path).progress().flags == frozenset()
