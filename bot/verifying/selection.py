"""The statements of a worklist's items that cite a page, with their citations: ``referenced-statements.rq`` for
the statements (values rendered and labelled as for `refbot check`), ``statement-references.rq`` for the
references, and ``statement-qualifiers.rq`` for the qualifiers — three queries per batch of items.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.datamodel import Statement
from bot.selection.binding import bind, entity_id, entity_order, load_query
from bot.selection.endpoint import Row, SparqlEndpoint
from bot.selection.terms import fetch_terms
from bot.selection.unsourced import (Selection, SelectionRules, build_qualifiers, build_selection, guid_of,
                                     item_batches, qualifier_entities)
from bot.selection.values import entities_to_label
from bot.selection.worklists import Worklist, items_from_query
from bot.verifying.citations import Citation, build_citations


@dataclass(frozen=True)
class Cited:
    """A statement and the references of it that name a page."""

    statement: Statement
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class CitedSelection:
    cited: tuple[Cited, ...]
    selection: Selection  # the statements as selected, and those skipped with why

    @property
    def citations(self) -> int:
        return sum(len(entry.citations) for entry in self.cited)


def referenced_statements(endpoint: SparqlEndpoint, items: Iterable[str], rules: SelectionRules,
                          properties: Sequence[str] | None = None) -> Iterator[CitedSelection]:
    """One selection per batch of items, in the order the items were given (drawn a batch at a time); statements in
    item, property, GUID order, each with its citations in reference-hash order."""
    query, references = load_query("referenced-statements"), load_query("statement-references")
    qualifier_query = load_query("statement-qualifiers")
    properties = list(dict.fromkeys(properties)) if properties is not None else None
    for batch in item_batches(items):
        rows = endpoint.select(bind(query, item=batch, property=properties))
        citation_rows: list[Row] = []
        qualifier_rows: list[Row] = []
        if rows:
            selected = [item for item in batch if item in {entity_id(row["item"].value) for row in rows}]
            chosen = sorted({entity_id(row["property"].value) for row in rows}, key=entity_order)
            citation_rows = endpoint.select(bind(references, item=selected, property=chosen))
            qualifier_rows = endpoint.select(bind(qualifier_query, item=selected, property=chosen))
        wanted = set().union(*(entities_to_label(row) for row in rows),
                             *(qualifier_entities(row) for row in qualifier_rows))
        terms = fetch_terms(endpoint, wanted, rules.languages) if wanted else {}
        selection = build_selection(rows, terms, batch, build_qualifiers(qualifier_rows, terms))
        citations = build_citations(citation_rows, guid_of)
        yield CitedSelection(tuple(Cited(statement, citations[statement.guid]) for statement in selection.statements
                                   if citations.get(statement.guid)), selection)


def select_cited(endpoint: SparqlEndpoint, worklist: Worklist, rules: SelectionRules, *, page_size: int = 100,
                 after: str | None = None) -> Iterator[CitedSelection]:
    """The worklist's statements that cite a page, a batch of items at a time: the items named, those a query
    returns, or — for a property's worklist — the items with references of that property to a page (on
    ``worklist.domain`` only, when given), read a page of ``page_size`` items at a time from ``after`` on."""
    properties = list(worklist.properties) or None
    if not worklist.worklist_property:
        items = worklist.named() if worklist.query is None else items_from_query(endpoint, worklist.query)
        yield from referenced_statements(endpoint, items, rules, properties)
        return
    query = load_query("referenced-worklist")
    properties = properties or [worklist.worklist_property]
    while True:
        page = endpoint.select(bind(query, property=[worklist.worklist_property], after=[after] if after else None,
                                    domain=[worklist.domain] if worklist.domain else None, limit=page_size))
        items = [entity_id(row["item"].value) for row in page]
        if items:
            yield from (_on_domain(selection, worklist.domain)
                        for selection in referenced_statements(endpoint, items, rules, properties))
        if len(page) < page_size:
            return
        after = items[-1]


def _on_domain(selection: CitedSelection, domain: str) -> CitedSelection:
    """Only the citations of pages on ``domain`` (the worklist asked for that site's references)."""
    if not domain:
        return selection
    kept = [Cited(entry.statement, tuple(c for c in entry.citations if on_domain(c.url, domain)))
            for entry in selection.cited]
    return CitedSelection(tuple(entry for entry in kept if entry.citations), selection.selection)


def on_domain(url: str, domain: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    domain = domain.lower()
    return host == domain or host.endswith("." + domain)
