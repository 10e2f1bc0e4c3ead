"""The offline demo world: a Wikidata-shaped SPARQL store (Oxigraph) and the web refbot reads, on loopback.

Every site of ``data/sites/`` is served on a port of its own (so pacing and parallel fetching work per host as on
the web), next to stand-ins for the Wikidata API, Wikipedia's REST API, the Wayback Machine and a SearXNG
search engine. ``{site:NAME}`` in the data becomes that site's base URL. Every request is recorded in
``requests`` (site, path and query), which the tests read.
"""

from __future__ import annotations

import json
import socket
import threading
import unicodedata
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, quote, unquote, urlsplit

from bot.demo.sparql import Oxigraph, start_oxigraph
from bot.errors import ConfigError

DATA = Path(__file__).resolve().parent / "data"
DEMO_ITEM = "Q990201"
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
    site: str
    path: str
    query: dict[str, list[str]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fold(text: str) -> str:
    """Lower case without accents, for the search engine's keyword match."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


@dataclass
class DemoWorld:
    """Start with :meth:`start` (or as a context manager); ``options()`` points refbot at it."""

    data: Path = DATA
    workdir: Path | None = None
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ports: dict[str, int] = {}
        self._servers: list[ThreadingHTTPServer] = []
        self._oxigraph: Oxigraph | None = None
        self._lock = threading.Lock()

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
        for site in [*SERVICES, *sites]:
            server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(site))
            server.daemon_threads = True
            self.ports[site] = server.server_address[1]
            self._servers.append(server)
            threading.Thread(target=server.serve_forever, name=f"demo-{site}", daemon=True).start()
        self._start_sparql()
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()
        if self._oxigraph is not None:
            self._oxigraph.stop()
            self._oxigraph = None

    def _start_sparql(self) -> None:
        import tempfile

        store = Path(tempfile.mkdtemp(prefix="refbot-demo-store-", dir=self.workdir))
        self._oxigraph = start_oxigraph(self.data / "world.ttl", store, free_port())

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
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                with world._lock:
                    world.requests.append(Recorded(site, unquote(parts.path), query))
                reply = world.answer(site, unquote(parts.path), query, parts.path)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *_: Any) -> None:
                pass

        return Handler

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "") -> Reply:
        routes: dict[str, Callable[[str, dict[str, list[str]], str], Reply]] = {
            "wikidata": self._wikidata, "wikipedia": self._wikipedia, "archive": self._archive,
            "search": self._search}
        if path == "/robots.txt":
            return Reply(200, b"User-agent: *\nAllow: /\n", "text/plain; charset=utf-8")
        if site in routes:
            return routes[site](path, query, raw_path)
        return self._file(self.data / "sites" / site, path)

    def _file(self, root: Path, path: str) -> Reply:
        target = (root / path.lstrip("/")).resolve()
        if root.resolve() not in target.parents or not target.is_file():
            return Reply(404, b"<!doctype html><title>Not found</title><h1>404 Not Found</h1>")
        kind = {".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
                ".pdf": "application/pdf"}.get(target.suffix, "application/octet-stream")
        body = target.read_bytes()
        if kind.startswith("text/"):
            body = self.placed(body.decode("utf-8")).encode("utf-8")
        return Reply(200, body, kind)

    def _wikidata(self, path: str, query: dict[str, list[str]], _raw: str) -> Reply:
        entities = self._json("entities.json")
        if path == "/w/api.php" and query.get("action") == ["wbgetentities"]:
            answer: dict[str, Any] = {"entities": {}}
            wiki = (query.get("sitefilter") or ["enwiki"])[0]
            for item in (query.get("ids") or [""])[0].split("|"):
                entity = entities.get(item)
                if entity is None:
                    answer["entities"][item] = {"id": item, "missing": ""}
                    continue
                links = {}
                for name, link in (entity.get("sitelinks") or {}).items():
                    if name == wiki:
                        title = link["title"]
                        links[name] = {**link, "url": f"{self.base('wikipedia')}/wiki/{quote(title.replace(' ', '_'))}"}
                answer["entities"][item] = {"id": item, "lastrevid": entity.get("lastrevid"), "sitelinks": links}
            return Reply(200, json.dumps(answer).encode(), "application/json; charset=utf-8")
        if path == "/w/api.php" and query.get("action") == ["wbgetclaims"]:
            item = (query.get("entity") or [""])[0]
            if item not in entities:
                return Reply(200, json.dumps({"error": {"code": "no-such-entity", "info": f"Could not find an entity "
                                                        f"with the ID \"{item}\"."}}).encode(), "application/json")
            wanted = (query.get("property") or [""])[0]
            claims = {pid: values for pid, values in (entities[item].get("claims") or {}).items()
                      if not wanted or pid == wanted}
            return Reply(200, json.dumps({"claims": claims}).encode(), "application/json; charset=utf-8")
        if path.startswith("/wiki/") or path == "/w/index.php":
            item = path.rsplit("/", 1)[-1] if path.startswith("/wiki/") else (query.get("title") or [""])[0]
            if item in entities:
                page = f"<!doctype html><title>{item} (refbot demo world)</title><h1>{item}</h1>" \
                       "<p>An invented item of refbot's offline demo world.</p>"
                return Reply(200, page.encode())
        return Reply(404, b"<!doctype html><title>Not found</title>")

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
            found = next((s for s in snapshots if s["url"] == url), None)
            closest = {"closest": {"available": True, "status": "200", "timestamp": found["timestamp"],
                                   "url": f"{self.base('archive')}/web/{found['timestamp']}/{url}"}} if found else {}
            return Reply(200, json.dumps({"url": url, "archived_snapshots": closest}).encode(), "application/json")
        if path == "/cdx/search/cdx":
            url = (query.get("url") or [""])[0]
            rows = [["timestamp", "statuscode"]] + [[s["timestamp"], "200"] for s in snapshots if s["url"] == url]
            return Reply(200, json.dumps(rows).encode(), "application/json")
        if path.startswith("/web/"):
            # /web/<timestamp>[id_]/<original URL>; the original keeps its own encoding.
            rest = raw_path[len("/web/"):] if raw_path else path[len("/web/"):]
            stamp, _, original = rest.partition("/")
            stamp = stamp.removesuffix("id_")
            found = next((s for s in snapshots if s["timestamp"] == stamp and s["url"] == unquote(original)), None)
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
