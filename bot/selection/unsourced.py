"""The statements that need a reference: ``unsourced-statements.rq`` for a batch of items, values rendered
and entities labelled; a value that cannot be looked for (unknown or no value) is skipped with its reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.datamodel import Rank, Statement
from bot.selection.binding import bind, entity_id, entity_order, load_query
from bot.selection.endpoint import Row, SparqlEndpoint
from bot.selection.terms import fetch_terms
from bot.selection.values import ValueSkipped, datatype_of, entities_to_label, render_value

ITEMS_PER_QUERY = 50
STATEMENT_PREFIX = "http://www.wikidata.org/entity/statement/"
RANKS = {"http://wikiba.se/ontology#PreferredRank": Rank.PREFERRED,
         "http://wikiba.se/ontology#NormalRank": Rank.NORMAL,
         "http://wikiba.se/ontology#DeprecatedRank": Rank.DEPRECATED}


@dataclass(frozen=True)
class Skipped:
    """A selected statement refbot will not check, and why."""

    item: str
    guid: str
    property_id: str
    reason: str


@dataclass(frozen=True)
class Selection:
    statements: tuple[Statement, ...]
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class SelectionRules:
    """What counts as unsourced and how to label it (from the options)."""

    languages: tuple[str, ...] = ("en", "mul")
    ignored_reference_properties: tuple[str, ...] = ("P143", "P4656", "P813")


def guid_of(statement_iri: str) -> str:
    """``…/entity/statement/Q42-F078E5B3-…`` → ``Q42$F078E5B3-…``, the GUID the Wikidata API uses."""
    local = statement_iri[len(STATEMENT_PREFIX):] if statement_iri.startswith(STATEMENT_PREFIX) else statement_iri
    entity, _, rest = local.partition("-")
    return f"{entity}${rest}" if rest else local


def build_selection(rows: Sequence[Row], terms: dict, item_order: Sequence[str] = ()) -> Selection:
    """Pure: rows of unsourced-statements.rq and looked-up terms → statements in item, property, GUID order."""
    statements, skipped = [], []
    for row in rows:
        item, property_id = entity_id(row["item"].value), entity_id(row["property"].value)
        guid = guid_of(row["statement"].value)
        try:
            value = render_value(row, datatype_of(row["propertyType"].value), terms)
        except ValueSkipped as why:
            skipped.append(Skipped(item, guid, property_id, str(why)))
            continue
        item_terms, property_terms = terms.get(item), terms.get(property_id)
        statements.append(Statement(
            item=item, item_label=item_terms.label if item_terms else item, guid=guid, property_id=property_id,
            property_label=property_terms.label if property_terms else property_id, value=value,
            rank=RANKS.get(row["rank"].value, Rank.NORMAL),
            property_description=property_terms.description if property_terms else "",
            item_aliases=item_terms.aliases if item_terms else ()))
    position = {item: index for index, item in enumerate(item_order)}

    def key(entry):
        return position.get(entry.item, len(position)), entity_order(entry.item), entity_order(entry.property_id), \
            entry.guid
    return Selection(tuple(sorted(statements, key=key)), tuple(sorted(skipped, key=key)))


def unsourced_statements(endpoint: SparqlEndpoint, items: Sequence[str], rules: SelectionRules,
                         properties: Sequence[str] | None = None) -> Iterator[Selection]:
    """One Selection per batch of items, in the order the items were given."""
    query = load_query("unsourced-statements")
    items = list(dict.fromkeys(items))
    properties = list(dict.fromkeys(properties)) if properties is not None else None
    for start in range(0, len(items), ITEMS_PER_QUERY):
        batch = items[start:start + ITEMS_PER_QUERY]
        rows = endpoint.select(bind(query, item=batch, property=properties,
                                    referenceProperty=rules.ignored_reference_properties))
        wanted = set().union(*(entities_to_label(row) for row in rows)) if rows else set()
        terms = fetch_terms(endpoint, wanted, rules.languages) if wanted else {}
        yield build_selection(rows, terms, batch)
