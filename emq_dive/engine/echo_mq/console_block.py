"""The console's block words, free of I/O: ``MULTI`` opens a block, ``EXEC`` sends it, ``DISCARD`` drops it."""

from __future__ import annotations

import shlex
from enum import Enum

from .console import Refusal


class Word(Enum):
    """A word that opens, sends or drops the console's block rather than going to the store by itself."""

    MULTI = "MULTI"
    """Opens a block: the lines after it are checked and queued, and nothing is sent."""
    EXEC = "EXEC"
    """Sends the queued lines in one MULTI/EXEC transaction."""
    DISCARD = "DISCARD"
    """Drops the queued lines; nothing was sent."""


def block_word(typed: str, open_block: bool) -> Word | Refusal | None:
    """The block word ``typed`` is (or why it is refused where the block stands); None for any other line."""
    try:
        words = shlex.split(typed, posix=True)
    except ValueError:
        return None  # the line's own policy says why it is malformed
    if not words:
        return None
    try:
        word = Word(words[0].upper())
    except ValueError:
        return None
    if len(words) > 1:
        return Refusal(typed, f"wrong number of arguments for {word.value}: it takes none")
    if word is Word.MULTI and open_block:
        return Refusal(typed, "MULTI calls can not be nested: EXEC sends the block open now, DISCARD drops it")
    if word is not Word.MULTI and not open_block:
        return Refusal(typed, f"{word.value} without MULTI: no block is open (MULTI opens one)")
    return word
