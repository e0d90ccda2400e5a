"""The script's locals on the step model, breakpoints and play-to, and the locals in the plain mode and transcript."""

from __future__ import annotations

import io
import re

from emq_dive.course.lessons import load
from emq_dive.engine import fates
from emq_dive.engine.echo_mq import scripts
from emq_dive.engine.stepper import Stepper
from emq_dive.engine.stepper.lua_locals import KEYFRAME, LDB_LINE, Local, Locals, ldb_numbers
from emq_dive.engine.stepper.lua_run import LuaRun
from emq_dive.present.play_to import Breakpoints, Stop, stop_at
from emq_dive.present.session import Session
from emq_dive.views.text.plain.dive import NoStyle, PlainDive
from emq_dive.views.text.recorder import Recorder, record_run
from emq_dive.views.text.transcript import markdown

LEASE, CLAIM = 30_000, 10_000
LESSON_BATCH = ["live", "stale", "live", "reaped"]


def run(store, mode: str = "batch", wire: int = 4) -> Stepper:
    batch = fates.build_batch(store, LESSON_BATCH, LEASE, CLAIM)
    stepper = Stepper(store, batch.held, LEASE, wire=wire, mode=mode)
    stepper.end()
    return stepper


def values(step) -> dict[str, str]:
    return {one.name: one.value for one in step.script_locals}


def changed(step) -> set[str]:
    return {one.name for one in step.script_locals if one.changed}


def test_each_call_line_has_the_scripts_locals_and_the_changed_ones_since_the_step_before(fake_store):
    stepper = run(fake_store)
    steps = stepper.steps
    base = f"emq:{{{fake_store.queue}}}:"
    assert steps[0].locals == () and "handle is Python" in steps[0].no_locals
    assert [[frame.line for frame in step.locals] for step in steps[1:]] == [[11, 19, 21, 22], [19], [19, 21, 22],
                                                                             [19, 21, 28]]
    calls = [[call.line for call in step.calls] for step in steps[1:]]
    assert calls == [[11, 19, 21, 22], [19], [19, 21, 22], [19, 21]], "one frame per call, and the return"
    first = steps[1].locals[0]
    assert first.pairs == (("active", f'"{base}active"'), ("base", f'"{base}"'), ("lease", "30000"))
    assert values(steps[1]) == {"active": f'"{base}active"', "base": f'"{base}"', "lease": "30000",
                                "clock": '{"1700000000"; "0"}', "now": "1700000000000", "failed": "{}", "i": "2",
                                "id": '"JOB01"', "token": '"1"', "row": f'"{base}job:JOB01"', "att": '"1"'}
    assert changed(steps[1]) == set(values(steps[1])), "the first step brings every local into scope"
    assert changed(steps[2]) == {"i", "id", "row"}, "JOB02's token is the same \"1\""
    assert "att" not in values(steps[2]), "the locals at JOB02's HGET: att is not assigned until it returns"
    assert changed(steps[3]) == {"failed", "i", "id", "row", "att"} and values(steps[3])["failed"] == '{"JOB02"}'
    assert steps[4].locals[-1].line == 28 and values(steps[4])["failed"] == '{"JOB02"; "JOB04"}'
    assert set(values(steps[4])) == {"active", "base", "lease", "clock", "now", "failed", "i"}, \
        "at the return the loop's locals are out of scope"
    within = steps[3].locals[1].shown  # the ZSCORE line, against the HGET line before it
    assert [one.name for one in within if one.changed] == ["att"]


def test_back_and_forward_again_show_the_same_locals(fake_store):
    stepper = run(fake_store)
    before = [step.locals for step in stepper.steps]
    stepper.back()
    stepper.back()
    stepper.forward()
    stepper.forward()
    assert [step.locals for step in stepper.steps] == before


def test_the_native_wire_has_no_lua_locals_and_says_so(fake_store):
    stepper = run(fake_store, wire=6)
    assert all(step.locals == () for step in stepper.steps)
    assert "EMQ.EXTENDS is C inside the server" in stepper.steps[1].no_locals


def test_singles_read_each_calls_own_locals(fake_store):
    stepper = run(fake_store, mode="singles")
    second = stepper.steps[2]
    assert [frame.line for frame in second.locals] == [15, 17, 22], "TIME, HGET, then the stale return"
    assert values(second)["att"] == '"2"' and values(second)["id"] == '"JOB02"'
    assert changed(second) == set(values(second)), "each single call is a script run of its own"


