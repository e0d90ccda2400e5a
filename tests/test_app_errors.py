"""Pilot tests: a store that fails shows an in-app error view, never a traceback."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from emq_dive.engine.echo_mq.keyspace import IllFormed
from emq_dive.views.tui.screens.error import ErrorView, describe
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, shown


def gone_store():
    store = frozen_store()
    store.client = redis.Redis(unix_socket_path="/nonexistent/emq-dive.sock",
                               retry=Retry(NoBackoff(), 0))
    return store


@asynctest
async def test_a_store_that_is_gone_shows_the_error_view_and_retry_and_quit_work():
    app = frozen_app(gone_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorView)
        assert "The store is gone" in shown(app)
        first = app.screen
        await press(app, pilot, "r")
        assert isinstance(app.screen, ErrorView) and app.screen is not first, "the retry ran and failed again"
        await press(app, pilot, "escape")
        assert app.screen is dive(app)
        await press(app, pilot, "right")
        assert app.screen is dive(app)
        await press(app, pilot, "q")
    assert app.return_code == 0


@asynctest
async def test_retry_once_the_store_is_back_resumes_at_the_step_asked_for():
    store = frozen_store()
    working = store.client
    store.client = gone_store().client
    app = frozen_app(store, step=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorView)
        store.client = working
        await press(app, pilot, "r")
        assert app.screen is dive(app)
        assert dive(app).session.stepper.position == 2 and "step 2 of 4" in shown(app)


def test_describe_names_noperm_wrongtype_and_ill_formed():
    assert describe(redis.ResponseError("NOPERM no permissions"))[0] == "The store refused: NOPERM"
    assert describe(redis.ResponseError("WRONGTYPE Operation against a key"))[0] == "The store refused: WRONGTYPE"
    assert describe(IllFormed("JOB 7", "whitespace"))[0] == "An ill-formed id"
