"""Where the items to check come from: a property's worklist, a SPARQL query, or a list of QIDs.

A :class:`Worklist` names them one of those ways (with the properties to keep and a cap); ``select`` lists its
statements that need a reference, a batch of items at a time. A file of items (:class:`ItemFile`) is read as a
stream, as far as the run goes: a list of millions of items with ``--limit 1`` reads a few lines.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.datamodel import QID_PATTERN, parse_entity_id
from bot.errors import InputError, QueryError
from bot.selection.binding import Query, bind, entity_id, load_query, read_query_file
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import Selection, SelectionRules, unsourced_statements


@dataclass(frozen=True)
class ItemFile:
    """A list of items, one a line (as PagePile exports: Q42, wd:Q42 or a Wikidata URL; blank lines and # comments
    ignored), read a line at a time each time it is iterated, each item once. Standard input (``-``) is read once,
    when opened. ``digest``: the SHA-256 of its bytes, what makes two lists the same list (to resume a run)."""

    path: Path
    digest: str
    data: bytes | None = field(default=None, repr=False)

    @classmethod
    def open(cls, path: Path) -> ItemFile:
        """The list at ``path``; InputError when it cannot be read, or its lines up to the first item are not
        items, or it has none."""
        digest = hashlib.sha256()
        data = None
        try:
            if str(path) == "-":
                data = sys.stdin.read().encode("utf-8")
                digest.update(data)
            else:
                with open(path, "rb") as stream:
                    for chunk in iter(lambda: stream.read(1 << 20), b""):
                        digest.update(chunk)
        except OSError as error:
            raise InputError(f"cannot read the item list: {error.strerror}", path=str(path)) from None
        except UnicodeDecodeError:
            raise InputError("the item list is not UTF-8 text", path=str(path)) from None
        listed = cls(path, digest.hexdigest(), data)
        if next(iter(listed), None) is None:
            raise InputError("the item list has no items", path=str(path), hint="write one item id (Q42) a line")
        return listed

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for number, line in enumerate(self._lines(), start=1):
            try:
                text = line.decode("utf-8").split("#", 1)[0].strip()
            except UnicodeDecodeError:
                raise InputError("the item list is not UTF-8 text", path=str(self.path), line=number) from None
            if not text:
                continue
            try:
                item = parse_entity_id(text)
            except ValueError as error:
                raise InputError(str(error), path=str(self.path), line=number,
                                 hint="write one item id (Q42) a line") from None
            if item not in seen:
                seen.add(item)
                yield item

    def _lines(self) -> Iterator[bytes]:
        if self.data is not None:
            yield from self.data.splitlines()
            return
        try:
            with open(self.path, "rb") as stream:
                yield from stream
        except OSError as error:
            raise InputError(f"cannot read the item list: {error.strerror}", path=str(self.path)) from None


@dataclass(frozen=True)
class Worklist:
    """The statements a run or a listing covers: those of the named ``items``, of the items a ``query`` returns,
    or — with ``worklist_property`` — of the items with unsourced statements of that property, a page at a time.
    ``properties`` keeps only statements of these properties; ``limit`` caps how many one run checks. Built by
    the class methods, which validate what they are given."""

    source: str  # how the items are named, as a run's description shows it: "items list.txt", "query awards"
    items: tuple[str, ...] = ()
    query: Query | None = None
    worklist_property: str = ""
    properties: tuple[str, ...] = ()
    limit: int | None = None
    # `refbot verify --worklist PID --domain D`: only references to pages on this web domain.
    domain: str = ""
    item_file: ItemFile | None = None  # `--items FILE`: the items, read as far as the run goes

    @classmethod
    def of_items(cls, items: Sequence[str], *, properties: Sequence[str] = (), limit: int | None = None,
                 source: str = "items") -> Worklist:
        """Items given by id (``Q42``, ``wd:Q42`` or a Wikidata URL); InputError for anything else."""
        try:
            parsed = tuple(dict.fromkeys(parse_entity_id(item) for item in items))
        except ValueError as error:
            raise InputError(str(error), hint="give item ids such as Q36233") from None
        return cls(source, parsed, properties=_properties(properties), limit=limit)

    @classmethod
    def from_file(cls, path: Path, *, properties: Sequence[str] = (), limit: int | None = None) -> Worklist:
        """One item a line, as PagePile exports (``-``: standard input, read once here), read as a stream."""
        return cls(f"items {path}", item_file=ItemFile.open(path), properties=_properties(properties), limit=limit)

    @classmethod
    def from_query(cls, name_or_path: str, *, properties: Sequence[str] = (), limit: int | None = None) -> Worklist:
        """A query whose ``?item`` column names the items: a file (``….rq`` or a path) or a name in queries/."""
        named = not name_or_path.endswith(".rq") and "/" not in name_or_path
        query = load_query(name_or_path) if named else read_query_file(Path(name_or_path))
        return cls(f"query {name_or_path}", query=query, properties=_properties(properties), limit=limit)

    @classmethod
    def for_property(cls, property_id: str, *, properties: Sequence[str] = (),
                     limit: int | None = None) -> Worklist:
        """The items with unsourced statements of one property (the worklist query)."""
        try:
            pid = parse_entity_id(property_id, "property")
        except ValueError as error:
            raise InputError(str(error), hint="give a property id such as P166") from None
        return cls(f"worklist {pid}", worklist_property=pid, properties=_properties(properties), limit=limit)

    @property
    def identity(self) -> str:
        """What makes two worklists the same: the source with the items or the query's text (not the items a
        query or a property's worklist returns today, which change between the runs that resume it)."""
        if self.query is not None:
            return f"{self.source}: {self.query.text}"
        if self.item_file is not None:
            return f"{self.source}: sha256 {self.item_file.digest}"
        if self.items:
            return f"{self.source}: " + ",".join(self.items)
        return self.source + (f" on {self.domain}" if self.domain else "")

    def named(self) -> Iterable[str]:
        """The items named by id or in a file (a file's read as the caller goes)."""
        return self.item_file if self.item_file is not None else self.items

    @property
    def description(self) -> str:
        return self.source + (f" on {self.domain}" if self.domain else "") + \
            (f", limit {self.limit}" if self.limit else "")


