"""The connector on the redis-py the project allows: a pooled connection asked for without deprecated arguments."""

from __future__ import annotations

import warnings

import redis

from emq_dive.engine.echo_mq.connector import error_text, raw
from emq_dive.engine.stores import Store


def test_raw_sends_without_a_deprecation_warning(fake_store: Store) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert raw(fake_store.client, "PING") == b"PONG"
        assert raw(fake_store.client, "ECHO", b"\x00x") == b"\x00x"


def test_an_err_reply_keeps_its_class_word(fake_store: Store) -> None:
    try:
        raw(fake_store.client, "EMQ.EXTENDS", 3)
    except redis.ResponseError as err:
        assert error_text(err) == "ERR EMQ.EXTENDS numkeys must be 2"
    else:
        raise AssertionError("EMQ.EXTENDS with numkeys 3 must be refused")


def test_a_class_redis_py_leaves_in_the_message_is_said_once(fake_store: Store) -> None:
    for script, wire in (("return redis.error_reply('EMQSTALE token does not match attempts')",
                          "EMQSTALE token does not match attempts"),
                         ("return redis.error_reply('ERR boom')", "ERR boom"),
                         ("return redis.error_reply('NOPERM no')", "NOPERM no")):
        try:
            raw(fake_store.client, "EVAL", script, 0)
        except redis.ResponseError as err:
            assert error_text(err) == wire
        else:
            raise AssertionError(f"{script} must raise")


def test_redis_py_packs_and_parses_with_hiredis() -> None:
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE, "hiredis>=3.2 is a runtime dependency: redis-py should pack and parse in C with it"
