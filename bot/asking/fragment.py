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
    does in ``uses`` of the sampled statements."""

    subject: str
    property_id: str
    value: str = ""
    value_label: str = ""
    uses: int = 0

    @property
    def used_by(self) -> bool:
        return self.uses > 0


def value_usage(endpoint: SparqlEndpoint, items: Sequence[str], labels: Mapping[str, str]) -> dict[str, list[Triple]]:
    """For each item, the properties (at most USES_PER_ITEM, the commonest first) that take it as their value."""
    found: dict[str, list[Triple]] = {}
    for item in items:
        rows = endpoint.select(bind(load_query("value-usage"), entity=[item]))
        for row in rows[:USES_PER_ITEM]:
            property_id = entity_id(row["property"].value)
            found.setdefault(item, []).append(Triple(item, property_id, value_label=labels.get(property_id, ""),
                                                     uses=int(row["uses"].value)))
    return found


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
        else:
            lines.append(f"- item {item.id} {_quoted(item.label)} (the question's \"{item.words}\"): "
                         f"{item.description or 'no description'}")
            for triple in triples.get(item.id, ()):
                if triple.used_by:
                    name = f" {_quoted(triple.value_label)}" if triple.value_label else ""
                    lines.append(f"    it is the value of property {triple.property_id}{name}: "
                                 f"?item wdt:{triple.property_id} wd:{item.id} .")
                    continue
                value = f"{triple.value} {_quoted(triple.value_label)}" if triple.value_label else triple.value
                lines.append(f"    {item.id} {DEFINING.get(triple.property_id, triple.property_id)} "
                             f"({triple.property_id}) {value}")
    return "\n".join(lines)


def unsourced_pattern(property_id: str, statement: str = "?statement") -> str:
    """The project's convention for a statement that needs a reference, as the prompt teaches it: not deprecated,
    and no reference at all (``unsourced-statements.rq`` then applies refbot's finer rule to the items)."""
    return (f"?item p:{property_id} {statement} . {statement} wikibase:rank ?rank . "
            f"FILTER(?rank != wikibase:DeprecatedRank) "
            f"FILTER NOT EXISTS {{ {statement} prov:wasDerivedFrom ?reference . }}")


def known_ids(links: Iterable[Link], triples: Mapping[str, Sequence[Triple]]) -> set[str]:
    """The ids a candidate may name: the linked terms, the triples' values, and P31/P279 themselves."""
    ids = set(DEFINING)
    for item in links:
        ids.add(item.id)
    for kept in triples.values():
        ids.update(triple.property_id if triple.used_by else triple.value for triple in kept)
    return ids
