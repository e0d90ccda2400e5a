"""The bench's batch-versus-singles column says which way the cost goes."""

from __future__ import annotations

import re
import subprocess
import sys

from emq_dive.tools.bench import versus


def test_versus_says_which_is_cheaper():
    assert versus(10.0, 40.0) == "0.25× (cheaper)"
    assert versus(45.0, 40.0) == "1.12× (dearer)"
    assert versus(40.0, 40.0) == "1.00× (the same)"
    assert versus(None, 40.0) == "—" and versus(10.0, None) == "—"


def test_the_bench_table_names_the_cheaper_way_in_each_row():
    done = subprocess.run([sys.executable, "-m", "emq_dive", "bench", "--backend", "fakeredis", "--sizes", "1,10",
                           "--repeats", "1"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "batch/singles cost: the batch script's cost as a share of the single script's" in lines[0]
    header = next(line for line in lines if line.split()[:1] == ["leases"])
    assert header.rstrip().endswith("batch/singles cost")
    rows = [line for line in lines if re.match(r"\s+(1|10)\s", line)]
    assert len(rows) == 2, done.stdout
    for row in rows:
        cells = re.split(r"\s{2,}", row.strip())
        batch, single = float(cells[1]), float(cells[2])
        share, word = re.fullmatch(r"(\d+\.\d\d)× \((cheaper|dearer|the same)\)", cells[-1]).groups()
        assert abs(float(share) - batch / single) < 0.01 + 0.01 * batch / single
        assert word == ("cheaper" if batch < single else "dearer" if batch > single else "the same")
