"""The on-disk HTTP cache (requests-cache on SQLite), kept within the size cap, behind the address guard, and
within its age and size.

requests-cache reads and decodes a whole body before it stores it, which would defeat the size cap (a
compressed "bomb", a video behind a link). So it stores on its own only small, unencoded answers that are not
a 200 (redirects, 404s); a 200 is read by the fetcher under the cap and then stored here with ``remember``.

A cached answer is given only where a connection would be allowed: the session asks the address guard before
its cache (a page fetched while an address was allowed is refused once it is not), and its entries are keyed
by the allow-list too, so sessions with different ``fetch_allow_addresses`` never answer from each other's
entries. A host whose name no longer resolves names no address to refuse; its cached pages are still answered.

Private: the file (and its journal) is readable by its owner only, in a folder refbot makes private when it makes
it; and no answer to a URL with a ``user:password@`` or a secret-looking parameter (``api_key=``, ``token=``, the
names ``bot.redaction`` hides) is stored, nor one that was redirected through or to such a URL.

Bounds: when a session opens, entries older than ``fetch_cache_days`` are deleted; whenever the file is over
``fetch_cache_max_mb`` (checked when a session opens and after each body stored), the entries that expire first
(the oldest: every entry is kept the same number of days) are deleted until the data fills at most 80 % of the
bound, and the file is compacted (SQLite's VACUUM).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import requests

from bot.errors import ConfigError
from bot.redaction import carries_secret

# Answers requests-cache stores itself, with their bodies dropped unread: a redirect's Location and a dead
# link's status are what matter, and reading nothing means a trickling error page cannot stall a worker.
STORED_BODILESS = frozenset({300, 301, 308, 404, 410})
# Statuses kept: the bodiless ones, and a 200 (203) stored by ``remember``.
STORED_STATUSES = (200, 203, *sorted(STORED_BODILESS))
# Deleting for size goes down to this share of the bound, so that the file is not compacted at every store.
SHRINK_TO = 0.8
MEGABYTE = 1024 * 1024


def open_session(path: Path, *, days: float, max_mb: float, ignored_parameters: Iterable[str] = ()
                 ) -> requests.Session:
    """A cached session on the SQLite file ``path``: entries kept ``days``, the file kept under ``max_mb``
    megabytes (MiB); what is older or over is deleted now. The caller mounts the address guard on it."""
    if not path.suffix:
        path = path.with_name(path.name + ".sqlite")  # the name requests-cache would give it
    _private_folder(path.parent)
    _private_file(path)
    session = _session_class()(
        str(path), backend="sqlite", expire_after=timedelta(days=days), allowable_codes=STORED_STATUSES,
        cache_control=False, stale_if_error=False, ignored_parameters=tuple(ignored_parameters), filter_fn=admit,
        max_bytes=int(max_mb * MEGABYTE))
    session.prune()
    return session


def _private_folder(folder: Path) -> None:
    """The folder, with each part refbot makes readable by its owner only (one that exists is left as it is)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for part in reversed(missing):
        part.mkdir(mode=0o700, exist_ok=True)


def _private_file(path: Path) -> None:
    """The cache file and its journals readable and writable by their owner only (SQLite gives a journal the
    file's mode), created so; one that cannot be opened is left for SQLite to report."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_CREAT, 0o600))
    except OSError:
        return
    for name in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))):
        try:
            os.chmod(name, 0o600)  # a cache from before refbot made it private
        except OSError:
            pass


@functools.cache
def _session_class() -> Any:
    """requests-cache's CachedSession with the guard asked first, keys per allow-list, and bounds (built on first
    use: requests-cache is imported only when a cache is used)."""
    import requests_cache
    from requests_cache.cache_keys import create_key

    from bot.documents.addresses import GuardedAdapter, RefusedAddress, allowance_key

    class GuardedCachedSession(requests_cache.CachedSession):
        def __init__(self, cache_name: str, *, max_bytes: int, **kwargs: Any) -> None:
            super().__init__(cache_name, key_fn=self._key, **kwargs)
            self.max_bytes = max_bytes
            self._shrinking = threading.Lock()

        def _guard_for(self, url: str) -> GuardedAdapter | None:
            try:
                adapter = self.get_adapter(url)
            except requests.exceptions.InvalidSchema:
                return None
            return adapter if isinstance(adapter, GuardedAdapter) else None

        def _key(self, request: Any, **kwargs: Any) -> str:
            adapter = self._guard_for(request.url or "")
            allowed = allowance_key(adapter.allowed) if adapter is not None else ""
            plain = create_key(request, **kwargs)
            return hashlib.sha256(f"{plain} allowed={allowed}".encode()).hexdigest()[:16]

        def send(self, request: requests.PreparedRequest, **kwargs: Any) -> Any:  # type: ignore[override]
            adapter = self._guard_for(request.url or "")
            if adapter is not None:
                try:
                    adapter.check(request.url or "")
                except RefusedAddress:
                    raise
                except requests.exceptions.ConnectionError:
                    pass  # the name does not resolve: the cache may answer; a miss fails when it connects
            return super().send(request, **kwargs)

        def prune(self) -> None:
            """Delete what is older than the session's days, then keep the file within its size."""
            keep = self.settings.expire_after
            with _unless_busy(self.cache.db_path):
                _delete_old(self.cache, keep if isinstance(keep, timedelta) else None)
            self.keep_within()

        def keep_within(self) -> None:
            """Delete the oldest entries while the file is over ``max_bytes``."""
            if _file_size(self.cache.db_path) <= self.max_bytes:
                return
            with self._shrinking, _unless_busy(self.cache.db_path):
                _shrink(self.cache, self.max_bytes)

    return GuardedCachedSession


