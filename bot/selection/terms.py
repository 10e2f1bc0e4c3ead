"""Labels, descriptions and aliases in the user's language preference, falling back to the entity id.

Looked up with ``labels.rq`` (portable ``rdfs:label``; no ``SERVICE wikibase:label``) for every entity a
selection mentions, in batches, and chosen here by preference.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.selection.binding import bind, entity_id, entity_order, load_query

if TYPE_CHECKING:
    from bot.selection.endpoint import Row, SparqlEndpoint

BATCH = 200


@dataclass(frozen=True)
class Terms:
    label: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    # The language the label is in; empty when the label is the fallback id.
    language: str = ""


def choose_terms(entity: str, rows: Iterable[Row], languages: Sequence[str]) -> Terms:
    """Pure: the first preferred language with a label wins; other names in preferred languages are aliases."""
    found: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        text = row["text"]
        found.setdefault((row["term"].value, text.lang), []).append(text.value)
    label, label_language = entity, ""
    for language in languages:
        if found.get(("label", language)):
            label, label_language = found[("label", language)][0], language
            break
    description = next((found[("description", lang)][0] for lang in languages if found.get(("description", lang))),
                       "")
    aliases: list[str] = []
    for language in languages:
        for name in found.get(("label", language), []) + found.get(("alias", language), []):
            if name != label and name not in aliases:
                aliases.append(name)
    return Terms(label, description, tuple(aliases), label_language)


def fetch_terms(endpoint: SparqlEndpoint, entities: Iterable[str], languages: Sequence[str]) -> dict[str, Terms]:
    """Terms for each entity id; one query per batch of 200 ids."""
    return {entity: choose_terms(entity, rows, languages)
            for entity, rows in rows_by_entity(endpoint, "labels", entities, languages, BATCH).items()}


def rows_by_entity(endpoint: SparqlEndpoint, query_name: str, entities: Iterable[str], languages: Sequence[str],
                   batch_size: int) -> dict[str, list[Row]]:
    """The rows a per-entity query (``?entity``, ``?language``) answers for each id, one query per batch of
    ``batch_size`` ids; every id asked for has an entry."""
    wanted = sorted(set(entities), key=entity_order)
    found: dict[str, list[Row]] = {entity: [] for entity in wanted}
    query = load_query(query_name)
    for start in range(0, len(wanted), batch_size):
        batch = wanted[start:start + batch_size]
        for row in endpoint.select(bind(query, entity=batch, language=list(languages))):
            found.setdefault(entity_id(row["entity"].value), []).append(row)
    return found
