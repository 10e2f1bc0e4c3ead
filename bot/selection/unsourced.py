"""The statements that need a reference: ``unsourced-statements.rq`` for a batch of items, values rendered
and entities labelled; a value that cannot be looked for (unknown or no value) is skipped with its reason. Their
qualifiers come from ``statement-qualifiers.rq``, one more query for a batch that selected any statement, and are
labelled with the statements in one look-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.datamodel import Qualifier, Rank, Statement
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
    items: tuple[str, ...] = ()  # the items asked about, in order (with nothing selected too)


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


def qualifier_entities(row: Row) -> set[str]:
    """What a row of statement-qualifiers.rq needs labelled: the qualifier's property, an item value, a unit."""
    return entities_to_label({**{name: term for name, term in row.items() if name != "item"},
                              "property": row["qualifier"]})


def build_qualifiers(rows: Sequence[Row], terms: Mapping) -> dict[str, tuple[Qualifier, ...]]:
    """Pure: rows of statement-qualifiers.rq → each statement's qualifiers (by GUID), in property order, each value
    once; an unknown value is left out (there is nothing to show or compare)."""
    found: dict[str, dict[tuple[str, str], Qualifier]] = {}
    for row in rows:
        property_id = entity_id(row["qualifier"].value)
        try:
            value = render_value(row, datatype_of(row["propertyType"].value), terms)
        except ValueSkipped:
            continue
        labelled = terms.get(property_id)
        found.setdefault(guid_of(row["statement"].value), {}).setdefault(
            (property_id, value.raw), Qualifier(property_id, labelled.label if labelled else property_id, value))
    return {guid: tuple(sorted(qualifiers.values(), key=lambda q: (entity_order(q.property_id), q.value.raw)))
            for guid, qualifiers in found.items()}


def build_selection(rows: Sequence[Row], terms: Mapping, item_order: Sequence[str] = (),
                    qualifiers: Mapping[str, tuple[Qualifier, ...]] | None = None) -> Selection:
    """Pure: rows of unsourced-statements.rq, looked-up terms and the statements' qualifiers (by GUID) →
    statements in item, property, GUID order."""
    qualifiers = qualifiers or {}
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
            item_aliases=item_terms.aliases if item_terms else (), qualifiers=qualifiers.get(guid, ())))
    position = {item: index for index, item in enumerate(item_order)}

    def key(entry):
        return position.get(entry.item, len(position)), entity_order(entry.item), entity_order(entry.property_id), \
            entry.guid
    return Selection(tuple(sorted(statements, key=key)), tuple(sorted(skipped, key=key)), tuple(item_order))


def item_batches(items: Iterable[str]) -> Iterator[list[str]]:
    """The items, each once, ITEMS_PER_QUERY at a time, drawn from ``items`` only as each batch is due."""
    seen: set[str] = set()
    batch: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            batch.append(item)
            if len(batch) == ITEMS_PER_QUERY:
                yield batch
                batch = []
    if batch:
        yield batch


def unsourced_statements(endpoint: SparqlEndpoint, items: Iterable[str], rules: SelectionRules,
                         properties: Sequence[str] | None = None) -> Iterator[Selection]:
    """One Selection per batch of items, in the order the items were given (drawn from ``items`` a batch at a
    time)."""
    query, qualifier_query = load_query("unsourced-statements"), load_query("statement-qualifiers")
    properties = list(dict.fromkeys(properties)) if properties is not None else None
    for batch in item_batches(items):
        rows = endpoint.select(bind(query, item=batch, property=properties,
                                    referenceProperty=rules.ignored_reference_properties))
        qualifier_rows: list[Row] = []
        if rows:
            selected = {entity_id(row["item"].value) for row in rows}
            qualifier_rows = endpoint.select(bind(
                qualifier_query, item=[item for item in batch if item in selected],
                property=sorted({entity_id(row["property"].value) for row in rows}, key=entity_order)))
        wanted = set().union(*(entities_to_label(row) for row in rows),
                             *(qualifier_entities(row) for row in qualifier_rows))
        terms = fetch_terms(endpoint, wanted, rules.languages) if wanted else {}
        yield build_selection(rows, terms, batch, build_qualifiers(qualifier_rows, terms))
