"""An authority record read as RDF: fetched through refbot's guarded, polite, cached fetcher with content
negotiation (Turtle, RDF/XML, JSON-LD, N-Triples), parsed with rdflib.

Nothing here reaches the network but the fetcher: a JSON-LD record's remote ``@context`` is fetched through it too
(then inlined), never by rdflib itself. A record that cannot be had or read is a :class:`Record` with ``error`` set:
what the database did is its outcome, never an exception.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from bot.documents.fetching import Fetched, Fetcher, Outcome
from bot.faults import blames_the_page

ACCEPT = ("text/turtle, application/rdf+xml;q=0.9, application/ld+json;q=0.8, application/n-triples;q=0.7, "
          "application/json;q=0.5, application/xml;q=0.4")
FORMATS = {"text/turtle": "turtle", "application/x-turtle": "turtle", "text/n3": "turtle",
           "application/rdf+xml": "xml", "application/xml": "xml", "text/xml": "xml",
           "application/ld+json": "json-ld", "application/json": "json-ld",
           "application/n-triples": "nt", "text/plain": "nt"}
READABLE = tuple(FORMATS)
# What people call each format in traces and benchmarks.
FORMAT_NAMES = {"turtle": "Turtle", "xml": "RDF/XML", "json-ld": "JSON-LD", "nt": "N-Triples"}
# A record with more triples than this is a dump, not a record: only its first triples would be read.
MAX_TRIPLES = 20_000
MAX_CONTEXTS = 4


@dataclass(frozen=True)
class Record:
    """``graph`` is an rdflib Graph, or None when ``error`` says why there is none."""

    url: str
    final_url: str = ""
    format: str = ""  # turtle, xml, json-ld, nt
    graph: Any = field(default=None, repr=False, compare=False)
    error: str = ""
    status: int | None = None
    retrieved: str = ""
    elapsed_s: float = 0.0
    redirects: tuple[str, ...] = ()
    sha256: str = ""

    @property
    def ok(self) -> bool:
        return self.graph is not None and not self.error

    @property
    def triples(self) -> int:
        return len(self.graph) if self.graph is not None else 0

    @property
    def format_name(self) -> str:
        return FORMAT_NAMES.get(self.format, self.format or "unknown")


def sniff_format(body: bytes, url: str) -> str:
    """The format of a body served without a usable content type: by its first character, else its suffix."""
    start = body.lstrip()[:1]
    if start in (b"{", b"["):
        return "json-ld"
    if start == b"<" and not body.lstrip().startswith(b"<http"):
        return "xml"
    path = url.split("?", 1)[0].lower()
    for suffix, kind in ((".ttl", "turtle"), (".rdf", "xml"), (".xml", "xml"), (".jsonld", "json-ld"),
                         (".json", "json-ld"), (".nt", "nt")):
        if path.endswith(suffix):
            return kind
    return "turtle"


def read_record(fetcher: Fetcher, url: str, contexts: dict[str, Any] | None = None) -> Record:
    """``contexts``: remote JSON-LD contexts already read (URL → context), shared by the records of a run."""
    started = time.monotonic()
    fetched = fetcher.fetch(url, accept=ACCEPT, readable=READABLE)
    if not fetched.ok:
        return _failed(fetched, f"{fetched.outcome.value}: {fetched.reason}", started)
    kind = FORMATS.get(fetched.content_type) or sniff_format(fetched.content, fetched.final_url or url)
    try:
        body = fetched.content
        if kind == "json-ld":
            body = inline_contexts(body, fetcher, contexts)
        graph = parse(body, kind, fetched.final_url or url)
    except RecordError as error:
        return _failed(fetched, str(error), started, kind)
    except Exception as error:  # what the parser says of a broken record is the record's outcome
        if not blames_the_page(error, lambda: parser_works(kind)):
            raise  # unless the parser fails on refbot's own sample too: then refbot's install is broken
        return _failed(fetched, f"not readable as {FORMAT_NAMES.get(kind, kind)}: {type(error).__name__}: "
                                f"{_first_line(error)}", started, kind)
    if len(graph) > MAX_TRIPLES:
        return _failed(fetched, f"{len(graph):,} triples: more than a record's {MAX_TRIPLES:,}", started, kind)
    return Record(url, fetched.final_url or url, kind, graph, status=fetched.status, retrieved=fetched.retrieved,
                  elapsed_s=round(time.monotonic() - started, 3), redirects=fetched.redirects,
                  sha256=fetched.sha256)


class RecordError(Exception):
    """A record refbot will not read (a remote context it cannot have); internal to this package."""


# A known-good record in each format: a parser that cannot read it is broken, whatever the record it failed on.
SAMPLES = {
    "turtle": b'<https://example.org/r> <http://schema.org/birthDate> "1968-02-11" .',
    "nt": b'<https://example.org/r> <http://schema.org/birthDate> "1968-02-11" .',
    "xml": (b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            b'xmlns:s="http://schema.org/"><rdf:Description rdf:about="https://example.org/r">'
            b'<s:birthDate>1968-02-11</s:birthDate></rdf:Description></rdf:RDF>'),
    "json-ld": b'{"@id": "https://example.org/r", "http://schema.org/birthDate": "1968-02-11"}',
}


def parser_works(kind: str) -> bool:
    """Whether rdflib still reads refbot's own sample in ``kind`` (one triple)."""
    try:
        return len(parse(SAMPLES[kind], kind, "https://example.org/r")) == 1
    except Exception:  # any failure on the sample is the parser's
        return False


