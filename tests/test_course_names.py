"""The course's names beside the port's, in the lesson, the help and the fate cards; the help's keys; fate wording."""

from __future__ import annotations

import re

import redis

from emq_dive.engine import fates
from emq_dive.engine.echo_mq.connector import error_text
from emq_dive.engine.fates.answers import embedded_lua_error
from emq_dive.views.tui.screens.help import HelpScreen
from emq_dive.views.tui.widgets.answer_card import AnswerCard
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from tests.test_app_fates import pick
from tests.tui_support import SIZE, asynctest, dive, frozen_app, press, screen_text, settle, shown

PAIRS = [
    ("extend_locks/4", "extend_locks("),
    ("extend_lock/5", "extend_lock("),
    ("{:ok, failed}", "list[str]"),
    (":ok", "None"),
    ("{:error, :gone}", "Gone"),
    ("{:error, :stale}", "Stale"),
    ("{:error, :not_active}", "NotActive"),
    ("@extend_locks2", "extend_locks.lua"),
    ("@extend_lock2", "extend_lock.lua"),
    ("trafikey", "emq_module.c"),
]
"""The course's name and the port's, as both the lesson and the help must show them."""
HELP_PAIRS = [("extend_locks/4", "jobs.extend_locks"), ("extend_lock/5", "jobs.extend_lock"), *PAIRS[2:]]
OWN_CLASSES = "EMQGONE and EMQNOTACTIVE are this project's choice"


def flat(text: str) -> str:
    """``text`` with its wrapping undone: every run of whitespace one space."""
    return re.sub(r"\s+", " ", text)


async def lesson_text(app, pilot) -> str:
    """Every section of the lesson pane as laid out on screen, in order, browsed with ]."""
    pane = dive(app).query_one(LessonPane)
    parts = []
    for _ in pane.keys:
        parts.append("\n".join(line.text for line in pane.lines))
        await press(app, pilot, "right_square_bracket")
    return flat("\n".join(parts))


@asynctest
async def test_the_lesson_pane_shows_the_courses_names_beside_the_ports():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = await lesson_text(app, pilot)
    for course, port in PAIRS:
        assert course in text and port in text, (course, port)
    assert "The course's verb answers {:ok, failed}; the port returns failed, the list itself." in text
    assert "where extend_lock/5 answers :ok, the port returns None" in text
    assert "In the course, EMQ.EXTENDS is the trafikey handler." in text
    # the two classes the course does not name are said to be the project's where they first appear
    assert "The course names only EMQSTALE as a wire class" in text
    assert text.index("EMQGONE") == text.index(OWN_CLASSES)


@asynctest
async def test_the_help_maps_the_names_and_q_quits_as_it_says():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = flat(shown(app))
        for course, port in HELP_PAIRS:
            assert course in text and port in text, (course, port)
        assert "The course names one wire class, EMQSTALE" in text
        assert "EMQGONE and EMQNOTACTIVE, the error classes of the other two refusals, are this project's own " \
               "choice" in text
        assert text.index("EMQGONE") == text.index("EMQGONE and EMQNOTACTIVE, the error classes")
        assert "q quits the app" in text
        await press(app, pilot, "escape")
        assert app.screen is dive(app), "escape closes the help"
        await press(app, pilot, "question_mark", "q")
        assert app.return_code == 0, "q quits from the help, as the help says"


def cards(app) -> dict[str, str]:
    """Each answer card of the fate view by its title (verb · wire), as plain text."""
    return {str(card.border_title): card.content.plain for card in app.screen.query(AnswerCard)}


