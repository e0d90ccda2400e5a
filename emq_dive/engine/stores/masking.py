"""A server URL as messages may show it: its user part and any password masked, its secrets blanked in a text."""

from __future__ import annotations

from urllib.parse import parse_qs, unquote, urlsplit

_SECRET_FIELDS = ("password", "username")


def masked(url: str) -> str:
    """The URL with its whole user part, and any password or username in the query, replaced by ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(
        f"{name}=***" if name.lower() in _SECRET_FIELDS else pair
        for pair in parts.query.split("&") if pair
        for name in [pair.split("=", 1)[0]])
    if netloc != parts.netloc:
        url = url.replace(parts.netloc, netloc, 1)
    if query != parts.query:
        url = url.replace("?" + parts.query, "?" + query, 1)
    return url


def credentials(url: str) -> tuple[str, str]:
    """The user name and password the URL gives, in its user part or its query ('' where it gives none)."""
    parts = urlsplit(url)
    query = {name.lower(): values[-1] for name, values in parse_qs(parts.query).items()}
    return (unquote(parts.username or "") or query.get("username", ""),
            unquote(parts.password or "") or query.get("password", ""))


def scrubbed(text: str, url: str) -> str:
    """``text`` with the URL's user name and password blanked, should an error ever echo them."""
    for secret in credentials(url):
        if len(secret) >= 3:
            text = text.replace(secret, "***")
    return text
