"""A polite SPARQL client (SPARQLWrapper): one request at a time per endpoint, Retry-After honoured on 429,
bounded backoff on 5xx and timeouts, POST for long queries, and errors naming the query, endpoint and status.
"""

from __future__ import annotations

import ast
import http.client
import json
import logging
import socket
import threading
import time
import urllib.error
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

from bot.documents.politeness import parse_retry_after
from bot.errors import QueryError
from bot.redaction import redact_url
from bot.selection.binding import Query

# A wait before a query is sent again is said as a warning (on standard error unless the application configures
# logging): a selection that stops for minutes must say why.
log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
# The Wikidata Query Service answers a query that ran out of its 60 s with a 500 naming this exception, QLever
# with a 429 saying the query was cancelled for its time; sending it again only spends the client's budget.
SERVER_TIMEOUT_MARKERS = ("TimeoutException", "Query timeout", "query timed out", "timed out", "timeout",
                          "cancelled")

_locks_guard = threading.Lock()
_endpoint_locks: dict[str, threading.Lock] = {}


def _endpoint_lock(url: str) -> threading.Lock:
    """One lock per endpoint URL for the whole process: WDQS asks for one request at a time per client.

    The lock is held through a retry's wait too, so that a 429's Retry-After pauses every thread.
    """
    with _locks_guard:
        return _endpoint_locks.setdefault(url, threading.Lock())


@dataclass(frozen=True)
class Term:
    """One value of a SPARQL JSON result: ``kind`` is uri, literal or bnode."""

    value: str
    kind: str = "uri"
    lang: str = ""
    datatype: str = ""


Row = dict[str, Term]


