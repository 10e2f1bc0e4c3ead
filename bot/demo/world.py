"""The offline demo world: a Wikidata-shaped SPARQL store (Oxigraph) and the web refbot reads, on loopback.

Every site of ``data/sites/`` is served on a port of its own (so pacing and parallel fetching work per host as on
the web), next to stand-ins for the Wikidata API, Wikipedia's REST API, the Wayback Machine and a SearXNG
search engine. ``{site:NAME}`` in the data becomes that site's base URL. Every request is recorded in
``requests`` (site, path, query; method and parameters, passwords hidden), which the tests read.

The Wikidata stand-in is a MediaWiki + Wikibase action API that pywikibot can log in to with a BotPassword and add
references with (``bot.demo.wikibase``): its items are the SPARQL store's, and ``wikibase`` is its state.
"""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import tempfile
import threading
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from bot.demo import history
from bot.demo.item_page import item_page
from bot.demo.oauth import PREFIX as OAUTH_PREFIX
from bot.demo.oauth import OAuthProvider
from bot.demo.sparql import Oxigraph, start_oxigraph
from bot.demo.wikibase import HIDDEN, SECRET_PARAMETERS, Account, WikibaseApi, read_cookies, read_form
from bot.errors import ConfigError

DATA = Path(__file__).resolve().parent / "data"
DEMO_ITEM = "Q990201"
# The items of the demo world's curation run (its verify items, Q990401 and Q990402, are `refbot verify`'s).
DEMO_ITEMS = tuple(f"Q99020{n}" for n in range(1, 9))
DEAD_SITE = "gone"
SERVICES = ("wikidata", "wikipedia", "archive", "search")


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Recorded:
    """One request: ``query`` as parsed from the URL; ``params`` the query string's and a POST form's fields."""

    site: str
    path: str
    query: dict[str, list[str]]
    method: str = "GET"
    params: dict[str, str] = field(default_factory=dict)
    accept: str = ""  # the Accept header: what content negotiation asked for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fold(text: str) -> str:
    """Lower case without accents, for the search engine's keyword match."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


@dataclass
class DemoWorld:
    """Start with :meth:`start` (or as a context manager); ``options()`` points refbot at it.

    The Wikidata API lets ``bot_user`` log in with the BotPassword ``bot_password_name`` / ``bot_password`` (made
    up when the world is made; the user is in the bot group), and any further ``accounts``.
    """

    data: Path = DATA
    workdir: Path | None = None
    requests: list[Recorded] = field(default_factory=list)
    bot_user: str = "RefbotDemo"
    bot_password_name: str = "refbot"
    bot_password: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)
    accounts: dict[str, Account] = field(default_factory=dict)
    # The signed-in user's common.js, which every item page runs (as the wiki runs a user's scripts).
    common_js: str = ""

    def __post_init__(self) -> None:
        self.ports: dict[str, int] = {}
        self._servers: list[ThreadingHTTPServer] = []
        self._oxigraph: Oxigraph | None = None
        self._store: Path | None = None
        self._wikibase: WikibaseApi | None = None
        self._oauth: OAuthProvider | None = None
        self._lock = threading.Lock()
        self._scripted: dict[tuple[str, str], Reply] | None = None

    @property
    def bot_login(self) -> str:
        """The BotPassword's login name, ``User@name``."""
        return f"{self.bot_user}@{self.bot_password_name}"

    @property
    def wikibase(self) -> WikibaseApi:
        """The Wikidata API's state: its items, sessions and revisions, its faults to come (once started)."""
        if self._wikibase is None:
            raise RuntimeError("the demo world is not started")
        return self._wikibase

    @property
    def oauth(self) -> OAuthProvider:
        """The OAuth 2.0 provider's state: consumers (:meth:`OAuthProvider.register`), codes, tokens."""
        if self._oauth is None:
            raise RuntimeError("the demo world is not started")
        return self._oauth

    @property
    def oauth_url(self) -> str:
        """The provider's REST base, as ``https://meta.wikimedia.org/w/rest.php`` is the real one's."""
        return f"{self.base('wikidata')}/w/rest.php"

    # -- lifecycle -------------------------------------------------------------------------------------------
    def __enter__(self) -> "DemoWorld":
        return self.start()

    def __exit__(self, *_: Any) -> None:
        self.stop()

    def start(self) -> "DemoWorld":
        if not (self.data / "world.ttl").is_file():
            raise ConfigError(f"no demo world at {self.data}", hint="reinstall refbot")
        sites = sorted(p.name for p in (self.data / "sites").iterdir() if p.is_dir())
        # The dead site gets a port nobody listens on: connections are refused, as for a vanished host.
        self.ports[DEAD_SITE] = free_port()
        try:
            for site in [*SERVICES, *sites]:
                server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(site))
                server.daemon_threads = True
                self.ports[site] = server.server_address[1]
                self._servers.append(server)
            self._start_sparql()
            accounts = {self.bot_user: Account({self.bot_password_name: self.bot_password}), **self.accounts}
            self._oauth = OAuthProvider(accounts)
            self._wikibase = WikibaseApi.from_store(self.sparql_url, self._json("entities.json"), accounts=accounts,
                                                    server=self.base("wikidata"), wikipedia=self.base("wikipedia"))
        except BaseException:
            for server in self._servers:  # not serving yet: shutdown() would wait for ever
                server.server_close()
            self._servers.clear()
            self.stop()
            raise
        for site, server in zip([*SERVICES, *sites], self._servers):
            threading.Thread(target=server.serve_forever, name=f"demo-{site}", daemon=True).start()
        return self

    def stop(self) -> None:
        # Each server notices a shutdown within half a second: let them all notice at once.
        stopping = [threading.Thread(target=server.shutdown) for server in self._servers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        for server in self._servers:
            server.server_close()
        self._servers.clear()
        if self._oxigraph is not None:
            self._oxigraph.stop()
            self._oxigraph = None
        if self._store is not None:  # the store is loaded afresh at each start: nothing to keep
            shutil.rmtree(self._store, ignore_errors=True)
            self._store = None

    def _start_sparql(self) -> None:
        self._store = Path(tempfile.mkdtemp(prefix="refbot-demo-store-", dir=self.workdir))
        # The store's formatter URIs (P1921, P1630) name this world's authority sites: placed before loading.
        placed = self._store.with_name(self._store.name + ".ttl")
        placed.write_text(self.placed((self.data / "world.ttl").read_text(encoding="utf-8")), encoding="utf-8")
        try:
            self._oxigraph = start_oxigraph(placed, self._store, free_port(), truthy=True)
        finally:
            placed.unlink(missing_ok=True)

    # -- addresses -------------------------------------------------------------------------------------------
    def base(self, site: str) -> str:
        return f"http://127.0.0.1:{self.ports[site]}"

    @property
    def sparql_url(self) -> str:
        return self._oxigraph.url if self._oxigraph is not None else ""

    def options(self) -> dict[str, Any]:
        """Option overrides that point refbot at this world (and nowhere else)."""
        return {
            "sparql_endpoint": self.sparql_url,
            "wikidata_api_url": f"{self.base('wikidata')}/w/api.php",
            "wikipedia_article_url": self.base("wikipedia") + "/w/rest.php/v1/page/{title}/html",
            "search_backend": "searxng", "search_url": self.base("search"),
            "archive_availability_url": f"{self.base('archive')}/wayback/available",
            "archive_cdx_url": f"{self.base('archive')}/cdx/search/cdx",
            "archive_web_url": self.base("archive"),
            "fetch_allow_addresses": ("127.0.0.1",), "fetch_delay": 0.1, "fetch_retries": 0,
            "fetch_connect_timeout": 2.0, "fetch_cache_days": 0.0, "contact": "refbot-demo@example.org",
            # Profiles come from this world's own property data, and are not kept beside real Wikidata's.
            "properties_cache_days": 0.0,
        }

    def expected(self) -> dict[str, dict[str, str]]:
        return json.loads((self.data / "expected.json").read_text(encoding="utf-8"))

    def placed(self, text: str) -> str:
        for site, port in self.ports.items():
            text = text.replace(f"{{site:{site}}}", f"http://127.0.0.1:{port}")
        return text

    def _json(self, name: str) -> Any:
        return json.loads(self.placed((self.data / name).read_text(encoding="utf-8")))

    # -- answers ---------------------------------------------------------------------------------------------
    def _handler(self, site: str) -> type[BaseHTTPRequestHandler]:
        world = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                self.serve("GET")

            def do_POST(self) -> None:  # noqa: N802
                self.serve("POST")

            def serve(self, method: str) -> None:
                parts = urlsplit(self.path)
                path, query = unquote(parts.path), parse_qs(parts.query)
                params = {name: values[-1] for name, values in parse_qs(parts.query, keep_blank_values=True).items()}
                reply: Reply | None = None
                try:
                    params |= self.form() if method == "POST" else {}
                except ValueError:
                    reply = Reply(400, b"<!doctype html><title>Bad request</title><p>Unreadable request body.</p>")
                world.record(Recorded(site, path, query, method, params, self.headers.get("Accept", "")))
                if reply is None:
                    reply = world.answer(site, path, query, parts.path, method=method, params=params,
                                         cookies=read_cookies(self.headers.get("Cookie", "")),
                                         authorization=self.headers.get("Authorization", ""))
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def form(self) -> dict[str, str]:
                length = int(self.headers.get("Content-Length") or 0)
                if length < 0:
                    raise ValueError("a negative Content-Length")
                return read_form(self.headers.get("Content-Type", ""), self.rfile.read(length))

            def log_message(self, *_: Any) -> None:
                pass

        return Handler

    def record(self, request: Recorded) -> None:
        """Keep a request in ``requests``, its passwords hidden."""
        request.query = {name: [HIDDEN] if name in SECRET_PARAMETERS else values
                         for name, values in request.query.items()}
        request.params = {name: HIDDEN if name in SECRET_PARAMETERS else value
                          for name, value in request.params.items()}
        with self._lock:
            self.requests.append(request)

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "", *, method: str = "GET",
               params: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
               authorization: str = "") -> Reply:
        """The reply to one request; ``params`` (the query string's and the form's fields), ``cookies`` and
        ``authorization`` (the header: an OAuth access token, or a consumer's credentials) are the Wikidata API's and
        the OAuth provider's."""
        routes: dict[str, Callable[[str, dict[str, list[str]], str], Reply]] = {
            "wikidata": self._wikidata, "wikipedia": self._wikipedia, "archive": self._archive,
            "search": self._search}
        if params is None:
            params = {name: values[-1] for name, values in query.items()}
        if site == "wikidata" and path.startswith(OAUTH_PREFIX):
            given = self.oauth.answer(method, path, params, authorization)
            return Reply(given.status, given.body, given.content_type, given.headers)
        if site == "wikidata" and path == "/w/api.php":
            oauth_user = self.oauth.user_of(authorization) if authorization.lower().startswith("bearer ") else None
            api = self.wikibase.answer(method, params, cookies, oauth_user=oauth_user,
                                       bad_oauth=authorization.lower().startswith("bearer ") and oauth_user is None)
            body, kind = api.content()
            return Reply(api.status, body, kind, api.headers)
        if method != "GET":
            return Reply(405, b"<!doctype html><title>Method not allowed</title>", headers=(("Allow", "GET"),))
        scripted = self._replies().get((site, path))
        if scripted is not None:
            return scripted
        if path == "/robots.txt":
            return Reply(200, b"User-agent: *\nAllow: /\n", "text/plain; charset=utf-8")
        if site in routes:
            return routes[site](path, query, raw_path)
        return self._file(self.data / "sites" / site, path)

    def _replies(self) -> dict[tuple[str, str], Reply]:
        """The answers ``replies.json`` gives instead of a site's files (a page that moved: 301 and its Location; a
        paywall: 403), by (site, path)."""
        if self._scripted is None:
            listed = self._json("replies.json") if (self.data / "replies.json").is_file() else []
            self._scripted = {
                (entry["site"], entry["path"]): Reply(
                    int(entry["status"]), self.placed(entry.get("body", "")).encode("utf-8"),
                    headers=tuple((name, self.placed(value)) for name, value in entry.get("headers", {}).items()))
                for entry in listed}
        return self._scripted

    def _file(self, root: Path, path: str) -> Reply:
        target = (root / path.lstrip("/")).resolve()
        if target.is_dir() and (target / "index.html").is_file():  # a site's front page, a folder's index
            target = target / "index.html"
        if root.resolve() not in target.parents:
            return Reply(404, b"<!doctype html><title>Not found</title><h1>404 Not Found</h1>")
        if not target.is_file():
            record = self._record_file(target)
            if record is None:
                return Reply(404, b"<!doctype html><title>Not found</title><h1>404 Not Found</h1>")
            return Reply(200, self._record_page(path, record).encode("utf-8"))
        kind = {".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
                ".pdf": "application/pdf", ".ttl": "text/turtle; charset=utf-8",
                ".rdf": "application/rdf+xml; charset=utf-8",
                ".jsonld": "application/ld+json"}.get(target.suffix, "application/octet-stream")
        body = target.read_bytes()
        if kind.startswith("text/") or target.suffix in (".rdf", ".jsonld"):
            body = self.placed(body.decode("utf-8")).encode("utf-8")
        return Reply(200, body, kind)

    @staticmethod
    def _record_file(target: Path) -> Path | None:
        """The record an authority's page for people shows (its formatter URL, P1630, names no file): the RDF the
        database serves for machines under that path, or beside it with a suffix (``cb169902021`` →
        ``cb169902021.rdf``)."""
        if target.is_dir():
            return next((file for file in sorted(target.rglob("*")) if file.is_file()), None)
        if target.parent.is_dir():
            return next((file for file in sorted(target.parent.iterdir())
                         if file.is_file() and file.stem == target.name), None)
        return None

    def _record_page(self, path: str, record: Path) -> str:
        """An authority record's page for people: the record as the database serves it for machines, shown."""
        text = self.placed(record.read_text(encoding="utf-8"))
        return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Authority record "
                f"{escape(path)} (refbot demo world)</title></head><body><h1>Authority record {escape(path)}</h1>"
                "<p>An invented record of refbot's offline demo world, as the database serves it for machines:</p>"
                f"<pre>{escape(text)}</pre></body></html>")

    def _wikidata(self, path: str, query: dict[str, list[str]], _raw: str) -> Reply:
        """Item pages, their history, an edit's difference, a user's contributions and the recent changes;
        ``/w/api.php`` is the API's (:meth:`answer`)."""
        title = path[len("/wiki/"):] if path.startswith("/wiki/") else \
            (query.get("title") or [""])[0] if path == "/w/index.php" else None
        found = None
        if path == "/w/index.php" and (query.get("diff") or [""])[0].isdigit():
            revision = self.wikibase.revision(int(query["diff"][0]))
            found = history.diff_page(revision, self._label) if revision is not None else None
        elif title is not None and title.replace("_", " ") == "Special:RecentChanges":
            found = history.recent_changes_page(self.wikibase.revisions, self._label)
        elif title is not None and title.startswith("Special:Contributions"):
            user = title.partition("/")[2] or (query.get("target") or [""])[0]
            found = history.contributions_page(self.wikibase.revisions, user, self._label) if user else None
        elif title and title.startswith("Q") and self.wikibase.exists(title):
            found = (history.history_page(self.wikibase.revisions, title, self._label)
                     if (query.get("action") or [""])[0] == "history"
                     else item_page(self.wikibase.entity(title), self._label, self.common_js))
        if found is None:
            return Reply(404, b"<!doctype html><title>Not found</title>")
        return Reply(200, found.encode("utf-8"))

    def _label(self, entity_id: str) -> str:
        """An entity's English label (its id when it has none, or is not in this world)."""
        if not self.wikibase.exists(entity_id):
            return entity_id
        labels = self.wikibase.entity(entity_id).get("labels") or {}
        return str((labels.get("en") or labels.get("mul") or {}).get("value") or entity_id)

    def _wikipedia(self, path: str, _query: dict[str, list[str]], _raw: str) -> Reply:
        prefix, suffix = "/w/rest.php/v1/page/", "/html"
        if path.startswith(prefix) and path.endswith(suffix):
            title = path[len(prefix):-len(suffix)]
        elif path.startswith("/wiki/"):
            title = path[len("/wiki/"):]
        else:
            return Reply(404, b"")
        file = self.data / "wikipedia" / f"{title.replace(' ', '_')}.html"
        if "/" in title or not file.is_file():
            return Reply(404, json.dumps({"httpCode": 404, "messageTranslations": {"en": "not found"}}).encode(),
                         "application/json")
        html = self.placed(file.read_text(encoding="utf-8"))
        return Reply(200, html.encode("utf-8"), 'text/html; charset=utf-8; profile="mediawiki.org/specs/html/2.8.0"')

    def _archive(self, path: str, query: dict[str, list[str]], raw_path: str) -> Reply:
        snapshots = self._json("wayback.json")
        if path == "/wayback/available":
            url = (query.get("url") or [""])[0]
            wanted = (query.get("timestamp") or [""])[0]
            kept = [s for s in snapshots if s["url"] == url]
            # As the Wayback Machine answers: the snapshot closest in time to ``timestamp`` (else the first).
            found = min(kept, key=lambda s: abs(_seconds(s["timestamp"]) - _seconds(wanted))) \
                if kept and wanted else next(iter(kept), None)
            closest = {"closest": {"available": True, "status": "200", "timestamp": found["timestamp"],
                                   "url": f"{self.base('archive')}/web/{found['timestamp']}/{url}"}} if found else {}
            return Reply(200, json.dumps({"url": url, "archived_snapshots": closest}).encode(), "application/json")
        if path == "/cdx/search/cdx":
            url = (query.get("url") or [""])[0]
            until = (query.get("to") or [""])[0]
            rows = [["timestamp", "statuscode"]] + sorted(
                [s["timestamp"], "200"] for s in snapshots
                if s["url"] == url and (not until or s["timestamp"][:len(until)] <= until))
            return Reply(200, json.dumps(rows).encode(), "application/json")
        if path.startswith("/web/"):
            # /web/<timestamp>[id_]/<original URL>; the original keeps its own encoding.
            rest = raw_path[len("/web/"):] if raw_path else path[len("/web/"):]
            stamp, _, original = rest.partition("/")
            stamp = stamp.removesuffix("id_")
            # The original's own query string arrives as the request's (/web/TS/http://host/page?id=1).
            found = next((s for s in snapshots if s["timestamp"] == stamp
                          and _same_page(s["url"], unquote(original), query)), None)
            if found is not None:
                return self._file(self.data, "/" + found["file"])
        return Reply(404, b"<!doctype html><title>Wayback Machine</title><p>Not in archive.</p>")

    def _search(self, path: str, query: dict[str, list[str]], _raw: str) -> Reply:
        if path.rstrip("/") != "/search":
            return Reply(404, b"")
        asked = fold((query.get("q") or [""])[0])
        results = [{"url": entry["url"], "title": entry["title"], "content": entry.get("content", ""),
                    "engine": "demo", "engines": ["demo"]}
                   for entry in self._json("search.json")
                   if all(fold(keyword) in asked for keyword in entry.get("keywords", []))]
        body = {"query": (query.get("q") or [""])[0], "number_of_results": len(results), "results": results}
        return Reply(200, json.dumps(body).encode(), "application/json")


def _seconds(timestamp: str) -> float:
    """A Wayback timestamp (``20190520``, ``20190520123000``) as seconds since 1970, for nearness."""
    digits = (timestamp + "00000101000000"[len(timestamp):])[:14] if timestamp.isdigit() else "19700101000000"
    try:
        moment = datetime.strptime(digits, "%Y%m%d%H%M%S")
    except ValueError:
        return 0.0
    return moment.replace(tzinfo=timezone.utc).timestamp()


def _same_page(snapshot: str, original: str, query: dict[str, list[str]]) -> bool:
    """Whether a snapshot's URL is the page asked for: its address, and its query as the request's."""
    address, _, asked = snapshot.partition("?")
    return unquote(address) == original and parse_qs(asked) == query
