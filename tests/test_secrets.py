"""A URL's password never stands in a process's arguments: it comes from the environment, reaches a ``serve`` tab
through its environment, and every message that prints a URL masks it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import own_server
from serve_support import ROOT, cmdline, poll, served
from test_serve import _open_tab, _queues, _tab_with_keys, shared  # noqa: F401  (shared is a fixture)

from emq_dive.engine.stores.credentials import BackendProblem, resolve_backend, with_password

PASSWORD = "pw-Zq81x"


def _never(message: str) -> None:
    raise AssertionError(f"warned: {message}")


def test_the_environment_fills_in_a_url_that_gives_no_password() -> None:
    url = "redis://127.0.0.1:6379/0"
    assert resolve_backend(url, {"EMQ_DIVE_PASSWORD": "a b/c"}, _never) == "redis://:a%20b%2Fc@127.0.0.1:6379/0"
    assert resolve_backend(url, {"REDISCLI_AUTH": "x"}, _never) == "redis://:x@127.0.0.1:6379/0"
    assert resolve_backend("redis://bob@h:1/0", {"EMQ_DIVE_PASSWORD": "x", "REDISCLI_AUTH": "y"}, _never) == \
        "redis://bob:x@h:1/0", "EMQ_DIVE_PASSWORD comes first, and the URL's user name stays"
    assert resolve_backend(url, {}, _never) == url
    assert resolve_backend("fakeredis", {"EMQ_DIVE_PASSWORD": "x"}, _never) == "fakeredis"
    assert with_password("unix:///tmp/s.sock?db=0", "x") == "unix://:x@/tmp/s.sock?db=0"


def test_a_password_on_the_command_line_is_warned_about_once_and_masked() -> None:
    said: list[str] = []
    url = f"redis://alice:{PASSWORD}@h:1/0"
    assert resolve_backend(url, {"EMQ_DIVE_PASSWORD": "other"}, said.append) == url, "the URL's own password wins"
    assert len(said) == 1 and PASSWORD not in said[0] and "EMQ_DIVE_PASSWORD" in said[0] and "***@h:1" in said[0]
    for query in (f"redis://h:1/0?password={PASSWORD}",):
        said.clear()
        resolve_backend(query, {}, said.append)
        assert len(said) == 1 and PASSWORD not in said[0]


def test_an_unknown_backend_is_named_masked() -> None:
    with pytest.raises(BackendProblem) as refused:
        resolve_backend(f"redi://:{PASSWORD}@h:1/0", {}, _never)
    assert PASSWORD not in str(refused.value) and "***@h:1" in str(refused.value)


def _emq(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "emq_dive", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, cwd=ROOT)


@pytest.mark.parametrize("command", [["batches-03", "--transcript", "{out}"], ["serve"], ["bench", "--sizes", "1"]])
def test_every_message_that_names_a_bad_backend_masks_it(tmp_path: Path, command: list[str]) -> None:
    args = [arg.replace("{out}", str(tmp_path / "t.md")) for arg in command]
    done = _emq(*args, "--backend", f"redi://:{PASSWORD}@h:1/0")
    assert PASSWORD not in done.stdout + done.stderr and "***@h:1" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.server
def test_the_app_takes_the_password_from_the_environment_and_its_argv_holds_none(tmp_path: Path) -> None:
    with own_server(tmp_path, password=PASSWORD) as (port, client):
        for variable in ("EMQ_DIVE_PASSWORD", "REDISCLI_AUTH"):
            app = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--plain", "--backend",
                                    f"redis://127.0.0.1:{port}/0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                   env={**os.environ, "PYTHONPATH": str(ROOT), variable: PASSWORD})
            try:
                assert app.stdout is not None
                first = app.stdout.readline()
                assert "Batches · dive 03" in first or first, first
                poll(lambda: list(client.scan_iter(match="emq:{dive-*}:*")), "the app's batch on the server")
                argv = cmdline(app.pid)
                assert argv and not any(PASSWORD in arg for arg in argv), argv
            finally:
                out, err = app.communicate("q\n", timeout=60)
            assert app.returncode == 0, err
            assert "warning" not in err and PASSWORD not in out + err
            assert not list(client.scan_iter(match="emq:{dive-*}:*")), "the quit deleted the run's keys"


@pytest.mark.server
def test_the_transcript_names_the_server_masked(tmp_path: Path) -> None:
    with own_server(tmp_path, password=PASSWORD) as (port, _):
        done = _emq("batches-03", "--transcript", str(tmp_path / "t.md"), "--backend",
                    f"redis://:{PASSWORD}@127.0.0.1:{port}/0")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "t.md").read_text()
    assert "Run against redis://***@127.0.0.1:" in text
    assert PASSWORD not in text + done.stdout + done.stderr


@pytest.mark.server
@pytest.mark.parametrize("how", ["environment", "argv"])
def test_a_serve_tab_gets_the_backend_in_its_environment_never_its_argv(tmp_path: Path, shared,  # noqa: F811
                                                                       monkeypatch, how: str) -> None:
    client, url = shared
    password = client.connection_pool.connection_kwargs["password"]
    bare = url.replace(f":{password}@", "@").replace("//@", "//")
    assert password not in bare
    if how == "environment":
        monkeypatch.setenv("EMQ_DIVE_PASSWORD", password)
    with served(tmp_path, "--backend", bare if how == "environment" else url, "--host", "0.0.0.0") as server:
        before = _queues(client)
        sock = _open_tab(server.url.replace("0.0.0.0", "127.0.0.1"))
        pid, queue = _tab_with_keys(server, client, sock, before)
        child, parent = cmdline(pid), cmdline(server.pid)
        assert child and not any(password in arg for arg in child), child
        assert parent and any(password in arg for arg in parent) == (how == "argv"), parent
        assert queue in _queues(client), "the tab reached the server, so its password came through"
        poll(lambda: any("not a loopback address" in line for line in server.err), "serve's --host warning")
        sock.close()
    said = "".join(server.err)
    assert password not in said, said
    assert sum("is on the command line" in line for line in server.err) == (1 if how == "argv" else 0), said
    (host_warning,) = [line for line in server.err if "not a loopback address" in line]
    assert "on the redis://***@127.0.0.1:" in host_warning, host_warning


def test_the_cli_warns_once_for_a_password_on_its_command_line(tmp_path: Path) -> None:
    done = _emq("batches-03", "--backend", f"redis://:{PASSWORD}@127.0.0.1:1/0", "--screenshot",
                str(tmp_path / "x.svg"))
    warned = [line for line in done.stderr.splitlines() if "is on the command line" in line]
    assert len(warned) == 1 and warned[0].startswith("emq-dive: warning: the password in redis://***@127.0.0.1:1/0")
    assert PASSWORD not in done.stderr + done.stdout
    quiet = _emq("batches-03", "--backend", "redis://127.0.0.1:1/0", "--screenshot", str(tmp_path / "x.svg"),
                 env={"EMQ_DIVE_PASSWORD": PASSWORD})
    assert "warning" not in quiet.stderr and PASSWORD not in quiet.stderr and "***@127.0.0.1:1" in quiet.stderr
