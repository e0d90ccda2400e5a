"""The dive's keys, declared once: the bindings, the footer, the help and the palette read this; by action, the plain
mode's commands map onto it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import cache


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
class Now:
    """What the dive stands at, as the learn keys' rules ask it: the run's mode, wire and progress."""

    batch: bool = True
    """True while the held list goes as one batch (its guard on or off), not as single calls."""
    what_if: bool = False
    """True while the batch runs without its guard (the what-if)."""
    wire: int = 4
    what_if_wire: int = 4
    """The wire the guard's what-if runs on."""
    predicting: bool = False
    done: bool = False
    """True once the run has checked its last member."""
    newcomer: bool = False
    """True while start-up offers the tour to a learner who has neither taken nor skipped it."""


@dataclass(frozen=True)
class Offer:
    """How the Try it row offers a learn key now: its words (``{what_if_wire}`` from Now), and when."""

    words: str
    applies: Callable[[Now], bool]
    lead: bool = False
    """True for an offer the row shows before the others (the tour, to a newcomer)."""

    def said(self, now: Now) -> str:
        """The words, filled in from ``now``."""
        return self.words.format(what_if_wire=now.what_if_wire)


def _batch_here(now: Now) -> bool:
    return now.batch and now.wire == now.what_if_wire


def _batch_elsewhere(now: Now) -> bool:
    return now.batch and not now.what_if and now.wire != now.what_if_wire


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
    offers: tuple[Offer, ...] = ()
    """How the Try it row offers it, the first that applies now; none for a key it does not show."""
    section: str = ""
    """The lesson section that teaches it (its Try it), which entering its mode brings."""
    unfocused: bool = False
    """True for a pane's key the dive also binds, for the lesson, while no pane has the focus."""

    def offered(self, now: Now) -> Offer | None:
        """How the Try it row offers this key now, or None when it does not apply."""
        return next((offer for offer in self.offers if offer.applies(now)), None)

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
        title="Back to the handle", words="start beginning restart rewind"),
    Key("End", ("end",), "end", "end", "run every remaining step and check the run", Group.STEP,
        title="Run to the end", words="finish all last"),
    Key("space", ("space",), "play", "play", f"play or pause: plays to the next breakpoint, a failing member or the "
        f"end, one step every {PACE:.1f} s", Group.STEP, footer=True, priority=True, title="Play / pause",
        words="auto run stop play to breakpoint failing"),
    Key("b", ("b",), "breakpoint", "breakpoint", "toggle a breakpoint on the code pane's highlighted line: space "
        "stops at the next step that runs it", Group.STEP, Where.APP, title="Toggle a breakpoint",
        words="break stop line debugger pause mark"),
    Key("w", ("w",), "wire", "wire 4⇄6", "switch the wire (4 · EVALSHA ⇄ 6 · EMQ.EXTENDS) and compare both twins",
        Group.STEP, footer=True, title="Switch the wire", words="native evalsha compare twin module"),
    Key("f", ("f",), "fates", "fates", "pick a job's fate: run all four verbs on it, or give it to a member",
        Group.STEP, footer=True, title="Pick a fate", words="gone stale reaped wrongtype verbs"),
    Key("m", ("m",), "mode", "run mode batch⇄singles",
        "run mode: one batch ⇄ N single calls of extend_lock (each its own clock read and error)", Group.LEARN,
        title="Run mode: batch ⇄ singles", words="singles single calls one by one", section="try-singles",
        offers=(Offer("singles", lambda now: now.batch), Offer("batch", lambda now: True))),
    Key("g", ("g",), "guard", "guard off (what-if)",
        "guard off (what-if): the batch script without its ZSCORE check, wire 4 batch only", Group.LEARN,
        title="Guard off (what-if)", words="zscore check remove membership", section="try-guard-off",
        offers=(Offer("guard on", lambda now: now.what_if), Offer("guard off", _batch_here),
                Offer("guard off · wire {what_if_wire}", _batch_elsewhere))),
    Key("k", ("k",), "reap", "race a reaper", "race a reaper: it reaps the next member not yet checked; back undoes it",
        Group.LEARN, title="Race a reaper", words="reaper reap race lapse pending", section="try-reaper",
        offers=(Offer("reaper", lambda now: not now.done),)),
    Key("p", ("p",), "predict", "predict mode", "predict mode: each step asks first, 1–6 answers, the score at the end",
        Group.LEARN, title="Predict mode", words="guess quiz score", section="try-predict",
        offers=(Offer("predict", lambda now: not now.predicting), Offer("predict off", lambda now: True))),
    Key("1–6", tuple("123456"), "guess({key})", "predict", "answer predict mode's question with that choice",
        Group.LEARN),
    Key("e", ("e",), "sandbox", "edit the batch",
        "the sandbox: edit the batch (members, fates, tokens, lease_ms, order), run it, save it as a lesson",
        Group.LEARN, title="Edit the batch", words="sandbox change members tokens lease save",
        offers=(Offer("sandbox", lambda now: True),)),
    Key("c", ("c",), "cost", "cost, measured",
        "measure what one lease costs here: one batch, N singles, natively, for 1, 100 and 1,000 leases",
        Group.LEARN, title="Measure the cost", words="benchmark speed time microseconds",
        offers=(Offer("cost", lambda now: True),)),
    Key("E", ("E",), "script", "your script",
        "edit the running Lua script (or in $EDITOR): saved, the dive restarts stepping yours, checked atomically",
        Group.LEARN, Where.APP, title="Edit the Lua script", words="editor lua code yours change guard diff"),
    Key("x", ("x",), "transcript", "write transcript", "write the transcript of the run so far (Markdown)",
        Group.LEARN, title="Write the transcript", words="save export markdown record"),
    Key(":", ("colon",), "console", "console",
        "the console: send the lesson's EVALSHA ($sha, $active, $base filled in), EMQ.EXTEND(S) or a read of the "
        "dive's keys; the reply raw, the store pane follows, back undoes a write", Group.LEARN, Where.APP,
        title="Console", words="command prompt redis-cli send raw evalsha zscore hgetall type"),
    Key("R", ("R",), "reset", "reset", "reset: put the lesson's batch back from any state (it asks first when a "
        "run, fates, an edit, a mode or console writes would be lost)", Group.LEARN, Where.APP,
        title="Reset to the lesson's batch", words="start over fresh clean pristine lesson batch back"),
    # -- missions: the list, and the mission bar's hint, reset and goal (views/tui/screens/missions.py) --------
    Key("M", ("M",), "missions", "missions",
        "the missions: goals the live store checks; choose one to start it, ticks for the ones you have done",
        Group.LEARN, Where.APP, title="Missions", words="goals tasks levels exercises challenge progress"),
    Key("h", ("h",), "mission_hint", "hint", "the mission under way: a hint", Group.LEARN, Where.APP,
        title="Mission hint", words="help clue tip stuck"),
    Key("r", ("r",), "mission_reset", "reset mission", "the mission under way: put its start state back",
        Group.LEARN, Where.APP, title="Reset the mission", words="restart again start over"),
    Key("G", ("G",), "mission_goal", "show the goal",
        "the mission under way: show the goal, what the store or the reply must look like", Group.LEARN,
        Where.APP, title="Show the mission's goal", words="target objective expected store reply"),
    Key("l", ("l",), "lesson", "lesson", "show or hide the lesson pane (on a small screen it opens over the batch)",
        Group.LESSON, footer=True, title="Show / hide the lesson",
        words="lesson hide show pane toggle read"),
    Key("[", ("left_square_bracket",), "section(-1)", "prev section", "the previous lesson section", Group.LESSON,
        title="Previous lesson section", words="lesson back read"),
    Key("]", ("right_square_bracket",), "section(1)", "next section", "the next lesson section", Group.LESSON,
        title="Next lesson section", words="lesson forward read"),
    Key("↑", ("up",), "scroll(-1)", "scroll up", "scroll the pane with the focus (or, with none, the lesson) up a "
        "line", Group.LESSON, Where.PANE, unfocused=True),
    Key("↓", ("down",), "scroll(1)", "scroll down", "scroll it down a line", Group.LESSON, Where.PANE, unfocused=True),
    Key("PgUp", ("pageup",), "scroll(-0.9)", "page up", "scroll it up a page", Group.LESSON, Where.PANE,
        unfocused=True),
    Key("PgDn", ("pagedown",), "scroll(0.9)", "page down", "scroll it down a page (the wheel scrolls too)",
        Group.LESSON, Where.PANE, unfocused=True),
    Key("Home", ("home",), "scroll_home", "top", "in a pane you moved to with tab: scroll it to its top",
        Group.LESSON, Where.PANE),
    Key("End", ("end",), "scroll_end", "bottom", "in a pane you moved to with tab: scroll it to its bottom",
        Group.LESSON, Where.PANE),
    Key("esc", ("escape",), "leave", "leave", "leave that pane: the arrows scroll the lesson again, Home and End "
        "step the run", Group.LESSON, Where.PANE),
    Key("v", ("v",), "whole", "whole keys", "show keys and clock values whole (emq:{dive-…}:active, 1700000030000) "
        "or short again (emq:{q}:active, now+30000)", Group.APP, Where.APP, title="Whole key names and clock values",
        words="full hashtag queue absolute clock time raw value names"),
    Key("tab", ("tab",), "focus_next", "focus", "move the arrows to the wire, store or lesson pane, to scroll it",
        Group.APP, Where.TEXTUAL, title="Move to a pane, to scroll it (tab)", words="tab focus scroll pane wire store"),
    Key("ctrl+p", ("ctrl+p",), "command_palette", "palette", "every action in the command palette", Group.APP,
        Where.TEXTUAL),
    Key("t", ("t",), "tour", "tour", "take the tour: a few slides that move the dive and say what the pane "
        "each marks shows", Group.APP, Where.APP, title="Take the tour",
        words="tour guide intro start new slides walkthrough",
        offers=(Offer("a short tour (new here?)", lambda now: now.newcomer, lead=True),)),
    Key("q", ("q",), "quit", "quit", "quit the app", Group.APP, Where.APP, footer=True),
    Key("?", ("question_mark",), "help", "help", "open or close this help", Group.APP, Where.APP, footer=True,
        title="Help", words="keys panes explain"),
)
"""Every key of the dive, in the order the help lists them."""


@cache
def learn_offers(now: Now) -> tuple[tuple[Key, str], ...]:
    """The learn keys that apply ``now``, each with the words the Try it row shows for it, in the table's order
    (asked on every step: a handful of states, each worked out once)."""
    found = [(key, offer) for key in KEYMAP if (offer := key.offered(now)) is not None]
    return tuple((key, offer.said(now)) for key, offer in sorted(found, key=lambda pair: not pair[1].lead))


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
