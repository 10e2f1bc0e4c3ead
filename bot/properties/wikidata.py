"""Property profiles from a SPARQL endpoint: ``property-links.rq`` (inverse, opposite, related, shared type
constraints), ``same-value-properties.rq`` and ``labels.rq``. The endpoint is a parameter; nothing is cached
here (``bot.properties.cache`` is)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

from bot.properties.catalogue import Entry
from bot.properties.profile import (INVERSE, OPPOSITE, RELATED, SAME_VALUE, SHARED_TYPES, Link, Named,
                                    PropertyProfile, build_profile)
from bot.selection.binding import bind, entity_id, load_query
from bot.selection.terms import fetch_terms

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint

KINDS = {"inverse": INVERSE, "opposite": OPPOSITE, "related": RELATED, "shared types": SHARED_TYPES}


def fetch_links(endpoint: SparqlEndpoint, property_id: str) -> list[Link]:
    links = []
    for row in endpoint.select(bind(load_query("property-links"), property=[property_id])):
        kind = KINDS.get(row["kind"].value)
        if kind is not None:
            links.append(Link(entity_id(row["other"].value), kind, float(row["weight"].value or 0)))
    for row in endpoint.select(bind(load_query("same-value-properties"), property=[property_id])):
        links.append(Link(entity_id(row["other"].value), SAME_VALUE, float(row["weight"].value)))
    return links


def fetch_profile(endpoint: SparqlEndpoint, property_id: str, languages: Sequence[str],
                  entries: Mapping[str, Entry], today: date, source: str) -> PropertyProfile:
    """A property's profile from Wikidata's data, the catalogue's phrases and curated contrasts added."""
    links = fetch_links(endpoint, property_id)
    curated = entries.get(property_id)
    wanted = {property_id, *(link.other for link in links), *(curated.contrasts if curated else ())}
    terms = fetch_terms(endpoint, wanted, languages)
    names: dict[str, Named] = {}
    for pid in wanted:
        entry, found = entries.get(pid), terms.get(pid)
        if found is not None and found.language:  # the endpoint has a label in a wanted language
            names[pid] = Named(found.label, found.description, found.aliases, entry.phrase if entry else "",
                               entry.other_phrases if entry else ())
        elif entry is not None:
            names[pid] = entry.named
    own = names.get(property_id, Named(property_id))
    return build_profile(property_id, own, links, names, curated_contrasts=curated.contrasts if curated else (),
                         compatible=curated.compatible if curated else (),
                         source=source, retrieved=today.isoformat())
