"""The tour as data: the ``[[tour]]`` tables are checked with the file and key named, every value a slide shows is
read from the run, and the plain mode reads every slide after its move."""

from __future__ import annotations

import copy
import io
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from emq_dive.course.lessons import LessonError
from emq_dive.course.tour_file import FIELDS, Opens, load_tour, read_tour
from emq_dive.course.user_state import DATA_DIR, UserState
from emq_dive.engine.stores import open_store
from emq_dive.present.paths import output_problem
from emq_dive.present.session import Session
from emq_dive.present.tour import READERS, slide_text
from emq_dive.views.text.plain.dive import NoStyle, PlainDive
from emq_dive.views.text.recorder import Recorder
from emq_dive.views.tui.screens.tour import SEEN
from tests.tui_support import FROZEN, lesson

LESSON = lesson()
DATA = tomllib.loads(LESSON.path.read_text(encoding="utf-8"))


def test_every_field_a_slide_may_name_has_a_reader() -> None:
    assert tuple(READERS) == FIELDS


def _broken(change) -> str:
    data = copy.deepcopy(DATA)
    change(data["tour"])
    with pytest.raises(LessonError) as caught:
        read_tour(data, LESSON)
    return str(caught.value)


@pytest.mark.parametrize(("change", "said"), [
    (lambda t: t[1].update(pane="stage"), "key 'tour[1].pane': 'stage' is not a pane (one of header, step,"),
    (lambda t: t[0].update(body="now {clock}"), "key 'tour[0].body': {clock} is not a live value (one of step,"),
    (lambda t: t[0].update(body="a { brace"), "key 'tour[0].body': not a slide text:"),
    (lambda t: t[2]["do"].update(step=-1), "key 'tour[2].do.step': expected a step number from 0, or \"end\""),
    (lambda t: t[2]["do"].update(step="last"), "key 'tour[2].do.step': expected a step number"),
    (lambda t: t[2]["do"].update(section="nope"), "key 'tour[2].do.section': 'nope' is not a section of the"),
    (lambda t: t[6]["do"].update(wire=5), "key 'tour[6].do.wire': 5 is not a wire (one of 4, 6)"),
    (lambda t: t[5]["do"].update(open="cost"), "key 'tour[5].do.open': 'cost' is not a view a slide opens"),
    (lambda t: t[3]["do"].update(goto=2), "key 'tour[3].do.goto': unexpected key"),
    (lambda t: t[3].update(colour="red"), "key 'tour[3].colour': unexpected key"),
    (lambda t: t[4].pop("title"), "key 'tour[4].title': missing"),
    (lambda t: t[4].update(body="  "), "key 'tour[4].body': must not be empty"),
    (lambda t: t[4].update(body="x" * 500), "key 'tour[4].body': a slide's text holds at most"),
    (lambda t: t.__setitem__(0, "slide"), "key 'tour[0]': expected a table, got a string"),
    (lambda t: t.extend([t[0]] * 10), "key 'tour': a tour holds at most 12 slides, not 18"),
])
def test_a_bad_tour_table_names_the_file_and_the_key(change, said) -> None:
    message = _broken(change)
    where, _, problem = message.partition(": ")
    assert where.endswith("batches-03.toml") and Path(where).name == LESSON.path.name
    assert problem.startswith(said), message


def test_a_bad_tour_in_a_file_of_its_own_is_one_lesson_error(tmp_path: Path) -> None:
    path = tmp_path / "batches-03.toml"
    path.write_text(LESSON.path.read_text(encoding="utf-8").replace('pane = "store"', 'pane = "stor"'), "utf-8")
    with pytest.raises(LessonError) as caught:
        load_tour(replace(LESSON, path=path))
    assert str(caught.value) == f"{path}: key 'tour[4].pane': 'stor' is not a pane (one of header, step, batch, " \
        "code, wire, store, lesson, try, footer)"
    no_tour = tmp_path / "mine.toml"
    no_tour.write_text("id = 'mine'\n", "utf-8")
    assert load_tour(replace(LESSON, path=no_tour)) == ()


def test_the_slides_hold_no_value_of_a_run() -> None:
    """The text names fields; the ids, keys, clock and replies come from the run, never from the file."""
    for slide in load_tour(LESSON):
        for canned in ("JOB0", "emq:{", "1700000", "30000", "[JOB", "EVALSHA 5"):
            assert canned not in slide.body, (slide.title, canned)


