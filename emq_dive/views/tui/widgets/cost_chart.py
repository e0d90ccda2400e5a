"""The cost chart: microseconds per lease for each way and lease count, as bars with the figures beside them."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from ....tools.cost import WAYS, Costs, bar_length, figure
from .style import foreground

BAR_WIDTH = 44
"""Cells the largest figure's bar fills."""
COLOURS = {"batch script": "green", "single script ×N": "yellow", "EMQ.EXTENDS": "cyan", "EMQ.EXTEND ×N": "magenta"}
LABELS = {"batch script": "one batch (script)", "single script ×N": "N singles (script)",
          "EMQ.EXTENDS": "one batch (native)", "EMQ.EXTEND ×N": "N singles (native)"}


def chart(costs: Costs, width: int = BAR_WIDTH, faint: str | Style = "") -> Text:
    """The figures as bars, one block per lease count, on a log scale when they spread too wide for a linear one
    (the asides in ``faint``)."""
    values = [v for row in costs.rows.values() for way, v in row.items() if way in WAYS and v]
    top, bottom, log = max(values, default=1.0), min(values, default=1.0), costs.log_scale()
    text = Text()
    text.append("µs per lease, client round trip included, best of the runs; "
                + ("log scale: each ×10 adds the same length" if log else "linear scale") + "\n", style=faint)
    for size, row in costs.rows.items():
        text.append(f"\n{size:,} lease{'s' * (size != 1)}\n", style="bold")
        for way in WAYS:
            value = row.get(way)
            text.append(f"  {LABELS[way]:<20} ")
            if value is None:
                text.append("— not on this backend\n", style=faint)
                continue
            text.append("█" * bar_length(value, top, bottom, width, log), style=COLOURS[way])
            text.append(f" {figure(value)} µs\n")
        single, batch = row.get("single script ×N"), row.get("batch script")
        if single and batch:
            cheaper = "cheaper" if batch < single else "dearer"
            text.append(f"  one batch costs {batch / single:.2f}× what N singles cost ({cheaper})\n", style=faint)
        shares = [f"{name.split(': ')[1]} {figure(row[name])} µs" for name in ("server: script", "server: native")
                  if row.get(name) is not None]
        if shares:
            text.append(f"  the server's own share of one batch, per lease: {', '.join(shares)}\n", style=faint)
    return text


class CostChart(Static):
    """Draws a Costs once the measurement is in."""

    DEFAULT_CSS: ClassVar[str] = "CostChart > .cost-chart--faint { color: $text-muted; }"
    COMPONENT_CLASSES: ClassVar[set[str]] = {"cost-chart--faint"}

    def show(self, costs: Costs) -> None:
        """Draw ``costs``."""
        self.update(chart(costs, faint=foreground(self.get_component_rich_style("cost-chart--faint"))))
