"""An authority record's bytes read into triples within bounds, and with nothing loaded from anywhere.

A record is whatever a database (or whoever answers at its address) sends, and rdflib reads it with no bound of its
own: its RDF/XML reader joins a long literal's pieces quadratically, an entity declared in a DTD expands without
limit, a dump of a million triples is read whole before anyone can count them, and its JSON-LD reader fetches any
context a record names (a scoped context, an ``@import``, a ``file:`` URL) with its own HTTP client, past refbot's
address guard, robots, politeness and time limit. So:

- the parse runs in a worker process (a pebble pool of one, started from a fork server) with an address-space cap
  and a wall-clock budget per record; the worker is killed when a record spends the budget;
- triples are counted as the parser emits them (a store that refuses the one past the cap), not after;
- every JSON-LD context, at any depth (top level, in any node, property- and type-scoped, lists, ``@import``, in
  remote contexts themselves), is resolved from documents the caller fetched through its guarded fetcher: the worker
  answers with the URLs it still needs, the caller fetches them and asks again. A context reference left after
  resolving is refused, and in the worker rdflib's own loader refuses everything.

:func:`parse_or_refuse` is what the worker runs (pure: bytes in, triples or a reason out); :class:`BoundedParser`
runs it within the bounds.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from bot.errors import InternalError
from bot.faults import Fault, blames_the_page, fault_of, first_line

FORMAT_NAMES = {"turtle": "Turtle", "xml": "RDF/XML", "json-ld": "JSON-LD", "nt": "N-Triples"}
CONTEXT, IMPORT = "@context", "@import"

# A known-good record in each format: a parser that cannot read it is broken, whatever the record it failed on.
SAMPLES = {
    "turtle": b'<https://example.org/r> <http://schema.org/birthDate> "1968-02-11" .',
    "nt": b'<https://example.org/r> <http://schema.org/birthDate> "1968-02-11" .',
    "xml": (b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            b'xmlns:s="http://schema.org/"><rdf:Description rdf:about="https://example.org/r">'
            b'<s:birthDate>1968-02-11</s:birthDate></rdf:Description></rdf:RDF>'),
    "json-ld": b'{"@id": "https://example.org/r", "http://schema.org/birthDate": "1968-02-11"}',
}


@dataclass(frozen=True)
class ParseBounds:
    """What one record may cost: ``seconds`` of wall clock, ``memory_mb`` of address space beyond what
    the worker holds before parsing, ``max_triples`` (a record with more is a dump), ``max_contexts`` remote JSON-LD
    contexts."""

    seconds: float = 5.0
    memory_mb: int = 384
    max_triples: int = 20_000
    max_contexts: int = 4


@dataclass(frozen=True)
class Parsed:
    triples: tuple[tuple[Any, Any, Any], ...] = field(repr=False)


@dataclass(frozen=True)
class NeedContexts:
    """The remote JSON-LD contexts (absolute URLs) the record names that the caller has not given yet."""

    urls: tuple[str, ...]


@dataclass(frozen=True)
class Refused:
    """The record is not read, and why (its own fault: malformed, too large, too slow, a context that cannot be
    had)."""

    reason: str


@dataclass(frozen=True)
class Broken:
    """The parser failed on refbot's own sample too, or refbot's code failed: refbot's fault, not the record's."""

    fault: Fault


Outcome = Parsed | NeedContexts | Refused | Broken


class RecordError(Exception):
    """A record refbot will not read; becomes :class:`Refused`."""


class TooManyTriples(RecordError):
    pass


# -- what the worker runs --------------------------------------------------------------------------------------

def parse_or_refuse(body: bytes, kind: str, base: str, contexts: Mapping[str, bytes] | None = None,
                    max_triples: int = 20_000) -> Outcome:
    """``contexts``: remote JSON-LD context documents by absolute URL, as fetched. Never raises for what the
    record holds."""
    try:
        if kind == "json-ld":
            data, missing = resolve_contexts(_json(body, "the record"), base, contexts or {})
            if missing:
                return NeedContexts(tuple(sorted(missing)))
            return Parsed(tuple(_parse_json_ld(data, base, max_triples)))
        return Parsed(tuple(_parse(body, kind, base, max_triples)))
    except RecordError as error:
        return Refused(str(error))
    except RecursionError:
        return Refused("nested too deeply to read")
    except MemoryError:
        return Refused("needs more memory to read than a record may take")
    except Exception as error:  # what the parser says of a broken record is the record's outcome…
        if blames_the_page(error, lambda: parser_works(kind)):
            message = first_line(error)[:200]
            return Refused(f"not readable as {FORMAT_NAMES.get(kind, kind)}: {type(error).__name__}"
                           + (f": {message}" if message else ""))
        return Broken(fault_of(error))  # …unless the parser fails on refbot's own sample too, or refbot's code did


def parser_works(kind: str) -> bool:
    """Whether rdflib, in this process, still reads refbot's own sample in ``kind`` (one triple)."""
    try:
        if kind == "json-ld":
            return len(_parse_json_ld(json.loads(SAMPLES[kind]), "https://example.org/r", 10)) == 1
        return len(_parse(SAMPLES[kind], kind, "https://example.org/r", 10)) == 1
    except Exception:  # any failure on the sample is the parser's
        return False


