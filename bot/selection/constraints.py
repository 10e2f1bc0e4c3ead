"""The properties that carry a citation needed constraint, with the items excepted from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.selection.binding import entity_id, entity_order, load_query
from bot.selection.endpoint import Row, SparqlEndpoint
from bot.selection.terms import fetch_terms
from bot.selection.values import datatype_of


@dataclass(frozen=True)
class ConstrainedProperty:
    property_id: str
    datatype: str
    exceptions: tuple[str, ...]
    label: str = ""  # in the first of the languages asked that has one (``labelled_constraints``)


def group_constraints(rows: list[Row]) -> list[ConstrainedProperty]:
    """Pure: one entry per property, exceptions of all its non-deprecated constraint statements, by id."""
    datatypes: dict[str, str] = {}
    exceptions: dict[str, set[str]] = {}
    for row in rows:
        property_id = entity_id(row["property"].value)
        datatypes[property_id] = datatype_of(row["propertyType"].value) if "propertyType" in row else ""
        exceptions.setdefault(property_id, set())
        if "exception" in row:
            exceptions[property_id].add(entity_id(row["exception"].value))
    return [ConstrainedProperty(p, datatypes[p], tuple(sorted(exceptions[p], key=entity_order)))
            for p in sorted(datatypes, key=entity_order)]


def citation_needed_properties(endpoint: SparqlEndpoint) -> list[ConstrainedProperty]:
    return group_constraints(endpoint.select(load_query("citation-needed-properties")))


def labelled_constraints(endpoint: SparqlEndpoint, languages: Sequence[str]) -> list[ConstrainedProperty]:
    """The constrained properties with their labels (the id where no language asked has one)."""

    constrained = citation_needed_properties(endpoint)
    terms = fetch_terms(endpoint, [entry.property_id for entry in constrained], languages)
    return [replace(entry, label=terms[entry.property_id].label if entry.property_id in terms else entry.property_id)
            for entry in constrained]
