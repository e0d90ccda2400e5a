"""``Store`` satisfies the engine's seam ``StoreLike``: mypy accepts it, and every store kind has each member."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path
from typing import get_type_hints

import pytest
import redis
from conftest import IN_CI

from emq_dive.engine.stores import Store, open_store
from emq_dive.engine.stores.protocol import StoreLike

ROOT = Path(__file__).resolve().parent.parent
TYPED = '''
from emq_dive.engine.stores import open_store
from emq_dive.engine.stores.protocol import StoreLike

store: StoreLike = open_store("fakeredis")
'''


def test_mypy_accepts_a_store_as_a_store_like(tmp_path: Path) -> None:
    try:
        import mypy  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail("CI must type-check the store, but mypy is not installed (the test extra pins it)")
        pytest.skip("mypy comes with the test extra")
    snippet = tmp_path / "typed_store.py"
    snippet.write_text(TYPED)
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--config-file", str(ROOT / "pyproject.toml"), str(snippet)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def _members() -> tuple[dict[str, object], list[str]]:
    fields = get_type_hints(StoreLike)
    methods = [name for name, value in vars(StoreLike).items()
               if inspect.isfunction(value) and not name.startswith("_")]
    return fields, methods


def test_store_like_names_what_the_engine_uses() -> None:
    fields, methods = _members()
    assert set(fields) == {"client", "queue", "kind", "description", "native", "native_reason", "acl", "acl_reason",
                           "owned"}
    assert set(methods) == {"io", "run_id", "forget", "on_close", "interrupt", "respawn"}


def test_every_store_kind_has_each_member_of_store_like(any_store: Store) -> None:
    fields, methods = _members()
    for name, kind in fields.items():
        assert isinstance(getattr(any_store, name), kind), name  # type: ignore[arg-type]
    for name in methods:
        assert callable(getattr(any_store, name)), name
    with any_store.io():
        assert any_store.run_id()
    assert isinstance(any_store.client, redis.Redis)


def test_on_close_callbacks_run_newest_first() -> None:
    store = open_store("fakeredis")
    ran: list[str] = []
    store.on_close(lambda: ran.append("first"))
    store.on_close(lambda: ran.append("second"))
    store.close()
    assert ran == ["second", "first"]
    assert store.pid is None, "only a spawned store has a server process"