def resolve_contexts(data: Any, base: str, documents: Mapping[str, bytes]) -> tuple[Any, set[str]]:
    """``data`` with every context reference replaced by the context it names, from ``documents``; and the URLs
    named that ``documents`` lacks (then the result is incomplete). A remote context's own references resolve
    against its URL; its ``@base`` is dropped, as JSON-LD ignores it."""
    missing: set[str] = set()
    loaded: dict[str, Any] = {}  # each remote context resolved once, shared wherever it is named

    def remote(url: str, chain: frozenset[str]) -> Any:
        if url in chain:
            raise RecordError(f"its JSON-LD context {url} includes itself")
        if url in loaded:
            return loaded[url]
        if url not in documents:
            missing.add(url)
            return {}
        document = _json(documents[url], f"its JSON-LD context {url}")
        if not isinstance(document, dict) or CONTEXT not in document:
            raise RecordError(f"its JSON-LD context {url} is not a JSON-LD context")
        loaded[url] = context(document[CONTEXT], url, chain | {url}, in_remote=True)
        return loaded[url]

    def context(value: Any, at: str, chain: frozenset[str], in_remote: bool = False) -> Any:
        if isinstance(value, str):
            return remote(urljoin(at, value), chain)
        if isinstance(value, list):
            return [context(part, at, chain, in_remote) for part in value]
        if not isinstance(value, dict):
            return value  # null resets the context
        merged: dict[str, Any] = {}
        if IMPORT in value:
            if not isinstance(value[IMPORT], str):
                raise RecordError("its JSON-LD context has an @import that is not a URL")
            imported = remote(urljoin(at, value[IMPORT]), chain)
            if not isinstance(imported, dict):
                raise RecordError(f"its JSON-LD context imports {value[IMPORT]}, which is not a single context")
            merged.update(imported)
        for key, term in value.items():
            if key == IMPORT or (in_remote and key == "@base"):
                continue
            merged[key] = {**term, CONTEXT: context(term[CONTEXT], at, chain)} \
                if isinstance(term, dict) and CONTEXT in term else term
        return merged

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: context(value, base, frozenset()) if key == CONTEXT else walk(value)
                    for key, value in node.items()}
        if isinstance(node, list):
            return [walk(part) for part in node]
        return node

    resolved = walk(data)
    if not missing and _references(resolved):
        raise RecordError("its JSON-LD names a context refbot could not resolve")  # never loaded by rdflib
    return resolved, missing


def _references(node: Any, in_context: bool = False) -> bool:
    """Whether a context reference (a URL where a context stands, an ``@import``) is left anywhere."""
    if isinstance(node, str):
        return in_context
    if isinstance(node, list):
        return any(_references(part, in_context) for part in node)
    if isinstance(node, dict):
        if in_context and IMPORT in node:
            return True
        return any(_references(value, key == CONTEXT) for key, value in node.items())
    return False


def _json(body: bytes, what: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"{what} is not readable as JSON-LD: {first_line(error)[:200]}") from None


