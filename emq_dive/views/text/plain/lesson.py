"""The lesson as plain text for the plain mode: the same sections, intro and Markdown the TUI's lesson pane shows."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ....course.lessons import Lesson, Section


@cache
def _parser() -> MarkdownIt:
    """CommonMark with tables and strikethrough, the dialect Rich's Markdown (the lesson pane's renderer) reads."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def body(lesson: Lesson, index: int) -> str:
    """Section ``index``'s Markdown as the lesson pane shows it: the first section opens with the lesson's intro."""
    text = lesson.sections[index].body
    return f"{lesson.intro}\n\n{text}" if index == 0 else text


def listing(lesson: Lesson) -> str:
    """Every section by number and title."""
    titles = "; ".join(f"{n} {section.title}" for n, section in enumerate(lesson.sections, 1))
    return f"The lesson has {len(lesson.sections)} sections: {titles}."


def heading(lesson: Lesson, index: int) -> str:
    """``Section 2 of 11: The two beats · the Lua script.``"""
    return f"Section {index + 1} of {len(lesson.sections)}: {lesson.sections[index].title}."


def following(lesson: Lesson, source: str) -> int | None:
    """The index of the section that follows a step from ``source``, as the lesson pane follows it, if any."""
    section: Section | None = lesson.section_for(source)
    return None if section is None else lesson.sections.index(section)


def paragraphs(markdown: str) -> list[str]:
    """``markdown`` as plain paragraphs: no markup, each list item, code line and table row said in words."""
    return _blocks(_parser().parse(markdown))


def _blocks(tokens: Sequence[Token]) -> list[str]:
    out: list[str] = []
    lists: list[list[int]] = []  # for each open list: [its next number] when ordered, [] for bullets
    mark = ""  # the mark the next paragraph takes: a list item's opening
    header: list[str] = []
    row: list[str] = []
    in_head = False
    previous = ""
    for token in tokens:
        kind = token.type
        if kind == "bullet_list_open":
            lists.append([])
        elif kind == "ordered_list_open":
            lists.append([int(str(token.attrGet("start") or 1))])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            mark = _mark(lists)
        elif kind == "table_open":
            out.append("A table, row by row:")
        elif kind in ("thead_open", "thead_close"):
            in_head = kind == "thead_open"
        elif kind == "tr_open":
            row = []
        elif kind in ("th_open", "td_open"):
            row.append("")
        elif kind == "inline" and previous in ("th_open", "td_open"):
            row[-1] = _inline(token)
        elif kind == "tr_close":
            if in_head:
                header = row
            else:
                out.append(_row(header, row))
        elif kind == "inline":
            out.append((mark or "  " * len(lists)) + _inline(token))
            mark = ""
        elif kind == "html_block":
            out.append(token.content.strip())
        elif kind in ("fence", "code_block"):
            out.append("Code:")
            out += ["    " + line for line in token.content.rstrip("\n").split("\n")]
            out.append("End of code.")
        previous = kind
    return [line for line in out if line.strip()]


def _mark(lists: list[list[int]]) -> str:
    """The mark of a new list item: ``- `` or ``3. ``, indented by its depth."""
    depth = "  " * (len(lists) - 1)
    if not lists or not lists[-1]:
        return f"{depth}- "
    number = lists[-1][0]
    lists[-1][0] += 1
    return f"{depth}{number}. "


def _row(header: list[str], row: list[str]) -> str:
    """A table row in words: its first cell, then each other cell after its column's heading."""
    first = f"{header[0]} {row[0]}".strip() if header else row[0]
    rest = [f"{name}: {cell}" if name else cell for name, cell in zip(header[1:], row[1:], strict=False)]
    return f"{first}: " + "; ".join(rest) + "." if rest else first


def _inline(token: Token) -> str:
    """An inline run's text without markup: code keeps its words, a link adds its target when that differs."""
    out: list[str] = []
    href, start = "", 0
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append(" ")
        elif child.type == "hardbreak":
            out.append("\n")
        elif child.type == "link_open":
            href, start = str(child.attrGet("href") or ""), len(out)
        elif child.type == "link_close" and href and href != "".join(out[start:]):
            out.append(f" ({href})")
        elif child.type == "image":
            out.append(child.content)
    return "".join(out).strip()
