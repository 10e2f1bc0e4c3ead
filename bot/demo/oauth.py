"""The demo world's stand-in for Wikimedia's OAuth 2.0 provider (MediaWiki's Extension:OAuth, whose REST endpoints
meta.wikimedia.org serves for every Wikimedia wiki), so that `refbot serve-review`'s sign-in, and the edits it makes
through a curator's grant, run against something that answers as the real one does, on loopback:

- ``GET /w/rest.php/oauth2/authorize``: the page where a user signs in and allows the consumer (here a form with the
  account's name and password); ``POST`` to it redirects to the consumer's registered callback with ``code`` and
  ``state``, or with ``error=access_denied`` when the user declines;
- ``POST /w/rest.php/oauth2/access_token``: an authorization code (with its PKCE verifier, S256) or a refresh token
  for an access token; the consumer authenticates with its secret (HTTP Basic or the form's fields);
- ``GET /w/rest.php/oauth2/resource/profile``: the token's user (``username``, ``groups``, ``blocked``, ``grants``).

The Action API takes ``Authorization: Bearer TOKEN`` as the token's user (:meth:`OAuthProvider.user_of`). Codes are
single-use and expire after ten minutes, access tokens after ``lifetime`` seconds (four hours, as Wikimedia's).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

PREFIX = "/w/rest.php/oauth2/"
CODE_SECONDS = 600
GRANTS = ("basic", "editpage")


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Consumer:
    client_id: str
    secret: str
    callback: str
    name: str = "refbot"  # the application's name, as Special:OAuthConsumerRegistration records it


@dataclass(frozen=True)
class _Code:
    user: str
    client_id: str
    redirect_uri: str
    challenge: str
    expires: float


@dataclass(frozen=True)
class _Token:
    user: str
    client_id: str
    expires: float


def s256(verifier: str) -> str:
    """PKCE's S256 code challenge of a verifier (RFC 7636)."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _json(status: int, body: Mapping[str, Any], headers: tuple[tuple[str, str], ...] = ()) -> Answer:
    return Answer(status, json.dumps(body).encode(), "application/json", (("Cache-Control", "no-store"), *headers))


def _error(status: int, error: str, description: str) -> Answer:
    return _json(status, {"error": error, "error_description": description, "message": description})


