"""The command palette's dive commands: every action the keys table lists, found by the words a learner types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..keymap import Key, Where, in_palette


class DiveCommands(Provider):
    """Lists the keys table's actions; each runs on the dive screen (or the app) as its key would."""

    def _run(self, key: Key) -> Callable[[], Awaitable[None]]:
        return partial(self._act, key)

    async def _act(self, key: Key) -> None:
        app = self.app
        base = app.screen_stack[0] if app.screen_stack else app.screen
        await app.run_action(key.action, app if key.where is Where.APP else base)

    @staticmethod
    def _help(key: Key) -> str:
        return f"{key.help[:1].upper()}{key.help[1:]} ({key.display})"

    async def discover(self) -> Hits:
        for key in in_palette():
            yield DiscoveryHit(key.title, self._run(key), help=self._help(key))

    @staticmethod
    def _said(key: Key, query: str) -> bool:
        """True when every word of ``query`` starts a word of the key's title, palette words or help."""
        words = f"{key.title} {key.words} {key.help}".lower().replace("/", " ").split()
        return all(any(word.startswith(typed) for word in words) for typed in query.lower().split())

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for key in in_palette():
            score = max(matcher.match(key.title), 0.9 if query.strip() and self._said(key, query) else 0.0)
            if score > 0:
                yield Hit(score, matcher.highlight(key.title), self._run(key), text=key.title, help=self._help(key))
