"""Local stand-ins started by the tests on 127.0.0.1 only: an HTTP server that answers from a script and
records every request, and an Oxigraph SPARQL server loaded with Wikidata-shaped Turtle."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from bot.demo.sparql import Oxigraph, start_oxigraph  # noqa: F401 (the tests' SPARQL server is the demo's)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    started: float
    finished: float = 0.0

    @property
    def params(self) -> dict[str, list[str]]:
        """The query string's parameters, or a form body's."""
        query = urlsplit(self.path).query
        if self.method == "POST" and self.headers.get("Content-Type", "").startswith(
                "application/x-www-form-urlencoded"):
            query = self.body.decode()
        return parse_qs(query)


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # Send the body in chunks without a Content-Length (as servers streaming a large page do).
    chunked: bool = False
    # Seconds between 16-byte chunks: a body that trickles in (implies chunked).
    drip: float = 0.0


class RecordingServer:
    """``server.script`` maps each Recorded request to a Reply; ``server.requests`` lists what was asked."""

    def __init__(self, script: Callable[[Recorded], Reply], host: str = "127.0.0.1") -> None:
        self.script = script
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                record = Recorded(self.command, self.path, dict(self.headers.items()), self.rfile.read(length),
                                  time.monotonic())
                with outer._lock:
                    outer.requests.append(record)
                    outer.in_flight += 1
                    outer.most_in_flight = max(outer.most_in_flight, outer.in_flight)
                ended = []

                def end() -> None:
                    """The request ends when the last bytes of its answer go out: counted before they do, so that a
                    client's next request, sent once it has them, never finds this one still counted."""
                    if not ended:
                        ended.append(True)
                        record.finished = time.monotonic()
                        with outer._lock:
                            outer.in_flight -= 1

                try:
                    reply = outer.script(record)
                    if reply.delay:
                        time.sleep(reply.delay)
                    body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if reply.chunked or reply.drip:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        size = 16 if reply.drip else 16384
                        for start in range(0, len(body), size):
                            part = body[start:start + size]
                            self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                            self.wfile.flush()
                            time.sleep(reply.drip)
                        end()
                        self.wfile.write(b"0\r\n\r\n")
                        return
                    self.send_header("Content-Length", str(len(body)))
                    end()
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    end()

            do_GET = do_POST = _serve

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def sparql_json(rows: list[dict[str, dict]], variables: list[str] | None = None) -> Reply:
    import json

    names = variables or sorted({name for row in rows for name in row})
    return Reply(200, json.dumps({"head": {"vars": names}, "results": {"bindings": rows}}),
                 {"Content-Type": "application/sparql-results+json"})


def routed(routes: dict[str, Reply | Callable[[Recorded], Reply]]) -> Callable[[Recorded], Reply]:
    """A script answering by path (without the query string); unknown paths, robots.txt included, get a 404."""

    def script(request: Recorded) -> Reply:
        answer = routes.get(urlsplit(request.path).path, Reply(404, "<html><body><p>Not found</p></body></html>",
                                                               {"Content-Type": "text/html"}))
        return answer(request) if callable(answer) else answer
    return script


class CountingEndpoint:
    """A SPARQL endpoint that keeps the queries it is sent (``sent``), to assert how often a lookup asks."""

    def __init__(self, endpoint) -> None:
        self.endpoint = endpoint
        self.sent: list = []

    def select(self, query):
        self.sent.append(query)
        return self.endpoint.select(query)


def turtle_endpoint(tmp_path_factory, name: str, turtle: str):
    """A generator for a module fixture: an Oxigraph endpoint on 127.0.0.1 loaded with ``turtle``, yielded as refbot's
    ``SparqlEndpoint`` (no retries) and stopped after the module."""
    from bot.selection.endpoint import SparqlEndpoint
    from conftest import free_port

    folder = tmp_path_factory.mktemp(name)
    (folder / "world.ttl").write_text(turtle, encoding="utf-8")
    server = start_oxigraph(folder / "world.ttl", folder / "store", free_port())
    try:
        yield SparqlEndpoint(server.url, "refbot/test (ops@example.org)", timeout=10.0, retries=0)
    finally:
        server.stop()