@asynctest
async def test_the_fate_cards_say_what_the_course_answers():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "live")
        live = cards(app)
        assert "the course's extend_lock/5: :ok · re-scored" in screen_text(app), "the line is on screen"
        await press(app, pilot, "escape")
        await pick(app, pilot, "stale")
        stale = cards(app)
        await press(app, pilot, "escape")
        await pick(app, pilot, "unpaired")
        unpaired = cards(app)
    for single in ("extend_lock · wire 4", "EMQ.EXTEND · wire 6"):
        assert live[single].startswith("returns None (re-scored)\nthe course's extend_lock/5: :ok · re-scored\n")
        assert stale[single].startswith("raises Stale: EMQSTALE token does not match attempts\n"
                                        "the course's extend_lock/5: {:error, :stale}\n")
    for batch in ("extend_locks · wire 4", "EMQ.EXTENDS · wire 6"):
        assert live[batch].startswith("returns []\nthe course's extend_locks/4: {:ok, []} · re-scored: JOBA, JOBX, "
                                      "JOBB\n")
        assert stale[batch].startswith("returns ['JOBX']\n"
                                       "the course's extend_locks/4: {:ok, [\"JOBX\"]} · JOBX joins failed · "
                                       "re-scored: JOBA, JOBB\n")
    assert unpaired and not any("the course's" in text for text in unpaired.values()), \
        "a raw wire command has no course verb"


@asynctest
async def test_the_bad_shape_fate_shows_no_embedded_lua_internals():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "bad-shape")
        text = shown(app)
    assert '[string "<python>"]' not in text and "stack traceback" not in text and "call to f_" not in text
    assert "raises ResponseError: ERR Error running script extend_locks.lua:18: attempt to concatenate local " \
           "'base' (a nil value)" in text
    assert "(error) ERR Error running script extend_locks.lua:18: attempt to concatenate" in text
    assert "the script fails on line 18: local row = base .. 'job:' .. id. fakeredis's own Lua words " \
           "this error" in text
    assert "numkeys 1, so the scripts' KEYS[2] is nil" in text


def _lua_failure(store) -> tuple[fates.Answer, str]:
    with store.io():
        run = fates.run_fate(store, "bad-shape")
    answer = next(a for a in run.raw_answers if a.verb == "extend_locks")
    assert isinstance(answer.value, redis.ResponseError)
    return answer, error_text(answer.value)


def test_a_real_server_fails_the_bad_shape_on_the_line_the_embedded_store_names(fake_store, server_store):
    embedded, embedded_text = _lua_failure(fake_store)
    served, served_text = _lua_failure(server_store)
    lua = embedded_lua_error(embedded.exchanges[-1])
    assert lua is not None and (lua.line, lua.message) == (18, "attempt to concatenate local 'base' (a nil value)")
    assert lua.source_line == "local row = base .. 'job:' .. id"
    assert '[string "<python>"]' in embedded_text, "the embedded store's raw reply is kept in the answer's value"
    assert embedded.caveat.startswith("the script fails on line 18")
    # the real server reports the same line and message in its own words, and needs no caveat
    assert served_text.startswith(f"ERR user_script:{lua.line}: {lua.message}")
    assert embedded_lua_error(served.exchanges[-1]) is None and served.caveat == ""
    assert served.outcome == f"raises ResponseError: {served_text}"


@asynctest
async def test_the_ill_formed_and_empty_fates_say_what_they_do():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "ill-formed")
        text = shown(app)
        assert "JOB{7} has a '{'" in text, "the description names the id the run uses"
        assert "held: JOBA token 1, JOB{7} token 1, JOBB token 1" in text
        assert text.count("ill-formed name 'JOB{7}': it contains a '{'") == 4
        await press(app, pilot, "escape")
        await pick(app, pilot, "empty")
        text = flat(shown(app))
        assert "unused" not in text
        empty = cards(app)
        for batch in ("extend_locks · wire 4", "EMQ.EXTENDS · wire 6"):
            assert empty[batch].startswith("returns []\nthe course's extend_locks/4: {:ok, []}\n")
        assert "note: no job is held: the batch verbs send the lease alone, with no (id, token) pair after it, " \
               "and the single verbs, which always name one job, have none to name" in text
