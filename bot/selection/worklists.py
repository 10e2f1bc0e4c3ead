"""Where the items to check come from: a property's worklist, a SPARQL query, or a list of QIDs."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.datamodel import QID_PATTERN, parse_entity_id
from bot.errors import InputError, QueryError
from bot.selection.binding import Query, bind, entity_id, load_query
from bot.selection.endpoint import SparqlEndpoint


@dataclass(frozen=True)
class WorklistEntry:
    item: str
    unsourced: int


def worklist(endpoint: SparqlEndpoint, property_id: str, ignored_reference_properties: Sequence[str],
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
