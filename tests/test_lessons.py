"""The lesson loader: the shipped lesson, and one clear error for each kind of broken file."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from emq_dive.course import lessons
from emq_dive.course.lessons import FATES, Lesson, LessonError, Section

SHIPPED = Path(__file__).resolve().parent.parent / "lessons" / "batches-03.toml"


def test_shipped_lesson_loads_with_its_fields() -> None:
    lesson = lessons.load("batches-03")
    assert lesson.id == "batches-03"
    assert lesson.module == "Batches"
    assert lesson.dive == 3
    assert lesson.title == "Batch lease extension"
    assert lesson.heading == "Batches · dive 03 — Batch lease extension"
    assert lesson.lease_ms == 30000
    assert lesson.claim_lease_ms == 10000
    assert lesson.batch == ("live", "stale", "live", "reaped")
    assert set(lesson.fates) == set(FATES)
    assert lesson.tagline and lesson.intro
    assert lesson.path.name == "batches-03.toml"


def test_shipped_sections_are_in_order_and_follow_their_sources() -> None:
    lesson = lessons.load("batches-03")
    assert [s.key for s in lesson.sections] == [
        "beat-one", "beat-two", "single-vs-batch", "try-singles", "try-guard-off", "try-reaper", "try-predict",
        "native", "pattern", "recap", "references", "missions",
    ]
    assert lesson.section_for("handle").key == "beat-one"
    assert lesson.section_for("lua").key == "beat-two"
    assert lesson.section_for("native").key == "native"
    assert lesson.section_for("nowhere") is None


def test_list_lessons_is_sorted_and_holds_the_shipped_one() -> None:
    found = lessons.list_lessons()
    assert [lesson.id for lesson in found] == sorted(lesson.id for lesson in found)
    assert "batches-03" in [lesson.id for lesson in found]


def test_lessons_dir_holds_the_shipped_file() -> None:
    assert (lessons.lessons_dir() / "batches-03.toml").is_file()


def test_dataclasses_are_frozen() -> None:
    lesson = lessons.load("batches-03")
    with pytest.raises(dataclasses.FrozenInstanceError):
        lesson.title = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lesson.sections[0].body = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        lesson.fates["live"] = "changed"  # type: ignore[index]
    assert isinstance(lesson.sections, tuple) and isinstance(lesson.sections[0], Section)
    assert isinstance(lesson.sections[0].follows, tuple)
    hash(lesson)


def test_unknown_id_suggests_the_nearest() -> None:
    with pytest.raises(LessonError) as caught:
        lessons.load("batches-3")
    assert str(caught.value) == "no lesson 'batches-3'; did you mean 'batches-03'?"


def test_loader_does_not_import_textual() -> None:
    code = "import emq_dive.course.lessons, sys; assert 'textual' not in sys.modules"
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root,
                   env={"PYTHONPATH": str(root), "PATH": ""})


def _shipped() -> dict:
    return tomllib.loads(SHIPPED.read_text(encoding="utf-8"))


def _dump(data: dict) -> str:
    """A minimal TOML writer for the shapes a lesson file uses."""

    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
        if isinstance(v, list):
            return "[" + ", ".join(value(item) for item in v) + "]"
        if isinstance(v, dict):  # an inline table: a tour slide's do, a mission's checks
            return "{" + ", ".join(f"{k} = {value(item)}" for k, item in v.items()) + "}"
        raise TypeError(v)

    def tables(v: object) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(item, dict) for item in v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if k != "fates" and not tables(v)]
    for name in (k for k, v in data.items() if tables(v)):  # [[section]], [[member]], [[tour]], …
        for table in data[name]:
            lines.append(f"[[{name}]]")
            lines += [f"{k} = {value(v)}" for k, v in table.items()]
    if "fates" in data:
        lines.append("[fates]")
        lines += [f'"{k}" = {value(v)}' for k, v in data["fates"].items()]
    return "\n".join(lines) + "\n"


def _write(tmp_path: Path, data: dict, name: str = "batches-03.toml") -> Path:
    path = tmp_path / name
    path.write_text(_dump(data), encoding="utf-8")
    return path


def test_round_trip_of_the_shipped_data_loads(tmp_path: Path) -> None:
    lesson = lessons.load_file(_write(tmp_path, _shipped()))
    assert lesson == dataclasses.replace(lessons.load("batches-03"), path=lesson.path)


def _missing_title(d: dict) -> None:
    del d["section"][2]["title"]


def _string_dive(d: dict) -> None:
    d["dive"] = "3"


def _bool_lease(d: dict) -> None:
    d["lease_ms"] = True


def _zero_claim_lease(d: dict) -> None:
    d["claim_lease_ms"] = 0


def _bad_batch_fate(d: dict) -> None:
    d["batch"][1] = "stael"


def _whole_call_batch_fate(d: dict) -> None:
    d["batch"][2] = "empty"


def _missing_fate(d: dict) -> None:
    del d["fates"]["bad-lease"]


def _extra_fate(d: dict) -> None:
    d["fates"]["zombie"] = "A job that is neither here nor there."


def _duplicate_section(d: dict) -> None:
    d["section"][4]["key"] = "beat-two"


def _bad_follows(d: dict) -> None:
    d["section"][0]["follows"] = ["handle", "rust"]


def _empty_body(d: dict) -> None:
    d["section"][3]["body"] = "   "


def _unexpected_top(d: dict) -> None:
    d["lease"] = 5


def _missing_sections(d: dict) -> None:
    del d["section"]


def _wrong_id(d: dict) -> None:
    d["id"] = "batches-04"


BROKEN = [
    (_missing_title, "section[2].title", "missing"),
    (_string_dive, "dive", "expected an integer"),
    (_bool_lease, "lease_ms", "expected an integer"),
    (_zero_claim_lease, "claim_lease_ms", "must be positive"),
    (_bad_batch_fate, "batch[1]", "'stael' is not a member fate"),
    (_whole_call_batch_fate, "batch[2]", "'empty' is not a member fate"),
    (_missing_fate, "fates.bad-lease", "missing"),
    (_extra_fate, "fates.zombie", "unexpected key"),
    (_duplicate_section, "section[4].key", "'beat-two' is already the key of section[1]"),
    (_bad_follows, "section[0].follows[1]", "'rust' is not a step source"),
    (_empty_body, "section[3].body", "must not be empty"),
    (_unexpected_top, "lease", "unexpected key"),
    (_missing_sections, "section", "missing"),
    (_wrong_id, "id", "does not match the file name"),
]


@pytest.mark.parametrize(("breaker", "key", "problem"), BROKEN, ids=[b[1] for b in BROKEN])
def test_broken_file_names_the_file_and_the_key(tmp_path: Path, breaker, key: str, problem: str) -> None:
    data = _shipped()
    breaker(data)
    path = _write(tmp_path, data)
    with pytest.raises(LessonError) as caught:
        lessons.load_file(path)
    err = caught.value
    assert err.path == path
    assert err.key == key
    assert str(err).startswith(f"{path}: key {key!r}: ")
    assert problem in str(err)


def test_bad_toml_names_the_file_and_the_place(tmp_path: Path) -> None:
    path = tmp_path / "batches-03.toml"
    path.write_text('id = "batches-03"\ndive = \n', encoding="utf-8")
    with pytest.raises(LessonError) as caught:
        lessons.load_file(path)
    assert caught.value.path == path
    assert caught.value.key is None
    assert str(caught.value).startswith(f"{path}: invalid TOML: ")
    assert "line 2" in str(caught.value)


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(LessonError, match=r"nowhere\.toml: cannot read"):
        lessons.load_file(path)


def test_lesson_types_are_the_documented_ones() -> None:
    names = {f.name for f in dataclasses.fields(Lesson)}
    assert names == {"id", "module", "dive", "title", "tagline", "intro", "lease_ms",
                     "claim_lease_ms", "batch", "sections", "fates", "path", "members", "missions"}
