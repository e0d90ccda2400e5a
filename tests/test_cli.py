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
                 "fakeredis", "server"):
        assert word in done.stdout, f"--help does not mention {word!r}"
    assert not done.stderr


def test_list_shows_the_lesson_and_its_heading() -> None:
    done = emq("list")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^batches-03\s+Batches · dive 03 — Batch lease extension$", done.stdout, re.M), done.stdout


@pytest.mark.parametrize("name", ["extend_locks", "extend_lock", "extend_locks.lua"])
def test_script_prints_the_file_byte_for_byte(name: str) -> None:
    done = emq("script", name)
    assert done.returncode == 0, done.stderr
    path = ROOT / "emq_dive" / "echo_mq" / "scripts" / (name.removesuffix(".lua") + ".lua")
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
        for name, cell in zip(columns[1:], cells[1:]):
            if cell == "—":
                continue  # a figure this backend cannot measure
            value = float(cell.removesuffix("×"))
            assert value >= 0, f"{name} at {size}: {cell}"
        batch = float(cells[batch_column])
        assert batch > 0, f"the batch row at {size} has no figure: {cells}"


def test_bench_with_an_unknown_backend_reports_and_goes_on() -> None:
    done = emq("bench", "--backend", "nope", "--sizes", "1", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "nope" in done.stdout and "skipped" in done.stdout
