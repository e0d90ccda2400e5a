"""One meaning, every view: each member fate on each wire in each mode says the same verdict words in the transcript,
the plain mode's step text and the TUI's batch table."""

from __future__ import annotations

import asyncio
import re

import pytest
from textual.app import App, ComposeResult
from tui_support import FROZEN, lesson

from emq_dive.engine.fate_table import FATES
from emq_dive.engine.stepper.modes import available
from emq_dive.engine.stores import open_store
from emq_dive.present.session import Frame, Session
from emq_dive.views.text import words
from emq_dive.views.text.plain.dive import NoStyle
from emq_dive.views.text.plain.words import paragraph
from emq_dive.views.text.recorder import Recorder, record_run
from emq_dive.views.tui.widgets.batch_table import BatchTable

MEMBER_FATES = tuple(fate.key for fate in FATES if fate.member)
BATCHES = [("live", fate, "live") for fate in MEMBER_FATES] + [("live", "stale", "live", "wrongtype")]
"""Every member fate between two live members, and the issue's wire-6 batch that once left two verdicts blank."""
CASES = [pytest.param(batch, wire, mode, id=f"{'-'.join(batch)}-wire{wire}-{mode}")
         for batch in BATCHES for wire in (4, 6) for mode in available(wire)]


class TableApp(App[None]):
    """The batch table alone, wide enough for every verdict's longest words."""

    def compose(self) -> ComposeResult:
        yield BatchTable()


def _run(batch: tuple[str, ...], wire: int, mode: str) -> tuple[list[Frame], str]:
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="0" * 40)
    session = Session(store, lesson(), batch=batch, wire=wire)
    session.run_mode, session.guard_off = ("singles", False) if mode == "singles" else ("batch", mode == "guard-off")
    recorder = Recorder("parity", store.description)
    end = record_run(session, recorder)
    assert end.step.mode == mode and end.wire == wire
    frames = [entry for entry in recorder.entries if isinstance(entry, Frame)]
    return frames, recorder.markdown()


def _table_verdicts(table: BatchTable) -> dict[str, str]:
    """Each row's id and verdict, read off the widget's own lines."""
    header = table.render_line(0).text
    start = header.index("verdict")
    rows = [table.render_line(y).text for y in range(1, len(table.step.members) + 1)]
    return {row.split()[1]: row[start:].rstrip() for row in rows}


def _transcript_steps(markdown: str) -> dict[int, str]:
    """The verdict the transcript gives the member each step checked, by step."""
    out = {}
    for section in markdown.split("\n### Step ")[1:]:
        index = int(section.split(" ", 1)[0])
        found = re.search(r"^Verdict: (.*)\.$", section, re.M)
        if found:
            out[index] = found.group(1)
    return out


def _transcript_end(markdown: str) -> dict[str, str]:
    table = markdown[markdown.rindex("#### The end of the run"):]
    rows = re.findall(r"^\| \d+ \| (\w+) \| .* \| ([^|]*) \|$", table, re.M)
    return {job: verdict.strip() for job, verdict in rows}


def _plain_step(text: str) -> str | None:
    found = re.search(r" Verdict: (.+?)\. (?:Writes|Now = )", text)
    return found.group(1) if found else None


def _plain_end(text: str) -> dict[str, str]:
    found = re.search(r" Verdicts: (.+?)\. (?:The run stops|The reply)", text)
    assert found, text
    return dict(item.split(" ", 1) for item in found.group(1).split("; "))


@pytest.mark.parametrize(("batch", "wire", "mode"), CASES)
def test_every_view_says_the_same_verdict_for_every_member(batch: tuple[str, ...], wire: int, mode: str) -> None:
    frames, markdown = _run(batch, wire, mode)
    in_transcript = _transcript_steps(markdown)

    async def read_table() -> list[dict[str, str]]:
        app = TableApp()
        async with app.run_test(size=(170, 20)) as pilot:
            table = app.query_one(BatchTable)
            seen = []
            for frame in frames:
                table.frame = frame
                await pilot.pause()
                seen.append(_table_verdicts(table))
            return seen

    in_table = asyncio.run(read_table())
    for frame, table in zip(frames, in_table, strict=True):
        step = frame.step
        member = words.current_member(step)
        if member is None:
            continue
        said = table[member.id]
        assert said and said not in ("", "none"), (step.index, table)
        assert in_transcript[step.index] == said, f"step {step.index}: transcript vs table"
        assert _plain_step(paragraph(frame, NoStyle())) == said, f"step {step.index}: plain vs table"
    end_table, end_frame = in_table[-1], frames[-1]
    assert _transcript_end(markdown) == end_table, "the transcript's end table vs the batch table"
    assert _plain_end(paragraph(end_frame, NoStyle())) == end_table, "the plain mode's last step vs the batch table"
    assert all(end_table.values()), f"a member with no verdict: {end_table}"


def test_the_issues_wire_6_batch_gives_every_member_a_verdict_in_the_transcript() -> None:
    _, markdown = _run(("live", "stale", "live", "wrongtype"), 6, "batch")
    assert _transcript_end(markdown) == {
        "JOB01": "not written: the command was refused", "JOB02": "joins failed (stale)",
        "JOB03": "not written: the command was refused", "JOB04": "the run stops here"}
