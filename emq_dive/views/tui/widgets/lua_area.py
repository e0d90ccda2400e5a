"""The script editor's text area: Lua highlighted through tree-sitter-lua where it is installed, else plain text."""

from __future__ import annotations

from functools import cache
from typing import Any

from textual.widgets import TextArea

LUA = "lua"


@cache
def lua_grammar() -> tuple[Any, str] | None:
    """tree-sitter-lua's language and its own highlight query, or None where it (or tree-sitter) is not installed."""
    try:
        from importlib import resources

        import tree_sitter
        import tree_sitter_lua

        query = resources.files(tree_sitter_lua).joinpath("queries", "highlights.scm").read_text("utf-8")
        language = tree_sitter.Language(tree_sitter_lua.language())
        tree_sitter.Query(language, query)  # a query this tree-sitter cannot read means plain text, not a crash
    except Exception:  # an optional extra: any failure to load it is the plain editor
        return None
    return language, query


class LuaArea(TextArea):
    """A code editor for a Lua script, with line numbers; ``highlighted`` says whether Lua colours it."""

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, soft_wrap=False, show_line_numbers=True, tab_behavior="indent", **kwargs)
        grammar = lua_grammar()
        self.highlighted = grammar is not None
        """True when tree-sitter-lua is installed and the text is highlighted as Lua."""
        if grammar is not None:
            self.register_language(LUA, *grammar)
            self.language = LUA
            self.theme = "monokai"
