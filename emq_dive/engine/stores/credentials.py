"""A URL store's password, taken from the environment so it never stands in a process's arguments.

As redis-cli does with ``REDISCLI_AUTH``: ``EMQ_DIVE_PASSWORD`` (or ``REDISCLI_AUTH``) fills in a URL that gives none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from .masking import masked

PASSWORD_VARIABLES = ("EMQ_DIVE_PASSWORD", "REDISCLI_AUTH")
"""Where the password may come from, first found first."""
URL_SCHEMES = ("redis://", "rediss://", "unix://")
KNOWN = ("auto", "fakeredis", "server", "valkey", "cluster")


class BackendProblem(ValueError):
    """A ``--backend`` the app cannot use; the message is one line and shows no secret."""


def is_url(spec: str) -> bool:
    """Whether ``spec`` is a server URL rather than a backend name."""
    return spec.startswith(URL_SCHEMES)


def url_password(url: str) -> str:
    """The password ``url`` itself carries, in its user part or its query ('' when none)."""
    parts = urlsplit(url)
    query = {name.lower(): values[-1] for name, values in parse_qs(parts.query).items()}
    return parts.password or query.get("password", "")


def env_password(environ: Mapping[str, str]) -> str:
    """The password the environment gives, or ''."""
    return next((environ[name] for name in PASSWORD_VARIABLES if environ.get(name)), "")


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` in its user part (kept as it is when it carries one already, or none is given)."""
    if not password or url_password(url):
        return url
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def resolve_backend(spec: str, environ: Mapping[str, str], warn: Callable[[str], None]) -> str:
    """The backend to open: a name, or a URL completed with the environment's password.

    ``warn`` is told, once, when the password came on the command line, where any user's ``ps`` reads it.
    """
    if not is_url(spec):
        if spec not in KNOWN:
            raise BackendProblem(f"unknown backend {masked(spec)!r}: use auto, fakeredis, server, valkey, cluster, "
                                 "or a redis://, rediss:// or unix:// URL")
        return spec
    if url_password(spec):
        warn(f"the password in {masked(spec)} is on the command line, where every user's `ps` can read it; "
             f"give the URL without it and set {PASSWORD_VARIABLES[0]} (or {PASSWORD_VARIABLES[1]}) instead")
        return spec
    return with_password(spec, env_password(environ))
