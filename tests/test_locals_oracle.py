"""The locals the stepped run shows are the ones the server's own Lua holds: Redis's debugger (LDB) is the oracle."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import scripts
from emq_dive.engine.stepper import Stepper

try:
    from tests.conftest import IN_CI
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import IN_CI

LESSON_BATCH = ("live", "stale", "live", "reaped")
LEASE, CLAIM = 30_000, 10_000
ANSI = re.compile(r"\x1b\[[0-9;]*m")
STOP = re.compile(r"^\* Stopped at (\d+), stop reason")
VALUE = re.compile(r"^<value> (\S+) = (.*)$")
CLOCK = re.compile(r'^\{"(\d+)"; "(\d+)"\}$')


def redis_cli() -> str:
    """The server's own client, whose ``--ldb-sync-mode`` drives the server's Lua debugger."""
    found = shutil.which("redis-cli") or shutil.which("valkey-cli")
    if found is None:
        if IN_CI:
            pytest.fail("CI must run the debugger oracle, but neither redis-cli nor valkey-cli is on PATH")
        pytest.skip("no redis-cli or valkey-cli on PATH (apt-get install redis-tools) to drive the server's debugger")
    return found


def ldb_frames(output: str) -> list[tuple[int, str, list[tuple[str, str]]]]:
    """Each stop of an LDB session that sent a command (and the last stop, where the script returns): its line,
    the command's verb (``return`` for the last), and the locals ``print`` showed there."""
    stops: list[tuple[int, list[tuple[str, str]], list[str]]] = []
    for line in ANSI.sub("", output).splitlines():
        if (stop := STOP.match(line)) is not None:
            stops.append((int(stop.group(1)), [], []))
        elif stops and (value := VALUE.match(line)) is not None:
            stops[-1][1].append((value.group(1), value.group(2)))
        elif stops and line.startswith("<redis> "):
            stops[-1][2].append(line.split()[1].upper())
    assert stops, f"the debugger never stopped: {output[:500]!r}"
    frames = [(at, verbs[0], values) for at, values, verbs in stops if verbs]
    return [*frames, (stops[-1][0], "return", stops[-1][1])]


def debugged(cli: str, store, keys: list[bytes], argv: list[bytes], workdir: Path) -> str:
    """The batch run by the server itself under its debugger: ``print`` then ``step`` at every line."""
    script = workdir / "extend_locks.lua"
    script.write_text(scripts.extend_locks().source, encoding="utf-8")
    where = store.client.connection_pool.connection_kwargs
    command = [cli, "-h", str(where.get("host", "127.0.0.1")), "-p", str(where.get("port", 6379)),
               "--ldb-sync-mode", "--eval", str(script), *(k.decode() for k in keys), ",",
               *(a.decode() for a in argv)]
    # more print/step pairs than the script has lines to run; the session's end makes the rest plain errors
    env = {**os.environ, "REDISCLI_AUTH": where.get("password") or ""}  # the password kept off the command line
    done = subprocess.run(command, input="print\nstep\n" * 400, capture_output=True, text=True, timeout=60,
                          check=False, env=env)
    assert "Lua debugging session ended" in done.stdout, done.stdout[-2000:] + done.stderr
    return done.stdout


def stepped_frames(stepper: Stepper) -> list[tuple[int, str, list[tuple[str, str]], object]]:
    """Every locals frame of the stepped run, in order, with the verb of the call it was read at (or ``return``)."""
    out = []
    for step in stepper.steps[1:]:
        verbs = [call.sent[0].decode() for call in step.calls]
        verbs += ["return"] * (len(step.locals) - len(verbs))
        out += [(frame.line, verb, [(one.name, one.ldb) for one in frame.shown], frame)
                for frame, verb in zip(step.locals, verbs, strict=True)]
    return out


def clock_now(values: dict[str, str]) -> tuple[int, int] | None:
    """The clock read and the ``now`` the script made of it, as the server's Lua computes ``now``."""
    if "clock" not in values:
        return None
    seconds, micros = map(int, CLOCK.match(values["clock"]).groups())
    return seconds, seconds * 1000 + micros // 1000


@pytest.mark.server
def test_the_locals_at_each_call_line_of_the_lessons_batch_are_the_servers_own(server_store, tmp_path: Path):
    cli = redis_cli()
    batch = fates.build_batch(server_store, list(LESSON_BATCH), LEASE, CLAIM)
    stepper = Stepper(server_store, batch.held, LEASE)
    stepper.end()
    ours = stepped_frames(stepper)
    stepper.home()  # the store as the batch found it, for the server's own run
    theirs = ldb_frames(debugged(cli, server_store, stepper.keys, stepper.argv, tmp_path))

    assert [(line, verb) for line, verb, _, _ in ours] == [(line, verb) for line, verb, _ in theirs]
    assert len(ours) == 1 + 3 + 1 + 3 + 2 + 1, "TIME, three checks and a write each for 1 and 3, one HGET for 2, " \
                                               "two checks for 4, and the return"
    for (line, verb, mine, frame), (_, _, server) in zip(ours, theirs, strict=True):
        assert [name for name, _ in mine] == [name for name, _ in server], (line, verb)
        same = {name: value for name, value in mine}
        told = dict(server)
        for name in same.keys() - {"clock", "now"}:
            assert same[name] == told[name], (line, verb, name)
        # each run read its own clock, so the clock's locals agree in form and in what now is made of them
        for values, now in ((dict(frame.pairs), "full"), (told, "ldb")):
            read = clock_now(values)
            if read is None:
                continue
            assert CLOCK.match(values["clock"]) is not None
            expected = str(read[1]) if now == "full" else f"{float(read[1]):g}"
            assert values.get("now", expected) == expected, (line, verb)
    stepped, served = clock_now(dict(ours[-1][3].pairs)), clock_now(dict(theirs[-1][2]))
    assert stepped is not None and served is not None and abs(stepped[0] - served[0]) < 120, (stepped, served)
    names = {name for _, _, mine, _ in ours for name, _ in mine}
    assert {"now", "i", "id", "token", "att", "failed", "row", "clock", "lease", "active", "base"} <= names
    assert dict(theirs[-1][2])["failed"] == '{"JOB02"; "JOB04"}'


def test_ldb_frames_reads_the_debuggers_stops_prints_and_commands():
    output = ("\x1b[0;37;49m* Stopped at 11, stop reason = step over\x1b[0m\n-> 11 local clock = redis.call('TIME')\n"
              "<value> lease = 30000\n<redis> TIME\n<reply> [\"1\",\"2\"]\n* Stopped at 12, stop reason = step over\n"
              "<value> lease = 30000\n<value> now = 1.7e+12\n")
    assert ldb_frames(output) == [(11, "TIME", [("lease", "30000")]),
                                  (12, "return", [("lease", "30000"), ("now", "1.7e+12")])]
