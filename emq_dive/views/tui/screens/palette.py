"""The command palette: every action the keys table lists, found by the words a learner types, then Textual's own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ....present.keymap import Key, Where, in_palette

EXACT, NAMED, STARTS, SAID = 1.0, 0.95, 0.9, 0.75
"""How well a typed word matches: a word of the title, a palette word, the start of either, a word of the help."""
OWN_FLOOR = 0.5
"""Every dive action found scores above this, and every one of Textual's entries below it: the dive's come first."""


def squeezed(score: float) -> float:
    """A fuzzy matcher's score (0 and up) squeezed into 0 to 1."""
    return score / (score + 1) if score > 0 else 0.0


def matched(key: Key, query: str) -> float:
    """How well every word of ``query`` names ``key``: the weakest typed word's match, or 0 when one misses."""
    title = key.title.lower().replace("/", " ").split()
    named = key.words.lower().split()
    said = key.help.lower().replace("/", " ").replace(":", " ").split()
    scores = []
    for typed in query.lower().split():
        score = max((EXACT if typed in title else 0.0), (NAMED if typed in named else 0.0),
                    (STARTS if any(word.startswith(typed) for word in (*title, *named)) else 0.0),
                    (SAID if any(word.startswith(typed) for word in said) else 0.0))
        scores.append(score)
    return min(scores) if scores else 0.0


class DiveCommands(Provider):
    """Lists the keys table's actions, each run on the dive screen (or the app) as its key would, then Textual's
    own entries (the theme, the keys panel, screenshots, quit) after them."""

    def _run(self, key: Key) -> Callable[[], Awaitable[None]]:
        return partial(self._act, key)

    async def _act(self, key: Key) -> None:
        app = self.app
        base = app.screen_stack[0] if app.screen_stack else app.screen
        await app.run_action(key.action, app if key.where in (Where.APP, Where.TEXTUAL) else base)

    @staticmethod
    def _help(key: Key) -> str:
        return f"{key.help[:1].upper()}{key.help[1:]} ({key.display})"

    async def discover(self) -> Hits:
        for key in in_palette():
            yield DiscoveryHit(key.title, self._run(key), help=self._help(key))
        for name, help_text, callback, discover in sorted(self.app.get_system_commands(self.screen),
                                                          key=lambda command: command[0]):
            if discover:
                yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for key in in_palette():
            score = max(matched(key, query), 0.8 * squeezed(matcher.match(key.title)))
            if score > 0:
                yield Hit(OWN_FLOOR + score / 2, matcher.highlight(key.title), self._run(key), text=key.title,
                          help=self._help(key))
        for name, help_text, callback, *_ in self.app.get_system_commands(self.screen):
            if (score := matcher.match(name)) > 0:
                yield Hit(OWN_FLOOR * squeezed(score), matcher.highlight(name), callback, help=help_text)
