"""The demo world's Wikidata API: a MediaWiki + Wikibase action API stand-in that pywikibot can log in to and write to.

``WikibaseApi`` answers ``/w/api.php`` of the demo world's "wikidata" site:

* ``action=query`` with ``meta=siteinfo|userinfo|tokens|wikibase`` and ``list=allusers|users``, ``action=paraminfo``
  (consistent enough for pywikibot's ParamInfo), ``action=login`` with a BotPassword (``User@name``) and
  ``action=logout``;
* ``action=wbgetentities`` (``ids``, ``props``, ``languages``, ``sitefilter``) and ``action=wbgetclaims``;
* ``action=wbsetreference``, checked as Wikibase does: the session's token, ``assert``, a block, the statement,
  the base revision (a conflict when the statement changed after it), the snaks against the properties' datatypes.

The items are built once from the world's SPARQL store (``bot.demo.items``: statements, ranks, qualifiers and
references as the Query Service's RDF writes them) merged with ``entities.json`` (revisions, sitelinks, statements
the store lacks), and kept in memory: a written reference shows in the next ``wbgetentities``; the read-only store
does not change. Tests queue faults with :meth:`WikibaseApi.inject` and change items with
:meth:`WikibaseApi.remove_statement`, :meth:`WikibaseApi.change_value` and :meth:`WikibaseApi.add_reference`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, quote

from bot.demo import history
from bot.demo.history import Revision
from bot.demo.items import ENTITY, JSON, START, VALUE_TYPES, entities_from_store, hashed, merge_entities

SESSION_COOKIE = "demowiki_session"
ANONYMOUS_TOKEN = "+\\"
HIDDEN = "(hidden)"
SECRET_PARAMETERS = ("lgpassword", "password", "retype", "client_secret", "code", "code_verifier", "refresh_token")
FAILED_LOGIN = "Incorrect username or password entered. Please try again."
SERVED_BY = "refbot-demo"


ACTIONS = ("login", "clientlogin", "logout", "query", "paraminfo", "wbgetentities", "wbgetclaims", "wbsetreference",
           "wbremovereferences")
POSTED = ("login", "clientlogin", "logout", "wbsetreference", "wbremovereferences")
TOKEN_CHECKED = ("wbsetreference", "wbremovereferences")
QUERY_MODULES = {"prop": ("info", "revisions"), "list": ("allusers", "users", "usercontribs", "recentchanges"),
                 "meta": ("siteinfo", "tokens", "userinfo", "wikibase")}
TOKEN_TYPES = ("createaccount", "csrf", "login", "patrol", "rollback", "userrights", "watch")
ANONYMOUS_RIGHTS = ("read", "edit", "createpage", "createaccount", "writeapi", "item-term", "property-term")
USER_RIGHTS = (*ANONYMOUS_RIGHTS, "autoconfirmed", "editsemiprotected", "skipcaptcha", "item-merge", "item-redirect")
BOT_RIGHTS = ("bot", "autopatrol", "apihighlimits", "noratelimit", "nominornewtalk", "suppressredirect")

# Injected errors: code -> (info, the error's further members, HTTP headers).
FAULTS: dict[str, tuple[str, JSON, dict[str, str]]] = {
    "maxlag": ("Waiting for 10.64.48.1: 1 seconds lagged.", {"host": "10.64.48.1", "lag": 1, "type": "db"},
               {"X-Database-Lag": "1"}),
    "blocked": ("You have been blocked from editing.", {}, {}),
    "editconflict": ("Edit conflict. Could not patch the current revision.",
                     {"messages": [{"name": "wikibase-error-edit-conflict", "parameters": [],
                                    "html": {"*": "Edit conflict. Could not patch the current revision."}}]}, {}),
    "failed-save": ("The save has failed.", {"messages": [
        {"name": "wikibase-api-failed-save", "parameters": [], "html": {"*": "The save has failed."}},
        {"name": "abusefilter-disallowed", "parameters": ["refbot demo filter", 42],
         "html": {"*": "This action has been automatically identified as harmful, and therefore disallowed."}}]}, {}),
    "abusefilter-disallowed": ("This action has been automatically identified as harmful, and therefore disallowed.",
                               {"abusefilter": {"id": 42, "description": "refbot demo filter",
                                                "actions": ["disallow"]}}, {}),
    "badtoken": ("Invalid CSRF token.", {}, {}),
    "ratelimited": ("As an anti-abuse measure, you are limited from performing this action too many times in a "
                    "short space of time, and you have exceeded this limit. Please try again in a few minutes.",
                    {}, {}),
    "readonly": ("The wiki is currently in read-only mode.", {"readonlyreason": "Maintenance of the demo world."}, {}),
    "assertuserfailed": ("You are no longer logged in, so the action could not be completed.", {}, {}),
}


@dataclass(frozen=True)
class Account:
    """A user who may log in: BotPassword name -> password, the user's groups, whether the user is blocked, the
    account's own password (signing in through the OAuth stand-in takes it; "" for none) and whether it is
    autoconfirmed."""

    bot_passwords: Mapping[str, str]
    groups: tuple[str, ...] = ("bot",)
    blocked: bool = False
    password: str = field(default="", repr=False)
    autoconfirmed: bool = True


@dataclass(frozen=True)
class ApiReply:
    """One answer: a JSON object (or an HTML page, for HTTP errors) and extra headers such as Set-Cookie."""

    status: int
    body: JSON | str
    headers: tuple[tuple[str, str], ...] = ()

    def content(self) -> tuple[bytes, str]:
        """The body's bytes and content type."""
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/html; charset=utf-8"
        return json.dumps(self.body).encode("utf-8"), "application/json; charset=utf-8"


