"""``emq-dive bench``: what one lease extension costs, batched, one by one, and natively."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from . import cost
from .stores import Store, StoreError, open_store


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
    parser = argparse.ArgumentParser(prog="emq-dive bench", description=__doc__)
    parser.add_argument("--backend", action="append",
                        help="fakeredis, server or a URL (repeatable; default: fakeredis and server)")
    parser.add_argument("--sizes", default="1,100,10000", help="comma-separated batch sizes")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the best is kept")
    args = parser.parse_args(list(argv))
    sizes = [int(size) for size in args.sizes.split(",")]
    backends = args.backend or ["fakeredis", "server"]
    print("µs per lease, client round trip included (best of runs), then the server's own share of the batch "
          "(INFO commandstats); lower is better. batch/singles cost: the batch script's cost as a share of the "
          "single script's, called once per lease")
    for spec in backends:
        try:
            store = open_store(spec)
        except StoreError as err:
            print(f"\n{spec}: skipped: {err}")
            continue
        try:
            print(f"\n{store.description}" + ("" if store.native else f"  (no native twin: {store.native_reason})"))
            header = ["leases", "batch script", "single ×N", "EMQ.EXTENDS", "EMQ.EXTEND ×N",
                      "server: script", "server: native", "batch/singles cost"]
            print("  ".join(f"{h:>15}" for h in header))
            for size in sizes:
                row = measure(store, size, repeats=args.repeats)
                cells = [f"{size:>15}"] + [f"{'—' if v is None else f'{v:.2f}':>15}" for v in row.values()]
                print("  ".join([*cells, f"{versus(row['batch script'], row['single script ×N']):>15}"]))
            from .bench_bullmq import report as bullmq_report
            bullmq_report(store, sizes, args.repeats)
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
