"""The dive run from a read-only copy of the project: a mission met, the tour read, an edited script saved and a
transcript written, and not one byte of the copy changed; what it keeps is in the user's data directory."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from emq_dive.course import lessons

ROOT = Path(__file__).resolve().parent.parent


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` by its path, with the hash of its bytes (directories by their mode)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else oct(path.stat().st_mode)
    return out


def _read_only(root: Path) -> None:
    for path in (root, *root.rglob("*")):
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def test_a_run_from_a_read_only_copy_writes_nothing_into_it(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "emq_dive", copy / "emq_dive", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "lessons", copy / "lessons")
    _read_only(copy)
    before = _tree(copy)
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    edited = work / "mine.lua"
    edited.write_text((ROOT / "emq_dive/engine/echo_mq/scripts/extend_locks.lua").read_text() + "-- mine\n")
    number = next(i for i, m in enumerate(lessons.load("batches-03").missions, 1) if m.id == "resurrect")
    lines = [f"missions {number}", "g", "end", f"E {edited}", "end", "x run.md", "t", *[""] * 8, "q", "q"]
    env = {**os.environ, "PYTHONPATH": str(copy), "XDG_DATA_HOME": str(data), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("EMQ_DIVE_DATA_DIR", None)
    done = subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", "--plain", "--backend", "fakeredis"],
                          cwd=work, env=env, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=240)
    try:
        assert done.returncode == 0, done.stderr
        assert "Mission met: Resurrection" in done.stdout
        assert _tree(copy) == before, "the run changed a file of the checkout"
        kept = data / "emq-dive"
        assert '"resurrect"' in (kept / "progress.json").read_text()
        assert (kept / "scripts" / "batches-03" / "extend_locks.lua").read_text() == edited.read_text()
        assert (work / "run.md").is_file()
        assert "tour-seen" in (kept / "progress.json").read_text(), "the tour read to its end"
    finally:
        for path in (copy, *copy.rglob("*")):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
