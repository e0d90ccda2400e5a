"""``emq-dive --backend URL`` against a real password-protected server: what a refused login prints.

No userinfo of a URL is ever printed; a refused password says "authentication failed" and shows the URL forms
that carry one; a missing password says a password is needed, not redis-py's HELLO / NOAUTH text.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from conftest import own_server
from test_cli import _refused, emq

pytestmark = pytest.mark.server

PASSWORD = "right-" + secrets.token_hex(8)






@pytest.fixture(scope="module")
def locked(tmp_path_factory):
    """A server that requires a password and has no EMQ module: (its port, a client logged in)."""
    with own_server(tmp_path_factory.mktemp("locked"), password=PASSWORD) as served:
        yield served


@pytest.mark.parametrize("url, secrets_in_it", [
    ("redis://wrongpass@127.0.0.1:{port}", ["wrongpass"]),
    ("redis://:wrongpass@127.0.0.1:{port}/0", ["wrongpass"]),
    ("redis://alice:wrongpass@127.0.0.1:{port}/0", ["alice", "wrongpass"]),
    ("redis://default:wrongpass@127.0.0.1:{port}/0", ["default", "wrongpass"]),
    ("redis://127.0.0.1:{port}/0?password=wrongpass", ["wrongpass"]),
])
def test_a_refused_login_says_authentication_failed_and_shows_how_a_url_carries_a_password(
        locked, tmp_path: Path, url: str, secrets_in_it: list[str]) -> None:
    port, _ = locked
    url = url.format(port=port)
    line = _refused(emq("batches-03", "--backend", url, "--screenshot", str(tmp_path / "x.svg")))
    assert "authentication failed" in line and "cannot reach" not in line, line
    assert f"redis://:PASSWORD@127.0.0.1:{port}" in line and f"redis://USER:PASSWORD@127.0.0.1:{port}" in line
    for secret in secrets_in_it:
        assert secret not in line, f"{secret!r} printed: {line}"
    if "@" in url:
        assert f"redis://***@127.0.0.1:{port}" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("query", ["", "?protocol=2", "?protocol=3"])
def test_a_url_with_no_password_for_a_server_that_needs_one_says_so(locked, tmp_path: Path, query: str) -> None:
    port, _ = locked
    line = _refused(emq("batches-03", "--backend", f"redis://127.0.0.1:{port}/0{query}",
                        "--screenshot", str(tmp_path / "x.svg")))
    assert "needs a password" in line and f"redis://:PASSWORD@127.0.0.1:{port}/0" in line, line
    for their_words in ("HELLO", "NOAUTH", "Authentication required", "cannot reach"):
        assert their_words not in line, line
    assert not list(tmp_path.iterdir())


def test_the_right_password_opens_the_lesson(locked, tmp_path: Path) -> None:
    port, client = locked
    target = tmp_path / "x.svg"
    done = emq("batches-03", "--backend", f"redis://:{PASSWORD}@127.0.0.1:{port}/0", "--screenshot", str(target))
    assert done.returncode == 0, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert target.read_text("utf-8").lstrip().startswith("<svg")
    assert not list(client.scan_iter(match="emq:{dive-*")), "the run left keys behind"


def test_a_wire_6_step_on_a_server_without_the_module_is_checked_against_wire_4(locked, tmp_path: Path) -> None:
    """The store has no native twin, so the lesson runs wire 4 and step 5 (wire 6's last) does not exist."""
    port, client = locked
    target = tmp_path / "x.svg"
    done = emq("batches-03", "--backend", f"redis://:{PASSWORD}@127.0.0.1:{port}/0", "--wire", "6", "--step", "5",
               "--screenshot", str(target))
    line = _refused(done)
    assert "--step 5" in line and "wire 4" in line and "0 (the handle) to 4" in line, line
    assert "wire 6 is not served here: this server has no EMQ module loaded" in line, line
    assert not target.exists()
    assert not list(client.scan_iter(match="emq:{dive-*"))
