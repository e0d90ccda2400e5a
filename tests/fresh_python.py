"""Run test code in a fresh interpreter on this checkout, for what a test process has already imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fresh_output(code: str, timeout: float = 60) -> str:
    """What ``code`` prints when a new Python runs it from the checkout's root; its failure fails the test."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout
