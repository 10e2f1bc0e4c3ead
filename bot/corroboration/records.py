"""An authority record read as RDF: fetched through refbot's guarded, polite, cached fetcher with content
negotiation (Turtle, RDF/XML, JSON-LD, N-Triples), parsed with rdflib within bounds (``bot.corroboration.parsing``).

Nothing here reaches the network but the fetcher: the remote JSON-LD contexts a record names, at any depth, are
fetched through it too, and rdflib loads nothing itself. A record that cannot be had or read is a :class:`Record`
with ``error`` set: what the database did is its outcome, never an exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from bot.corroboration.parsing import (FORMAT_NAMES, BoundedParser, Broken, NeedContexts, Outcome, ParseBounds,
                                       Parsed, Refused)
from bot.documents.fetching import Fetched, Fetcher
from bot.documents.fetching import Outcome as FetchOutcome
from bot.errors import InternalError

ACCEPT = ("text/turtle, application/rdf+xml;q=0.9, application/ld+json;q=0.8, application/n-triples;q=0.7, "
          "application/json;q=0.5, application/xml;q=0.4")
CONTEXT_ACCEPT = "application/ld+json, application/json;q=0.9"
CONTEXT_TYPES = ("application/ld+json", "application/json", "text/plain")
FORMATS = {"text/turtle": "turtle", "application/x-turtle": "turtle", "text/n3": "turtle",
           "application/rdf+xml": "xml", "application/xml": "xml", "text/xml": "xml",
           "application/ld+json": "json-ld", "application/json": "json-ld",
           "application/n-triples": "nt", "text/plain": "nt"}
READABLE = tuple(FORMATS)
# A record's parse: (body, format, base URL, remote contexts fetched so far) → its outcome.
Parser = Callable[[bytes, str, str, Mapping[str, bytes]], Outcome]


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


def read_record(fetcher: Fetcher, url: str, contexts: MutableMapping[str, bytes] | None = None,
                parser: Parser | None = None, bounds: ParseBounds = ParseBounds()) -> Record:
    """``contexts``: remote JSON-LD context documents already fetched (URL → body), shared by the records of a
    run; ``parser`` parses within ``bounds`` (a :class:`BoundedParser` by default). InternalError when the parser
    fails on refbot's own sample too: then the install is broken, not the record."""
    started = time.monotonic()
    fetched = fetcher.fetch(url, accept=ACCEPT, readable=READABLE)
    if not fetched.ok:
        return _failed(fetched, f"{fetched.outcome.value}: {fetched.reason}", started)
    kind = FORMATS.get(fetched.content_type) or sniff_format(fetched.content, fetched.final_url or url)
    parse = parser or BoundedParser(bounds)
    known = contexts if contexts is not None else {}
    asked: set[str] = set()
    while True:
        outcome = parse(fetched.content, kind, fetched.final_url or url, known)
        if not isinstance(outcome, NeedContexts):
            break
        for context in outcome.urls:
            if len(asked) >= bounds.max_contexts:
                return _failed(fetched, f"it names more than {bounds.max_contexts} remote JSON-LD contexts",
                               started, kind)
            asked.add(context)
            if context not in known:
                answer = fetcher.fetch(context, accept=CONTEXT_ACCEPT, readable=CONTEXT_TYPES)
                if not answer.ok:
                    return _failed(fetched, f"its JSON-LD context {context} could not be read "
                                            f"({answer.outcome.value}: {answer.reason})", started, kind)
                known[context] = answer.content
    if isinstance(outcome, Broken):
        raise InternalError(f"rdflib could not read refbot's own {FORMAT_NAMES.get(kind, kind)} sample either: "
                            f"{outcome.fault}", component="authority records",
                            hint="run `refbot doctor`, then reinstall: scripts/setup")
    if isinstance(outcome, Refused):
        return _failed(fetched, outcome.reason, started, kind)
    assert isinstance(outcome, Parsed)
    return Record(url, fetched.final_url or url, kind, _graph(outcome.triples), status=fetched.status,
                  retrieved=fetched.retrieved, elapsed_s=round(time.monotonic() - started, 3),
                  redirects=fetched.redirects, sha256=fetched.sha256)


def _graph(triples: tuple[tuple[Any, Any, Any], ...]) -> Any:
    import rdflib

    graph = rdflib.Graph()
    for triple in triples:
        graph.add(triple)
    return graph


def _failed(fetched: Fetched, why: str, started: float, kind: str = "") -> Record:
    return Record(fetched.url, fetched.final_url or fetched.url, kind, None, why, fetched.status, fetched.retrieved,
                  round(time.monotonic() - started, 3), fetched.redirects,
                  fetched.sha256 if fetched.outcome is FetchOutcome.OK else "")
