"""Where the items to check come from: a property's worklist, a SPARQL query, or a list of QIDs.

A :class:`Worklist` names them one of those ways (with the properties to keep and a cap); ``select`` lists its
statements that need a reference, a batch of items at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.datamodel import QID_PATTERN, parse_entity_id
from bot.errors import InputError, QueryError
from bot.selection.binding import Query, bind, entity_id, load_query, read_query_file
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import Selection, SelectionRules, unsourced_statements


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
        """One item a line, as PagePile exports (``-``: standard input, read once here)."""
        return cls(f"items {path}", tuple(read_item_list(path)), properties=_properties(properties), limit=limit)

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
        if self.items:
            return f"{self.source}: " + ",".join(self.items)
        return self.source + (f" on {self.domain}" if self.domain else "")

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
    ``after`` on, so a long worklist starts being checked before it is read to its end."""
    properties = list(worklist.properties) or None
    if not worklist.worklist_property:
        items = list(worklist.items) if worklist.query is None else items_from_query(endpoint, worklist.query)
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


def read_item_list(path: Path) -> list[str]:
    """One item a line (as PagePile exports): Q42, wd:Q42 or a Wikidata URL; blank lines and # comments ignored."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if str(path) != "-" else _stdin_lines()
    except OSError as error:
        raise InputError(f"cannot read the item list: {error.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise InputError("the item list is not UTF-8 text", path=str(path)) from None
    items = []
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            items.append(parse_entity_id(text))
        except ValueError as error:
            raise InputError(str(error), path=str(path), line=number,
                             hint="write one item id (Q42) a line") from None
    if not items:
        raise InputError("the item list has no items", path=str(path), hint="write one item id (Q42) a line")
    return list(dict.fromkeys(items))


def _stdin_lines() -> list[str]:
    return sys.stdin.read().splitlines()
