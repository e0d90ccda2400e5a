"""Bad input gets one clear line and the rest still works: broken lesson files, the handle's limits in the loader,
format characters at the key gate, bench's arguments, and a serve tab that floods its input."""

from __future__ import annotations

import json
import os
import re
import socket
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from serve_support import poll, served
from test_serve import _open_tab, _queues, _tab_with_keys, shared  # noqa: F401  (shared is a fixture)

from emq_dive.course import lessons
from emq_dive.course.sandbox import SandboxError, from_lesson
from emq_dive.engine.echo_mq import keyspace
from emq_dive.views.web.relay import InputBudget

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = lessons.lessons_dir() / "batches-03.toml"


def _emq(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "emq_dive", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=cwd)


def _shelve_bad_files(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    good = SHIPPED.read_text(encoding="utf-8").replace('id = "batches-03"', 'id = "good-one"', 1)
    assert 'id = "good-one"' in good
    (folder / "good-one.toml").write_text(good, encoding="utf-8")
    (folder / "bad-toml.toml").write_text("id = [unclosed\n", encoding="utf-8")
    (folder / "dangling.toml").symlink_to(folder / "nowhere.toml")
    (folder / "nested.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")


def test_a_broken_lesson_file_is_listed_as_broken_and_every_other_lesson_opens(tmp_path: Path) -> None:
    _shelve_bad_files(lessons.user_lessons_dir())
    listed = _emq("list", cwd=tmp_path)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines() if not line.startswith("(")}
    assert set(lines) == {"batches-03", "good-one", "bad-toml", "dangling", "nested"}, listed.stdout
    for broken, says in (("bad-toml", "invalid TOML"), ("dangling", "cannot read"), ("nested", "nested too deeply")):
        assert " broken  (yours): " in lines[broken] and says in lines[broken], lines[broken]
    assert "broken" not in lines["good-one"] and "broken" not in lines["batches-03"]
    for good in ("batches-03", "good-one"):
        done = _emq(good, "--transcript", f"{good}.md", "--backend", "fakeredis", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    done = _emq("bad-toml", "--transcript", "x.md", "--backend", "fakeredis", cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "invalid TOML" in done.stderr
    assert not (tmp_path / "x.md").exists()


def test_a_bad_file_on_the_course_shelf_does_not_stop_the_others(tmp_path: Path, monkeypatch) -> None:
    _shelve_bad_files(tmp_path)
    monkeypatch.setattr(lessons, "lessons_dir", lambda: tmp_path)
    found = {entry.id: entry for entry in lessons.entries()}
    assert found["good-one"].lesson is not None and found["good-one"].origin is lessons.Origin.COURSE
    assert all(found[name].lesson is None and found[name].error for name in ("bad-toml", "dangling", "nested"))
    assert [lesson.id for lesson in lessons.list_lessons()] == ["good-one"]
    assert lessons.load("good-one").id == "good-one"


def _variant(tmp_path: Path, key: str, value: str) -> Path:
    """The shipped lesson with the line ``key = …`` given ``value``."""
    text, count = re.subn(rf"(?m)^{key} = .*$", lambda _: f"{key} = {value}", SHIPPED.read_text(encoding="utf-8"),
                          count=1)
    assert count == 1
    path = tmp_path / "batches-03.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("key", "value", "says"), [
    ("lease_ms", str(2**52 + 1), "key 'lease_ms': lease_ms must be at most 4503599627370496"),
    ("claim_lease_ms", str(2**60), "key 'claim_lease_ms': lease_ms must be at most"),
    ("lease_ms", "9" * 5000, "invalid TOML"),
])
def test_the_loader_enforces_the_handles_limits(tmp_path: Path, key: str, value: str, says: str) -> None:
    with pytest.raises(lessons.LessonError, match=re.escape(says)) as refused:
        lessons.load_file(_variant(tmp_path, key, value))
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 400
    assert lessons.load_file(_variant(tmp_path, key, str(2**52))).lease_ms > 0, "the limit itself is accepted"


def _with_members(tmp_path: Path, tokens: list[int]) -> Path:
    data = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    batch = data["batch"]
    text = SHIPPED.read_text(encoding="utf-8")
    members = "".join(f'\n[[member]]\nid = "M{n}"\nfate = "{fate}"\ntoken = {token}\n'
                      for n, (fate, token) in enumerate(zip(batch, tokens, strict=False)))
    path = tmp_path / "batches-03.toml"
    head, fates = text.split("[fates]", 1)
    path.write_text(head + members + "\n[fates]" + fates, encoding="utf-8")
    return path


def test_a_member_token_must_fit_the_attempts_counter(tmp_path: Path) -> None:
    count = len(lessons.load("batches-03").batch)
    assert lessons.load_file(_with_members(tmp_path, [2**63 - 1] * count)).members[0].token == 2**63 - 1
    with pytest.raises(lessons.LessonError, match=r"-2\*\*63 to 2\*\*63-1"):
        lessons.load_file(_with_members(tmp_path, [2**63] * count))


def test_a_lesson_batch_is_capped_like_the_sandbox(tmp_path: Path) -> None:
    path = _variant(tmp_path, "batch", "[" + '"live", ' * 10_001 + "]")
    with pytest.raises(lessons.LessonError, match="at most 10,000 members, not 10,00"):
        lessons.load_file(path)


