"""The plain mode's command table: what the learner types, the app action it stands for, and what it does."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ....present.keymap import by_action
from . import (
    console as plain_console,
    missions as plain_missions,
)
from . import (
    moves as plain_moves,
)
from . import (
    panes as plain_panes,
)
from . import (
    sandbox as plain_sandbox,
)
from . import (
    script as plain_script,
)
from . import (
    steps as plain_steps,
)
from . import (
    tools as plain_tools,
)
from . import (
    tour as plain_tour,
)
from .state import Dive

Handler = Callable[[Dive, str, str], None]
"""A command's work: given the dive, the key typed and the rest of the line."""


@dataclass(frozen=True)
class Command:
    """One plain command: the keys that type it, the TUI action it mirrors, how it is typed, and what it does."""

    keys: tuple[str, ...]
    """What the learner types first on the line; ``""`` is a bare Enter."""
    action: str
    """The TUI's action of the same move (``forward``, ``mode``, …), to map this table onto the app's key table."""
    usage: str
    words: str
    run: Handler
    more: str = ""
    """What ``h`` adds after the key table's words: the plain mode's own sub-commands."""


def _help(dive: Dive, _key: str, _argument: str) -> None:
    dive.say(help_text())


def _quit(dive: Dive, _key: str, _argument: str) -> None:
    dive.quitting = True


COMMANDS: tuple[Command, ...] = (
    Command(("",), "forward", "Enter", "steps", plain_steps.forward),
    Command(("b",), "back", "b", "goes back", plain_steps.back),
    Command(("home",), "home", "home", "goes back to the handle", plain_steps.home),
    Command(("end",), "end", "end", "runs every remaining step", plain_steps.end),
    Command(("w",), "wire", "w", "switches the wire", plain_steps.wire),
    Command(("f",), "fates", "f", "gives a member a fate", plain_steps.fate),
    Command(("m",), "mode", "m", "switches the run mode, batch or singles", plain_moves.mode),
    Command(("g",), "guard", "g", "turns the guard off (a what-if) or on", plain_moves.guard),
    Command(("k",), "reap", "k", "races a reaper", plain_moves.reap),
    Command(("p",), "predict", "p", "turns predict mode on or off", plain_moves.predict),
    Command(tuple(str(n) for n in range(1, 7)), "guess", "1 to 6", "answers predict mode", plain_moves.guess),
    Command(("e",), "sandbox", "e", "edits the batch in the sandbox", plain_sandbox.sandbox),
    Command((":",), "console", ": COMMAND", "sends one console line to the dive's store", plain_console.console,
            more=" (: MULTI opens a block whose lines are checked and queued, : EXEC sends them in one MULTI/EXEC "
                 "transaction, : DISCARD drops them)"),
    Command(("R",), "reset", "R", "puts the lesson's batch back", plain_console.reset),
    Command(("E",), "script", "E [FILE|saved|course]", "loads your edited Lua script", plain_script.script),
    Command(("c",), "cost", "c [SIZES]", "measures what one lease costs", plain_tools.measure),
    Command(("x",), "transcript", "x [FILE]", "writes the transcript", plain_tools.transcript),
    Command(("a",), "batch", "a [N]", "says the batch table (all members, from member N)", plain_panes.batch),
    Command(("missions",), "missions", "missions [N]", "lists the missions, or starts mission N",
            plain_missions.missions),
    Command(("hint",), "mission_hint", "hint", "the mission's hint", plain_missions.hint),
    Command(("reset",), "mission_reset", "reset", "puts the mission's start back", plain_missions.reset),
    Command(("goal",), "mission_goal", "goal", "shows the mission's goal", plain_missions.goal),
    Command(("s",), "store", "s", "says the store", plain_panes.store),
    Command(("v",), "calls", "v", "says this step's calls on the wire", plain_panes.calls),
    Command(("o",), "code", "o", "says the code this step ran", plain_panes.code),
    Command(("l",), "read", "l [N]", "lists the lesson's sections or reads section N", plain_steps.lesson),
    Command(("]",), "section(1)", "]", "reads the next section", plain_steps.browse),
    Command(("[",), "section(-1)", "[", "reads the previous section", plain_steps.browse),
    Command(("t",), "tour", "t", "takes the tour", plain_tour.tour),
    Command(("h", "?"), "help", "h", "is this help", _help),
    Command(("q",), "quit", "q", "quits", _quit),
)
"""Every plain command, in the order ``h`` says them."""

BY_KEY: Mapping[str, Command] = {key: command for command in COMMANDS for key in command.keys}
"""Each typed key's command."""


def meaning(command: Command) -> str:
    """What a command does: the app's key table's words for its action, or its own for a plain-only command."""
    key = by_action(command.action)
    return key.help if key is not None else command.words


def help_text() -> str:
    """Every command, one per clause, in the words of the app's key table (the TUI's help says the same)."""
    return "; ".join(f"{command.usage}: {meaning(command)}{command.more}" for command in COMMANDS) + "."
