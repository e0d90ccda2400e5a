"""The keys table: one declaration drives the bindings, the footer, the help, the palette, and the README agrees."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding
from textual.screen import Screen

from emq_dive.present.keymap import KEYMAP, Where, by_action, in_palette, keys_of
from emq_dive.views.tui.app import DiveApp
from emq_dive.views.tui.screens.dive import DiveScreen
from emq_dive.views.tui.screens.help import HELP
from emq_dive.views.tui.widgets.key_bindings import bound_by
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from emq_dive.views.tui.widgets.scrolled import ScrolledLines

ROOT = Path(__file__).resolve().parent.parent
KEY_PARAGRAPHS = ("Keys in the lesson:", "Learning by doing:")
"""The README paragraphs that list the dive's keys."""


def readme_keys() -> set[str]:
    """Every key the README's key paragraphs name in backticks, ``1``–``6`` read as one key."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if p.startswith(KEY_PARAGRAPHS)]
    assert len(paragraphs) == len(KEY_PARAGRAPHS), "the README's key paragraphs moved"
    joined = " ".join(paragraphs).replace("`–`", "–")
    return set(re.findall(r"`([^`]+)`", joined))


def test_the_readme_names_every_key_of_the_table_and_no_other():
    table = {key.display for key in KEYMAP}
    named = readme_keys()
    assert table - named == set(), "keys the README does not name"
    assert named - table == set(), "keys the README names that the table does not have"


def bound(bindings: list) -> dict[str, tuple[str, str, bool]]:
    return {b.key: (b.action, b.description, b.show) for b in bindings if isinstance(b, Binding)}


def test_the_bindings_and_the_footer_are_the_tables():
    for where, node in ((Where.DIVE, DiveScreen), (Where.APP, DiveApp), (Where.PANE, ScrolledLines)):
        expected = {name: (action, key.description, key.footer)
                    for key in bound_by(where) for name, action in key.actions()}
        assert bound(node.BINDINGS) == expected, where
    unfocused = {key.keys[0] for key in KEYMAP if key.unfocused}
    assert unfocused == {"up", "down", "pageup", "pagedown"}, "with no pane focused, the dive scrolls the lesson"
    assert all(not bound(DiveScreen.BINDINGS)[name][0].startswith("scroll_") for name in ("home", "end"))
    assert bound(DiveScreen.BINDINGS)["5"] == ("guess(5)", "predict", False)


def test_every_action_the_table_names_exists_where_it_is_bound():
    for where, node in ((Where.DIVE, DiveScreen), (Where.APP, DiveApp), (Where.PANE, ScrolledLines),
                        (Where.PANE, LessonPane)):
        for key in bound_by(where):
            for _, action in key.actions():
                assert callable(getattr(node, f"action_{action.split('(')[0]}", None)), (where, action)


def test_the_help_lists_every_key_with_the_tables_words():
    for key in KEYMAP:
        assert f"\n| {key.display} | {key.help} |" in HELP


def test_the_palette_lists_every_action_with_a_title_and_words():
    titles = [key.title for key in in_palette()]
    assert len(titles) == len(set(titles)), "two palette entries share a title"
    assert all(key.where in (Where.DIVE, Where.APP, Where.TEXTUAL) for key in in_palette()), \
        "the palette runs the actions the dive, the app or Textual bind, not a pane's"


def test_each_action_finds_its_key():
    assert by_action("forward") is KEYMAP[0] and by_action("section") is by_action("section") is not None
    assert by_action("guess") is not None and by_action("guess").keys == tuple("123456")
    assert by_action("no such move") is None
    assert all(by_action(key.action.split("(")[0]) is not None for key in KEYMAP)


def test_the_keys_textual_binds_itself_are_still_textuals():
    textual_keys = {key.keys[0]: key.action for key in keys_of(Where.TEXTUAL)}
    assert textual_keys == {"tab": "focus_next", "ctrl+p": "command_palette"}
    assert ("tab", "app.focus_next") in [(b.key, b.action) for b in Screen.BINDINGS if isinstance(b, Binding)]
    assert DiveApp.COMMAND_PALETTE_BINDING == "ctrl+p" and DiveApp.ENABLE_COMMAND_PALETTE


PLAIN_ONLY = {"batch", "store", "calls", "code", "read"}
"""The plain mode's commands that say a pane aloud: the TUI shows those panes, it has no key for them."""


def test_every_plain_command_with_a_tui_twin_names_an_action_of_the_keys_table():
    from emq_dive.views.text.plain import commands as plain
    for command in plain.COMMANDS:
        if command.action not in PLAIN_ONLY:
            assert by_action(command.action) is not None, command.action
