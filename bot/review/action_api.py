"""The wiki as the review service reaches it: the Action API through a curator's OAuth 2.0 grant, so that a
reference the curator approves is written as them (``bot.review.applying``'s :class:`Wiki`).

The HTTP client is given (Authlib's ``OAuth2Session`` holding the curator's token, which refreshes it when it
expires; any ``requests``-like session in tests). Every request carries ``maxlag`` (a lagged wiki's answer is waited
out for ``Retry-After`` seconds, ``retries`` times, then the edit ends as apply's does), every edit ``assert=user``
and the base revision apply read; refusals become :class:`WriteError` as pywikibot's do for `apply`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

from bot.errors import WriteError
from bot.review.applying import Edit, Sent, block_reason
from bot.review.curators import Curator
from bot.review.wikibase import _refused

TIMEOUT = 30.0


class ActionApiWiki:
    """The wiki at ``api_url`` (``https://www.wikidata.org/w/api.php``) as ``user``, through ``http``."""

    def __init__(self, api_url: str, http: Any, *, user: str, maxlag: int = 5, retries: int = 3,
                 retry_wait: float = 5.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.api_url = api_url
        self.http = http
        self.user = user
        self.maxlag = maxlag
        self.retries = retries
        self.retry_wait = retry_wait
        self.sleep = sleep
        self._token = ""

    @property
    def account(self) -> str:
        return f"{self.user} (through their OAuth grant)"

    # -- reading and writing -------------------------------------------------------------------------------
    def statement(self, item: str, guid: str) -> tuple[int, dict[str, Any] | None]:
        data = self._call("GET", {"action": "wbgetentities", "ids": item, "props": "info|claims"}, what=f"read {item}")
        entity = (data.get("entities") or {}).get(item) or {}
        if "missing" in entity or entity.get("id") != item:  # deleted, or merged into another item
            return 0, None
        for statements in (entity.get("claims") or {}).values():
            for statement in statements:
                if statement.get("id") == guid:
                    return int(entity.get("lastrevid") or 0), statement
        return int(entity.get("lastrevid") or 0), None

    def add_reference(self, edit: Edit) -> Sent:
        return Sent.of(self._edit(edit.parameters(), what=f"edit {edit.statement}"))

    def remove_references(self, statement: str, hashes: list[str], base_revision: int, summary: str) -> int:
        return Sent.of(self._edit({"action": "wbremovereferences", "statement": statement,
                                   "references": "|".join(hashes), "baserevid": str(base_revision),
                                   "summary": summary}, what=f"edit {statement}")).revision

    def _edit(self, params: Mapping[str, str], *, what: str) -> dict[str, Any]:
        """Send an edit with the session's token (fetched again once if it changed); the API's answer."""
        for attempt in (1, 2):
            if not self._token:
                tokens = self._call("GET", {"action": "query", "meta": "tokens", "type": "csrf"}, what="get a token")
                self._token = str(((tokens.get("query") or {}).get("tokens") or {}).get("csrftoken") or "")
            try:
                data = self._call("POST", {**params, "token": self._token, "assert": "user"}, what=what)
            except WriteError as error:
                if error.code == "badtoken" and attempt == 1:  # the session's token changed: fetch it again
                    self._token = ""
                    continue
                raise
            return data
        raise AssertionError("unreachable")

    def blocked(self, user: str) -> str:
        if not user or "|" in user:
            return ""
        data = self._call("GET", {"action": "query", "list": "users", "ususers": user, "usprop": "blockinfo"},
                          what=f"read whether {user} is blocked")
        answers = (data.get("query") or {}).get("users") or [{}]
        return block_reason(user, answers[0])

    def curator(self) -> Curator:
        """The account the grant is for, as the wiki says now: its name, groups and whether it is blocked."""
        data = self._call("GET", {"action": "query", "meta": "userinfo", "uiprop": "groups|blockinfo"},
                          what="read your account")
        info = (data.get("query") or {}).get("userinfo") or {}
        if info.get("anon") or not info.get("name"):
            raise WriteError("the wiki no longer knows the sign-in's account", code="login", fatal=True,
                             hint="sign in again")
        return Curator(str(info["name"]), tuple(str(group) for group in info.get("groups") or ()),
                       bool(block_reason(str(info["name"]), info)))

    # -- the API -------------------------------------------------------------------------------------------
    def _call(self, method: str, params: Mapping[str, str], *, what: str) -> dict[str, Any]:
        """One API request, lag waited out; its JSON. WriteError for an error answer or an unreachable wiki."""
        sent = {**params, "format": "json", "formatversion": "2", "maxlag": str(self.maxlag),
                "errorformat": "plaintext"}
        for attempt in range(self.retries + 1):
            try:
                if method == "POST":
                    response = self.http.post(self.api_url, data=sent, timeout=TIMEOUT)
                else:
                    response = self.http.get(self.api_url, params=sent, timeout=TIMEOUT)
                response.raise_for_status()
                data = response.json()
            except ValueError:
                raise WriteError(f"{self.api_url} answered what is not JSON when refbot tried to {what}",
                                 code="api", fatal=True, hint="try again later; the decision is kept") from None
            except OSError as error:  # requests' errors are OSErrors
                raise WriteError(f"cannot reach {self.api_url} to {what}: {error}", code="connection", fatal=True,
                                 hint="try again later; the decision is kept") from None
            except Exception as error:  # Authlib's token errors (a refresh the provider refused)
                raise WriteError(f"the wiki refused the sign-in's token when refbot tried to {what}: {error}",
                                 code="login", fatal=True, hint="sign in again; the decision is kept") from None
            error_info = _first_error(data)
            if error_info is None:
                return data
            code, info = error_info
            if code == "maxlag" and attempt < self.retries:
                wait = float(response.headers.get("Retry-After") or self.retry_wait)
                self.sleep(max(wait, self.retry_wait))
                continue
            if code == "maxlag":
                raise WriteError(f"{self.api_url} stayed lagged: {info}", code="maxlag", fatal=True,
                                 hint="try again later; the decision is kept")
            if code == "badtoken":
                raise WriteError(info, code=code)
            if method == "GET" and code not in ("mwoauth-invalid-authorization", "blocked", "readonly"):
                raise WriteError(f"cannot {what} at {self.api_url}: {code}: {info}", code="read")
            refused = _refused(SimpleNamespace(code=code, info=info, other=data.get("error") or {}),
                               _edit_named(params))
            if code == "mwoauth-invalid-authorization":
                refused.hint = "sign in again; the decision is kept"
            raise refused
        raise AssertionError("unreachable")


def _first_error(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """(code, text) of an error answer, in the plaintext or the legacy error format; None for a success."""
    if "errors" in data and data["errors"]:
        first = data["errors"][0]
        return str(first.get("code", "")), str(first.get("text") or first.get("*") or "")
    if "error" in data:
        error = data["error"]
        return str(error.get("code", "")), str(error.get("info") or error.get("text") or "")
    return None


def _edit_named(params: Mapping[str, str]) -> Any:
    """What :func:`_refused` reads of an edit: its statement, item and base revision."""
    statement = params.get("statement", "")
    return SimpleNamespace(statement=statement, item=statement.split("$", 1)[0],
                           base_revision=params.get("baserevid", ""))
