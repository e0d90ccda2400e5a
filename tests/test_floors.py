"""The package's floors: each imports only from the floors below it, lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "emq_dive"

FLOORS = ("engine", "course", "present", "tools", "views", "launch", "cli")
"""From the bottom up: a module may import from its own floor and the floors before it in this list, never after."""
ENTRY_POINTS = {"emq_dive.views.web.child": {"emq_dive.launch", "emq_dive.launch.LaunchOptions", "emq_dive.launch.run"}}
"""Process entry points that run a lesson the way the CLI does: a browser tab's app process calls the launcher."""


def floor_of(module: str) -> int | None:
    """The floor of ``emq_dive.<floor>…``, or None for the package's own ``__init__``/``__main__``."""
    parts = module.split(".")
    return FLOORS.index(parts[1]) if len(parts) > 1 and parts[1] in FLOORS else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, name: str, is_package: bool = False) -> set[str]:
    """Every ``emq_dive`` module the module ``name`` imports, at the top or in a function, relative ones resolved."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.update(f"{target}.{alias.name}" for alias in node.names)
            found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {module for module in found if module.split(".")[0] == "emq_dive"}


def floors_above(source: str, name: str, is_package: bool = False) -> list[str]:
    """The modules ``name`` imports from floors above its own."""
    own = floor_of(name)
    if own is None:
        return []
    return sorted(m for m in imports_of(source, name, is_package) if (floor_of(m) or 0) > own)


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_the_root_shows_the_floors() -> None:
    """``ls emq_dive/`` reads as the architecture: the floors, the entry points, and no loose modules."""
    shown = {p.name for p in PACKAGE.iterdir() if not p.name.startswith((".", "__pycache__"))}
    assert shown == {"__init__.py", "__main__.py", "engine", "course", "present", "tools", "views", "launch.py",
                     "cli.py"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_from_a_floor_above_its_own(path: Path) -> None:
    name = module_name(path)
    above = set(floors_above(path.read_text("utf-8"), name, path.name == "__init__.py"))
    above -= ENTRY_POINTS.get(name, set())
    assert not above, f"{name} imports {above} from a floor above its own"


def test_the_check_sees_a_lazy_import_from_above() -> None:
    """The check itself: an import inside a function, relative, from a higher floor, is found; a lower one is not."""
    code = "from ..echo_mq import keyspace\n\ndef f():\n    from ...views.tui import app\n"
    assert floors_above(code, "emq_dive.engine.stores.probe") == ["emq_dive.views.tui", "emq_dive.views.tui.app"]
    assert floors_above("from ...engine.stores import Store\n", "emq_dive.views.text.probe") == []