def parse(body: bytes, kind: str, base: str) -> Any:
    import rdflib

    graph = rdflib.Graph()
    graph.parse(data=body, format=kind, publicID=base)
    return graph


def inline_contexts(body: bytes, fetcher: Fetcher, known: dict[str, Any] | None = None) -> bytes:
    """A JSON-LD body with each remote ``@context`` (a URL) replaced by the context it names, fetched through
    ``fetcher`` (rdflib would fetch it itself, past every guard) unless ``known`` has it (then kept there).
    RecordError when one cannot be had."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"not readable as JSON-LD: {error}") from None
    fetched: dict[str, Any] = known if known is not None else {}
    asked: set[str] = set()

    def resolve(context: Any) -> Any:
        if isinstance(context, list):
            return [resolve(part) for part in context]
        if not isinstance(context, str):
            return context
        if context not in fetched:
            asked.add(context)
            if len(asked) > MAX_CONTEXTS:
                raise RecordError(f"more than {MAX_CONTEXTS} remote JSON-LD contexts")
            answer = fetcher.fetch(context, accept="application/ld+json, application/json;q=0.9",
                                   readable=("application/ld+json", "application/json", "text/plain"))
            if not answer.ok:
                raise RecordError(f"its JSON-LD context {context} could not be read ({answer.outcome.value}: "
                                  f"{answer.reason})")
            try:
                inner = json.loads(answer.content).get("@context")
            except (ValueError, UnicodeDecodeError, AttributeError):
                raise RecordError(f"its JSON-LD context {context} is not a JSON-LD context") from None
            if inner is None or _remote(inner):
                raise RecordError(f"its JSON-LD context {context} is not a context refbot reads (none, or remote)")
            fetched[context] = inner
        return fetched[context]

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: resolve(value) if key == "@context" else walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(part) for part in node]
        return node

    return json.dumps(walk(data)).encode("utf-8")


def _remote(context: Any) -> bool:
    if isinstance(context, str):
        return True
    if isinstance(context, list):
        return any(_remote(part) for part in context)
    return False


def _failed(fetched: Fetched, why: str, started: float, kind: str = "") -> Record:
    return Record(fetched.url, fetched.final_url or fetched.url, kind, None, why, fetched.status, fetched.retrieved,
                  round(time.monotonic() - started, 3), fetched.redirects,
                  fetched.sha256 if fetched.outcome is Outcome.OK else "")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else ""