def test_a_slide_reads_its_values_from_the_run_on_screen() -> None:
    slides = {s.title: s for s in load_tour(LESSON)}
    runs = []
    for queue in ("dive-one", "dive-two"):
        store = open_store("fakeredis", clock=lambda: FROZEN, queue=queue, run_id="0" * 40)
        session = Session(store, LESSON, None, 4)
        runs.append((session.open(0), session.goto(2), session.goto(4)))
    for (handle, checked, done), queue in zip(runs, ("dive-one", "dive-two"), strict=True):
        said = slide_text(slides["The handle: KEYS and ARGV"], handle, LESSON)
        assert f"KEYS[1] = emq:{{{queue}}}:active," in said and f"KEYS[2] = emq:{{{queue}}}:," in said
        assert "ARGV[1] = 30000," in said and "JOB01 1, JOB02 1, JOB03 1, JOB04 1." in said
        said = slide_text(slides["Three checks, in order"], checked, LESSON, "beat-two")
        assert 'Member 2, JOB02,' in said and 'token "2" is not the token "1", fails; in active not evaluated' in said
        assert "Verdict: joins failed (stale)." in said and "The two beats · the Lua script" in said
        said = slide_text(slides["The failed list"], done, LESSON)
        assert "(failed: [JOB02, JOB04])" in said and "returns ['JOB02', 'JOB04']" in said
        assert "pending holds JOB04" in slide_text(slides["The guard"], done, LESSON)


def test_the_plain_mode_reads_every_slide_after_its_move(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR, str(tmp_path))
    slides = load_tour(LESSON)
    store = open_store("fakeredis", clock=lambda: FROZEN, queue="dive-plain", run_id="0" * 40)
    out = io.StringIO()
    dive = PlainDive(Session(store, LESSON, wire=4), out, NoStyle(), Recorder(LESSON.heading, store.description),
                     output_problem)
    lines = ["t", *[""] * (len(slides) - 1), "p", "n", "", "s", "q"]  # back once, on to the end, then a command
    assert dive.run(iter(line + "\n" for line in lines)) == 0
    said = [p for p in out.getvalue().split("\n\n") if p]
    heads = [i for i, p in enumerate(said) if p.startswith("Tour ")]
    order = [said[i].split(".", 1)[0] for i in heads]
    titles = [f"Tour {n}/{len(slides)} · {s.title}" for n, s in enumerate(slides, 1)]
    assert order == [*titles, titles[-2], titles[-1]], "every slide in order, then p and n"
    # each slide comes after its move: the step, the lesson section, the fates, the wire
    before = {s.title: said[:i] for s, i in zip(slides, heads, strict=False)}
    assert any(p.startswith("Step 2 of 4 on wire 4") for p in before["Three checks, in order"])
    assert any("section 2, The two beats · the Lua script" in p for p in before["Three checks, in order"])
    assert any(p.startswith("The fates f offers: 1 live; 2 gone;") for p in before["A job's fate"])
    assert any(p.startswith("Both wires ran the batch from the same start.") for p in before["The native twin"])
    assert "Now on wire 6 · EMQ.EXTENDS: the same keys and arguments go as one command, EMQ.EXTENDS 2 " \
           "emq:{dive-plain}:active emq:{dive-plain}: 30000" in said[heads[6]]
    assert "The tour is over; t takes it again." in said
    assert said[-1].startswith("The store, members 1 to 4 of 4:")  # the dive goes on after the tour
    assert SEEN in UserState.from_environ().progress().flags
    assert any(s.move.opens is Opens.FATES for s in slides)


def test_the_plain_mode_leaves_the_tour_on_q(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR, str(tmp_path / "not" / "here"))
    monkeypatch.setenv("EMQ_DIVE_STATE_OFF", "a shared tab keeps nothing")
    store = open_store("fakeredis", clock=lambda: FROZEN, queue="dive-plain", run_id="0" * 40)
    out = io.StringIO()
    dive = PlainDive(Session(store, LESSON, wire=4), out, NoStyle(), Recorder(LESSON.heading, store.description),
                     output_problem)
    assert dive.run(iter(["t\n", "\n", "q\n", "\n", "q\n"])) == 0
    said = [p for p in out.getvalue().split("\n\n") if p]
    assert sum(p.startswith("Tour ") for p in said) == 2
    assert "You left the tour; t takes it again." in said
    assert "The tour will be offered again: your progress is not saved: a shared tab keeps nothing" in said
    assert any(p.startswith("Step 2 of 4 on wire 4") for p in said)  # Enter steps again after the tour
