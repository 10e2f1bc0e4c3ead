"""The review service's sessions: a signed-in curator's kept on the server, in the run ledger every process of the
service shares; a sign-in still under way kept by the browser alone, until the wiki has answered.

The cookie of a signed-in session holds only a random id (256 bits); the session's data — the account, its OAuth
tokens, the form token, the EditGroups batch — is a row of ``service_sessions`` under the id's SHA-256, encrypted and
authenticated (Fernet, from the ``cryptography`` package) with a key drawn from ``[service] secret_key``: neither the
cookie nor the database alone gives a session or a token away, and a row changed in the database is no session.

A sign-in begun by someone not signed in (``/login``: the OAuth state, the PKCE verifier, the address to return to)
costs the server nothing: it travels in a second cookie (``…_signin``), encrypted and authenticated with another key
drawn from the same secret, that ends after :data:`SIGNING_IN_S` (Fernet's own time stamp, so neither the browser's
clock nor a cookie kept past its age makes it last longer). The row is made only at the provider's callback, for an
account the wiki has named; so no stream of anonymous requests can fill the sessions table or lock anyone out. A
signed-in curator who signs in again keeps the sign-in's state in their own row.

A session ends:

- when its curator signs out (the row is deleted: a copy of the cookie made before is refused afterwards);
- after :data:`IDLE_S` without a request, and :data:`LIFETIME_S` after it began, however busy;
- at sign-in, which begins a new one under a new id (no fixation).

A visitor who only reads makes no row and gets no cookie; ended rows (by one indexed column, ``expires``) are deleted
as new sessions begin. A session's data is capped (:data:`MAX_BYTES`, and :data:`MAX_SIGNIN_BYTES` for a sign-in's
cookie); each new sign-in drops the state of the one before it (``bot.review.service``).

Flask-Session was weighed: its database backend needs Flask-SQLAlchemy and makes its own table outside the ledger's
migrations, and its lifetime is renewed at each request (an idle lifetime only); these rows are the ledger's own, on
SQLite, PostgreSQL or MariaDB alike.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from flask import Flask, Request, Response
from flask.sessions import SessionInterface, SessionMixin
from sqlalchemy import delete, func, select, update
from werkzeug.datastructures import CallbackDict
from werkzeug.http import parse_cookie

from bot.errors import InternalError
from bot.ledger.tables import service_sessions
from bot.ledger.ledger import RunLedger

IDLE_S = 2 * 3600.0  # a signed-in session unused this long has ended
SIGNING_IN_S = 15 * 60.0  # a sign-in not completed in this long has ended (its cookie, or its state in a row)
LIFETIME_S = 8 * 3600.0  # no session lasts longer than this from its beginning
SEEN_EVERY_S = 60.0  # how often a session's last use is written (not at every request)
MAX_BYTES = 16 * 1024  # the most a session's data may take
MAX_SIGNIN_BYTES = 2048  # the most a sign-in's state may take, before encryption (a browser keeps 4 KB a cookie)
# The most signed-in sessions kept at once (a few MB at most); beyond it no new sign-in completes until some end.
# Only an account the wiki has named makes a row, so this guards against a bug or a crowd of real accounts, not
# against anonymous traffic (which makes none).
MAX_SESSIONS = 20_000
SIGNIN_SUFFIX = "_signin"  # the sign-in cookie's name: the session cookie's name and this
_ID_BYTES = 32


class ServerSession(CallbackDict, SessionMixin):
    """A session's data, with the id it is kept under ("": not kept yet) and when it began and was last used."""

    def __init__(self, data: dict[str, Any] | None = None, sid: str = "", created: float = 0.0,
                 seen: float = 0.0, *, stale: bool = False, pending: bool = False) -> None:
        def changed(_: Any) -> None:
            self.modified = True

        super().__init__(data or {}, changed)
        self.sid, self.created, self.seen = sid, created, seen
        self.stale = stale  # the browser sent a cookie for no session (ended, expired, made up): it is deleted
        self.pending = pending  # the browser sent a sign-in's cookie: it is replaced, or deleted once signed in
        self.modified = False
        self.renewed = False

    def renew(self) -> None:
        """Begin a new session in its place at the end of this request: a new id, the data cleared (at sign-in)."""
        self.clear()
        self.renewed = True


