"""The on-disk HTTP cache (requests-cache), kept within the size cap.

requests-cache reads and decodes a whole body before it stores it, which would defeat the size cap (a
compressed "bomb", a video behind a link). So it stores on its own only small, unencoded answers that are not
a 200 (redirects, 404s); a 200 is read by the fetcher under the cap and then stored here with ``remember``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import requests

# Answers requests-cache stores itself, with their bodies dropped unread: a redirect's Location and a dead
# link's status are what matter, and reading nothing means a trickling error page cannot stall a worker.
STORED_BODILESS = frozenset({300, 301, 308, 404, 410})


def admit(response: requests.Response) -> bool:
    """requests-cache's filter: which answers it may store itself. It is also asked about answers read back
    from the cache (a "no" deletes them), so those always pass."""
    if getattr(response, "from_cache", False):
        return True
    if response.status_code not in STORED_BODILESS:
        return False
    response.raw.close()
    response._content = b""
    response._content_consumed = True  # type: ignore[attr-defined]
    response.headers.pop("Vary", None)
    response.headers["Content-Length"] = "0"
    response.headers.pop("Content-Encoding", None)
    return True


def fresh(session: requests.Session, url: str) -> Any | None:
    """The cached answer for a GET of ``url`` if the session has a cache and it holds a fresh one."""
    cache = getattr(session, "cache", None)
    if cache is None:
        return None
    try:
        cached = cache.get_response(cache.create_key(session.prepare_request(requests.Request("GET", url))))
    except Exception:  # an unreadable cache entry is a miss, not an error
        return None
    return cached if cached is not None and not cached.is_expired else None


def remember(session: requests.Session, response: requests.Response, body: bytes) -> None:
    """Store a 200 whose body was read (within the cap) by the caller; nothing when there is no cache."""
    cache = getattr(session, "cache", None)
    settings = getattr(session, "settings", None)
    if cache is None or settings is None or getattr(response, "from_cache", False) or response.status_code != 200:
        return
    from requests_cache.policy.expiration import get_expiration_datetime

    response._content = body
    response._content_consumed = True  # type: ignore[attr-defined]
    response.headers.pop("Content-Encoding", None)  # the stored body is the decoded one
    response.headers.pop("Vary", None)  # refbot sends no cookies or varying headers; a Vary would force resends
    response.headers["Content-Length"] = str(len(body))
    cache.save_response(response, expires=get_expiration_datetime(settings.expire_after))


def created(response: requests.Response) -> str:
    """When a cached answer was first fetched (ISO UTC); "" for a fresh one."""
    when = getattr(response, "created_at", None) if getattr(response, "from_cache", False) else None
    if not isinstance(when, datetime):
        return ""
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