def test_the_sandbox_refuses_an_oversized_token_in_one_line() -> None:
    batch = from_lesson(lessons.load("batches-03"))
    for text in ("9" * 30, "9" * 5000, str(-(2**63) - 1)):
        with pytest.raises(SandboxError) as refused:
            batch.with_token(0, text)
        assert len(str(refused.value)) < 200


@pytest.mark.parametrize(("char", "name"), [
    ("\u202e", "RIGHT-TO-LEFT OVERRIDE"), ("\u200b", "ZERO WIDTH SPACE"), ("\ufeff", "ZERO WIDTH NO-BREAK SPACE"),
    ("\u2066", "LEFT-TO-RIGHT ISOLATE")])
def test_the_key_gate_refuses_format_characters_and_names_them(char: str, name: str) -> None:
    with pytest.raises(keyspace.IllFormed) as refused:
        keyspace.job_key("q", f"JOB{char}01")
    assert f"U+{ord(char):04X} ({name})" in refused.value.rule
    with pytest.raises(SandboxError, match=f"U\\+{ord(char):04X}"):
        from_lesson(lessons.load("batches-03")).with_id(0, f"JOB{char}01")
    assert keyspace.gate("JOB-é-01") == "JOB-é-01", "letters of any script still pass"
    with pytest.raises(keyspace.IllFormed):
        keyspace.job_keys("q", ["JOB01", f"JOB{char}02"])


def test_many_job_keys_are_each_as_job_key_makes_it() -> None:
    ids = ["JOB01", "JOB-é-02", b"JOB03"]
    assert keyspace.job_keys("q-1", ids) == [keyspace.job_key("q-1", job_id) for job_id in ids]
    with pytest.raises(keyspace.IllFormed):
        keyspace.job_keys("a{b", ["JOB01"])


@pytest.mark.parametrize("args", [["--sizes", "0"], ["--sizes", "abc"], ["--sizes", "-5"], ["--sizes", "99999999999"],
                                  ["--sizes", "1,,2"], ["--sizes", ",".join(["1"] * 13)], ["--repeats", "0"],
                                  ["--repeats", "-1"], ["--repeats", "1e9"], ["--repeats", "101"]])
def test_bench_arguments_are_checked_with_limits_before_anything_runs(tmp_path: Path, args: list[str]) -> None:
    done = _emq("bench", "--backend", "fakeredis", *args, cwd=tmp_path)
    assert done.returncode == 2 and not done.stdout, (done.stdout, done.stderr)
    assert done.stderr.startswith("emq-dive bench: argument ") and len(done.stderr.splitlines()) == 1, done.stderr
    assert "inf" not in done.stderr and "Traceback" not in done.stderr


# -- a serve tab that floods its input -------------------------------------------------------------------------------


def test_the_input_budget_refills_at_its_rate_and_caps_its_burst() -> None:
    now = [0.0]
    budget = InputBudget(lambda: now[0])
    assert budget.spend(InputBudget.BURST)
    assert not budget.spend(1), "the burst is spent"
    now[0] += 100.0
    assert budget.spend(InputBudget.BURST) and not budget.spend(1), "a long pause refills to the burst, no further"
    now[0] += 1.0
    assert budget.spend(InputBudget.RATE) and not budget.spend(1)


def _frame(payload: bytes) -> bytes:
    """One masked client text frame."""
    mask = os.urandom(4)
    size = len(payload)
    head = b"\x81" + (bytes([0x80 | size]) if size < 126 else
                      b"\xfe" + struct.pack(">H", size) if size < 65536 else b"\xff" + struct.pack(">Q", size))
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if size < 65536 else \
        (int.from_bytes(payload, "big") ^ int.from_bytes(mask * (size // 4 + 1), "big") >> (8 * (4 - size % 4) % 32)
         ).to_bytes(size, "big")
    return head + mask + masked


def _send(sock: socket.socket, data: bytes) -> None:
    sock.setblocking(True)
    sock.settimeout(20)
    try:
        sock.sendall(data)
    except OSError:  # the server closed the connection under the flood: that is the point
        pass


@pytest.mark.server
@pytest.mark.parametrize("flood", ["one 3 MB frame", "frames faster than the rate"])
def test_a_flooding_tab_is_dropped_and_its_keys_deleted(tmp_path: Path, shared, flood: str) -> None:  # noqa: F811
    client, url = shared
    with served(tmp_path, "--backend", url) as server:
        before = _queues(client)
        sock = _open_tab(server.url)
        _, queue = _tab_with_keys(server, client, sock, before)
        if flood == "one 3 MB frame":
            _send(sock, _frame(json.dumps(["stdin", "j" * 3_000_000]).encode()))
        else:
            chunk = _frame(json.dumps(["stdin", "j" * 15_000]).encode())
            _send(sock, chunk * 8)  # 120 KB: within the frame cap, far over the burst at any refill rate
        poll(lambda: not server.tabs(), "the flooding tab's app to exit")
        assert queue not in _queues(client), "its keys went with it"
        assert server.proc.poll() is None, "the server itself serves on"
        sock.close()
        other = _open_tab(server.url)
        _tab_with_keys(server, client, other, _queues(client))
        other.close()
