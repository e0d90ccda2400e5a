"""The wire and store-kind registries the views ask, and the UI that asks them instead of comparing numbers."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from emq_dive.engine.echo_mq.wires import NATIVE, SCRIPT, WIRES, wire
from emq_dive.engine.stepper.modes import MODES, RUN_MODES, cycled, run_mode_of
from emq_dive.engine.stores import open_store
from emq_dive.engine.stores.kinds import KINDS, kind_of

PACKAGE = Path(__file__).resolve().parent.parent / "emq_dive"
UI_DIRS = ("views/tui/widgets", "views/tui/screens")
MODEL_OWNED = {"batch_table.py", "mode_notes.py", "step_bar.py"}
"""Widgets whose mode compares go with the typed step model that replaces them (issue 16, §1)."""
MODE_WORDS = "|".join(MODES)
KIND_WORDS = "|".join(KINDS)


@dataclass
class Served:
    native: bool
    native_reason: str = ""


def test_each_wire_knows_its_twin_label_commands_and_what_it_needs():
    assert wire(4) is SCRIPT and wire(6) is NATIVE and SCRIPT.other is NATIVE and NATIVE.other is SCRIPT
    assert (SCRIPT.label, NATIVE.label) == ("4 · EVALSHA", "6 · EMQ.EXTENDS")
    assert (NATIVE.command, NATIVE.single) == ("EMQ.EXTENDS", "EMQ.EXTEND")
    plain = Served(False, "no module here")
    assert SCRIPT.supports(plain) and not NATIVE.supports(plain) and NATIVE.on(plain) is SCRIPT
    assert NATIVE.refusal(plain) == "wire 6 is not on this backend: no module here" and SCRIPT.refusal(plain) == ""
    assert NATIVE.supports(Served(True)) and NATIVE.on(Served(True)) is NATIVE
    with pytest.raises(ValueError, match=re.escape("wire must be 4 (EVALSHA) or 6 (EMQ.EXTENDS), not 5")):
        wire(5)
    assert set(WIRES) == {4, 6}


def test_the_embedded_store_is_a_kind_the_registry_knows_and_says_what_it_keeps():
    store = open_store("fakeredis", queue="dive-kinds")
    try:
        kind = kind_of(store)
    finally:
        store.close()
    assert kind is KINDS["fakeredis"] and not kind.real_server and not kind.keeps_acl
    assert kind.keeps_acl == store.acl, "the registry and the store agree on the ACL rules"
    assert "fakeredis" in kind.words and all(k.real_server and k.keeps_acl for k in KINDS.values() if k is not kind)

    @dataclass
    class Other:
        kind: str = "memcached"

    with pytest.raises(ValueError, match="unknown store kind 'memcached'"):
        kind_of(Other())


def test_the_run_modes_cycle_and_the_what_if_belongs_to_the_batch():
    assert RUN_MODES == tuple(k for k, m in MODES.items() if not m.what_if) == ("batch", "singles")
    assert [cycled(m) for m in ("batch", "singles", "guard-off")] == ["singles", "batch", "singles"]
    assert run_mode_of("guard-off") == "batch" and run_mode_of("singles") == "singles"


def ui_files() -> list[Path]:
    return [*sorted(p for d in UI_DIRS for p in (PACKAGE / d).glob("*.py")), PACKAGE / "views" / "tui" / "app.py"]


def test_no_view_compares_a_wire_number_a_mode_string_or_a_store_kind():
    found = []
    for path in ui_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"[!=]= *[46]\b|\b[46] *[!=]=|in \(4, 6\)", code):
                found.append(f"{path.name}:{n}: {line.strip()}")
            if path.name not in MODEL_OWNED and re.search(rf"[!=]= *\"({MODE_WORDS}|{KIND_WORDS})\"", code):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []


def imports_of(path: Path) -> set[str]:
    """The emq_dive modules ``path`` imports, TYPE_CHECKING imports included."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(0, node.level - 1)):
                base = base.rsplit(".", 1)[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {name for name in out if name.startswith("emq_dive.")}


def test_the_screens_widgets_and_app_import_no_circle():
    files = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts): p for p in ui_files()}
    graph = {name: imports_of(path) & set(files) for name, path in files.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and (seen.add(nxt) or reaches(nxt, goal, seen))):
                return True
        return False

    circles = sorted(name for name in graph if reaches(name, name, set()))
    assert circles == []
    assert "emq_dive.views.tui.screens.dive" not in graph["emq_dive.views.tui.screens.dive_tools"]
