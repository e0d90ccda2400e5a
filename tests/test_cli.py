"""The ``emq-dive`` command, run as a user runs it: ``python -m emq_dive`` in a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emq_dive import __version__

ROOT = Path(__file__).resolve().parent.parent
IN_CI = bool(os.environ.get("CI"))


def emq(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "emq_dive", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_version() -> None:
    done = emq("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"emq-dive {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", __version__)


@pytest.mark.parametrize("args", [("--help",), ("-h",), ()])
def test_help_names_every_command_and_option(args: tuple[str, ...]) -> None:
    done = emq(*args)
    assert done.returncode == 0, done.stderr
    for word in ("list", "script", "native build", "bench", "--backend", "--wire", "--screenshot", "--step",
                 "--transcript", "--plain", "fakeredis", "server"):
        assert word in done.stdout, f"--help does not mention {word!r}"
    assert not done.stderr


def test_list_shows_the_lesson_and_its_heading() -> None:
    done = emq("list")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^batches-03\s+Batches · dive 03 — Batch lease extension · 0/\d+ missions$", done.stdout, re.M), \
        done.stdout


@pytest.mark.parametrize("name", ["extend_locks", "extend_lock", "extend_locks.lua"])
def test_script_prints_the_file_byte_for_byte(name: str) -> None:
    done = emq("script", name)
    assert done.returncode == 0, done.stderr
    path = ROOT / "emq_dive" / "engine" / "echo_mq" / "scripts" / (name.removesuffix(".lua") + ".lua")
    assert done.stdout == path.read_text("utf-8")


@pytest.mark.parametrize("args", [("script", "nope"), ("script",), ("script", "extend_locks", "extra"),
                                  ("script", "../keyspace")])
def test_script_with_a_bad_name_is_one_clear_error(args: tuple[str, ...]) -> None:
    done = emq(*args)
    assert done.returncode == 2
    assert not done.stdout
    assert "Traceback" not in done.stderr
    assert "extend_locks" in done.stderr and "extend_lock" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("typo", ["batches-3", "batches03", "batch-03", "Batches-03"])
def test_an_unknown_lesson_names_the_nearest(typo: str) -> None:
    done = emq(typo)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert typo in done.stderr and "batches-03" in done.stderr


def test_a_far_unknown_lesson_points_to_list() -> None:
    done = emq("zzzzzzzz")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "emq-dive list" in done.stderr


def test_native_with_a_bad_subcommand_is_a_usage_error() -> None:
    done = emq("native", "bulid")
    assert done.returncode == 2
    assert "emq-dive native build" in done.stderr


def test_native_build_prints_an_existing_module_path() -> None:
    if shutil.which((os.environ.get("CC") or "cc").split()[0]) is None:
        if IN_CI:
            pytest.fail("CI must build the EMQ module, but there is no C compiler")
        pytest.skip("no C compiler (install gcc)")
    done = emq("native", "build")
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.is_absolute() and path.suffix == ".so"
    assert path.is_file()
    assert path.read_bytes()[:4] == b"\x7fELF"


def test_bench_prints_a_table_of_numbers() -> None:
    done = emq("bench", "--backend", "fakeredis", "--sizes", "1,10", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.split() and line.split()[0] == "leases")
    columns = re.split(r"\s{2,}", lines[header_at].strip())
    batch_column = next(i for i, name in enumerate(columns) if name.startswith("batch") and "gain" not in name
                        and "vs" not in name)
    rows = {}
    for line in lines[header_at + 1:]:
        cells = re.split(r"\s{2,}", line.strip())
        if not cells or not cells[0].isdigit():
            continue
        assert len(cells) == len(columns), f"row and header differ: {cells} vs {columns}"
        rows[int(cells[0])] = cells
    assert set(rows) == {1, 10}, done.stdout
    for size, cells in rows.items():
        for name, cell in zip(columns[1:], cells[1:], strict=True):
            if cell == "—":
                continue  # a figure this backend cannot measure
            value = float(cell.split("×")[0])
            assert value >= 0, f"{name} at {size}: {cell}"
        batch = float(cells[batch_column])
        assert batch > 0, f"the batch row at {size} has no figure: {cells}"


def test_bench_with_an_unknown_backend_reports_and_goes_on() -> None:
    done = emq("bench", "--backend", "nope", "--sizes", "1", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "nope" in done.stdout and "skipped" in done.stdout


# -- bad input at the edges: one line on stderr, exit 2, nothing run or written -----------------------------------


PASSWORD_WARNING = "emq-dive: warning: the password in "


def _refused(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command prints; it fails the test unless the refusal is whole and clean."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    assert not done.stdout, done.stdout
    # the one warning a password on the command line earns (tests/test_secrets.py holds it) is not the refusal
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith(PASSWORD_WARNING)]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("emq-dive: ")
    return lines[0]


def _nothing_ran(tmp: Path) -> dict[str, str]:
    """An environment whose TMPDIR is ``tmp``: a spawned server's work dir would appear there."""
    tmp.mkdir(exist_ok=True)
    return {"TMPDIR": str(tmp)}


