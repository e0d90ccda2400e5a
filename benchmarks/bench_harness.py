"""``make tui-bench``: the dive's speed where a learner feels it, each figure beside its baseline in one run.

Sections (``--only``, comma-separated): ``startup`` launch → first usable frame on a 120×40 tmux, against a
one-widget Textual app, runs interleaved; ``keys`` → → tmux pane changed and the bytes the step wrote, in each run
mode at 4 and 1,000 members, beside the one-widget app's label change (the trees' launches take turns); ``big``
10,000 and 100,000 members: open, End, worst stall, peak memory; ``serve`` a browser tab usable, unique memory per
tab, twenty tabs at once. ``--against DIR`` runs another checkout's dive beside this one's in every terminal
section. ``--quick`` is a smoke run with small sizes. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import term_bench
from tmux_control import Tmux

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("startup", "keys", "big", "serve")


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _sizes(text: str) -> list[int]:
    return [int(part.replace("_", "")) for part in _csv(text)]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--only", type=_csv, default=list(SECTIONS), metavar="S,S",
                   help=f"the sections to run (default: all of {','.join(SECTIONS)})")
    p.add_argument("--runs", type=int, help="interleaved start-up runs (default 11; quick 3)")
    p.add_argument("--presses", type=int, help="→ presses timed per mode and size (default 20; quick 5)")
    p.add_argument("--quick", action="store_true", help="a smoke run: few runs, small sizes, fakeredis only")
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    p.add_argument("--against", type=Path, metavar="DIR", help="another checkout measured beside it")
    p.add_argument("--backends", type=_csv, help="stores for the dive (default: fakeredis,auto; quick: fakeredis)")
    p.add_argument("--key-sizes", type=_sizes, help="batch sizes for keys (default 4,1000; quick 4,1000)")
    p.add_argument("--big-sizes", type=_sizes, help="batch sizes for big (default 10000,100000; quick 2000)")
    p.add_argument("--tabs", type=int, help="tabs opened at once in serve (default 20; quick 4)")
    return p


def _leave(signum: int, _frame: object) -> None:
    """A kill or a closed terminal ends the run through its ``finally``: the tmux server and its dive go too."""
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    for each in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(each, _leave)
    args = parser().parse_args(argv)
    unknown = set(args.only) - set(SECTIONS)
    if unknown:
        parser().error(f"unknown sections: {', '.join(sorted(unknown))} (choose from {', '.join(SECTIONS)})")
    quick = args.quick
    runs = args.runs or (3 if quick else 11)
    presses = args.presses or (5 if quick else 20)
    backends = args.backends or (["fakeredis"] if quick else ["fakeredis", "auto"])
    key_sizes = args.key_sizes or [4, 1000]
    big_sizes = args.big_sizes or ([2000] if quick else [10_000, 100_000])
    tabs = args.tabs or (4 if quick else 20)
    roots = [args.root.resolve(), *([args.against.resolve()] if args.against else [])]

    def say(line: str) -> None:
        print(line, flush=True)

    say(f"measuring {' against '.join(map(str, roots))}; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores{' (a busy machine: figures are noisy)' if os.getloadavg()[0] > 1 else ''}"
        + ("; quick mode" if quick else ""))
    started = time.perf_counter()
    terminal = [s for s in args.only if s in ("startup", "keys", "big")]
    if terminal:
        tmux = Tmux(120, 40)
        try:
            with tempfile.TemporaryDirectory(prefix="emq-bench-") as work:
                if "startup" in terminal:
                    for backend in backends:
                        say(f"launch → first usable frame, 120×40 tmux, --backend {backend}, medians of {runs} "
                            "interleaved runs:")
                        launches = [term_bench.one_widget(), *(term_bench.dive_cli(r, backend) for r in roots)]
                        term_bench.startup(tmux, launches, runs, say)
                if "keys" in terminal:
                    say(f"key → tmux pane changed (polled every 0.5 ms over one control connection), {presses} "
                        "presses each:")
                    term_bench.keys(tmux, roots, backends, key_sizes, presses, say)
                if "big" in terminal:
                    say("big batches (goals at 10,000: open ≤ 1 s, End ≤ 1 s, stall ≤ 50 ms; at 100,000: open "
                        "≤ 10 s, End ≤ 10 s, ≤ 300 MiB):")
                    term_bench.big(tmux, roots, backends, big_sizes, Path(work), say)
        finally:
            tmux.close()
    if "serve" in args.only:
        import serve_bench
        say(f"emq-dive serve in headless Chromium ({tabs} tabs at once):")
        serve_bench.run(roots, tabs, runs=3 if quick else 5, say=say, backends=backends)
    say(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
