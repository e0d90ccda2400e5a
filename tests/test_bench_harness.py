"""The speed harness (``make tui-bench``) prints its figures: a smoke run of its cheapest section, no timing checked."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import IN_CI

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def tmux_control() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tmux_control", BENCHMARKS / "tmux_control.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tmux_control", module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_bytes_an_app_wrote_are_counted_from_tmuxs_escaped_output() -> None:
    # tmux sends ESC as \033 and a backslash as \134: each is one byte the app wrote
    assert tmux_control().output_bytes(b"ab\\033[1mc\\134") == 8


def test_each_press_is_told_by_the_kind_of_step_it_takes() -> None:
    tmux_control()  # term_bench imports it by name
    spec = importlib.util.spec_from_file_location("term_bench", BENCHMARKS / "term_bench.py")
    assert spec is not None and spec.loader is not None
    term_bench = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("term_bench", term_bench)  # its dataclasses look their module up there
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec.loader.exec_module(term_bench)
    finally:
        sys.path.remove(str(BENCHMARKS))
    kinds = [term_bench._kind(f" step {at:,} of 1,000 · member") for at in (0, 1, 998, 999)]
    assert kinds == ["off the handle", "member to member", "member to member", "onto the last"]
    assert term_bench._kind("waiting for the store") == "?"


def test_an_unknown_section_is_refused_before_anything_runs() -> None:
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench_harness.py"), "--only", "startup,nope"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "unknown sections: nope" in out.stderr


@pytest.mark.slow
def test_the_startup_section_prints_both_apps_figures_side_by_side() -> None:
    if shutil.which("tmux") is None:
        if IN_CI:
            pytest.fail("CI must run the harness smoke test, but there is no tmux (apt-get install tmux)")
        pytest.skip("no tmux on PATH")
    env = {**os.environ, "PYTHONPATH": str(BENCHMARKS.parent)}
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench_harness.py"), "--only", "startup", "--quick",
                          "--runs", "1", "--backends", "fakeredis"],
                         capture_output=True, text=True, env=env, timeout=180)
    assert out.returncode == 0, out.stderr
    figure = (r"first usable frame +[\d.]+ ms .*×([\d.]+) the one-widget app.* bytes to the terminal: "
              r"[\d,]+ before the first step text, [\d,]+ by settled")
    rows = {name: re.search(name + r" +" + figure, out.stdout) for name in ("one-widget", r"dive\[\S+\]")}
    assert all(rows.values()), out.stdout
    one = rows["one-widget"]
    assert one is not None and one.group(1) == "1.00"  # the baseline is its own ratio's base
