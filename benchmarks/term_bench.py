"""The dive on a real terminal (a 120×40 tmux pane polled over one control connection), beside a one-widget app.

Three sections: ``startup`` (launch → first usable frame, interleaved runs), ``keys`` (→ → pane changed and the
bytes the step wrote, per run mode and batch size) and ``big`` (open, End, worst stall and peak memory of a big
batch). Every figure is printed, never asserted.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tmux_control import Tmux, Watch

HERE = Path(__file__).resolve().parent
APPS = HERE / "term_apps.py"
PY = sys.executable

DIVE_READY = re.compile(r"step 0 of [\d,]+ · the handle")
"""The dive's first step text: the step bar at the handle, which shows once the store's step 0 is in."""
ONE_READY = re.compile(r"one widget · presses 0")
LAST_STEP = re.compile(r"step ([\d,]+) of \1\b")
MODES = {"batch": None, "singles": "m", "guard-off": "g"}
"""Each run mode a key is timed in, and the key that turns it on."""


@dataclass(frozen=True)
class Launch:
    """A command to run in the pane, its environment, and the text that says its first frame is usable."""

    name: str
    argv: str
    env: dict[str, str]
    ready: re.Pattern[str]
    marker: bytes
    """The first bytes of the ready text as the app writes them (the bytes before it are what came first)."""


def one_widget() -> Launch:
    return Launch("one-widget", f"{PY} {APPS} one", {}, ONE_READY, b"one widget")


def dive_cli(root: Path, backend: str) -> Launch:
    """The dive as a learner starts it: ``emq-dive batches-03 --backend B`` from the checkout ``root``."""
    return Launch(f"dive[{root.name}]", f"{PY} -m emq_dive batches-03 --backend {backend}",
                  {"PYTHONPATH": str(root)}, DIVE_READY, b"step 0 of")


def dive_batch(root: Path, backend: str, members: int, probe: Path | None = None) -> Launch:
    """The dive from ``root`` on a generated batch of ``members`` (0: the lesson's own four)."""
    tail = f" {probe}" if probe else ""
    return Launch(f"dive[{root.name}]", f"{PY} {APPS} dive {root} {backend} {members}{tail}", {}, DIVE_READY,
                  b"step 0 of")


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "n/a"


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] if ordered else float("nan")


def _open(tmux: Tmux, launch: Launch, timeout: float = 300.0) -> tuple[Watch, Watch]:
    """Start ``launch``; its first usable frame, and the pane once it stopped changing after that."""
    t0 = tmux.start(launch.argv, launch.env)
    ready = tmux.until(lambda text: bool(launch.ready.search(text)), t0, timeout)
    settled = tmux.settle(t0, ready.text, quiet=0.4, since=ready.first, timeout=timeout)
    return ready, settled


def hwm_mib(pid: int) -> float:
    """The resident-set high-water mark of ``pid`` (VmHWM) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(parent: int) -> list[int]:
    """The live child processes of ``parent`` (a store server the app started, say)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            text = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if int(fields[1]) == parent and fields[0] not in "ZX":
            found.append(int(name))
    return found


def startup(tmux: Tmux, launches: list[Launch], runs: int, say: Callable[[str], None]) -> None:
    """Launch → first usable frame of each, runs interleaved; medians, and each one's median ratio to the first."""
    rows: dict[str, list[tuple[float, float, float, int, float]]] = {launch.name: [] for launch in launches}
    for launch in launches:  # warm-up: bytecode and disk pages cached for each
        _open(tmux, launch)
        tmux.stop_app()
    for _ in range(runs):
        for launch in launches:
            ready, settled = _open(tmux, launch)
            # the first capture is the blank pane respawn-pane left; the next change is the app's first paint
            painted = (ready.changes[1:2] or [float("nan")])[0]
            before = tmux.before(launch.marker)
            rows[launch.name].append((ready.first_ms, settled.last_ms, float("nan") if before is None else before,
                                      settled.bytes,
                                      (painted - ready.t0) * 1000))
            tmux.stop_app()
    base = rows[launches[0].name]
    for launch in launches:
        row = rows[launch.name]
        ratio = statistics.median(r[0] / b[0] for r, b in zip(row, base, strict=True))
        say(f"  {launch.name:<22} first usable frame {_ms([r[0] for r in row]):>7} ms  (×{ratio:.2f} the "
            f"one-widget app; goal ≤ 1.25×); first paint {_ms([r[4] for r in row]):>6} ms; "
            f"settled {_ms([r[1] for r in row]):>7} ms; bytes to the terminal: "
            f"{statistics.median(r[2] for r in row):,.0f} before the first step text, "
            f"{statistics.median(r[3] for r in row):,.0f} by settled  [{len(row)} runs]")


def _key_samples(tmux: Tmux, presses: int, home: bool, kinds: list[str] | None = None) -> list[Watch]:
    """Press → ``presses`` times, each once the pane settled; at the batch's last step, Home first. ``kinds``
    gets, for each press, which kind of step it took (see ``_kind``)."""
    samples = []
    text = tmux.screen()
    for _ in range(presses):
        if home and LAST_STEP.search(text):
            text = tmux.settle(tmux.keys("Home"), text, quiet=0.3).text
        if kinds is not None:
            kinds.append(_kind(text))
        t0 = tmux.keys("Right")
        watch = tmux.settle(t0, text, quiet=0.15, timeout=30)
        samples.append(watch)
        text = watch.text
    return samples


STEP_AT = re.compile(r"step ([\d,]+) of ([\d,]+)")
KINDS = ("off the handle", "member to member", "onto the last")
"""The kinds of → a run has: leaving the handle (the code pane changes file), between two members, and onto the
last step (which also runs the atomic check). A small batch's median falls between them, so each is shown."""


