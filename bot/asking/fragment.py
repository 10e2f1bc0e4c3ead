"""The fragment of the graph a question touches, as the model is shown it: the linked terms with their ids, labels
and descriptions, for items a few defining triples (P31 instance of, P279 subclass of), and nothing else — not the
whole schema (Auto-KGQAGPT: the model writes better SPARQL from less). :func:`fragment_text` is pure;
:func:`defining_triples` reads the triples with ``defining-triples.rq``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.asking.linking import Link
from bot.selection.binding import bind, entity_id, load_query

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint

TRIPLES_PER_ITEM = 3
USES_PER_ITEM = 3
DEFINING = {"P31": "instance of", "P279": "subclass of"}


@dataclass(frozen=True)
class Triple:
    """``subject property value``; for a use (``used_by``), the property takes ``subject`` as its value, as it
    does in ``uses`` of the sampled statements (of items holding statements of ``among``, when it is given)."""

    subject: str
    property_id: str
    value: str = ""
    value_label: str = ""
    uses: int = 0
    among: str = ""

    @property
    def used_by(self) -> bool:
        return self.uses > 0


def value_usage(endpoint: SparqlEndpoint, items: Sequence[str], labels: Mapping[str, str], *,
                among: str | None = None) -> dict[str, list[Triple]]:
    """For each item, the properties (at most USES_PER_ITEM, the commonest first) that take it as their value —
    counting only items with statements of ``among`` when given (the question's target property), and all uses
    where none of those reach it."""
    found: dict[str, list[Triple]] = {}
    for item in items:
        rows = endpoint.select(bind(load_query("value-usage"), entity=[item], property=[among])) if among else []
        focus = among or ""
        if not rows:
            rows, focus = endpoint.select(bind(load_query("value-usage"), entity=[item])), ""
        for row in rows[:USES_PER_ITEM]:
            property_id = entity_id(row["usedBy"].value)
            found.setdefault(item, []).append(Triple(item, property_id, value_label=labels.get(property_id, ""),
                                                     uses=int(row["uses"].value), among=focus))
    return found


def usual_use(triples: Sequence[Triple]) -> Triple | None:
    """The use an item is reached by: its commonest (among the target property's items, when any reach it there);
    None when nothing takes it as value."""
    return next((triple for triple in triples if triple.used_by), None)


def through_subclasses(triples: Sequence[Triple]) -> bool:
    """A class reached among the target property's items only as a superclass (P279): its members are matched
    with its subclasses' members."""
    usual = usual_use(triples)
    return usual is not None and not usual.among and any(t.used_by and t.property_id == "P279" for t in triples)


def item_pattern(item: str, triples: Sequence[Triple]) -> str | None:
    """How the question's item is usually reached: ``?item wdt:P27 wd:Q213 .`` by its usual use, or
    ``?item wdt:P31/wdt:P279* wd:Q486972 .`` for a class reached through its subclasses; None when nothing takes
    it as value."""
    usual = usual_use(triples)
    if usual is None:
        return None
    if through_subclasses(triples):
        return f"?item wdt:P31/wdt:P279* wd:{item} ."
    return f"?item wdt:{usual.property_id} wd:{item} ."


def defining_triples(endpoint: SparqlEndpoint, items: Sequence[str], language: str) -> dict[str, list[Triple]]:
    """The P31/P279 values of ``items`` (at most TRIPLES_PER_ITEM each, P31 first), by item."""
    if not items:
        return {}
    found: dict[str, list[Triple]] = {}
    rows = endpoint.select(bind(load_query("defining-triples"), entity=list(items), language=[language]))
    for row in sorted(rows, key=lambda r: (r["property"].value, r["value"].value)):
        subject, value = entity_id(row["entity"].value), entity_id(row["value"].value)
        label = row["valueLabel"].value if row.get("valueLabel") is not None else ""
        kept = found.setdefault(subject, [])
        if len(kept) < TRIPLES_PER_ITEM and all(t.value != value or t.property_id != row["property"].value
                                                for t in kept):
            kept.append(Triple(subject, row["property"].value, value, label))
    return found


def _quoted(text: str) -> str:
    return '"' + " ".join(text.replace('"', "'").split()) + '"'


def fragment_text(links: Iterable[Link], triples: Mapping[str, Sequence[Triple]]) -> str:
    """The terms, one line each (and their triples under items), in the order the question names them."""
    lines = []
    for item in links:
        if item.kind == "property":
            need = "; its statements need a reference" if item.citation_needed else ""
            lines.append(f"- property {item.id} {_quoted(item.label)} (the question's \"{item.words}\""
                         f"{need}): {item.description or 'no description'}")
            lines.append(f"    its value: ?item wdt:{item.id} ?value .")
            if item.citation_needed:
                lines.append(f"    its statements without a reference: {unsourced_pattern(item.id)}")
            continue
        lines.append(f"- item {item.id} {_quoted(item.label)} (the question's \"{item.words}\"): "
                     f"{item.description or 'no description'}")
        kept = triples.get(item.id, ())
        for triple in kept:
            if not triple.used_by:
                value = f"{triple.value} {_quoted(triple.value_label)}" if triple.value_label else triple.value
                lines.append(f"    {item.id} {DEFINING.get(triple.property_id, triple.property_id)} "
                             f"({triple.property_id}) {value}")
        usual, pattern = usual_use(kept), item_pattern(item.id, kept)
        if usual is None or pattern is None:
            continue
        if through_subclasses(kept):
            lines.append(f"    its members and its subclasses' members: {pattern}")
        else:
            name = f" {_quoted(usual.value_label)}" if usual.value_label else ""
            lines.append(f"    it is the value of property {usual.property_id}{name}: {pattern}")
    return "\n".join(lines)


def unsourced_lines(property_id: str, statement: str = "?statement") -> list[str]:
    """The project's convention for a statement that needs a reference, as the prompt teaches it: not deprecated,
    and no reference at all (``unsourced-statements.rq`` then applies refbot's finer rule to the items)."""
    return [f"?item p:{property_id} {statement} .", f"{statement} wikibase:rank ?rank .",
            "FILTER(?rank != wikibase:DeprecatedRank)",
            f"FILTER NOT EXISTS {{ {statement} prov:wasDerivedFrom ?reference . }}"]


def unsourced_pattern(property_id: str, statement: str = "?statement") -> str:
    return " ".join(unsourced_lines(property_id, statement))


def known_ids(links: Iterable[Link], triples: Mapping[str, Sequence[Triple]]) -> set[str]:
    """The ids a candidate may name: the linked terms, the triples' values, and P31/P279 themselves."""
    ids = set(DEFINING)
    for item in links:
        ids.add(item.id)
    for kept in triples.values():
        ids.update(triple.property_id if triple.used_by else triple.value for triple in kept)
    return ids