def test_values_print_as_ldb_prints_them_escaped_and_trimmed():
    argv = [b"30000", b'a\n"b\\\x01\xc3', b"1", *[x for n in range(200) for x in (b"JOB%03d" % n, b"2")]]
    lua = LuaRun(scripts.extend_locks().source, "extend_locks.lua", [b"q:active", b"q:"], argv)
    pending = lua.advance()
    pending = lua.advance([b"1700000000", b"5"])
    while pending[0] == "call":
        pending = lua.advance(b"1" if pending[2][0] == b"HGET" else None)  # no member is in active: all fail
    frames = lua.frames()
    assert dict(frames[1].pairs)["id"] == r'"a\n\"b\\\x01\xc3"'
    failed = dict(frames[-1].pairs)["failed"]
    assert failed.startswith('{"a\\n') and failed.endswith(" ...")
    assert len(f"<value> failed = {failed}") == LDB_LINE + 4, "cut where LDB cuts a line, and ' ...' after"
    assert ldb_numbers('{1700000000123; "1700000000123"; 2; 0.5}') == '{1.7e+12; "1700000000123"; 2; 0.5}'
    assert not hasattr(frames[0], "__dict__"), "a frame is a slotted object: three references"
    hgets = [frame for frame in frames if frame.line == 19]
    assert [frame.value("i") for frame in hgets] == [str(i) for i in range(2, 2 * len(hgets) + 1, 2)]
    assert len(hgets) == 201 and sum(frame.base is None for frame in frames) == -(-len(frames) // KEYFRAME)
    assert [dict(frame.pairs).get("id") for frame in hgets[-2:]] == ['"JOB198"', '"JOB199"']
    whole = Locals(3, b"k1\x001\x00*\x00x\x001")
    assert whole.shown == (Local("x", "1", True),)
    assert Locals(4, b'd2\x002\x00*\x00y\x00"a"', whole).shown == (Local("x", "1", False), Local("y", '"a"', True))


def test_play_stops_at_a_breakpoint_a_failing_member_or_the_end(fake_store):
    stepper = run(fake_store)
    steps = stepper.steps
    none = Breakpoints()
    assert [stop_at(step, none) for step in steps[1:]] == [None, Stop.FAILING, None, Stop.FAILING]
    rescore = Breakpoints().toggled("extend_locks.lua", 22)
    assert [stop_at(step, rescore) for step in steps[1:]] == [Stop.BREAKPOINT, Stop.FAILING, Stop.BREAKPOINT,
                                                              Stop.FAILING]
    assert rescore.toggled("extend_locks.lua", 22) == none
    assert rescore.on("extend_locks.lua") == {22} and rescore.on("native.py") == frozenset()


def plain(store, typed: str) -> str:
    out = io.StringIO()
    session = Session(store, load("batches-03"))
    dive = PlainDive(session, out, NoStyle(), Recorder("t", "b"), lambda _: None)
    dive.run(iter(typed.splitlines()))
    return out.getvalue()


def test_the_plain_mode_says_the_locals_toggles_a_breakpoint_and_plays_to_it(fake_store):
    said = plain(fake_store, "\nb 22\nhome\n>\n>\n>\nb\nb x\n")
    paragraphs = said.split("\n\n")
    assert paragraphs[1].startswith("Step 0 of 4") and paragraphs[1].endswith(
        " No Lua locals yet: the handle is Python (jobs.py), and the script has not started.")
    assert any(p.startswith("Step 1 of 4") and " Locals at line 22: active = " in p and 'att = "1" (changed)' in p
               for p in paragraphs), "each step's paragraph ends with its locals"
    assert "Breakpoint on line 22 of extend_locks.lua: > plays to the next step that runs it. Breakpoints in " \
           "extend_locks.lua: 22." in paragraphs
    plays = [p for p in paragraphs if p.startswith("Played from")]
    assert plays == ["Played from step 0 to step 1: stopped at the breakpoint on line 22 of extend_locks.lua.",
                     "Played from step 1 to step 2: stopped at a failing member: JOB02 (failed).",
                     "Played from step 2 to step 3: stopped at the breakpoint on line 22 of extend_locks.lua."]
    heads = re.findall(r"^Step (\d) of 4", said, re.M)
    assert heads[-1] == "2", "a bare b still goes back"
    assert "'x' is no line number" in said


def test_the_transcript_lists_the_locals_at_each_call_line(fake_store):
    recorder = Recorder("t", "b")
    record_run(Session(fake_store, load("batches-03")), recorder)
    text = markdown(recorder.entries)
    step2 = text[text.index("### Step 2 of 4"):text.index("### Step 3 of 4")]
    assert "Locals at each call line, as the server's debugger prints them (numbers in full):" in step2
    assert '- at line 19: `active = "emq:{' in step2 and "`i = 4` (changed), `id = \"JOB02\"` (changed)" in step2
    assert text.count("- at line 28: ") == 1 and '`failed = {"JOB02"; "JOB04"}` (changed)' in text


def pinged(source: str, name: str) -> list[Locals]:
    """Run ``source`` to its end, each call answered PONG; the locals at each call and at the return."""
    lua = LuaRun(source, name, [], [])
    pending = lua.advance()
    while pending[0] == "call":
        pending = lua.advance(b"PONG")
    return lua.frames()


def test_a_table_changed_in_place_prints_anew_at_the_next_call():
    source = "local t = {1}\nredis.call('PING')\nt[1] = 2\nredis.call('PING')\nt[2] = 'x'\nredis.call('PING')\n" \
             "local n = {t}\nredis.call('PING')\nt[3] = true\nredis.call('PING')\nreturn 1\n"
    frames = pinged(source, "mutates.lua")
    assert [frame.line for frame in frames] == [2, 4, 6, 8, 10, 11], "each call line, then the return"
    shown = [dict(frame.pairs) for frame in frames]
    assert [one["t"] for one in shown] == ["{1}", "{2}", '{2; "x"}', '{2; "x"}', '{2; "x"; true}', '{2; "x"; true}']
    assert shown[4]["n"] == '{{2; "x"; true}}', "a table inside a table is printed afresh each time"


def test_a_local_that_keeps_its_value_keeps_its_text_and_a_zero_that_turns_negative_prints_anew():
    """Only what changed is printed again: a zero that turns to -0 is equal in Lua but prints apart, as in LDB."""
    source = "local z = 0\nlocal s = 'same'\nredis.call('PING')\nz = -z\nredis.call('PING')\ns = 'other'\n" \
             "redis.call('PING')\nreturn 1\n"
    frames = pinged(source, "zeros.lua")
    assert [dict(frame.pairs) for frame in frames[:3]] == [
        {"z": "0", "s": '"same"'}, {"z": "-0", "s": '"same"'}, {"z": "-0", "s": '"other"'}]
    assert [frames[k].changed for k in (1, 2)] == [{"z"}, {"s"}]


def test_a_long_script_shows_each_of_its_own_lines_and_none_of_the_harness_whose_line_numbers_it_shares():
    """The harness tells its own lines from the script's by number where it can; a script long enough to share
    those numbers (every line of it a call) shows each line once, in order, and no line of the harness's."""
    source = "local n = 0\n" + "n = n + 1 redis.call('PING')\n" * 300 + "return n\n"
    lua = LuaRun(source, "long.lua", [], [])
    pending, lines = lua.advance(), []
    while pending[0] == "call":
        lines += lua.lines()
        pending = lua.advance(b"PONG")
    lines += lua.lines()
    assert pending == ("done", 0, 300)
    assert lines == list(range(1, 303))


def test_every_stepped_line_is_a_line_of_the_script_that_holds_code(fake_store):
    source = scripts.extend_locks().source.splitlines()
    code = [n for n, text in enumerate(source, 1) if text.strip() and not text.lstrip().startswith("--")]
    steps = run(fake_store).steps[1:]
    assert steps[0].lines[:4] == tuple(code[:4]), "the run starts at the script's first line of code"
    assert all(step.lines and set(step.lines) <= set(code) for step in steps)
    assert steps[-1].lines[-1] == code[-1], "and ends at its return"


def test_a_replay_after_back_shows_each_step_as_the_run_straight_through_did(fake_store):
    """After a step back, the run is replayed quietly to where it was; a script that calls twice between its loop
    header and its row check (the line a step starts on) still shows the same lines, calls and locals on every
    step (the replay keeps the lines since the loop header, which ran before the last two replies)."""
    from tests.test_stepper import build, same_step

    base = scripts.extend_locks()
    pinged_source = base.source.replace("  local id = ARGV[i] -- @member",
                                        "  local id = ARGV[i] -- @member\n  redis.call('PING')\n  redis.call('PING')")
    assert pinged_source != base.source
    held = build(fake_store, ["live", "stale", "gone", "live", "reaped", "live"]).held
    stepper = Stepper(fake_store, held, LEASE, yours={"extend_locks": scripts.edited(base, pinged_source)})
    straight = [stepper.current]
    while not stepper.finished:
        straight.append(stepper.forward())
    for back in (1, 3, 5):
        for _ in range(back):
            stepper.back()
        while not stepper.finished:
            step = stepper.forward()
            one = straight[step.index]
            same_step(step, one, clock_too=False)
            assert (step.calls, step.locals) == (one.calls, one.locals), f"step {step.index} after {back} back"
    assert any(call.sent == (b"PING",) for call in straight[2].calls)