def _properties(properties: Sequence[str]) -> tuple[str, ...]:
    try:
        return tuple(dict.fromkeys(parse_entity_id(pid, "property") for pid in properties))
    except ValueError as error:
        raise InputError(str(error), hint="give property ids such as P166") from None


def select(endpoint: SparqlEndpoint, worklist: Worklist, rules: SelectionRules, *, page_size: int = 100,
           after: str | None = None) -> Iterator[Selection]:
    """The worklist's statements that need a reference, one :class:`Selection` per batch of items, in the order
    the items are named. A property's worklist is read a page (``page_size`` items) at a time, from the item
    ``after`` on, and a file of items a batch at a time, so a long worklist starts being checked before it is read
    to its end (and is read no further than the caller goes)."""
    properties = list(worklist.properties) or None
    if not worklist.worklist_property:
        items = worklist.named() if worklist.query is None else items_from_query(endpoint, worklist.query)
        yield from unsourced_statements(endpoint, items, rules, properties)
        return
    pending: list[str] = []
    for entry in iter_worklist(endpoint, worklist.worklist_property, rules.ignored_reference_properties,
                               page_size, after):
        pending.append(entry.item)
        if len(pending) == page_size:
            yield from unsourced_statements(endpoint, pending, rules, properties)
            pending = []
    if pending:
        yield from unsourced_statements(endpoint, pending, rules, properties)


@dataclass(frozen=True)
class WorklistEntry:
    item: str
    unsourced: int


def iter_worklist(endpoint: SparqlEndpoint, property_id: str, ignored_reference_properties: Sequence[str],
                  page_size: int = 100, after: str | None = None) -> Iterator[WorklistEntry]:
    """Items with unsourced statements of one property, a page (one query) at a time, resumable from ``after``."""
    query = load_query("worklist")
    while True:
        page = endpoint.select(bind(query, property=[property_id], after=[after] if after else None,
                                    referenceProperty=ignored_reference_properties, limit=page_size))
        for row in page:
            yield WorklistEntry(entity_id(row["item"].value), int(row["statements"].value))
        if len(page) < page_size:
            return
        after = entity_id(page[-1]["item"].value)


def items_from_query(endpoint: SparqlEndpoint, query: Query) -> list[str]:
    """The distinct items of a user's query's ``?item`` column, in the order it returned them."""
    items: list[str] = []
    for number, row in enumerate(endpoint.select(query), start=1):
        term = row.get("item")
        item = entity_id(term.value) if term else ""
        if not QID_PATTERN.match(item):
            found = f"{term.value!r}" if term else "nothing"
            raise QueryError(f"result row {number} has {found} in ?item, not a Wikidata item", query=query.name,
                             endpoint=endpoint.url, hint="the query must SELECT ?item bound to items (wd:Q…)")
        items.append(item)
    return list(dict.fromkeys(items))