def _bad_outputs(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Each kind of bad --screenshot path, and a word its refusal must contain."""
    (tmp_path / "a-file").write_text("x")
    os.mkfifo(tmp_path / "a-fifo.svg")
    (tmp_path / "a-dir").mkdir()
    (tmp_path / "a-link.svg").symlink_to(tmp_path / "a-dir")
    return {
        "missing dir": ("/nonexistent-dir/x.svg", "no directory"),
        "missing dir here": (str(tmp_path / "gone" / "x.svg"), "no directory"),
        "proc": ("/proc/x.svg", "/proc"),
        "proc of a process": ("/proc/self/x.svg", "/proc"),
        "sys": ("/sys/kernel/x.svg", "/sys"),
        "directory": (str(tmp_path / "a-dir"), "directory"),
        "directory with slash": (str(tmp_path / "a-dir") + "/", "directory"),
        "link to a directory": (str(tmp_path / "a-link.svg"), "directory"),
        "under a file": (str(tmp_path / "a-file" / "x.svg"), "not a directory"),
        "a fifo": (str(tmp_path / "a-fifo.svg"), "not a regular file"),
        "empty": ("", "empty"),
    }


BAD_OUTPUTS = ["missing dir", "missing dir here", "proc", "proc of a process", "sys", "directory",
               "directory with slash", "link to a directory", "under a file", "a fifo", "empty"]


@pytest.mark.parametrize("kind", BAD_OUTPUTS)
def test_a_screenshot_path_that_cannot_be_written_is_refused_before_anything_runs(tmp_path: Path, kind: str) -> None:
    path, word = _bad_outputs(tmp_path)[kind]
    env = _nothing_ran(tmp_path / "tmp")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = emq("batches-03", "--backend", "server", "--screenshot", path, env=env)
    line = _refused(done)
    assert "--screenshot" in line and word in line, line
    assert "starting server" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not list((tmp_path / "a-dir").iterdir())
    assert not list((tmp_path / "tmp").iterdir()), "a server was spawned for a screenshot that cannot be written"


@pytest.mark.parametrize("where", ["a file as its directory", "a directory under /proc"])
def test_a_screenshot_where_no_file_can_be_made_is_refused_for_root_too(tmp_path: Path, where: str) -> None:
    """Paths that refuse every user, root included, so this runs wherever the suite runs (CI runs it as root)."""
    locked = tmp_path / "locked"
    locked.write_text("a regular file, not a directory")
    target = locked / "x.svg" if where == "a file as its directory" else Path(f"/proc/{os.getpid()}/x.svg")
    line = _refused(emq("batches-03", "--screenshot", str(target)))
    assert ("not a directory" in line and str(locked) in line) if where.startswith("a file") else "/proc" in line
    assert locked.read_text() == "a regular file, not a directory"
    assert [p.name for p in tmp_path.iterdir()] == ["locked"]


@pytest.mark.parametrize("wire, last", [("4", 4), ("6", 5)])
def test_the_last_step_of_each_wire_is_accepted_and_the_probe_leaves_only_the_screenshot(
        tmp_path: Path, wire: str, last: int) -> None:
    target = tmp_path / "x.svg"
    done = emq("batches-03", "--wire", wire, "--step", str(last), "--screenshot", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(target)
    assert [p.name for p in tmp_path.iterdir()] == ["x.svg"]
    assert target.read_text("utf-8").lstrip().startswith("<svg")


@pytest.mark.parametrize("wire, step, last", [("4", "999", 4), ("4", "5", 4), ("6", "6", 5)])
def test_a_step_past_the_end_names_the_range_before_anything_runs(tmp_path: Path, wire: str, step: str,
                                                                 last: int) -> None:
    target = tmp_path / "x.svg"
    done = emq("batches-03", "--backend", "server", "--wire", wire, "--step", step, "--screenshot", str(target),
               env=_nothing_ran(tmp_path / "tmp"))
    line = _refused(done)
    assert f"--step {step}" in line and f"wire {wire}" in line and f"0 (the handle) to {last}" in line, line
    assert "starting server" not in done.stderr
    assert not list((tmp_path / "tmp").iterdir())
    assert not target.exists()


@pytest.mark.parametrize("step, word", [("-1", "below 0"), ("-999", "below 0"), ("x", "not a step number"),
                                        ("1.5", "not a step number")])
def test_a_step_that_is_no_step_number_is_a_one_line_usage_error(step: str, word: str) -> None:
    line = _refused(emq("batches-03", "--step", step))
    assert "--step" in line and word in line and "emq-dive --help" in line, line


def test_a_bad_option_value_is_one_line_too() -> None:
    line = _refused(emq("batches-03", "--wire", "5"))
    assert "--wire" in line and "4, 6" in line


@pytest.mark.parametrize("url", ["redis://alice:s3cret@127.0.0.1:1/0", "redis://s3cret@127.0.0.1:1/0"])
def test_an_unreachable_url_prints_no_user_part(tmp_path: Path, url: str) -> None:
    done = emq("batches-03", "--backend", url, "--screenshot", str(tmp_path / "x.svg"))
    line = _refused(done)
    assert "cannot reach redis://***@127.0.0.1:1/0" in line, line
    assert "alice" not in done.stderr and "s3cret" not in done.stderr


def test_help_says_step_works_in_the_tui_as_well() -> None:
    done = emq("--help")
    step_help = done.stdout[done.stdout.index("--step K "):]
    assert "TUI" in step_help and "with --screenshot:" not in done.stdout
    assert "[--screenshot FILE.svg [--step K]]" not in done.stdout


@pytest.mark.parametrize("batch", [[], ["live"], ["live", "stale"], ["live", "stale", "live", "reaped"]])
@pytest.mark.parametrize("wire", [4, 6])
def test_the_step_range_the_cli_checks_is_the_one_the_stepper_walks(fake_store, batch: list[str],
                                                                    wire: int) -> None:
    from emq_dive.cli import step_count
    from emq_dive.engine import fates
    from emq_dive.engine.stepper import Stepper
    held = fates.build_batch(fake_store, batch, 30_000, 10_000).held
    stepper = Stepper(fake_store, held, 30_000, wire=wire)
    assert stepper.count == step_count(len(batch), wire)
    while not stepper.finished:
        stepper.forward()
    assert stepper.position == step_count(len(batch), wire)


@pytest.mark.parametrize("mode", [("--transcript", "x.md"), ("--plain",)])
def test_a_text_mode_beside_a_screenshot_is_one_usage_line(tmp_path: Path, mode: tuple[str, ...]) -> None:
    args = [str(tmp_path / part) if part.endswith(".md") else part for part in mode]
    line = _refused(emq("batches-03", *args, "--screenshot", str(tmp_path / "x.svg")))
    assert "not allowed with" in line and "--screenshot" in line
    assert not list(tmp_path.iterdir())


def test_plain_refuses_a_step_past_the_end_before_anything_runs(tmp_path: Path) -> None:
    done = emq("batches-03", "--backend", "server", "--plain", "--step", "9", env=_nothing_ran(tmp_path / "tmp"))
    line = _refused(done)
    assert "--step 9" in line and "0 (the handle) to 4" in line
    assert not list((tmp_path / "tmp").iterdir())
