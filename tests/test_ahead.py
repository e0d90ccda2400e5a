"""A long move runs ahead in pipelines and ends exactly as a step at a time would: same calls, replies, verdicts and
store, every reply checked, and a step the store answered otherwise run again."""

from __future__ import annotations

from typing import ClassVar

import pytest

from emq_dive.engine.echo_mq import scripts
from emq_dive.engine.echo_mq.connector import error_text
from emq_dive.engine.stepper import Stepper, ahead
from emq_dive.engine.stepper import stepper as stepper_module
from tests.test_stepper import build, dumps, run_all

MIX = ("live", "stale", "gone", "reaped", "live", "lane", "stale", "live", "reaped", "live")


class Spied(ahead.Ahead):
    """The run-ahead, each instance kept so a test can ask what it found."""

    made: ClassVar[list[Spied]] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.read_aheads = 0
        Spied.made.append(self)

    def _learn(self, args):
        learned = super()._learn(args)
        self.read_aheads += learned
        return learned


@pytest.fixture
def spied(monkeypatch):
    Spied.made = []
    monkeypatch.setattr(stepper_module, "Ahead", Spied)
    monkeypatch.setattr(ahead, "READ_AHEAD", 7)  # several read-aheads and flushes in one short batch
    monkeypatch.setattr(ahead, "LIMIT", 5)
    return Spied.made


def _held(store, size: int):
    """``size`` members of every fate, two of them held twice within one read-ahead (the second read follows the
    first one's write), and last a member whose row is the wrong type (its read is an error reply)."""
    held = list(build(store, [*(MIX[i % len(MIX)] for i in range(size)), "wrongtype"]).held)
    return [held[0], held[0], *held[1:4], held[3], *held[4:]]


def _calls(step, frozen: bool = True) -> list[tuple]:
    """A step's calls with error replies as their text (an exception equals only itself) and, on a live server,
    without the clock's reads and the scores it makes."""
    def reply(call):
        if isinstance(call.reply, Exception):
            return error_text(call.reply)
        return call.reply if frozen or call.sent[0] not in (b"TIME", b"ZSCORE", b"ZADD") else None
    return [(c.source, c.line, c.sent if frozen or c.sent[0] != b"ZADD" else c.sent[:2] + c.sent[3:], reply(c))
            for c in step.calls]


def _both(store, size: int, wire: int = 4, mode: str = "batch"):
    """The same batch run a step at a time, then (after Home) run to the end in one move."""
    held = _held(store, size)
    before = dumps(store)
    one = Stepper(store, held, 30_000, wire, mode)
    by_step = run_all(one)
    after_steps = dumps(store)
    one.home()
    assert dumps(store) == before
    two = Stepper(store, held, 30_000, wire, mode)
    two.end()
    return by_step, after_steps, two, before


@pytest.mark.parametrize(("wire", "mode"), [(4, "batch"), (4, "singles"), (4, "guard-off"), (6, "batch")])
def test_a_long_move_runs_ahead_and_ends_as_a_step_at_a_time(any_store, spied, wire, mode):
    by_step, after_steps, two, before = _both(any_store, 40, wire, mode)
    frozen = any_store.kind == "fakeredis"
    assert spied and all(found.wrong is None for found in spied)
    # a read-ahead a window (two for the first, as the script shows what it reads), not one a member
    windows = -(-len(by_step) // ahead.READ_AHEAD)
    assert sum(found.read_aheads for found in spied) <= (windows + 2 if wire == 4 else 0)
    assert len(two.steps) == len(by_step) and two.finished
    assert two.steps[-1].round_trips == by_step[-1].round_trips
    for a, b in zip(by_step, two.steps, strict=True):
        assert _calls(a, frozen) == _calls(b, frozen)
        # a live server's clock moves between the runs: the member held twice reads its own new score
        assert [(m.id, m.verdict, m.row, m.match, m.active if frozen else None) for m in a.members] == \
            [(m.id, m.verdict, m.row, m.match, m.active if frozen else None) for m in b.members]
        assert tuple(a.failed) == tuple(b.failed)
    if frozen:
        assert dumps(any_store) == after_steps
    two.home()
    assert dumps(any_store) == before


def test_a_step_the_store_answers_otherwise_is_run_again(fake_store, spied, monkeypatch):
    fed_wrong = []
    learn = Spied._learn

    def lying(self, args):
        learned = learn(self, args)
        for read in self._known:
            if read[0] == b"HGET" and read[1].endswith(b":job:JOB03"):
                fed_wrong.append(read)
                self._known[read] = b"99"  # the read-ahead says JOB03 has another token than the store holds
        return learned
    monkeypatch.setattr(Spied, "_learn", lying)
    by_step, after_steps, two, before = _both(fake_store, 20)
    assert fed_wrong and [found.wrong for found in spied if found.wrong is not None] == [4]  # JOB03, the 4th held
    for a, b in zip(by_step, two.steps, strict=True):
        assert _calls(a) == _calls(b)
        assert [m.verdict for m in a.members] == [m.verdict for m in b.members]
    assert len(two.steps) == len(by_step)
    assert dumps(fake_store) == after_steps
    two.home()
    assert dumps(fake_store) == before


def test_a_short_move_goes_a_command_a_round_trip(fake_store, spied):
    stepper = Stepper(fake_store, _held(fake_store, 20), 30_000)
    stepper.run_to(stepper_module.AHEAD_FROM - 1)
    assert stepper.position == stepper_module.AHEAD_FROM - 1 and not spied
    stepper.run_to(stepper.count)
    assert stepper.finished and len(spied) == 1


def test_the_score_a_write_leaves_is_known_only_when_exact():
    assert ahead._score(b"1796150030000") == b"1796150030000"
    assert ahead._score(b"1.5") is None
    assert ahead._score(b"9007199254740993") is None
    assert ahead._score(b"nan-ish") is None


def test_a_write_the_read_ahead_cannot_follow_makes_it_read_again(fake_store, spied):
    base = scripts.extend_locks()
    counted = base.source.replace("  local att = redis.call('HGET', row, 'attempts') -- @check-row",
                                  "  local att = redis.call('HGET', row, 'attempts') -- @check-row\n"
                                  "  redis.call('HINCRBY', row, 'attempts', 1)")
    assert counted != base.source
    yours = {"extend_locks": scripts.edited(base, counted)}
    held = _held(fake_store, 20)
    one = Stepper(fake_store, held, 30_000, yours=yours)
    by_step = run_all(one)
    after_steps = dumps(fake_store)
    one.home()
    two = Stepper(fake_store, held, 30_000, yours=yours)
    two.end()
    assert spied and all(found.wrong is None for found in spied), "every read it fed was read after the write"
    assert [_calls(step) for step in two.steps] == [_calls(step) for step in by_step]
    assert dumps(fake_store) == after_steps


def test_end_runs_a_script_that_takes_more_steps_than_members_to_its_return(fake_store):
    base = scripts.extend_locks()
    again = "for j = 2, #ARGV - 1, 2 do redis.call('HGET', base .. 'job:' .. ARGV[j], 'attempts') end\n"
    twice = base.source.replace("return failed -- @reply", again + "return failed -- @reply")
    assert twice != base.source
    held = build(fake_store, ["live", "stale"] * 6).held
    stepper = Stepper(fake_store, held, 30_000, yours={"extend_locks": scripts.edited(base, twice)})
    end = stepper.end()
    assert end.done and end.error is None and stepper.position > stepper.count