class _Retry(Exception):
    def __init__(self, reason: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.retry_after = retry_after


def _body(error: Exception) -> str:
    """The endpoint's error message: from an HTTPError, or from the repr SPARQLWrapper's exceptions embed."""
    if isinstance(error, urllib.error.HTTPError):
        raw: object = error.read()
    else:
        _, _, embedded = (str(error.args[0]) if error.args else "").partition("Response:\n")
        try:
            raw = ast.literal_eval(embedded) if embedded else b""
        except (ValueError, SyntaxError):
            raw = embedded
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return " ".join(text.split())


def split_endpoint(url: str) -> tuple[str, str, str, list[tuple[str, str]]]:
    """(address without user:password@ or query, user, password, the query's parameters) of an endpoint URL."""
    parts = urlsplit(url)
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    address = urlunsplit((parts.scheme, host, parts.path, "", ""))
    return address, unquote(user), unquote(password), parse_qsl(parts.query, keep_blank_values=True)


def _mentions_timeout(body: str) -> bool:
    lowered = body.lower()
    return any(marker.lower() in lowered for marker in SERVER_TIMEOUT_MARKERS)


@dataclass
class SparqlEndpoint:
    url: str
    user_agent: str
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 2.0
    max_wait: float = 300.0
    post_above: int = 2000
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def select(self, query: Query) -> list[Row]:
        """The rows of a SELECT query; raises QueryError, never a transport exception."""
        with _endpoint_lock(self.url):
            for attempt in range(self.retries + 1):
                try:
                    return self._rows(self._request(query), query)
                except _Retry as retry:
                    wait = retry.retry_after if retry.retry_after is not None else min(self.backoff * 2 ** attempt, 60)
                    if attempt == self.retries:
                        raise QueryError(f"{retry} (gave up after {attempt + 1} attempts)", query=query.name,
                                         endpoint=self.url, status=retry.status,
                                         hint="the endpoint is overloaded or down; run the same command later")
                    if wait > self.max_wait:
                        raise QueryError(f"the endpoint asks to wait {wait:.0f} s before the next query",
                                         query=query.name, endpoint=self.url, status=retry.status,
                                         hint="run the same command after that time")
                    if wait > 0:
                        asked = " (Retry-After)" if retry.retry_after is not None else ""
                        log.warning("refbot: query %s at %s: %s; waiting %s s%s before sending it again", query.name,
                                    redact_url(self.url, service=True), retry, f"{wait:g}", asked)
                    self.sleep(wait)
        raise AssertionError("unreachable")

    def _request(self, query: Query) -> dict[str, Any]:
        from SPARQLWrapper import JSON, POST, SELECT, SPARQLWrapper
        from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

        address, user, password, parameters = split_endpoint(self.url)
        client = SPARQLWrapper(address, agent=self.user_agent)
        for name, value in parameters:  # an endpoint's own parameters (a key) beside the query
            client.addParameter(name, value)
        if user or password:  # sent as HTTP Basic: a user:password@ in the address would reach urllib's messages
            client.setCredentials(user, password)
        client.setQuery(query.text)
        client.queryType = SELECT  # refbot only sends SELECT; SPARQLWrapper's guess trips over words in comments
        client.setReturnFormat(JSON)
        client.setOnlyConneg(True)  # an Accept header only: no format=json parameters some endpoints reject
        client.timeout = self.timeout  # type: ignore[assignment]  # setTimeout() would truncate to whole seconds
        if len(quote(query.text)) > self.post_above:
            client.setMethod(POST)
        try:
            raw = client.query().response.read()
        except urllib.error.HTTPError as error:
            retry_after = parse_retry_after(error.headers.get("Retry-After"))
            body = _body(error)
            ran_out = error.code == 429 and retry_after is None and _mentions_timeout(body)
            if error.code in RETRYABLE_STATUS and not ran_out:
                raise _Retry(f"the endpoint answered {error.code} {error.reason}", error.code, retry_after) from None
            raise self._refused(query, error.code, body, ran_out) from None
        except SPARQLWrapperException as error:
            cause = error.__context__  # the HTTPError SPARQLWrapper translated
            status = cause.code if isinstance(cause, urllib.error.HTTPError) else None
            body = _body(error)
            if status == 500 and not _mentions_timeout(body):
                raise _Retry("the endpoint answered 500 Internal Server Error", 500) from None
            raise self._refused(query, status, body, status == 500) from None
        except (TimeoutError, socket.timeout):
            raise _Retry(f"no answer within {self.timeout:g} s") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise _Retry(f"no answer within {self.timeout:g} s") from None
            raise QueryError(f"cannot reach the endpoint: {getattr(error.reason, 'strerror', None) or error.reason}",
                             query=query.name, endpoint=self.url,
                             hint="check the endpoint URL (--endpoint or [sparql] endpoint) and the network") from None
        except (ConnectionError, http.client.HTTPException) as error:
            raise _Retry(f"the connection failed: {error}") from None
        except OSError as error:  # TLS failures and the like: sending again would not help
            raise QueryError(f"the connection failed: {error}", query=query.name, endpoint=self.url,
                             hint="check the endpoint URL and the network") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise QueryError("the answer is not SPARQL JSON results", query=query.name, endpoint=self.url,
                             hint="check that the URL is a SPARQL endpoint") from None

    def _refused(self, query: Query, status: int | None, body: str, ran_out: bool = False) -> QueryError:
        if ran_out:
            return QueryError(body[:300] or "the query ran out of time", query=query.name, endpoint=self.url,
                              status=status, hint="the query ran out of the endpoint's time limit; use a smaller "
                                                  "--page-size, fewer items, or QLever")
        hints = {
            400: "the endpoint could not parse or run the query; check the query file",
            401: "the endpoint needs authorisation",
            403: "the endpoint refused this client; check the contact in the User-Agent ([refbot] contact)",
            404: "check the endpoint URL (--endpoint or [sparql] endpoint)",
            414: "the query is too long for a GET; lower [sparql] post_above",
        }
        return QueryError(body[:300] or "refused", query=query.name, endpoint=self.url, status=status,
                          hint=hints.get(status or 0))

    def _rows(self, result: dict[str, Any], query: Query) -> list[Row]:
        try:
            bindings = result["results"]["bindings"]
            return [{name: Term(term["value"], "literal" if term["type"] == "typed-literal" else term["type"],
                                term.get("xml:lang", ""), term.get("datatype", ""))
                     for name, term in binding.items()} for binding in bindings]
        except (KeyError, TypeError, AttributeError):
            raise QueryError("the answer is not SPARQL JSON results for a SELECT", query=query.name,
                             endpoint=self.url) from None