def _kind(text: str) -> str:
    found = STEP_AT.search(text)
    if found is None:
        return "?"
    at, count = (int(n.replace(",", "")) for n in found.groups())
    return KINDS[0] if at == 0 else KINDS[2] if at == count - 1 else KINDS[1]


def _kinds_line(samples: list[Watch], kinds: list[str]) -> str:
    parts = []
    for kind in KINDS:
        mine = [w for w, k in zip(samples, kinds, strict=True) if k == kind and w.first is not None]
        if mine:
            parts.append(f"{kind} {_ms([w.first_ms for w in mine])} ms, "
                         f"{statistics.median(w.bytes for w in mine):,.0f} B [{len(mine)}]")
    return f"  {'':<40} by kind of step: " + "; ".join(parts)


def _key_line(name: str, samples: list[Watch]) -> str:
    first = [w.first_ms for w in samples if w.first is not None]
    last = [w.last_ms for w in samples if w.last is not None]
    return (f"  {name:<40} pane changed median {_ms(first):>6} ms, p90 {_p90(first):6.1f} ms; last change "
            f"{_ms(last):>6} ms; bytes a step {statistics.median(w.bytes for w in samples):>8,.0f}  "
            f"[{len(samples)} presses, {len(first)} changed the pane]")


ROUNDS = 4
"""Each tree's presses are split over this many launches, the trees' launches taking turns, so a drift in the
machine's load falls on every tree alike."""


def keys(tmux: Tmux, roots: list[Path], backends: list[str], sizes: list[int], presses: int,
         say: Callable[[str], None]) -> None:
    """→ to the pane changed in each run mode at each size, beside the one-widget app's label change."""
    _open(tmux, one_widget())
    floor = _key_samples(tmux, presses, home=False)
    tmux.stop_app()
    say(_key_line("one-widget floor (a label change)", floor))
    rounds = max(1, min(ROUNDS, presses // 5))
    for backend in backends:
        for size in sizes:
            for mode, key in MODES.items():
                samples: dict[Path, list[Watch]] = {root: [] for root in roots}
                kinds: dict[Path, list[str]] = {root: [] for root in roots}
                for turn in range(rounds):
                    for root in roots:
                        _, settled = _open(tmux, dive_batch(root, backend, size))
                        if key is not None:
                            text = tmux.settle(tmux.keys(key), settled.text, quiet=0.4, timeout=30).text
                            if text == settled.text:
                                say(f"  ({mode}: the pane did not change after {key!r})")
                        share = presses // rounds + (1 if turn < presses % rounds else 0)
                        samples[root] += _key_samples(tmux, share, home=True, kinds=kinds[root])
                        tmux.stop_app()
                for root in roots:
                    tag = f" [{root.name}]" if len(roots) > 1 else ""
                    say(_key_line(f"{mode}, {size:,} members, {backend}{tag}", samples[root])
                        + "  (goal: ≤ floor + 10 ms)")
                    say(_kinds_line(samples[root], kinds[root]))


def _worst_tick_gap(probe: Path, start: float, end: float) -> float:
    """The longest event-loop gap (ms) the app's probe saw that overlaps ``start``..``end``."""
    worst = 0.0
    for line in probe.read_text().splitlines():
        at, gap = map(float, line.split())
        if at >= start and at - gap <= end:
            worst = max(worst, gap)
    return worst * 1000


def big(tmux: Tmux, roots: list[Path], backends: list[str], sizes: list[int], work: Path,
        say: Callable[[str], None]) -> None:
    """Open → first frame, End → last step shown, worst stall and peak memory at each size."""
    _open(tmux, one_widget())
    say(f"  one-widget app peak memory (VmHWM) {hwm_mib(tmux.pid()):.0f} MiB")
    tmux.stop_app()
    for size in sizes:
        for root in roots:
            for backend in backends:
                probe = work / f"probe-{size}-{backend}.txt"
                ready, settled = _open(tmux, dive_batch(root, backend, size, probe), timeout=900)
                pid = tmux.pid()
                steps = _key_samples(tmux, 3, home=False)  # End then runs from step 3
                t_end = tmux.keys("End")
                shown = tmux.until(lambda text: bool(LAST_STEP.search(text)), t_end, timeout=1800)
                done = tmux.settle(t_end, shown.text, quiet=1.0, since=shown.first, timeout=1800)
                memory = hwm_mib(pid)
                servers = sum(hwm_mib(child) for child in children(pid))
                tmux.stop_app(timeout=120)
                assert done.last is not None and settled.last is not None
                loop_open = _worst_tick_gap(probe, ready.t0, settled.last)
                loop_end = _worst_tick_gap(probe, t_end, done.last)
                tag = f" [{root.name}]" if len(roots) > 1 else ""
                say(f"  {size:,} members, {backend}{tag}: open → first frame {ready.first_ms / 1000:.2f} s "
                    f"(settled {settled.last_ms / 1000:.2f} s, worst loop stall {loop_open:.0f} ms); "
                    f"End → last step shown {shown.first_ms / 1000:.2f} s (settled {done.last_ms / 1000:.2f} s); "
                    f"worst stall during End: event loop {loop_end:.0f} ms, between pane updates "
                    f"{shown.worst_gap_ms:.0f} ms; peak memory {memory:.0f} MiB"
                    + (f" (+ {servers:.0f} MiB its store server)" if servers else ""))
                say(f"  {'':<{len(f'{size:,}') + 9}}the first 3 →: pane changed median "
                    f"{_ms([w.first_ms for w in steps])} ms, bytes a step "
                    f"{statistics.median(w.bytes for w in steps):,.0f}")
                probe.unlink(missing_ok=True)
