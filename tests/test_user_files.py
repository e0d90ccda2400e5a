"""The user's files only where they belong: saved lessons go by id into the user's data directory (or a server's
own), never a path; transcripts go where asked and say so; a bad name is one line, never a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_serve import shared  # noqa: F401  (a fixture)

from emq_dive.cli import COMMANDS
from emq_dive.course import lessons
from emq_dive.course.sandbox import SandboxError, from_lesson, save_lesson
from emq_dive.course.user_lessons import RESERVED, SAVE_DIR, SAVE_OFF, SavePolicy
from emq_dive.present.paths import OutputProblem, output_problem, transcript_target
from emq_dive.views.tui.screens.sandbox import SandboxEditor
from emq_dive.views.web import tab_environment
from tests.tui_support import SIZE, asynctest, frozen_app, press, settle

ROOT = Path(__file__).resolve().parent.parent
LESSON = lessons.load("batches-03")
LONG = "n" * 300


def _save(name: str, folder: Path) -> Path:
    return save_lesson(from_lesson(LESSON), name, LESSON, folder)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_the_users_lessons_live_in_the_users_data_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert lessons.user_lessons_dir() == tmp_path / "data" / "emq-dive" / "lessons"
    policy = SavePolicy.from_environ(os.environ)
    assert policy.directory == lessons.user_lessons_dir() and policy.listed


@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a/b", "~nosuchuser/x", LONG, "list", "serve", "LIST",
                                  "-h", "--help", "", "  ", ".hidden", "x y", "x\u202ey", "batches-03"])
def test_save_takes_an_id_and_refuses_paths_commands_and_options(tmp_path: Path, name: str) -> None:
    with pytest.raises(SandboxError) as refused:
        _save(name, tmp_path / "mine")
    message = str(refused.value)
    assert "\n" not in message and len(message) < 200, message
    assert not (tmp_path / "mine").exists() or not list((tmp_path / "mine").iterdir())
    assert not (tmp_path.parent / "x.toml").exists() and not Path("/abs/x.toml").exists()


def test_every_command_is_a_reserved_id() -> None:
    assert set(COMMANDS) <= set(RESERVED)


def test_save_never_follows_a_symlink_nor_overwrites(tmp_path: Path) -> None:
    mine, outside = tmp_path / "mine", tmp_path / "outside"
    mine.mkdir()
    outside.mkdir()
    (mine / "dangling.toml").symlink_to(outside / "made.toml")
    (mine / "pointing.toml").symlink_to(outside / "kept.toml")
    (outside / "kept.toml").write_text("theirs")
    (mine / "loop.toml").symlink_to(mine / "loop.toml")
    for name in ("dangling", "pointing", "loop"):
        with pytest.raises(SandboxError, match=r"exists already|symlink"):
            _save(name, mine)
    assert (outside / "kept.toml").read_text() == "theirs" and not (outside / "made.toml").exists()
    first = _save("mine-1", mine)
    with pytest.raises(SandboxError, match="exists already"):
        _save("mine-1", mine)
    assert lessons.load_file(first).id == "mine-1"
    assert sorted(p.name for p in outside.iterdir()) == ["kept.toml"]


async def _editor_says(policy: SavePolicy | None, name: str | None) -> tuple[str, bool]:
    """Open the editor, press s and (when ``name`` is given) save under it; what the editor says, and if refused."""
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, SandboxEditor)
        if policy is not None:
            editor.policy = policy
        await press(app, pilot, "s")
        if name is not None:
            field = editor.query_one("#sandbox-path")
            field.value = name
            await press(app, pilot, "enter")
        message = editor.query_one("#sandbox-message")
        assert app.screen is editor, "the editor is still open: nothing crashed"
        return str(message.content), message.has_class("-refused")


@pytest.mark.parametrize("name", [LONG, "~nosuchuser/x", "../../x", "/abs/x", "serve", "-h"])
@asynctest
async def test_a_bad_name_in_the_editor_is_one_line_and_writes_nothing(tmp_path: Path, name: str) -> None:
    policy = SavePolicy(tmp_path / "mine")
    said, refused = await _editor_says(policy, name)
    assert refused and said.startswith("not saved: ") and "\n" not in said, said
    assert not (tmp_path / "mine").exists() or not list((tmp_path / "mine").iterdir())


@asynctest
async def test_saving_off_says_so_and_writes_nothing(tmp_path: Path) -> None:
    said, refused = await _editor_says(SavePolicy.from_environ({SAVE_OFF: "no saving in this test"}), None)
    assert refused and said == "saving is off: no saving in this test"


@asynctest
async def test_a_servers_tab_saves_only_into_its_servers_directory(tmp_path: Path) -> None:
    served = tmp_path / "served" / "one"
    policy = SavePolicy.from_environ({SAVE_DIR: str(served)})
    said, refused = await _editor_says(policy, "tab-lesson")
    assert not refused and "this server's own directory" in said, said
    assert _tree(tmp_path) == ["served", "served/one", "served/one/tab-lesson.toml"]
    assert "tab-lesson" not in lessons.lesson_ids(), "a server's saves are not the user's lessons"


def test_serve_writes_no_file_for_a_tab_unless_allow_save(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    environment, said = tab_environment("fakeredis", False, os.environ)
    assert SAVE_OFF in environment and SAVE_DIR not in environment and "--allow-save" in said
    assert not list(tmp_path.iterdir())
    first, said = tab_environment("fakeredis", True, os.environ)
    second, _ = tab_environment("fakeredis", True, os.environ)
    assert first[SAVE_DIR] != second[SAVE_DIR], "each server has a directory of its own"
    for environment in (first, second):
        folder = Path(environment[SAVE_DIR])
        assert folder.is_dir() and folder.is_relative_to(tmp_path / "emq-dive" / "served")
        assert oct(folder.stat().st_mode & 0o777) == oct(0o700)
    assert first[SAVE_DIR] in said


# -- the command line: a lesson by path, the list, and output paths ---------------------------------------------


def _emq(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "emq_dive", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=cwd, input=stdin)


def test_a_lesson_file_opens_by_path_and_the_list_marks_the_users(tmp_path: Path) -> None:
    path = _save("by-path", tmp_path / "elsewhere")
    done = _emq(str(path), "--transcript", "out.md", "--backend", "fakeredis", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "by-path" in (tmp_path / "out.md").read_text()
    _save("my-own", lessons.user_lessons_dir())
    listed = _emq("list", cwd=tmp_path).stdout.splitlines()
    assert any(line.startswith("batches-03 ") and "(yours)" not in line for line in listed), listed
    assert any(line.startswith("my-own ") and line.endswith("(yours)") for line in listed), listed
    assert not any("by-path" in line for line in listed)


def _loop(tmp_path: Path) -> str:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    return str(tmp_path / "loop" / "x")


@pytest.mark.parametrize("kind", ["too long", "symlink loop", "loop as the file"])
def test_an_output_path_the_filesystem_refuses_is_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "too long":
        path = str(tmp_path / (LONG + ".md"))
    elif kind == "symlink loop":
        path = _loop(tmp_path)
    else:
        (tmp_path / "self.md").symlink_to(tmp_path / "self.md")
        path = str(tmp_path / "self.md")
    problem = output_problem(path, "t.md")
    assert problem and "\n" not in problem and len(problem) < 200, problem
    for flag in ("--transcript", "--screenshot"):
        done = _emq("batches-03", flag, path, "--backend", "fakeredis", cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(f"emq-dive: {flag}: ") and len(done.stderr.splitlines()) == 1, done.stderr
    plain = _emq("batches-03", "--plain", "--backend", "fakeredis", cwd=tmp_path, stdin=f"x {path}\nq\n")
    assert plain.returncode == 0 and "Traceback" not in plain.stderr, plain.stderr
    assert "Cannot write the transcript: " in plain.stdout


def test_the_transcript_goes_to_the_working_directory_or_the_path_given(tmp_path: Path) -> None:
    assert transcript_target(None, "t.md", cwd=tmp_path) == tmp_path / "t.md"
    assert transcript_target(str(tmp_path / "b.md"), "t.md") == tmp_path / "b.md"
    for bad in ("~nosuchuser/x.md", LONG, _loop(tmp_path)):
        with pytest.raises(OutputProblem) as refused:
            transcript_target(bad, "t.md", cwd=tmp_path)
        assert "\n" not in str(refused.value)
    assert _tree(tmp_path) == ["loop"]


# -- from a browser tab of `emq-dive serve` --------------------------------------------------------------------------


def test_serve_says_whether_tabs_may_save(tmp_path: Path) -> None:
    from serve_support import served
    with served(tmp_path) as server:
        assert "saving lessons is off (--allow-save turns it on)" in server.banner
    with served(tmp_path, "--allow-save") as server:
        assert "tabs save lessons into " in server.banner and "/emq-dive/served/" in server.banner


def _environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)


@pytest.mark.server
@pytest.mark.parametrize("allow", [False, True])
def test_a_serve_tab_gets_its_save_policy_from_its_server(tmp_path: Path, shared, allow: bool) -> None:  # noqa: F811
    """A tab's app saves per its environment (the editor tests above hold what each policy lets it write)."""
    from serve_support import served
    from test_serve import _open_tab, _queues, _tab_with_keys

    client, url = shared
    data = Path(os.environ["XDG_DATA_HOME"])
    with served(tmp_path, "--backend", url, *(["--allow-save"] if allow else [])) as server:
        sock = _open_tab(server.url)
        pid, _ = _tab_with_keys(server, client, sock, _queues(client))
        policy = SavePolicy.from_environ(_environ(pid))
        sock.close()
    if allow:
        assert policy.directory is not None and not policy.listed
        assert policy.directory.is_relative_to(data / "emq-dive" / "served") and str(policy.directory) in server.banner
        assert sorted(str(p.relative_to(data)) for p in data.rglob("*")) == [
            "emq-dive", "emq-dive/served", f"emq-dive/served/{policy.directory.name}"]
    else:
        assert policy.directory is None and "--allow-save" in policy.reason
        assert not list(data.iterdir()), "a server without --allow-save makes no directory at all"


def test_a_working_directory_that_went_is_one_line(tmp_path: Path, monkeypatch) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(OutputProblem, match="working directory cannot be found"):
        transcript_target(None, "t.md")
