"""One rule for every URL refbot writes to a trace, a report, a summary, an error message or the console, and
private modes for the run files that may hold them.

``redact_url`` always drops ``user:password@``. The URL of a configured service (the judge, the SPARQL endpoint,
the search engine, the Wikidata, Wikipedia and Wayback APIs: a URL refbot was told to talk to) keeps its query's
names but every value becomes ``…``, since a service may take its key under any name (``?k=``). A document URL
(a page on the web, which is evidence and must stay usable) keeps its query, except the values of parameters whose
names look secret (``sig=``, ``token=``, ``code=``…).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

HIDDEN = "…"
# Query parameter names that may carry a credential, by the words they are made of (api_key, apiKey,
# X-Amz-Signature, access_token, sessionid): words of a name never hide author=, zipcode= or design=, which a page's
# address needs.
SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "auth", "authorization",
                          "sig", "signature", "session", "sessionid", "sid", "credential", "credentials", "jwt"})
SECRET_SUFFIXES = ("key", "token", "secret", "password")
SECRET_WHOLE_NAMES = frozenset({"code"})  # OAuth's (p=, s=, k= name WordPress posts and searches on pages)
# A URL inside free text (an error message, a fetch's reason): up to a space, a quote or an angle bracket.
_URL_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'`]+", re.I)
_WITHHELD = re.compile(r"[?&#](?:[^&#=]*=)?…(?=[&#]|\Z)")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_PLACEHOLDER = re.compile(r"\\\{[^/{}]*\\\}")  # a {host} or {title} of a URL template, once re.escape'd


def redact_url(url: str, *, services: Iterable[str] = (), service: bool = False) -> str:
    """``url`` as it may be written anywhere: no userinfo; every query value hidden when it is the URL of a
    configured service (``service``, or under one of ``services``, which may be templates with ``{host}``);
    otherwise only the values of parameters whose names look secret."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _without_userinfo_text(url)
    netloc = parts.netloc.rpartition("@")[2]
    hide_all = service or _under_any(parts, services)
    query = _redacted_pairs(parts.query, hide_all)
    fragment = _redacted_pairs(parts.fragment, hide_all) if "=" in parts.fragment else parts.fragment
    if not netloc and url[len(parts.scheme):].startswith("://"):  # sqlite:///x: urlunsplit would drop the "//"
        return f"{parts.scheme}://{urlunsplit(('', '', parts.path, query, fragment))}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def carries_secret(url: str) -> bool:
    """Whether ``url`` holds what :func:`redact_url` hides from a document's URL: a ``user:password@``, or a
    parameter whose name looks secret (with a value or without). A URL that does not parse counts as one."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return True
    if "@" in parts.netloc:
        return True
    pairs = parts.query.split("&") + (parts.fragment.split("&") if "=" in parts.fragment else [])
    return any(secret_name(unquote_plus(pair.partition("=")[0])) for pair in pairs if pair)


def secret_name(name: str) -> bool:
    """Whether a query parameter's name says its value is a credential."""
    if name.strip().lower() in SECRET_WHOLE_NAMES:
        return True
    words = [word.lower() for word in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]
    return any(word in SECRET_WORDS or word.endswith(SECRET_SUFFIXES) for word in words)


def redact_text(text: str, *, services: Iterable[str] = ()) -> str:
    """Free text with each URL in it redacted by :func:`redact_url`."""
    if "://" not in text:
        return text
    known = tuple(services)
    return _URL_IN_TEXT.sub(lambda match: _redact_match(match.group(0), known), text)


def withheld(url: str) -> bool:
    """Whether ``url`` had a value hidden by :func:`redact_url` (it no longer leads to the page)."""
    return bool(_WITHHELD.search(url))


def public_options(options: Any) -> dict[str, str]:
    """``options.public()`` (secrets left out) with each URL value redacted as a service's."""
    return {name: redact_url(value, service=True) if "://" in value else value
            for name, value in options.public().items()}


def _redact_match(found: str, services: tuple[str, ...]) -> str:
    # A sentence's full stop or a closing bracket is not part of the URL.
    stripped = found.rstrip(".,;:)]}")
    return redact_url(stripped, services=services) + found[len(stripped):]


def _without_userinfo_text(url: str) -> str:
    """A string that does not parse as a URL: at least no ``user:password@`` before its host."""
    return re.sub(r"(://)[^/?#@\s]*@", r"\1", url)


def _redacted_pairs(query: str, hide_all: bool) -> str:
    """The query text with values hidden, otherwise byte for byte as it was (nothing re-encoded)."""
    if not query:
        return query
    pieces = []
    for piece in query.split("&"):
        name, equals, value = piece.partition("=")
        secret = secret_name(unquote_plus(name))
        if not equals:  # a bare word: a service's key may be the whole query
            pieces.append(HIDDEN if (hide_all or secret) and piece else piece)
        else:
            pieces.append(f"{name}={HIDDEN}" if (hide_all or secret) and value else piece)
    return "&".join(pieces)


def _origin_and_path(scheme: str, host: str, port: int | None, path: str) -> str:
    scheme = scheme.lower()
    shown = f"{host.lower()}:{port}" if port is not None and port != _DEFAULT_PORTS.get(scheme) else host.lower()
    return f"{scheme}://{shown}{path}"


def _under_any(parts: Any, services: Iterable[str]) -> bool:
    if not parts.scheme or not parts.netloc:
        return False
    try:
        here = _origin_and_path(parts.scheme, parts.hostname or "", parts.port, parts.path)
    except ValueError:  # a port that is not a number
        return False
    return any(_service_pattern(service).match(here) for service in services if service)


_NEVER = re.compile(r"(?!)")


@lru_cache(maxsize=64)
def _service_pattern(service: str) -> re.Pattern[str]:
    """``https://{host}/w/rest.php/v1/page/{title}/html`` → a pattern for the URLs under it (each placeholder
    any one segment's text); a path prefix matches whole segments only."""
    scheme, separator, rest = service.split("?", 1)[0].split("#", 1)[0].partition("://")
    if not separator:
        return _NEVER
    authority, slash, path = rest.partition("/")
    authority = authority.rpartition("@")[2]
    if "{" in authority:
        origin = re.escape(scheme.lower()) + r"://[^/]+"
    else:
        try:
            parts = urlsplit(f"{scheme}://{authority}")
            origin = re.escape(_origin_and_path(scheme, parts.hostname or "", parts.port, ""))
        except ValueError:
            return _NEVER
    path_pattern = _PLACEHOLDER.sub(lambda _: "[^/]*", re.escape(("/" + path if slash else "").rstrip("/")))
    return re.compile(origin + path_pattern + r"(?:/.*)?\Z", re.S)


def open_private(path: Path, mode: str = "w") -> Any:
    """A file only its owner may read or write (mode 0600), created so: never readable by others, not even while
    it is written. ``mode``: "w" or "a" (text, UTF-8), "wb" or "ab" (bytes)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode.startswith("a") else os.O_TRUNC)
    handle = os.open(path, flags, 0o600)
    try:
        os.fchmod(handle, 0o600)  # a file that existed keeps its mode otherwise
        return os.fdopen(handle, mode) if "b" in mode else os.fdopen(handle, mode, encoding="utf-8")
    except BaseException:
        os.close(handle)
        raise


def write_private(path: Path, text: str) -> Path:
    """``text`` written to ``path`` (UTF-8) with mode 0600."""
    with open_private(path) as stream:
        stream.write(text)
    return path
