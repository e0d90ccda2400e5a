"""The tour in a browser tab: ``emq-dive serve`` runs the same app, which offers the tour and walks it to the end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from serve_support import Screen, browser, served

from emq_dive.course.tour_file import Opens, load_tour
from tests.tui_support import lesson

SLIDES = load_tour(lesson())
OVER = {Opens.FATES: "A job's fate · run the single verb"}
"""The words of the view a slide opens over the tour, which esc closes."""
COMPARED = "the same batch on both wires"


@pytest.mark.browser
def test_a_tab_is_offered_the_tour_and_walks_it_to_its_last_slide(tmp_path: Path) -> None:
    with served(tmp_path) as server, browser() as chromium:
        tab = Screen(chromium, server.url)
        assert tab.open().status == 200
        first = tab.settled(re.compile(r"try: +t a short tour \(new here\?\)"), "the tour offered first in the row")
        assert "step 0 of 4" in first, "a tab keeps no state, so the tour is offered on its first screen"
        tab.press("t")
        for at, slide in enumerate(SLIDES, 1):
            if at > 1:
                tab.press("n")
            over = OVER.get(slide.move.opens) if slide.move.opens else COMPARED if slide.move.wire else None
            if over is not None:
                tab.settled(over, f"the view slide {at} opens")
                tab.press("Escape")
            shown = tab.settled(f"tour {at}/{len(SLIDES)} · {slide.title[:20]}", f"slide {at}")
        assert "→/n finish" in shown
        tab.press("n")
        after = tab.settled("step 5 of 5", "the dive after the tour")
        # the panel is gone (a notice titled "tour" may say the tab keeps no progress)
        assert f"tour {len(SLIDES)}/{len(SLIDES)}" not in after and "wire  6 · EMQ.EXTENDS" in after
        tab.press("ArrowLeft")
        tab.settled("step 4 of 5", "the arrows step the dive again")
        tab.close()
