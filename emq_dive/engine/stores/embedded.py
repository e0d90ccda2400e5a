"""The embedded store: fakeredis, with the native twin served as real commands of that store."""

from __future__ import annotations

import inspect
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import fakeredis

from ..echo_mq import native
from .store import StoreError

if TYPE_CHECKING:
    from .store import Store

FAKEREDIS_RANGE = ">=2.40,<2.42"
"""The fakeredis releases whose internals this module is built on; pyproject.toml declares the same range."""


def _moved(what: str) -> StoreError:
    return StoreError(f"the embedded store needs fakeredis{FAKEREDIS_RANGE}, whose internals it serves EMQ.EXTEND(S) "
                      f"through, but fakeredis {fakeredis.__version__} moved {what}: install a fakeredis in that "
                      "range, or use --backend server")


try:
    from fakeredis._commands import Signature
    from fakeredis._helpers import SimpleError
    from fakeredis._socket import FakeSocket
except ImportError as err:
    raise _moved(f"an internal this module imports ({err})") from None
_run_command = getattr(FakeSocket, "_run_command", None)
if _run_command is None or list(inspect.signature(_run_command).parameters) != [
        "self", "func", "sig", "args", "from_script"]:
    raise _moved("FakeSocket._run_command(func, sig, args, from_script)")
if not callable(getattr(FakeSocket, "_name_to_func", None)):
    raise _moved("FakeSocket._name_to_func(name)")

Clock = Callable[[], float]


class EchoServer(fakeredis.FakeServer):
    """A fakeredis server with a run_id and a clock the tests may freeze."""

    def __init__(self, clock: Clock | None = None, run_id: str | None = None) -> None:
        super().__init__(version=(7, 0), server_type="redis")
        self.clock: Clock = clock or time.time
        self.run_id: bytes = (run_id or secrets.token_hex(20)).encode()


class _SocketHost:
    """The native twin's host inside a fakeredis command: every call runs server-side, under its lock."""

    def __init__(self, sock: EchoSocket) -> None:
        self._sock = sock
        self._now: int | None = None

    def _call(self, name: str, *args: bytes) -> Any:
        func, sig = self._sock._name_to_func(name)
        result = self._sock._run_command(func, sig, list(args), True)
        if isinstance(result, SimpleError):
            raise native.NativeError(result.value)
        return result

    def now_ms(self) -> int:
        if self._now is None:
            # the native clock is the value TIME reports, read the way the script reads it
            seconds, micros = self._sock.time()
            self._now = int(seconds) * 1000 + int(micros) // 1000
        return self._now

    def run_id(self) -> bytes:
        return self._sock._server.run_id

    def may(self, key: bytes, write: bool) -> bool:
        return True  # fakeredis keeps no ACL key patterns: the restricted user needs a real server

    def hget(self, key: bytes, field: bytes) -> bytes | None:
        return self._call("hget", key, field)

    def zscore(self, key: bytes, member: bytes) -> bytes | None:
        score = self._call("zscore", key, member)
        if score is None or isinstance(score, bytes):
            return score
        return (str(int(score)) if float(score).is_integer() else repr(float(score))).encode()

    def zadd(self, key: bytes, score: bytes, member: bytes) -> None:
        self._call("zadd", key, score, member)

    def hset(self, key: bytes, field: bytes, value: bytes) -> None:
        self._call("hset", key, field, value)


class EchoSocket(FakeSocket):
    """A fakeredis connection that also knows EMQ.EXTEND and EMQ.EXTENDS, and reads TIME from the server's clock."""

    _server: EchoServer
    # fakeredis annotates ``fixed`` as a one-item tuple; it takes any tuple of argument types, the empty one included
    _NATIVE: ClassVar[dict[str, Signature]] = {
        "emq.extends": Signature("emq.extends", "_emq_extends", (), (bytes,), flags="w"),  # type: ignore[arg-type]
        "emq.extend": Signature("emq.extend", "_emq_extend", (), (bytes,), flags="w"),  # type: ignore[arg-type]
    }

    def _name_to_func(self, cmd_name: str) -> tuple[Callable[..., Any] | None, Signature]:
        sig = self._NATIVE.get(cmd_name.lower())
        if sig is not None:
            return getattr(self, sig.func_name), sig
        return super()._name_to_func(cmd_name)

    def _serve(self, verb: str, args: tuple[bytes, ...]) -> Any:
        try:
            return native.serve(_SocketHost(self), verb, list(args))
        except native.NativeError as err:
            raise SimpleError(str(err)) from None

    def _emq_extends(self, *args: bytes) -> Any:
        return self._serve("EMQ.EXTENDS", args)

    def _emq_extend(self, *args: bytes) -> Any:
        return self._serve("EMQ.EXTEND", args)

    def time(self) -> list[bytes]:
        micros = round(self._server.clock() * 1_000_000)
        return [str(micros // 1_000_000).encode(), str(micros % 1_000_000).encode()]


class EchoConnection(fakeredis.FakeRedisConnection):
    """A fakeredis client connection whose socket is an EchoSocket."""

    def _connect(self) -> EchoSocket:
        if self._server is None or not self._server.connected:
            raise self._connection_error_class("connection closed")
        return EchoSocket(self._server, client_class=self._client_class, db=self.db,
                          lua_modules=self._lua_modules, client_info=self._client_info)


def embedded_client(clock: Clock | None = None, run_id: str | None = None
                    ) -> tuple[fakeredis.FakeRedis, EchoServer]:
    """A fresh embedded server and a client of it."""
    server = EchoServer(clock, run_id)
    return fakeredis.FakeRedis(server=server, connection_class=EchoConnection), server


def open_embedded(queue: str, clock: Clock | None = None, run_id: str | None = None) -> Store:
    """The embedded store, ready to use with no setup."""
    from .store import Store

    client, server = embedded_client(clock, run_id)
    store = Store(
        client=client, kind="fakeredis", description=f"embedded fakeredis {fakeredis.__version__}",
        queue=queue, native=True, acl=False, pinned_run_id=server.run_id,
        acl_reason="fakeredis keeps no ACL key patterns; the restricted user needs a real server",
    )
    store.on_close(client.close)
    return store