class ApiError(Exception):
    """An error the API answers as ``{"error": {"code", "info", ...}}``."""

    def __init__(self, code: str, info: str, **extra: Any) -> None:
        super().__init__(f"{code}: {info}")
        self.code, self.info, self.extra = code, info, extra


def read_form(content_type: str, body: bytes) -> dict[str, str]:
    """The fields of a POST body, url-encoded or multipart/form-data. ValueError for any other body."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind in ("", "application/x-www-form-urlencoded"):
        return {name: values[-1] for name, values in parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
    if kind != "multipart/form-data":
        raise ValueError(f"cannot read a {kind} body")
    message = BytesParser(policy=policy.HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not message.is_multipart():
        raise ValueError("a multipart body without parts")
    fields = {}
    for part in message.walk():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = payload.decode("utf-8", "replace")
    return fields


def _limit(given: str | None, default: int = 10) -> int:
    """A list's ``limit`` parameter as MediaWiki reads it: a number up to 500, ``max`` for 500."""
    if given == "max":
        return 500
    return max(1, min(int(given), 500)) if given and given.isdigit() else default


def read_cookies(header: str) -> dict[str, str]:
    """The cookies of a Cookie header (none if it is malformed)."""
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


# -- what pywikibot asks before it reads or writes ----------------------------------------------------------------
def paraminfo_module(path: str) -> JSON | None:
    """A module's paraminfo, as much as pywikibot reads: submodules, token types, limits, ``mustbeposted``."""
    if path == "main":
        return {"name": "main", "classname": "ApiMain", "path": "main", "prefix": "", "parameters": [
            {"name": "action", "type": list(ACTIONS), "submodules": {a: a for a in ACTIONS}},
            {"name": "format", "type": ["json"], "submodules": {"json": "json"}},
            {"name": "maxlag", "type": "integer"}, {"name": "assert", "type": ["anon", "bot", "user"]}]}
    if path == "query":
        parameters: list[JSON] = [{"name": name, "type": list(modules), "multi": "", "limit": 50,
                                   "submodules": {m: f"query+{m}" for m in modules}}
                                  for name, modules in QUERY_MODULES.items()]
        parameters.append({"name": "generator", "type": [], "submodules": {}})
        return {"name": "query", "classname": "ApiQuery", "path": "query", "prefix": "", "parameters": parameters}
    if path == "query+tokens":
        return {"name": "tokens", "path": path, "group": "meta", "prefix": "",
                "parameters": [{"name": "type", "type": list(TOKEN_TYPES), "multi": ""}]}
    if path == "query+info":
        return {"name": "info", "path": path, "group": "prop", "prefix": "in",
                "parameters": [{"name": "prop", "type": ["protection", "url"], "multi": "", "limit": 50,
                                "highlimit": 500}]}
    if path == "query+users":
        return {"name": "users", "path": path, "group": "list", "prefix": "us", "parameters": [
            {"name": "prop", "type": ["blockinfo", "groups", "rights", "editcount", "registration", "emailable",
                                      "gender"], "multi": "", "limit": 50, "highlimit": 500},
            {"name": "users", "type": "user", "multi": "", "limit": 50, "highlimit": 500}]}
    if path.startswith("query+"):
        name = path.removeprefix("query+")
        group = next((g for g, modules in QUERY_MODULES.items() if name in modules), None)
        return None if group is None else {"name": name, "path": path, "group": group, "prefix": "",
                                           "parameters": []}
    if path in ACTIONS:
        module: JSON = {"name": path, "path": path, "prefix": "", "parameters": []}
        if path in POSTED:
            module["mustbeposted"] = ""
        return module
    return None


NAMESPACES = {-2: "Media", -1: "Special", 0: "", 1: "Talk", 2: "User", 3: "User talk", 4: "Wikidata",
              6: "File", 8: "MediaWiki", 10: "Template", 12: "Help", 14: "Category", 120: "Property"}


def siteinfo(props: Iterable[str], server: str, site_id: str) -> JSON:
    """``meta=siteinfo`` in formatversion 2: what pywikibot post-processes must have its shape."""
    answer: JSON = {}
    for prop in props:
        if prop == "general":
            answer[prop] = {
                "mainpage": "Main Page", "base": f"{server}/wiki/Main_Page", "sitename": "refbot demo Wikidata",
                "generator": "MediaWiki 1.45.0-wmf.1", "phpversion": "8.3.0", "case": "first-letter",
                "lang": "en", "fallback": [], "rtl": False, "fallback8bitEncoding": "windows-1252",
                "writeapi": True, "timezone": "UTC", "timeoffset": 0, "articlepath": "/wiki/$1",
                "scriptpath": "/w", "script": "/w/index.php", "server": server,
                "servername": server.split("//", 1)[-1].split(":")[0], "wikiid": site_id,
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "maxarticlesize": 4194304,
                "legaltitlechars": " %!\"$&'()*,\\-.\\/0-9:;=?@A-Z\\\\^_`a-z~\\x80-\\xFF+",
                "wikibase-conceptbaseuri": ENTITY, "thumblimits": {"0": 120, "1": 150, "2": 180},
                "imagelimits": {"0": {"width": 320, "height": 240}},
                "magiclinks": {"ISBN": False, "PMID": False, "RFC": False}}
        elif prop == "namespaces":
            answer[prop] = {str(number): {
                "id": number, "case": "first-letter", "name": name, "subpages": number > 0 and number % 2 == 1,
                **({"canonical": name} if number else {}),
                **({"content": True, "defaultcontentmodel": "wikibase-item"} if number == 0 else {}),
                **({"content": True, "defaultcontentmodel": "wikibase-property"} if number == 120 else {})}
                for number, name in NAMESPACES.items()}
        elif prop == "extensions":
            answer[prop] = [{"type": "wikibase", "name": "WikibaseRepository"},
                            {"type": "wikibase", "name": "WikibaseClient"}]
        elif prop == "restrictions":
            answer[prop] = {"types": ["edit", "move"], "levels": ["", "autoconfirmed", "sysop"],
                            "cascadinglevels": ["sysop"], "semiprotectedlevels": ["autoconfirmed"]}
        else:
            answer[prop] = []
    return answer


