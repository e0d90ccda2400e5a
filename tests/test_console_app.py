"""Pilot tests: the console (:) over the dive on the frozen store: refusals send nothing, the reply is raw, the store
pane follows, ↑ brings a line back, and back undoes a console write."""

from __future__ import annotations

from emq_dive.engine.echo_mq.console import Refusal
from emq_dive.present.console import Replied
from emq_dive.views.tui.screens.console_screen import ConsoleScreen
from emq_dive.views.tui.widgets.console_prompt import ConsolePrompt
from emq_dive.views.tui.widgets.store_pane import StorePane
from tests.tui_support import NOW_MS, SIZE, asynctest, frozen_app, press, record_notices, settle

STRING_COMPARE = "EVALSHA $sha 2 $active $base $lease JOB01 01"
"""JOB01's attempts is 1: a token of 01 equals it as a number, not as the string the script compares."""


def active(app) -> dict[str, int | None]:
    """The store pane's active set, as its frame holds it."""
    frame = app.dive.query_one(StorePane).frame
    return {entry.id: entry.score for entry in frame.view.active}


async def send(app, pilot, line: str) -> None:
    """Type ``line`` at the console's prompt and press Enter, letting its worker finish."""
    prompt = app.screen.query_one(ConsolePrompt)
    prompt.value = line
    await press(app, pilot, "enter")


def sent_commands(store) -> list[tuple]:
    """Every command the store's client sends from now on (wrapping its connection pool's get_connection)."""
    pool = store.client.connection_pool
    seen: list[tuple] = []
    get = pool.get_connection

    def recording(*args, **kwargs):
        conn = get(*args, **kwargs)
        send_command = conn.send_command

        def sending(*command, **options):
            seen.append(command)
            return send_command(*command, **options)

        conn.send_command = sending
        return conn

    pool.get_connection = recording
    return seen


@asynctest
async def test_the_console_refuses_a_foreign_key_flushall_and_a_malformed_line_with_nothing_sent():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = dict(app.dive.session.store.client.hgetall("emq:{dive-snap}:job:JOB01"))
        await press(app, pilot, "colon")
        screen = app.screen
        assert isinstance(screen, ConsoleScreen)
        sent = sent_commands(app.dive.session.store)
        for line, says in (("ZSCORE emq:{other}:active JOB01", "not a key of this dive"),
                           ("FLUSHALL", "FLUSHALL is not a console command"),
                           ('HGET "$job:JOB01 attempts', "malformed line"),
                           ("ZSCORE $active", "wrong number of arguments for ZSCORE"),
                           ("DEL $active", "DEL is not a console command")):
            await send(app, pilot, line)
            assert isinstance(screen.outcome, Refusal), line
            assert says in screen.outcome.reason
            reply = str(screen.query_one("#console-reply").content)
            assert reply.startswith("refused, nothing sent:") and "\n" not in reply
        assert sent == [], "a refused line sent nothing to the store"
        assert app.dive.session.store.client.hgetall("emq:{dive-snap}:job:JOB01") == before
        assert app.dive.session.store.client.zcard("emq:{dive-snap}:active") == 3


@asynctest
async def test_a_token_equal_as_a_number_but_not_as_a_string_fails_and_back_undoes_a_write():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = active(app)
        await press(app, pilot, "colon")
        screen = app.screen
        await send(app, pilot, STRING_COMPARE)
        outcome = screen.outcome
        assert isinstance(outcome, Replied) and outcome.lines == ('1) "JOB01"',)
        assert outcome.line.args[-2:] == (b"JOB01", b"01") and outcome.undoable
        await send(app, pilot, "EVALSHA $sha 2 $active $base $lease JOB03 1")
        assert screen.outcome.lines == ("(empty array)",)
        assert active(app)["JOB03"] == NOW_MS + 30_000, "the store pane follows the console's write"
        assert active(app)["JOB01"] == before["JOB01"], "the string compare left JOB01 where it was"
        await send(app, pilot, "HGETALL $job:JOB01")
        assert screen.outcome.lines == ('1) "attempts"', '2) "1"') and not screen.outcome.undoable
        said = record_notices(app)
        await press(app, pilot, "escape", "left")
        assert app.dive.target == 0
        assert active(app) == before, "back put back what the console's write replaced"
        assert said == ["back put back what the console's write replaced"]
        await press(app, pilot, "left")
        assert active(app) == before, "the second write's undo (JOB01 failed, nothing changed) changed nothing"
        await press(app, pilot, "right", "left")
        assert app.dive.target == 0 and active(app) == before, "with no console write left, back steps as before"


@asynctest
async def test_up_brings_back_the_lines_sent_and_down_goes_forward_again():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "colon")
        prompt = app.screen.query_one(ConsolePrompt)
        await press(app, pilot, *"ZCARD", "space", "dollar_sign", *"active")
        assert prompt.value == "ZCARD $active", "space and the keys the dive binds type into the prompt"
        assert app.dive.target == 0 and not app.dive.playing
        await press(app, pilot, "enter")
        assert app.screen.outcome.lines == ("(integer) 3",)
        await send(app, pilot, "FLUSHALL")
        await press(app, pilot, "up")
        assert prompt.value == "FLUSHALL"
        await press(app, pilot, "up")
        assert prompt.value == "ZCARD $active"
        await press(app, pilot, "up")
        assert prompt.value == "ZCARD $active", "the oldest line stays"
        await press(app, pilot, "down")
        assert prompt.value == "FLUSHALL"
        await press(app, pilot, "down")
        assert prompt.value == ""


@asynctest
async def test_a_console_write_after_a_step_is_undone_by_back_before_the_step():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "right")
        stepped = active(app)
        await press(app, pilot, "colon")
        await send(app, pilot, "EVALSHA $sha 2 $active $base 99000 JOB03 1")
        assert active(app)["JOB03"] == NOW_MS + 99_000
        await press(app, pilot, "escape", "left")
        assert app.dive.target == 2 and active(app) == stepped
        await press(app, pilot, "left")
        assert app.dive.target == 1


@asynctest
async def test_the_palette_and_the_help_offer_the_console_and_reset():
    from emq_dive.views.tui.screens.help import HELP
    from emq_dive.views.tui.screens.palette import DiveCommands

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for typed, title in (("redis-cli", "Console"), ("pristine", "Reset to the lesson's batch")):
            hits = sorted([hit async for hit in DiveCommands(app.screen).search(typed)], reverse=True)
            assert hits and hits[0].text == title, typed
        assert "\n| : | the console:" in HELP and "\n| R | reset:" in HELP
        await press(app, pilot, "ctrl+p")
        await pilot.press(*"console")
        await settle(app, pilot)
        await press(app, pilot, "enter")
        assert isinstance(app.screen, ConsoleScreen)


@asynctest
async def test_at_80x24_a_long_reply_scrolls_and_the_prompt_stays_on_screen():
    app = frozen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "colon")
        await send(app, pilot, "ZRANGE $active 0 -1 WITHSCORES")
        assert len(app.screen.outcome.lines) == 6
        prompt = app.screen.query_one(ConsolePrompt)
        assert prompt.region.height == 1 and prompt.region.bottom <= 24 and prompt.has_focus