def renew(session: Any) -> None:
    """At sign-in: the request's session ends, and a new one under a new id holds what is put in it from here."""
    if not isinstance(session, ServerSession):
        raise TypeError("the review service's sessions are kept on the server (LedgerSessions)")
    session.renew()


def _derived(label: bytes, secret: str) -> bytes:
    """A Fernet key drawn from the service's secret, one per use (``label``)."""
    return base64.urlsafe_b64encode(hashlib.sha256(label + secret.encode()).digest())


def _key(sid: str) -> str:
    return hashlib.sha256(sid.encode("ascii", "replace")).hexdigest()


class LedgerSessions(SessionInterface):
    """Flask's session interface over the ledger's ``service_sessions``, the rows encrypted with a key drawn from
    ``secret``; ``clock``: seconds since the epoch."""

    def __init__(self, ledger: RunLedger, secret: str, *, clock: Callable[[], float] = time.time) -> None:
        self.ledger, self.clock = ledger, clock
        # The keys of the sessions this process saw signed in lately (bot.review.lanes: their requests go first).
        self._signed_in: OrderedDict[str, None] = OrderedDict()
        self._signed_in_lock = threading.Lock()
        self.cookie_name = "session"  # (Flask's; the service's own is set when the app is made)
        self.fernet = Fernet(_derived(b"refbot sessions ", secret))
        self.signing_in = Fernet(_derived(b"refbot sign-ins ", secret))  # another key: a row is never a cookie

    def open_session(self, app: Flask, request: Request) -> ServerSession:
        sid = request.cookies.get(self.get_cookie_name(app), "")
        kept = self._kept(sid) if sid else None
        if kept is not None:
            return kept
        pending = self._signing_in(request.cookies.get(self.get_cookie_name(app) + SIGNIN_SUFFIX, ""))
        return ServerSession(pending, stale=bool(sid), pending=pending is not None)

    def _kept(self, sid: str) -> ServerSession | None:
        """The signed-in session kept under ``sid``; None when there is none (ended, expired, made up)."""
        if len(sid) > 64:
            return None
        with self.ledger.transaction() as connection:
            row = connection.execute(select(service_sessions).where(service_sessions.c.id == _key(sid))).first()
        if row is None:
            return None
        try:
            data = json.loads(self.fernet.decrypt(row.data.encode("ascii")))
        except (InvalidToken, ValueError):  # another secret key, or a row changed in the database: no session
            data = None
        now = self.clock()
        if not isinstance(data, dict) or not _alive(data, row.created, row.seen, now):
            self._delete(sid)
            return None
        if data.get("user"):
            self._seen_signed_in(sid)
        return ServerSession(data, sid, row.created, row.seen)

    def is_curator(self, headers: Mapping[str, str]) -> bool:
        """Whether a request's headers (waitress's: ``COOKIE``) carry the cookie of a session this process saw signed
        in lately (bot.review.lanes); a made-up, ended or foreign cookie is not one. Reads no database."""
        cookie = headers.get("COOKIE", "")
        if self.cookie_name + "=" not in cookie or len(cookie) > 8192:
            return False
        sid = parse_cookie(cookie).get(self.cookie_name, "")
        return bool(sid) and len(sid) <= 64 and _key(sid) in self._signed_in

    def _seen_signed_in(self, sid: str) -> None:
        with self._signed_in_lock:
            self._signed_in[_key(sid)] = None
            self._signed_in.move_to_end(_key(sid))
            while len(self._signed_in) > MAX_SESSIONS:
                self._signed_in.popitem(last=False)

    def _signing_in(self, cookie: str) -> dict[str, Any] | None:
        """A sign-in's state from its cookie, if this service made it less than SIGNING_IN_S ago; else None."""
        if not cookie or len(cookie) > 4 * MAX_SIGNIN_BYTES:
            return None
        try:
            data = json.loads(self.signing_in.decrypt_at_time(cookie.encode("ascii", "replace"), int(SIGNING_IN_S),
                                                              int(self.clock())))
        except (InvalidToken, ValueError):  # another key, changed, or older than a sign-in may take
            return None
        return data if isinstance(data, dict) and data and "user" not in data else None

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        assert isinstance(session, ServerSession)
        name, now = self.get_cookie_name(app), self.clock()
        if session.renewed and session.sid:
            self._delete(session.sid)
            session.sid = ""
        if session.pending and (not session or session.sid or "user" in session):  # signed in, or given up
            self._forget(app, response, name + SIGNIN_SUFFIX)
        if not session:  # empty: signed out, or never more than a reader
            if session.sid:
                self._delete(session.sid)
            if session.sid or session.renewed or session.stale:
                self._forget(app, response, name)
            return
        plain = json.dumps(dict(session), separators=(",", ":"))
        if not session.sid and "user" not in session:  # a sign-in under way, not signed in: no row, a cookie
            self._keep_signing_in(app, response, name, session, plain, now)
            return
        if len(plain) > MAX_BYTES:  # refbot's own data is a few hundred bytes: never let one session grow
            raise InternalError(f"a review session grew to {len(plain)} bytes, more than {MAX_BYTES}",
                                component="review service")
        data = self.fernet.encrypt(plain.encode()).decode("ascii")
        if not session.sid:
            session.sid, session.created = secrets.token_urlsafe(_ID_BYTES), now
            with self.ledger.transaction() as connection:
                connection.execute(delete(service_sessions).where(service_sessions.c.expires < now))
                connection.execute(service_sessions.insert().values(
                    id=_key(session.sid), data=data, created=now, seen=now, expires=_expiry(session, now)))
            if session.get("user"):
                self._seen_signed_in(session.sid)
        elif session.modified or now - session.seen >= SEEN_EVERY_S:
            changes: dict[str, Any] = {"seen": now, "expires": _expiry(session, now)}
            if session.modified:
                changes["data"] = data
            with self.ledger.transaction() as connection:
                connection.execute(update(service_sessions).where(service_sessions.c.id == _key(session.sid))
                                   .values(**changes))
        else:
            return  # nothing to write, and the cookie the browser holds is still this one
        response.set_cookie(name, session.sid, max_age=int(LIFETIME_S - (now - session.created)),
                            domain=self.get_cookie_domain(app), path=self.get_cookie_path(app),
                            secure=self.get_cookie_secure(app), httponly=True,
                            samesite=self.get_cookie_samesite(app))

    def _keep_signing_in(self, app: Flask, response: Response, name: str, session: ServerSession, plain: str,
                         now: float) -> None:
        if not session.modified and session.pending:
            return  # the cookie the browser holds is still this one
        if len(plain) > MAX_SIGNIN_BYTES:
            raise InternalError(f"a sign-in's state grew to {len(plain)} bytes, more than {MAX_SIGNIN_BYTES}",
                                component="review service")
        if session.stale:
            self._forget(app, response, name)
        sealed = self.signing_in.encrypt_at_time(plain.encode(), int(now)).decode("ascii")
        response.set_cookie(name + SIGNIN_SUFFIX, sealed, max_age=int(SIGNING_IN_S),
                            domain=self.get_cookie_domain(app), path=self.get_cookie_path(app),
                            secure=self.get_cookie_secure(app), httponly=True,
                            samesite=self.get_cookie_samesite(app))

    def _forget(self, app: Flask, response: Response, name: str) -> None:
        response.delete_cookie(name, domain=self.get_cookie_domain(app), path=self.get_cookie_path(app),
                               secure=self.get_cookie_secure(app), httponly=True,
                               samesite=self.get_cookie_samesite(app))

    def crowded(self) -> bool:
        """Whether MAX_SESSIONS sessions are alive now: no new one may begin."""
        with self.ledger.transaction() as connection:
            alive = connection.execute(select(func.count()).select_from(
                select(service_sessions.c.id).where(service_sessions.c.expires >= self.clock())
                .limit(MAX_SESSIONS).subquery())).scalar()
        return int(alive or 0) >= MAX_SESSIONS

    def _delete(self, sid: str) -> None:
        with self._signed_in_lock:
            self._signed_in.pop(_key(sid), None)
        with self.ledger.transaction() as connection:
            connection.execute(delete(service_sessions).where(service_sessions.c.id == _key(sid)))


def _expiry(session: ServerSession, now: float) -> float:
    """When the session ends unless it is used again: what the clean-up of ended rows compares, one indexed column."""
    return min(now + _idle(session), session.created + LIFETIME_S)


def _alive(data: dict[str, Any], created: float, seen: float, now: float) -> bool:
    return now - seen < _idle(data) and now - created < LIFETIME_S


def _idle(data: Any) -> float:
    """How long the session may go unused: a signed-in one's, or a sign-in's still under way."""
    return IDLE_S if data.get("user") else SIGNING_IN_S