def _capped_graph(max_triples: int) -> Any:
    import rdflib
    from rdflib.plugins.stores.memory import Memory

    class Capped(Memory):
        """Stops the parser at the triple past the cap, as it is emitted."""

        def add(self, triple: Any, context: Any, quoted: bool = False) -> None:
            super().add(triple, context, quoted)
            if self.__len__() > max_triples:
                raise TooManyTriples(f"more than a record's {max_triples:,} triples")

    return rdflib.Graph(store=Capped())


def _parse(body: bytes, kind: str, base: str, max_triples: int) -> list[tuple[Any, Any, Any]]:
    graph = _capped_graph(max_triples)
    graph.parse(data=body, format=kind, publicID=base)
    return list(graph)


def _parse_json_ld(data: Any, base: str, max_triples: int) -> list[tuple[Any, Any, Any]]:
    from rdflib.parser import PythonInputSource

    graph = _capped_graph(max_triples)
    graph.parse(source=PythonInputSource(data, base), format="json-ld", base=base)
    return list(graph)


def _refuse_loading(url: Any, *args: Any, **kwargs: Any) -> Any:
    raise RecordError(f"a JSON-LD context was to be loaded by the parser itself ({url}); refbot loads none")


def _prepare_worker(memory_mb: int) -> None:
    """A parse worker's start: its address space capped, rdflib's own loader replaced by a refusal (nothing else
    runs in this process)."""
    _cap_memory(memory_mb)
    from rdflib.plugins.shared.jsonld import context

    # the only way rdflib's JSON-LD reader reaches the outside
    context.source_to_json = _refuse_loading  # type: ignore[assignment]


def _cap_memory(memory_mb: int) -> None:
    try:
        import resource

        with open("/proc/self/statm") as statm:
            held = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return  # no address-space limit here (not Linux): the wall clock still bounds the parse
    limit = held + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


# -- the caller's side -----------------------------------------------------------------------------------------

class BoundedParser:
    """Runs :func:`parse_or_refuse` in a worker process within ``bounds``: a record that takes longer than
    ``bounds.seconds`` has its worker killed (the next record gets a new one). Thread-safe; records are parsed one at
    a time. The worker starts on the first record (from a fork server preloaded with rdflib) and is stopped by
    :meth:`close` or when the parser is collected."""

    def __init__(self, bounds: ParseBounds = ParseBounds()) -> None:
        self.bounds = bounds
        self._pool: Any = None
        self._guard = threading.Lock()

    def __call__(self, body: bytes, kind: str, base: str, contexts: Mapping[str, bytes]) -> Outcome:
        from concurrent.futures import TimeoutError as Timeout

        from pebble import ProcessExpired

        future = self._worker().schedule(parse_or_refuse, args=(body, kind, base, dict(contexts),
                                                                self.bounds.max_triples),
                                         timeout=self.bounds.seconds)
        try:
            return future.result()
        except Timeout:
            return Refused(f"reading it took more than {self.bounds.seconds:g} s (stopped)")
        except ProcessExpired as error:
            if error.exitcode is not None and error.exitcode < 0:  # a signal: refbot's parser crashed, not the record
                try:
                    name = signal.Signals(-error.exitcode).name
                except ValueError:
                    name = f"signal {-error.exitcode}"
                raise InternalError(f"refbot's record parser (rdflib, a process of its own) died by {name} while "
                                    f"reading a {kind} record", component="authority records",
                                    hint="run `refbot doctor`; if it says refbot can work, report this with the "
                                         "record's address") from None
            return Refused(f"its parser's process ended abnormally (exit code {error.exitcode}) while reading it")

    def _worker(self) -> Any:
        with self._guard:
            if self._pool is None:
                from pebble import ProcessPool

                self._pool = ProcessPool(max_workers=1, initializer=_prepare_worker,
                                         initargs=(self.bounds.memory_mb,), context=_context())
                self._finalizer = weakref.finalize(self, self._pool.stop)
            return self._pool

    def close(self) -> None:
        with self._guard:
            if self._pool is not None:
                self._finalizer()
                self._pool = None


@functools.cache
def _context() -> Any:
    """The multiprocessing context: a fork server preloaded with rdflib (``fork`` would copy a process that may
    hold a model and threads)."""
    import multiprocessing

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(["rdflib", "rdflib.plugins.parsers.notation3", "rdflib.plugins.parsers.rdfxml",
                                        "rdflib.plugins.parsers.jsonld", __name__])
    return context
