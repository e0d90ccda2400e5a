"""``emq-dive bench``: what one lease extension costs, batched, one by one, and natively."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..course.lesson_file import MAX_MEMBERS
from ..engine.stores import Store, StoreError, open_store
from ..engine.stores.credentials import BackendProblem, resolve_backend
from ..engine.stores.masking import masked
from . import cost

MAX_REPEATS = 100
"""The most runs per figure ``--repeats`` may ask for."""
MAX_SIZES = 12
"""The most batch sizes one ``--sizes`` may list."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"emq-dive bench: {message} (see: emq-dive bench --help)\n")


def whole(text: str, low: int, high: int, what: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``, else an argparse error naming ``what``."""
    text = text.strip()
    if not text.lstrip("-").isdigit() or len(text) > 20:
        raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a whole number ({what})")
    value = int(text)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value} is out of range: {what}")
    return value


def sizes(text: str) -> list[int]:
    """``--sizes``: comma-separated batch sizes, each from 1 to the course's batch cap."""
    parts = text.split(",")
    if len(parts) > MAX_SIZES:
        raise argparse.ArgumentTypeError(f"at most {MAX_SIZES} sizes, not {len(parts)}")
    return [whole(part, 1, MAX_MEMBERS, f"a batch size is 1 to {MAX_MEMBERS:,}") for part in parts]


def repeats(text: str) -> int:
    """``--repeats``: runs per figure, 1 to MAX_REPEATS."""
    return whole(text, 1, MAX_REPEATS, f"runs per figure are 1 to {MAX_REPEATS}")


def measure(store: Store, count: int, lease_ms: int = 30_000, repeats: int = 3) -> dict[str, float | None]:
    """Microseconds per lease for each way of extending ``count`` leases on ``store`` (the cost view's figures)."""
    try:
        return cost.measure_queue(store.client, store.queue, store.native, count, lease_ms, repeats)
    finally:
        store.forget()


def versus(batch: float | None, single: float | None) -> str:
    """The batch's cost as a share of the singles' (``0.12× (cheaper)``); ``—`` when either is missing."""
    if not batch or not single:
        return "—"
    share = batch / single
    return f"{share:.2f}× ({'cheaper' if share < 1 else 'dearer' if share > 1 else 'the same'})"


def main(argv: Sequence[str] = ()) -> int:
    """Print the per-lease cost table for each backend and batch size."""
    parser = _Parser(prog="emq-dive bench", description=__doc__)
    parser.add_argument("--backend", action="append",
                        help="fakeredis, server or a URL (repeatable; default: fakeredis and server); a URL's "
                             "password may come from EMQ_DIVE_PASSWORD or REDISCLI_AUTH")
    parser.add_argument("--sizes", type=sizes, default=[1, 100, 10_000],
                        help=f"comma-separated batch sizes, each 1 to {MAX_MEMBERS:,} (default 1,100,10000)")
    parser.add_argument("--repeats", type=repeats, default=3,
                        help=f"runs per figure, 1 to {MAX_REPEATS}; the best is kept (default 3)")
    args = parser.parse_args(list(argv))
    backends = args.backend or ["fakeredis", "server"]
    print("µs per lease, client round trip included (best of runs), then the server's own share of the batch "
          "(INFO commandstats); lower is better. batch/singles cost: the batch script's cost as a share of the "
          "single script's, called once per lease")
    for spec in backends:
        try:
            store = open_store(resolve_backend(spec, os.environ, warn=_warn))
        except (StoreError, BackendProblem) as err:
            print(f"\n{masked(spec)}: skipped: {err}")
            continue
        try:
            print(f"\n{store.description}" + ("" if store.native else f"  (no native twin: {store.native_reason})"))
            header = ["leases", "batch script", "single ×N", "EMQ.EXTENDS", "EMQ.EXTEND ×N",
                      "server: script", "server: native", "batch/singles cost"]
            print("  ".join(f"{h:>15}" for h in header))
            for size in args.sizes:
                row = measure(store, size, repeats=args.repeats)
                cells = [f"{size:>15}"] + [f"{'—' if v is None else f'{v:.2f}':>15}" for v in row.values()]
                print("  ".join([*cells, f"{versus(row['batch script'], row['single script ×N']):>15}"]))
            from .bench_bullmq import report as bullmq_report
            bullmq_report(store, args.sizes, args.repeats)
        finally:
            store.close()
    return 0


def _warn(message: str) -> None:
    print(f"emq-dive bench: warning: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
