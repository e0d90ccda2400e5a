"""A pane's border title in the longest wording that fits its border: paths shortened at a ``/``, asides dropped."""

from __future__ import annotations

BORDER = 6
"""Cells a border title leaves to the border: a corner, a rule and a space on each side."""
PARTS = " · "


def wordings(title: str) -> list[str]:
    """``title`` and its shorter wordings, longest first: each path cut to fewer folders (``…/scripts/x.lua``),
    then the first part with the file alone, then each part after the second dropped, the last wording being the
    title's first part alone."""
    parts = title.split(PARTS)
    out = [title]
    for at, part in enumerate(parts):
        folders = part.split("/")
        for keep in range(len(folders) - 1, 0, -1):
            if " " not in part:
                shorter = [*parts[:at], "…/" + "/".join(folders[-keep:]), *parts[at + 1:]]
                out.append(PARTS.join(shorter))
        if " " not in part and len(folders) > 1:
            parts = [*parts[:at], "…/" + folders[-1], *parts[at + 1:]]
    if len(parts) > 2 and " " not in parts[-1]:  # the first part and the file, before the file gives way
        out.append(PARTS.join((parts[0], parts[-1])))
    for end in range(len(parts) - 1, 0, -1):
        out.append(PARTS.join(parts[:end]))
    return list(dict.fromkeys(out))


def fitted_title(title: str, width: int) -> str:
    """The longest wording of ``title`` that fits a border ``width`` cells wide (the shortest where none does);
    ``title`` itself before the widget has a width."""
    if width <= 0:
        return title
    room = width - BORDER
    options = wordings(title)
    return next((said for said in options if len(said) <= room), options[-1])