class OAuthProvider:
    """The provider's state: consumers, pending codes, tokens. ``accounts``: user name → an object with
    ``password`` (the wiki password signing in takes), ``groups``, ``blocked`` and ``autoconfirmed`` (the demo's
    :class:`bot.demo.wikibase.Account`); ``clock`` gives seconds."""

    def __init__(self, accounts: Mapping[str, Any], *, lifetime: float = 4 * 3600,
                 clock: Callable[[], float] = time.time) -> None:
        self.accounts = accounts
        self.lifetime = lifetime
        self.clock = clock
        self.consumers: dict[str, Consumer] = {}
        self._codes: dict[str, _Code] = {}
        self._tokens: dict[str, _Token] = {}
        self._refresh: dict[str, _Token] = {}
        self._lock = threading.Lock()

    def register(self, callback: str, name: str = "refbot review service") -> Consumer:
        """A new consumer named ``name`` whose only callback is ``callback`` (as Special:OAuthConsumerRegistration
        makes one)."""
        consumer = Consumer(secrets.token_hex(16), secrets.token_hex(20), callback, name)
        self.consumers[consumer.client_id] = consumer
        return consumer

    def expire_tokens(self) -> None:
        """Every access token stops working now (refresh tokens still do), as when four hours have passed."""
        with self._lock:
            self._tokens.clear()

    def user_of(self, authorization: str) -> str | None:
        """The user an ``Authorization: Bearer`` header acts as; None when the token is unknown or expired."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        with self._lock:
            known = self._tokens.get(token.strip())
        if known is None or known.expires <= self.clock() or known.user not in self.accounts:
            return None
        return known.user

    def answer(self, method: str, path: str, params: Mapping[str, str], authorization: str = "") -> Answer:
        endpoint = path[len(PREFIX):] if path.startswith(PREFIX) else ""
        if endpoint == "authorize":
            return self._authorize(method, params)
        if endpoint == "access_token":
            if method != "POST":
                return _error(405, "invalid_request", "The token endpoint takes POST requests.")
            return self._access_token(params, authorization)
        if endpoint == "resource/profile":
            user = self.user_of(authorization)
            if user is None:
                return _error(401, "invalid_token", "The access token is missing, unknown or expired.")
            return _json(200, self._profile(user))
        return _error(404, "not_found", "No such OAuth 2.0 endpoint.")

    # -- authorization --------------------------------------------------------------------------------------
    def _authorize(self, method: str, params: Mapping[str, str]) -> Answer:
        consumer = self.consumers.get(params.get("client_id", ""))
        if consumer is None:
            return _page(400, "Unknown application", "<p>No OAuth consumer has this client id.</p>")
        if params.get("redirect_uri", consumer.callback) != consumer.callback:
            return _page(400, "Wrong callback", "<p>The redirect URI is not the consumer's registered callback.</p>")
        if params.get("response_type") != "code":
            return _page(400, "Unsupported request", "<p>Only the authorization code flow is supported.</p>")
        challenge, method_name = params.get("code_challenge", ""), params.get("code_challenge_method", "")
        if challenge and method_name != "S256":
            return _page(400, "Unsupported request", "<p>The code challenge method must be S256.</p>")
        state = params.get("state", "")
        if method == "POST" and params.get("decision") == "deny":
            return _redirect(consumer.callback, {"error": "access_denied", "state": state})
        if method == "POST":
            user = params.get("username", "").strip().replace("_", " ")
            user = user[:1].upper() + user[1:]
            account = self.accounts.get(user)
            password = getattr(account, "password", "") if account is not None else ""
            if not password or not secrets.compare_digest(params.get("password", "").encode(), password.encode()):
                return self._form(consumer, params, "Incorrect username or password entered. Please try again.")
            code = secrets.token_urlsafe(24)
            with self._lock:
                self._codes[code] = _Code(user, consumer.client_id, consumer.callback, challenge,
                                          self.clock() + CODE_SECONDS)
            return _redirect(consumer.callback, {"code": code, "state": state})
        return self._form(consumer, params, "")

    def _form(self, consumer: Consumer, params: Mapping[str, str], error: str) -> Answer:
        kept = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(params.get(name, ""))}">'
                       for name in ("client_id", "redirect_uri", "response_type", "state", "code_challenge",
                                    "code_challenge_method"))
        shown = f'<p class="error" id="error">{html.escape(error)}</p>' if error else ""
        body = (f"{shown}<p>The application <b>{html.escape(consumer.name)}</b> would like to: "
                f"{', '.join(GRANTS)} (edit existing pages, including items, as you).</p>"
                f'<form method="post">{kept}'
                '<label>Username <input name="username" id="wpName1" autocomplete="username"></label> '
                '<label>Password <input name="password" id="wpPassword1" type="password"></label> '
                '<button name="decision" value="allow" id="allow">Allow</button> '
                '<button name="decision" value="deny" id="deny">Cancel</button></form>')
        return _page(200 if not error else 401, "Sign in to allow the application (refbot demo world)", body)

    def _access_token(self, params: Mapping[str, str], authorization: str) -> Answer:
        client_id, secret = params.get("client_id", ""), params.get("client_secret", "")
        scheme, _, encoded = authorization.partition(" ")
        if scheme.lower() == "basic":
            try:
                client_id, _, secret = base64.b64decode(encoded).decode().partition(":")
            except ValueError:
                return _error(401, "invalid_client", "Unreadable client credentials.")
        consumer = self.consumers.get(client_id)
        if consumer is None or not secrets.compare_digest(secret.encode(), consumer.secret.encode()):
            return _error(401, "invalid_client", "Client authentication failed.")
        grant = params.get("grant_type", "")
        with self._lock:
            if grant == "authorization_code":
                code = self._codes.pop(params.get("code", ""), None)
                if code is None or code.client_id != client_id or code.expires <= self.clock():
                    return _error(400, "invalid_grant", "The authorization code is unknown, used or expired.")
                if params.get("redirect_uri", code.redirect_uri) != code.redirect_uri:
                    return _error(400, "invalid_grant", "The redirect URI differs from the authorization's.")
                if code.challenge and not secrets.compare_digest(s256(params.get("code_verifier", "")),
                                                                 code.challenge):
                    return _error(400, "invalid_grant", "The code verifier does not match the code challenge.")
                user = code.user
            elif grant == "refresh_token":
                refreshed = self._refresh.pop(params.get("refresh_token", ""), None)
                if refreshed is None or refreshed.client_id != client_id:
                    return _error(400, "invalid_grant", "The refresh token is unknown or used.")
                user = refreshed.user
            else:
                return _error(400, "unsupported_grant_type", f"Unsupported grant type {grant!r}.")
            access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            self._tokens[access] = _Token(user, client_id, self.clock() + self.lifetime)
            self._refresh[refresh] = _Token(user, client_id, 0.0)
        return _json(200, {"token_type": "Bearer", "expires_in": int(self.lifetime), "access_token": access,
                           "refresh_token": refresh})

    def _profile(self, user: str) -> dict[str, Any]:
        account = self.accounts[user]
        groups = ["*", "user", *(["autoconfirmed"] if getattr(account, "autoconfirmed", True) else []),
                  *getattr(account, "groups", ())]
        return {"sub": str(sorted(self.accounts).index(user) + 1), "username": user, "editcount": 1200,
                "confirmed_email": True, "blocked": bool(getattr(account, "blocked", False)),
                "registered": "20150101000000", "groups": groups, "rights": ["read", "edit"], "grants": list(GRANTS)}


def _page(status: int, title: str, body: str) -> Answer:
    text = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"</head><body><h1>{html.escape(title)}</h1>{body}</body></html>")
    return Answer(status, text.encode(), "text/html; charset=utf-8", (("Cache-Control", "no-store"),))


def _redirect(callback: str, query: Mapping[str, str]) -> Answer:
    joiner = "&" if "?" in callback else "?"
    return Answer(302, b"", "text/plain", (("Location", callback + joiner + urlencode(query)),))