# -- the API ------------------------------------------------------------------------------------------------------
@dataclass
class Session:
    """A session cookie's state: its user (None: anonymous) and tokens by type."""

    user: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)


@dataclass
class Call:
    """One request being answered: its method, parameters, session, and the headers the answer adds."""

    method: str
    params: Mapping[str, str]
    session_id: str
    session: Session | None
    headers: list[tuple[str, str]] = field(default_factory=list)

    @property
    def user(self) -> str | None:
        return self.session.user if self.session is not None else None


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(char for char in decomposed if not unicodedata.combining(char)).split())


def new_token() -> str:
    """A fresh token, in MediaWiki's form (hex digits and ``+\\``)."""
    return secrets.token_hex(20) + ANONYMOUS_TOKEN


class WikibaseApi:
    """The write API's state (items, sessions, revisions, queued faults); :meth:`answer` answers one request.

    ``entities``: Wikibase JSON by id (see :func:`entities_from_store` and :func:`merge_entities`); ``accounts``:
    the users who may log in; ``server``: the API's own ``http://host:port``; ``wikipedia``: where sitelinks'
    ``url`` point (empty: the data's own). Thread-safe: the demo world's server answers requests in threads.
    """

    def __init__(self, entities: Mapping[str, JSON], *, accounts: Mapping[str, Account], server: str,
                 wikipedia: str = "", site_id: str = "wikidatawiki") -> None:
        self.accounts = dict(accounts)
        self.server = server.rstrip("/")
        self.wikipedia = wikipedia.rstrip("/")
        self.site_id = site_id
        self.revisions: list[Revision] = []
        self.faults_served: Counter[str] = Counter()  # injected faults answered, by error code or HTTP status
        self._entities = {entity_id: copy.deepcopy(dict(entity)) for entity_id, entity in entities.items()}
        self._lock = threading.RLock()
        self._sessions: dict[str, Session] = {}
        self._faults: dict[str, deque[ApiReply]] = {}
        self._delays: dict[str, deque[float]] = {}
        self._next_revid = max((int(e.get("lastrevid") or 0) for e in self._entities.values()), default=0) + 1
        # A statement's last change: a write based on an older revision conflicts.
        self._changed = {statement["id"]: int(entity.get("lastrevid") or 0)
                         for entity in self._entities.values()
                         for statements in entity.get("claims", {}).values() for statement in statements}
        # Each statement as its last revision left it: what the next revision's difference starts from.
        self._last: dict[str, JSON] = {statement["id"]: copy.deepcopy(statement)
                                       for entity in self._entities.values()
                                       for statements in entity.get("claims", {}).values() for statement in statements}

    @classmethod
    def from_store(cls, sparql_url: str, entities: Mapping[str, JSON], **options: Any) -> WikibaseApi:
        """The API over the items of the SPARQL store at ``sparql_url``, completed by ``entities``."""
        return cls(merge_entities(entities_from_store(sparql_url), entities), **options)

    # -- for tests: faults, items, sessions -------------------------------------------------------------------
    def inject(self, action: str, error: str | None = None, *, status: int = 200, retry_after: int | None = None,
               info: str | None = None, times: int = 1) -> None:
        """Answer the next ``times`` requests of ``action`` with a fault instead of their answer.

        ``error``: an API error code (``maxlag``, ``blocked``, ``editconflict``, ``failed-save`` with the abuse
        filter's messages as Wikidata sends them, ``abusefilter-disallowed``, ``badtoken``, ``ratelimited``,
        ``readonly``, or any other code with ``info``); without one, an HTML page with HTTP ``status`` (429, 503).
        ``retry_after`` adds a Retry-After header (a maxlag error has one of 1 s unless told).
        """
        headers: dict[str, str] = {}
        body: JSON | str
        if error is not None:
            default_info, extra, headers = FAULTS.get(error, (f"Injected error {error}.", {}, {}))
            if error == "maxlag" and retry_after is None:
                retry_after = 1
            if error == "blocked":
                extra = {"blockinfo": self._blockinfo()}
            body = self._error(error, info or default_info, **extra)
            headers = {**headers, "MediaWiki-API-Error": error}
        else:
            body = f"<!doctype html><title>{status}</title><h1>HTTP {status}</h1><p>{info or 'Injected fault.'}</p>"
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        with self._lock:
            self._faults.setdefault(action, deque()).extend(
                ApiReply(status, copy.deepcopy(body), tuple(headers.items())) for _ in range(times))

    def delay_answer(self, action: str, seconds: float, *, times: int = 1) -> None:
        """Hold the answer to the next ``times`` requests of ``action`` for ``seconds`` after carrying them out: a
        write that landed while its client waits (and may be killed) for the answer."""
        with self._lock:
            self._delays.setdefault(action, deque()).extend([seconds] * times)

    def end_delays(self) -> None:
        """Answer at once again: forget the holds not yet applied (a held answer already waiting still waits)."""
        with self._lock:
            self._delays.clear()

    def clear_faults(self) -> None:
        """Forget the faults and delays not yet answered."""
        with self._lock:
            self._faults.clear()
            self._delays.clear()

    def end_sessions(self) -> None:
        """Forget every session (as after a server's session store is lost): clients must log in again."""
        with self._lock:
            self._sessions.clear()

    def exists(self, entity_id: str) -> bool:
        with self._lock:
            return entity_id in self._entities

    def entity(self, entity_id: str) -> JSON:
        """A copy of an entity's Wikibase JSON. KeyError if there is none."""
        with self._lock:
            return copy.deepcopy(self._entities[entity_id])

    def statement(self, guid: str) -> JSON:
        """A copy of a statement's Wikibase JSON. KeyError if there is none."""
        with self._lock:
            return copy.deepcopy(self._find(guid)[1])

    def remove_statement(self, guid: str) -> int:
        """Remove a statement (as someone editing the item would); the new revision id."""
        with self._lock:
            entity, statement = self._find(guid)
            group = entity["claims"][statement["mainsnak"]["property"]]
            group.remove(statement)
            if not group:
                del entity["claims"][statement["mainsnak"]["property"]]
            return self._save(entity, guid, "(demo)", "wbremoveclaims")

    def change_value(self, guid: str, value: Any) -> int:
        """Give a statement another value (of its datavalue's type: an item's JSON, a time's, a string); the new
        revision id."""
        with self._lock:
            entity, statement = self._find(guid)
            mainsnak = statement["mainsnak"]
            kind = VALUE_TYPES.get(mainsnak.get("datatype", ""), "string")
            statement["mainsnak"] = hashed({"snaktype": "value", "property": mainsnak["property"],
                                            "datavalue": {"value": copy.deepcopy(value), "type": kind},
                                            "datatype": mainsnak.get("datatype", "string")})
            return self._save(entity, guid, "(demo)", "wbsetclaimvalue")

    def set_qualifier(self, guid: str, property_id: str, value: Any, value_type: str = "time") -> int:
        """Give a statement's qualifier ``property_id`` this one value (its datavalue's JSON), as someone editing
        the item would; the new revision id."""
        with self._lock:
            entity, statement = self._find(guid)
            snak = hashed({"snaktype": "value", "property": property_id,
                           "datavalue": {"value": copy.deepcopy(value), "type": value_type}, "datatype": value_type})
            statement.setdefault("qualifiers", {})[property_id] = [snak]
            order = statement.setdefault("qualifiers-order", [])
            if property_id not in order:
                order.append(property_id)
            return self._save(entity, guid, "(demo)", "wbsetqualifier")

    def add_reference(self, guid: str, url: str) -> JSON:
        """Add a reference with reference URL (P854) ``url`` to a statement; the reference's JSON."""
        with self._lock:
            entity, statement = self._find(guid)
            snaks = {"P854": [{"snaktype": "value", "property": "P854",
                               "datavalue": {"value": url, "type": "string"}}]}
            reference = self._reference(json.dumps(snaks), None)
            statement.setdefault("references", []).append(reference)
            self._save(entity, guid, "(demo)", "wbsetreference")
            return copy.deepcopy(reference)

    def replace_reference(self, guid: str, reference_hash: str, snaks: JSON) -> JSON:
        """Put ``snaks`` (JSON, by property) in place of a statement's reference, as another editor's
        ``wbsetreference`` with ``reference`` does: the reference gets its new content's hash. Its JSON."""
        with self._lock:
            entity, statement = self._find(guid)
            references = statement.get("references") or []
            position = next(n for n, reference in enumerate(references) if reference["hash"] == reference_hash)
            references[position] = reference = self._reference(json.dumps(snaks), None)
            self._save(entity, guid, "(demo)", "wbsetreference")
            return copy.deepcopy(reference)

    # -- answering --------------------------------------------------------------------------------------------
    def answer(self, method: str, params: Mapping[str, str], cookies: Mapping[str, str] | None = None, *,
               oauth_user: str | None = None, bad_oauth: bool = False) -> ApiReply:
        """Answer one request to ``/w/api.php``: ``method`` GET or POST, its parameters (the query string's and
        the form's), its cookies; ``oauth_user``: the user an OAuth access token acts as (``bad_oauth``: the request
        carried a token that is unknown or expired)."""
        action = params.get("action", "")
        if bad_oauth:
            return ApiReply(200, self._error("mwoauth-invalid-authorization", "The authorization headers in your "
                                             "request are not valid: Invalid access token"),
                            (("MediaWiki-API-Error", "mwoauth-invalid-authorization"),))
        reply = self._answer(action, method, params, cookies, oauth_user)
        with self._lock:
            delays = self._delays.get(action)
            delay = delays.popleft() if delays else 0.0
            if delay:
                self.faults_served["answer held"] += 1
        if delay:
            time.sleep(delay)
        return reply

    def _answer(self, action: str, method: str, params: Mapping[str, str],
                cookies: Mapping[str, str] | None, oauth_user: str | None = None) -> ApiReply:
        with self._lock:
            queued = self._faults.get(action)
            if queued:
                reply = queued.popleft()
                code = dict(reply.headers).get("MediaWiki-API-Error")
                self.faults_served[code or f"HTTP {reply.status}"] += 1
                return reply
            session_id = (cookies or {}).get(SESSION_COOKIE, "")
            if oauth_user is not None:  # a token's requests share one session: its user and CSRF token
                session_id = f"oauth:{oauth_user}"
                self._sessions.setdefault(session_id, Session(user=oauth_user))
            session = self._sessions.get(session_id)
            if session is not None and session.user is not None and session.user not in self.accounts:
                session = None  # the account is gone
            call = Call(method.upper(), params, session_id, session)
            handlers = {"login": self._login, "clientlogin": self._clientlogin, "logout": self._logout,
                        "query": self._query, "paraminfo": self._paraminfo, "wbgetentities": self._wbgetentities,
                        "wbgetclaims": self._wbgetclaims, "wbsetreference": self._wbsetreference,
                        "wbremovereferences": self._wbremovereferences,
                        "wbsearchentities": self._wbsearchentities}
            try:
                if action not in handlers:
                    raise ApiError("badvalue", f'Unrecognized value for parameter "action": {action}.')
                if action in POSTED and call.method != "POST":
                    raise ApiError("mustbeposted", f'The "{action}" module requires a POST request.')
                if action in TOKEN_CHECKED:  # MediaWiki checks the token before the assertion
                    self._check_token(call)
                self._check_assert(call)
                body = handlers[action](call)
            except ApiError as error:
                call.headers.append(("MediaWiki-API-Error", error.code))
                body = self._error(error.code, error.info, **error.extra)
            except (KeyError, ValueError, TypeError, AttributeError) as error:  # a request the checks let through
                code = f"internal_api_error_{type(error).__name__}"
                call.headers.append(("MediaWiki-API-Error", code))
                body = self._error(code, f"[refbot demo] {error!r}")
            return ApiReply(200, body, tuple(call.headers))

    def _error(self, code: str, info: str, **extra: Any) -> JSON:
        return {"error": {"code": code, "info": info, **extra,
                          "docref": f"See {self.server}/w/api.php for API usage."}, "servedby": SERVED_BY}

    def _check_assert(self, call: Call) -> None:
        wanted = call.params.get("assert")
        if wanted == "user" and call.user is None:
            raise ApiError("assertuserfailed", "You are no longer logged in, so the action could not be completed.")
        if wanted == "bot" and "bot" not in self._rights(call.user):
            raise ApiError("assertbotfailed", 'You do not have the "bot" right, so the action could not be '
                                              "completed.")
        if wanted == "anon" and call.user is not None:
            raise ApiError("assertanonfailed", "You are already logged in, so the action could not be completed.")

    def _rights(self, user: str | None) -> list[str]:
        if user is None:
            return list(ANONYMOUS_RIGHTS)
        bot = "bot" in self.accounts[user].groups
        return [*USER_RIGHTS, *(BOT_RIGHTS if bot else ())]

    def _open_session(self, call: Call) -> Session:
        """The call's session, a new anonymous one (with its cookie) if it has none."""
        if call.session is None:
            call.session_id = secrets.token_hex(16)
            call.session = self._sessions[call.session_id] = Session()
            call.headers.append(("Set-Cookie", f"{SESSION_COOKIE}={call.session_id}; Path=/; HttpOnly"))
        return call.session

    # -- login --------------------------------------------------------------------------------------------------
    def _login(self, call: Call) -> JSON:
        name, password, token = (call.params.get(key, "") for key in ("lgname", "lgpassword", "lgtoken"))
        expected = call.session.tokens.get("login") if call.session is not None else None
        if not token or expected is None:
            return {"login": {"result": "NeedToken",
                              "token": self._open_session(call).tokens.setdefault("login", new_token())}}
        if not secrets.compare_digest(token, expected):
            return {"login": {"result": "WrongToken"}}
        user, _, bot_password = name.replace("_", " ").partition("@")
        user = user[:1].upper() + user[1:]
        account = self.accounts.get(user)
        known = account.bot_passwords.get(bot_password) if account is not None and bot_password else None
        if known is None or not secrets.compare_digest(password.encode(), known.encode()):
            return {"login": {"result": "Failed", "reason": FAILED_LOGIN}}
        # A new session id on login, as MediaWiki does; the old session ends.
        self._sessions.pop(call.session_id, None)
        session_id = secrets.token_hex(16)
        self._sessions[session_id] = Session(user=user)
        call.headers.append(("Set-Cookie", f"{SESSION_COOKIE}={session_id}; Path=/; HttpOnly"))
        return {"login": {"result": "Success", "lguserid": self._user_id(user), "lgusername": user}}

    def _clientlogin(self, _call: Call) -> JSON:
        return {"clientlogin": {"status": "FAIL", "message": "The demo wiki takes BotPasswords only (User@name).",
                                "messagecode": "authmanager-authn-no-primary"}}

    def _logout(self, call: Call) -> JSON:
        if call.session is not None and call.user is not None:
            self._check_token(call)
        self._sessions.pop(call.session_id, None)
        call.headers.append(("Set-Cookie", f"{SESSION_COOKIE}=; Path=/; Max-Age=0"))
        return {}

    def _user_id(self, user: str) -> int:
        return sorted(self.accounts).index(user) + 1

    def _blockinfo(self) -> JSON:
        return {"blockid": 7, "blockedby": "Demo admin", "blockedbyid": 1, "blockreason": "refbot demo block",
                "blockedtimestamp": START, "blockexpiry": "infinite", "blockpartial": False, "blocknocreate": False,
                "blockanononly": False}

    # -- query and paraminfo ------------------------------------------------------------------------------------
    def _query(self, call: Call) -> JSON:
        metas = set(call.params.get("meta", "").split("|")) - {""}
        query: JSON = {}
        if "siteinfo" in metas:
            props = call.params.get("siprop", "general").split("|")
            query.update(siteinfo(props, self.server, self.site_id))
        if "userinfo" in metas:
            query["userinfo"] = self._userinfo(call.user)
        if "tokens" in metas:
            query["tokens"] = self._tokens(call, call.params.get("type", "csrf").split("|"))
        if "wikibase" in metas:
            query["wikibase"] = {"repo": {"url": {"base": self.server, "scriptpath": "/w",
                                                  "articlepath": "/wiki/$1"}}, "siteid": self.site_id}
        if "allusers" in call.params.get("list", "").split("|"):
            start = call.params.get("aufrom", "")
            query["allusers"] = [{"userid": self._user_id(user), "name": user}
                                 for user in sorted(self.accounts) if user >= start]
        lists = set(call.params.get("list", "").split("|"))
        if "users" in lists:
            query["users"] = [self._user(name) for name in call.params.get("ususers", "").split("|") if name]
        if "usercontribs" in lists:
            if not call.params.get("ucuser"):
                raise ApiError("missingparam", 'One of the parameters "ucuser", "ucuserids" and "uciprange" is '
                                               "required.")
            query["usercontribs"] = history.user_contributions(self.revisions, call.params["ucuser"],
                                                               _limit(call.params.get("uclimit")))
        if "recentchanges" in lists:
            shown = call.params.get("rcshow", "")
            query["recentchanges"] = history.recent_changes(
                self.revisions, user=call.params.get("rcuser", ""),
                bots=False if "!bot" in shown.split("|") else True if "bot" in shown.split("|") else None,
                limit=_limit(call.params.get("rclimit")))
        if "revisions" in call.params.get("prop", "").split("|"):
            query["pages"] = [{"ns": 0, "title": title, "pageid": int(self._entities[title].get("pageid") or 0),
                               "revisions": history.page_revisions(self.revisions, title,
                                                                   _limit(call.params.get("rvlimit")))}
                              if title in self._entities else {"ns": 0, "title": title, "missing": True}
                              for title in call.params.get("titles", "").split("|") if title]
        return {"batchcomplete": True, "query": query}

    def _user(self, name: str) -> JSON:
        """``list=users``' answer for one name: its id, groups and block, or ``missing``."""
        user = next((known for known in self.accounts if known.replace("_", " ") == name.replace("_", " ")), None)
        if user is None:
            return {"name": name, "missing": True}
        account = self.accounts[user]
        answer: JSON = {"userid": self._user_id(user), "name": user, "editcount": 0, "registration": START,
                        "emailable": False, "gender": "unknown", "rights": self._rights(user),
                        "groups": ["*", "user", *(["autoconfirmed"] if account.autoconfirmed else []),
                                   *account.groups]}
        if account.blocked:
            answer.update(self._blockinfo())
        return answer

    def _userinfo(self, user: str | None) -> JSON:
        if user is None:
            return {"id": 0, "name": "127.0.0.1", "anon": True, "messages": False, "groups": ["*"],
                    "rights": self._rights(None), "ratelimits": {"edit": {"ip": {"hits": 8, "seconds": 60}}}}
        account = self.accounts[user]
        info: JSON = {"id": self._user_id(user), "name": user, "messages": False,
                      "groups": ["*", "user", *(["autoconfirmed"] if account.autoconfirmed else []), *account.groups],
                      "rights": self._rights(user),
                      "ratelimits": {}}
        if account.blocked:
            info["blockinfo"] = self._blockinfo()
        return info

    def _tokens(self, call: Call, types: Iterable[str]) -> JSON:
        """Tokens of the session: a distinct one per type for a user; ``+\\`` for anonymous sessions, but a real
        login token (which opens a session)."""
        tokens: JSON = {}
        for kind in types:
            if kind == "login":
                tokens["logintoken"] = self._open_session(call).tokens.setdefault("login", new_token())
            elif kind in TOKEN_TYPES:
                session = call.session
                tokens[f"{kind}token"] = (session.tokens.setdefault(kind, new_token())
                                          if session is not None and session.user is not None else ANONYMOUS_TOKEN)
        return tokens

    def _paraminfo(self, call: Call) -> JSON:
        modules = []
        for path in call.params.get("modules", "").split("|"):
            if path:
                modules.append(paraminfo_module(path) or {"name": path, "missing": True})
        return {"paraminfo": {"modules": modules}}

    # -- reading ------------------------------------------------------------------------------------------------
    def _wbgetentities(self, call: Call) -> JSON:
        ids = [i for i in call.params.get("ids", "").split("|") if i]
        if not ids:
            raise ApiError("param-missing", 'Either provide the item "ids" or pairs of "sites" and "titles" for '
                                            "corresponding pages")
        props = set(call.params.get("props", "info|sitelinks|aliases|labels|descriptions|claims|datatype")
                    .split("|"))
        languages = set(call.params["languages"].split("|")) if call.params.get("languages") else None
        wikis = set(call.params["sitefilter"].split("|")) if call.params.get("sitefilter") else None
        entities: JSON = {}
        for entity_id in ids:
            if not re.fullmatch(r"[QPL][1-9]\d*", entity_id):
                raise ApiError("no-such-entity", f'Could not find an entity with the ID "{entity_id}".',
                               id=entity_id)
            entity = self._entities.get(entity_id)
            entities[entity_id] = (self._shown(entity, props, languages, wikis) if entity is not None
                                   else {"id": entity_id, "missing": ""})
        return {"entities": entities, "success": 1}

    def _wbsearchentities(self, call: Call) -> JSON:
        """The search box's lookup: items whose label or alias in ``language`` starts with ``search`` (case and
        accents aside), an exact label first, then an exact alias, then prefixes; among equals the item with more
        sitelinks (Wikidata ranks by popularity), then the lower id."""
        text = " ".join(call.params.get("search", "").split())
        language = call.params.get("language", "")
        if not text or not language:
            raise ApiError("missingparam", 'The "search" and "language" parameters must be set.')
        wanted = _folded(text)
        kind = call.params.get("type", "item")
        found: list[tuple[tuple[int, int, int], JSON]] = []
        for entity in self._entities.values():
            if entity["type"] != kind:
                continue
            label = (entity.get("labels", {}).get(language) or {}).get("value", "")
            names = [("label", label)] if label else []
            names += [("alias", alias["value"]) for alias in entity.get("aliases", {}).get(language, [])]
            ranks = [(0 if _folded(name) == wanted else 2, 0 if term == "label" else 1, term, name)
                     for term, name in names if _folded(name).startswith(wanted)]
            if not ranks:
                continue
            exact, term_rank, term, name = min(ranks)
            popularity = -len(entity.get("sitelinks") or {})
            found.append(((exact + term_rank, popularity, int(entity["id"][1:])), {
                "id": entity["id"], "title": entity.get("title", entity["id"]),
                "concepturi": f"http://www.wikidata.org/entity/{entity['id']}",
                "url": f"{self.server}/wiki/{entity['id']}", "label": label,
                "description": (entity.get("descriptions", {}).get(language) or {}).get("value", ""),
                "match": {"type": term, "language": language, "text": name}}))
        limit = int(call.params.get("limit", "7")) if call.params.get("limit", "7").isdigit() else 7
        return {"searchinfo": {"search": text}, "search": [entry for _, entry in sorted(found, key=lambda f: f[0])]
                [:max(1, min(limit, 50))], "success": 1}

    def _shown(self, entity: JSON, props: set[str], languages: set[str] | None, wikis: set[str] | None) -> JSON:
        """An entity as ``wbgetentities`` shows it with ``props``, ``languages`` and ``sitefilter``."""
        shown: JSON = {}
        if "info" in props:
            shown.update({key: entity[key] for key in ("pageid", "ns", "title", "lastrevid", "modified")})
        shown["type"] = entity["type"]
        if entity["type"] == "property" and "datatype" in props:
            shown["datatype"] = entity["datatype"]
        shown["id"] = entity["id"]
        for key in ("labels", "descriptions", "aliases"):
            if key in props:
                shown[key] = {lang: terms for lang, terms in entity[key].items()
                              if languages is None or lang in languages}
        if "claims" in props:
            shown["claims"] = entity["claims"]
        if entity["type"] == "item" and props & {"sitelinks", "sitelinks/urls"}:
            shown["sitelinks"] = {}
            for wiki, link in entity["sitelinks"].items():
                if wikis is None or wiki in wikis:
                    shown["sitelinks"][wiki] = {key: link[key] for key in ("site", "title", "badges") if key in link}
                    if "sitelinks/urls" in props:
                        shown["sitelinks"][wiki]["url"] = (
                            f"{self.wikipedia}/wiki/{quote(link['title'].replace(' ', '_'))}" if self.wikipedia
                            else link.get("url", ""))
        return copy.deepcopy(shown)

    def _wbgetclaims(self, call: Call) -> JSON:
        guid = call.params.get("claim", "")
        entity_id = guid.split("$", 1)[0].upper() if guid else call.params.get("entity", "")
        if not entity_id:
            raise ApiError("param-missing", "Either the entity parameter or the claim parameter need to be set.")
        entity = self._entities.get(entity_id)
        if entity is None:
            raise ApiError("no-such-entity", f'Could not find an entity with the ID "{entity_id}".')
        wanted, rank = call.params.get("property", ""), call.params.get("rank", "")
        references = "references" in call.params.get("props", "references").split("|")
        claims: JSON = {}
        for property_id, statements in entity["claims"].items():
            for statement in statements:
                if ((not wanted or property_id == wanted) and (not rank or statement["rank"] == rank)
                        and (not guid or statement["id"] == guid)):
                    shown = {key: value for key, value in statement.items() if references or key != "references"}
                    claims.setdefault(property_id, []).append(copy.deepcopy(shown))
        return {"claims": claims}

    # -- writing ------------------------------------------------------------------------------------------------
    def _check_token(self, call: Call) -> None:
        token = call.params.get("token")
        if not token:
            raise ApiError("missingparam", 'The "token" parameter must be set.')
        session = call.session
        expected = (session.tokens.get("csrf") if session is not None and session.user is not None
                    else ANONYMOUS_TOKEN)
        if expected is None or not secrets.compare_digest(token, expected):
            raise ApiError("badtoken", "Invalid CSRF token.")

    def _wbsetreference(self, call: Call) -> JSON:
        self._check_token(call)
        for required in ("statement", "snaks"):
            if not call.params.get(required):
                raise ApiError("missingparam", f'The "{required}" parameter must be set.')
        if call.user is not None and self.accounts[call.user].blocked:
            raise ApiError("blocked", "You have been blocked from editing.", blockinfo=self._blockinfo())
        entity, statement = self._statement_of(call)
        reference = self._reference(call.params["snaks"], call.params.get("snaks-order"))
        references = statement.setdefault("references", [])
        replaced = call.params.get("reference")
        if replaced:
            position = next((n for n, r in enumerate(references) if r["hash"] == replaced), None)
            if position is None:
                raise ApiError("no-such-reference", "Could not find the reference")
            references[position] = reference
        else:
            index = call.params.get("index", "")
            references.insert(int(index) if index.isdigit() else len(references), reference)
        user = call.user or "127.0.0.1"
        bot = "bot" in call.params and "bot" in self._rights(call.user)
        revid = self._save(entity, statement["id"], user, "wbsetreference", call.params.get("summary", ""), bot)
        return {"pageinfo": {"lastrevid": revid}, "success": 1, "reference": copy.deepcopy(reference)}

    def _wbremovereferences(self, call: Call) -> JSON:
        """Remove references (``references``: their hashes, ``|``-separated) from a statement, as Wikibase does."""
        for required in ("statement", "references"):
            if not call.params.get(required):
                raise ApiError("missingparam", f'The "{required}" parameter must be set.')
        if call.user is not None and self.accounts[call.user].blocked:
            raise ApiError("blocked", "You have been blocked from editing.", blockinfo=self._blockinfo())
        entity, statement = self._statement_of(call)
        hashes = call.params["references"].split("|")
        references = statement.get("references") or []
        missing = [wanted for wanted in hashes if not any(r["hash"] == wanted for r in references)]
        if missing:
            raise ApiError("no-such-reference", "Could not find the reference")
        statement["references"] = [reference for reference in references if reference["hash"] not in hashes]
        bot = "bot" in call.params and "bot" in self._rights(call.user)
        revid = self._save(entity, statement["id"], call.user or "127.0.0.1", "wbremovereferences",
                           call.params.get("summary", ""), bot)
        return {"pageinfo": {"lastrevid": revid}, "success": 1}

    def _statement_of(self, call: Call) -> tuple[JSON, JSON]:
        """The entity and the statement a write names (``statement``), checked against its base revision."""
        guid = call.params["statement"]
        if not re.fullmatch(r"[QqPp][1-9]\d*\$[0-9A-Fa-f-]+", guid):
            raise ApiError("invalid-guid", "Invalid claim guid")
        entity_id = guid.split("$", 1)[0].upper()
        if entity_id not in self._entities:
            raise ApiError("no-such-entity", f'Could not find an entity with the ID "{entity_id}".')
        try:
            entity, statement = self._find(guid)
        except KeyError:
            raise ApiError("no-such-claim", "Could not find the claim") from None
        base = call.params.get("baserevid")
        if base:
            if not base.isdigit():
                raise ApiError("badinteger", f'Invalid value "{base}" for integer parameter "baserevid".')
            if int(base) < self._changed.get(statement["id"], 0):
                info, extra, _ = FAULTS["editconflict"]
                raise ApiError("editconflict", info, **extra)
        return entity, statement

    def _reference(self, snaks_text: str, order_text: str | None) -> JSON:
        """A reference of ``snaks`` (JSON, by property) checked against the properties' datatypes."""
        try:
            given = json.loads(snaks_text)
            order = json.loads(order_text) if order_text else list(given)
        except ValueError as error:
            raise ApiError("invalid-json", f"Invalid json: {error}") from None
        if not isinstance(given, dict) or not given or not all(isinstance(g, list) for g in given.values()):
            raise ApiError("invalid-snak", "Invalid snak data: snaks must be an object of arrays by property.")
        snaks: JSON = {}
        for property_id, group in given.items():
            snaks[property_id] = [self._checked_snak(property_id, one) for one in group]
        if not isinstance(order, list) or set(order) != set(snaks):
            raise ApiError("invalid-snak", "Invalid snak data: snaks-order must name each property once.")
        content = json.dumps({"snaks": snaks, "snaks-order": order}, sort_keys=True)
        return {"hash": hashlib.sha1(content.encode()).hexdigest(), "snaks": snaks, "snaks-order": order}

    def _checked_snak(self, property_id: str, given: Any) -> JSON:
        if not isinstance(given, dict) or given.get("property", property_id) != property_id:
            raise ApiError("invalid-snak", f"Invalid snak data for {property_id}.")
        entity = self._entities.get(property_id)
        if entity is None or entity["type"] != "property":
            raise ApiError("modification-failed", f"Property {property_id} not found.")
        datatype = entity["datatype"]
        snaktype = given.get("snaktype")
        if snaktype in ("novalue", "somevalue"):
            return hashed({"snaktype": snaktype, "property": property_id, "datatype": datatype})
        value = given.get("datavalue")
        if snaktype != "value" or not isinstance(value, dict) or "value" not in value:
            raise ApiError("invalid-snak", f"Invalid snak data for {property_id}.")
        expected = VALUE_TYPES.get(datatype, "string")
        if value.get("type") != expected:
            raise ApiError("modification-failed", f"Bad value type {value.get('type')}, expected {expected}")
        content = copy.deepcopy(value["value"])
        if expected == "wikibase-entityid" and isinstance(content, dict) and "numeric-id" in content:
            prefix = {"item": "Q", "property": "P", "lexeme": "L"}.get(content.get("entity-type", ""), "Q")
            content = {**content, "id": content.get("id") or f"{prefix}{content['numeric-id']}"}
        elif expected == "time" and isinstance(content, dict) and isinstance(content.get("time"), str):
            content["time"] = re.sub(r"^([+-])0*(\d{4,}-)", r"\1\2", content["time"])
        return hashed({"snaktype": "value", "property": property_id,
                       "datavalue": {"value": content, "type": expected}, "datatype": datatype})

    def _find(self, guid: str) -> tuple[JSON, JSON]:
        """The entity and the statement of a GUID. KeyError if there is none."""
        entity = self._entities.get(guid.split("$", 1)[0].upper())
        for statements in (entity or {}).get("claims", {}).values():
            for statement in statements:
                if statement["id"].lower() == guid.lower():
                    return entity or {}, statement
        raise KeyError(guid)

    def _save(self, entity: JSON, guid: str, user: str, action: str, summary: str = "", bot: bool = False) -> int:
        """A new revision of ``entity`` in which statement ``guid`` changed (kept with the statement before and
        after, for the history's difference); its id."""
        revid, self._next_revid = self._next_revid, self._next_revid + 1
        parent = int(entity.get("lastrevid") or 0)
        entity["lastrevid"] = revid
        entity["modified"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._changed[guid] = revid
        try:
            after: JSON | None = copy.deepcopy(self._find(guid)[1])
        except KeyError:
            after = None
        before = self._last.pop(guid, None)
        if after is not None:
            self._last[guid] = after
        self.revisions.append(Revision(revid, entity["id"], user, action, guid, summary, bot, parent,
                                       entity["modified"], before, copy.deepcopy(after)))
        return revid

    def revision(self, revid: int) -> Revision | None:
        """One revision made in this world (None: no such revision, or one from before it started)."""
        with self._lock:
            return next((revision for revision in self.revisions if revision.revid == revid), None)
