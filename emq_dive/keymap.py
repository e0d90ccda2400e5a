"""The dive's keys, declared once: the bindings, the footer, the help and the palette read this; by action, the plain
mode's commands map onto it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Group(Enum):
    """Where a key's row sits in the help."""

    STEP = "stepping"
    LEARN = "learning by doing"
    LESSON = "the lesson"
    APP = "the app"


class Where(Enum):
    """Who binds a key: the dive screen, the app, a pane that scrolls itself, or Textual itself."""

    DIVE = "dive"
    APP = "app"
    PANE = "pane"
    TEXTUAL = "textual"


@dataclass(frozen=True)
class Key:
    """One key: what it is called, the action it runs, and the words each view shows for it."""

    display: str
    """How the footer, the help and the README name the key, ``→``."""
    keys: tuple[str, ...]
    """Textual's names for the keys; with several, ``action`` takes each one's ``{key}``."""
    action: str
    """The action it runs, ``forward`` or ``guess({key})``."""
    description: str
    """The footer's few words."""
    help: str
    """The help's sentence."""
    group: Group
    where: Where = Where.DIVE
    footer: bool = False
    """True when the footer shows it."""
    priority: bool = False
    """True when it runs even while a pane that scrolls has the focus."""
    title: str = ""
    """The command palette's title; empty for a key the palette does not list."""
    words: str = ""
    """More words a learner might type to find it in the palette."""

    def actions(self) -> list[tuple[str, str]]:
        """Each Textual key name with the action it runs."""
        return [(key, self.action.format(key=key)) for key in self.keys]


PACE = 1.2
"""Seconds between steps while playing."""

KEYMAP: tuple[Key, ...] = (
    Key("→", ("right",), "forward", "step", "run the next step against the store", Group.STEP, footer=True,
        priority=True, title="Step forward", words="next run advance go"),
    Key("←", ("left",), "back", "back", "undo the last step: back restores the store through the engine",
        Group.STEP, footer=True, priority=True, title="Step back", words="undo previous rewind"),
    Key("Home", ("home",), "home", "home", "back to the handle, before anything was sent", Group.STEP,
        priority=True, title="Back to the handle", words="start beginning restart rewind"),
    Key("End", ("end",), "end", "end", "run every remaining step and check the run", Group.STEP, priority=True,
        title="Run to the end", words="finish all last"),
    Key("space", ("space",), "play", "play/pause", f"play or pause, one step every {PACE:.1f} s", Group.STEP,
        footer=True, priority=True, title="Play / pause", words="auto run stop"),
    Key("w", ("w",), "wire", "wire 4⇄6", "switch the wire (4 · EVALSHA ⇄ 6 · EMQ.EXTENDS) and compare both twins",
        Group.STEP, footer=True, title="Switch the wire", words="native evalsha compare twin module"),
    Key("f", ("f",), "fates", "fates", "pick a job's fate: run all four verbs on it, or give it to a member",
        Group.STEP, footer=True, title="Pick a fate", words="gone stale reaped wrongtype verbs"),
    Key("m", ("m",), "mode", "run mode batch⇄singles",
        "run mode: one batch ⇄ N single calls of extend_lock (each its own clock read and error)", Group.LEARN,
        title="Run mode", words="singles single calls one by one batch"),
    Key("g", ("g",), "guard", "guard off (what-if)",
        "guard off (what-if): the batch script without its ZSCORE check, wire 4 batch only", Group.LEARN,
        title="Guard off (what-if)", words="zscore check remove membership"),
    Key("k", ("k",), "reap", "race a reaper", "race a reaper: it reaps the next member not yet checked; back undoes it",
        Group.LEARN, title="Race a reaper", words="reap race lapse pending"),
    Key("p", ("p",), "predict", "predict mode", "predict mode: each step asks first, 1–6 answers, the score at the end",
        Group.LEARN, title="Predict mode", words="guess quiz score"),
    Key("1–6", tuple("123456"), "guess({key})", "predict", "answer predict mode's question with that choice",
        Group.LEARN),
    Key("e", ("e",), "sandbox", "edit the batch",
        "the sandbox: edit the batch (members, fates, tokens, lease_ms, order), run it, save it as a lesson",
        Group.LEARN, title="Edit the batch", words="sandbox change members tokens lease save lesson"),
    Key("c", ("c",), "cost", "cost, measured",
        "measure what one lease costs here: one batch, N singles, natively, for 1, 100 and 1,000 leases",
        Group.LEARN, title="Measure the cost", words="benchmark speed time microseconds"),
    Key("x", ("x",), "transcript", "write transcript", "write the transcript of the run so far (Markdown)",
        Group.LEARN, title="Write the transcript", words="save export markdown record"),
    Key("[", ("left_square_bracket",), "section(-1)", "prev section", "the previous lesson section", Group.LESSON,
        title="Previous lesson section", words="lesson back read"),
    Key("]", ("right_square_bracket",), "section(1)", "next section", "the next lesson section", Group.LESSON,
        title="Next lesson section", words="lesson forward read"),
    Key("↑", ("up",), "scroll(-1)", "scroll up", "scroll the pane with the focus up a line", Group.LESSON,
        Where.PANE),
    Key("↓", ("down",), "scroll(1)", "scroll down", "scroll it down a line", Group.LESSON, Where.PANE),
    Key("PgUp", ("pageup",), "scroll(-0.9)", "page up", "scroll it up a page", Group.LESSON, Where.PANE),
    Key("PgDn", ("pagedown",), "scroll(0.9)", "page down", "scroll it down a page (the wheel scrolls too)",
        Group.LESSON, Where.PANE),
    Key("l", ("l",), "lesson", "lesson", "show or hide the lesson pane", Group.LESSON, title="Show / hide the lesson",
        words="lesson hide show pane toggle"),
    Key("tab", ("tab",), "focus_next", "focus", "move the arrows to the wire or store pane, to scroll it",
        Group.APP, Where.TEXTUAL),
    Key("ctrl+p", ("ctrl+p",), "command_palette", "palette", "every action in the command palette", Group.APP,
        Where.TEXTUAL),
    Key("q", ("q",), "quit", "quit", "quit the app", Group.APP, Where.APP, footer=True),
    Key("?", ("question_mark",), "help", "help", "open or close this help", Group.APP, Where.APP, footer=True,
        title="Help", words="keys panes explain"),
)
"""Every key of the dive, in the order the help lists them."""


def keys_of(where: Where) -> tuple[Key, ...]:
    """The keys ``where`` binds."""
    return tuple(key for key in KEYMAP if key.where is where)


def in_palette() -> tuple[Key, ...]:
    """The keys whose actions the command palette lists."""
    return tuple(key for key in KEYMAP if key.title)


def by_action(name: str) -> Key | None:
    """The key whose action is ``name`` (``section`` for ``section(1)``), the first where several are, or None."""
    exact = next((key for key in KEYMAP if key.action == name), None)
    return exact or next((key for key in KEYMAP if key.action.split("(", 1)[0] == name), None)
