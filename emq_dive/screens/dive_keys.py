"""The dive's keys: each with the description the footer, the help and the command palette show."""

from __future__ import annotations

from textual.binding import Binding, BindingType

KEYS: list[BindingType] = [
    Binding("right", "forward", "step", key_display="→", priority=True),
    Binding("left", "back", "back", key_display="←", priority=True),
    Binding("home", "home", "home", show=False, priority=True),
    Binding("end", "end", "end", show=False, priority=True),
    Binding("space", "play", "play/pause", priority=True),
    Binding("w", "wire", "wire 4⇄6"),
    Binding("f", "fates", "fates"),
    Binding("left_square_bracket", "section(-1)", "prev section", show=False),
    Binding("right_square_bracket", "section(1)", "next section", show=False),
    Binding("l", "lesson", "lesson", show=False),
    Binding("m", "mode", "run mode batch⇄singles", show=False),
    Binding("g", "guard", "guard off (what-if)", show=False),
    Binding("k", "reap", "race a reaper", show=False),
    Binding("p", "predict", "predict mode", show=False),
    *(Binding(str(n), f"guess({n})", f"predict {n}", show=False) for n in range(1, 7)),
    Binding("e", "sandbox", "edit the batch", show=False),
    Binding("c", "cost", "cost, measured", show=False),
    Binding("x", "transcript", "write transcript", show=False),
]