@contextmanager
def _unless_busy(path: Any) -> Iterator[None]:
    """Skip a bound's upkeep while the file is busy (another refbot reading or writing it, a read in progress on
    this session's connection): the next session, or the next body stored, does it. Any other failure to
    compact the file is the operator's to fix."""
    try:
        yield
    except sqlite3.OperationalError as error:
        busy = getattr(error, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")
        if busy or "statements in progress" in str(error) or "locked" in str(error):
            return
        raise ConfigError(f"the HTTP cache {path} cannot be kept within its bounds: {error}",
                          hint="make the file writable, set [fetch] cache to another file, or cache_days = 0 "
                          "for no cache") from error


def _file_size(path: Any) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _delete_old(cache: Any, keep: timedelta | None) -> None:
    """Delete expired entries, and entries stored under a longer ``cache_days`` that are older than ``keep``."""
    now = time.time()
    responses, table = cache.responses, cache.responses.table_name
    with responses.connection(commit=True) as connection:
        connection.execute(f"DELETE FROM {table} WHERE expires IS NOT NULL AND expires <= ?", (now,))
        if keep is not None:
            # An entry stored under the current setting expires by now + keep; later ones were stored under a
            # longer one, and only their own creation time tells their age (rare: only those are read).
            later = connection.execute(f"SELECT key, value FROM {table} WHERE expires IS NULL OR expires > ?",
                                       (now + keep.total_seconds() + 2,)).fetchall()
            oldest = datetime.now(timezone.utc) - keep
            old = [key for key, value in later if _created_before(responses.deserialize(key, value), oldest)]
            connection.executemany(f"DELETE FROM {table} WHERE key = ?", [(key,) for key in old])
    _delete_dangling_redirects(cache)


def _created_before(cached: Any, when: datetime) -> bool:
    """True for an entry made before ``when``, or one this version of requests-cache cannot read (None)."""
    created = getattr(cached, "created_at", None)
    if not isinstance(created, datetime):
        return True
    return (created if created.tzinfo else created.replace(tzinfo=timezone.utc)) < when


def _shrink(cache: Any, max_bytes: int, attempts: int = 6) -> None:
    responses, table = cache.responses, cache.responses.table_name
    target = int(max_bytes * SHRINK_TO)
    for _ in range(attempts):  # bounded: requests-cache rolls back a write that fails, without a word
        with responses.connection(commit=True) as connection:
            rows = connection.execute(f"SELECT key, LENGTH(key) + LENGTH(value) FROM {table} "
                                      "ORDER BY expires IS NULL, expires, rowid").fetchall()
            excess = sum(size or 0 for _, size in rows) - target
            victims: list[str] = []
            for key, size in rows:
                if excess <= 0:
                    break
                victims.append(key)
                excess -= size or 0
            connection.executemany(f"DELETE FROM {table} WHERE key = ?", [(key,) for key in victims])
        _delete_dangling_redirects(cache)
        responses.vacuum()
        if _file_size(cache.db_path) <= max_bytes or not victims:
            return  # within the bound, or nothing left to delete (the file is SQLite's own minimum)
        target = int(target * SHRINK_TO)  # the file's overhead was more than the margin: aim lower


def _delete_dangling_redirects(cache: Any) -> None:
    redirects, table = cache.redirects, cache.redirects.table_name
    with redirects.connection(commit=True) as connection:
        connection.execute(f"DELETE FROM {table} WHERE value NOT IN (SELECT key FROM {cache.responses.table_name})")


def names_a_secret(response: requests.Response) -> bool:
    """Whether the answer's URL, its request's, a redirect's on the way or its Location holds a credential
    (:func:`bot.redaction.carries_secret`): such an answer is never stored."""
    answers = [response, *(getattr(response, "history", None) or [])]
    urls = [getattr(answer, "url", "") for answer in answers]
    urls += [getattr(getattr(answer, "request", None), "url", "") for answer in answers]
    urls.append(response.headers.get("Location", ""))
    return any(carries_secret(url) for url in urls if url)


def admit(response: requests.Response) -> bool:
    """requests-cache's filter: which answers it may store itself. It is also asked about answers read back
    from the cache (a "no" deletes them), so those pass unless they name a secret (stored by an older refbot)."""
    if getattr(response, "from_cache", False):
        return not names_a_secret(response)
    if response.status_code not in STORED_BODILESS or names_a_secret(response):
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
    if (cache is None or settings is None or getattr(response, "from_cache", False) or response.status_code != 200
            or names_a_secret(response)):
        return
    from requests_cache.policy.expiration import get_expiration_datetime

    response._content = body
    response._content_consumed = True  # type: ignore[attr-defined]
    response.headers.pop("Content-Encoding", None)  # the stored body is the decoded one
    response.headers.pop("Vary", None)  # refbot sends no cookies or varying headers; a Vary would force resends
    response.headers["Content-Length"] = str(len(body))
    cache.save_response(response, expires=get_expiration_datetime(settings.expire_after))
    keep_within = getattr(session, "keep_within", None)
    if keep_within is not None:
        keep_within()


def created(response: requests.Response) -> str:
    """When a cached answer was first fetched (ISO UTC); "" for a fresh one."""
    when = getattr(response, "created_at", None) if getattr(response, "from_cache", False) else None
    if not isinstance(when, datetime):
        return ""
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
