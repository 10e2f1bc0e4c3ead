"""Other names of an item value that Wikidata links to it, each with how it is linked, for the value finder.

The judge accepts support only from a text that names the statement's value. A text may name an item value
another way a curator can check: its label or an alias in another language, the label of a more specific item
(one that is a P279 subclass of it: a text calling a town "a Moravian market town" calls it "a Moravian town"), the
label of a place located in it (P131: "Last Chance, Colorado" is in the United States), or its demonym. Not a more
general item's: "film" does not state "action film". ``value-names.rq`` looks them up in batches;
:func:`related_names` chooses and orders them.

Precision over recall: the labels of top-level classes ("entity", "human", "concept") would match almost any
text, so a linked item among :data:`TOP_LEVEL_CLASSES` is never a name; nor is a name shorter than
:data:`SHORTEST` characters, one equal (ignoring case) to the value's own label or aliases, or a repeat.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.datamodel import Statement
from bot.selection.binding import entity_id, entity_order
from bot.values.language import LANGUAGES

if TYPE_CHECKING:
    from bot.selection.endpoint import Row, SparqlEndpoint

# Fewer ids per query than terms.BATCH: a value's labels and aliases in every language come back (a country
# has hundreds), and so does every subclass of it.
BATCH = 50
MOST_NAMES = 40
# Labels and aliases in other languages kept at most, besides the labels in the languages refbot reads (below).
MOST_FOREIGN = 24
# A label in each language refbot identifies a text as (``bot.values.language.LANGUAGES``) is always kept: a page
# in Russian names Denmark "Дания", whatever room the other 300 languages' labels leave ("mul" counts as one).
READ_LANGUAGES = frozenset({"mul", *LANGUAGES})
# Places located in a value kept at most (a country's regions, a region's towns), the lowest ids first.
MOST_PLACES = 100
MOST_SPECIFIC_ITEMS = 20
SHORTEST = 3
# Classes so general that their labels say nothing about a value: entity, object, human, person, concept,
# group, abstract object, physical object, occurrence, collection entity.
TOP_LEVEL_CLASSES = frozenset({"Q35120", "Q488383", "Q5", "Q215627", "Q151885", "Q16887380", "Q7184903",
                               "Q223557", "Q1190554", "Q99527517"})
ITEM_DATATYPE = "wikibase-item"

Related = tuple[tuple[str, str], ...]


def related_names(value_qid: str, rows: Iterable[Row], languages: Sequence[str],
                  own_names: Iterable[str]) -> Related:
    """Pure: (name, how) pairs from ``value-names.rq`` rows of one value, in this order — labels in the languages
    refbot reads (:data:`READ_LANGUAGES`), each kept; then labels, then aliases, in the other languages than
    ``languages`` ("mul" first, then by code), :data:`MOST_FOREIGN` or the room the rest leaves; labels of more
    general items; labels of at most :data:`MOST_SPECIFIC_ITEMS` more specific items (the lowest ids); demonyms in
    ``languages``. Each run in id, language and name order, so that the same graph gives the same names whatever
    order the endpoint answered in; at most :data:`MOST_NAMES` in all besides the labels in languages refbot
    reads."""
    preferred = [language.lower() for language in languages]
    found: dict[str, list[tuple[str, str, str]]] = {}  # kind → (other item, language, text)
    for row in rows:
        if entity_id(row["entity"].value) != value_qid:
            continue
        text = row["text"]
        other = entity_id(row["other"].value) if "other" in row else ""
        found.setdefault(row["kind"].value, []).append((other, text.lang.lower(), text.value))

    def foreign(kind: str, read: bool | None = None) -> list[tuple[str, str]]:
        entries = sorted((language != "mul", language, text) for _, language, text in found.get(kind, [])
                         if language not in preferred and read in (None, language in READ_LANGUAGES))
        return [(text, f"{kind} ({language})") for _, language, text in entries]

    def linked(kind: str, how: str, most: int | None = None) -> list[tuple[str, str]]:
        entries = [entry for entry in found.get(kind, [])
                   if entry[1] in preferred and entry[0] not in TOP_LEVEL_CLASSES]
        items = sorted({other for other, _, _ in entries}, key=entity_order)[:most]
        names = []
        for item in items:
            for language in preferred:
                for text in sorted(text for other, lang, text in entries if other == item and lang == language):
                    names.append((text, f"{how} {item}: {text}"))
        return names

    demonyms = [(text, f"demonym ({language})") for language in preferred
                for text in sorted(text for _, lang, text in found.get("demonym", []) if lang == language)]
    own = list(own_names)
    # A country has hundreds of labels in other languages: they take at most MOST_FOREIGN places, so that the
    # linked items and demonyms, which name it differently rather than in another language, keep theirs.
    # Not the more general items: "film" does not state "action film", where "a Moravian market town" states "a
    # Moravian town". The query still returns them, for a curator's tools to show.
    # A place located in the value (P131) names it too: "Last Chance, Colorado" is in the United States.
    others = _kept(linked("specific", "more specific item", MOST_SPECIFIC_ITEMS) + demonyms, own)
    places = _kept(linked("place", "place in it", MOST_PLACES), [*own, *(name for name, _ in others)])
    others = (*others, *places)
    room = max(MOST_FOREIGN, MOST_NAMES - len(others))
    read = _kept(foreign("label", read=True), [*own, *(name for name, _ in others)], len(READ_LANGUAGES))
    rest = _kept(foreign("label", read=False) + foreign("alias"),
                 [*own, *(name for name, _ in (*others, *read))], room)
    return (read + rest + others)[:len(read) + MOST_NAMES + MOST_PLACES]


def _kept(candidates: Iterable[tuple[str, str]], own_names: Iterable[str], most: int = MOST_NAMES) -> Related:
    seen = {name.strip().casefold() for name in own_names}
    kept: list[tuple[str, str]] = []
    for name, how in candidates:
        name = name.strip()
        key = name.casefold()
        if len(name) < SHORTEST or key in seen:
            continue
        seen.add(key)
        kept.append((name, how))
        if len(kept) == most:
            break
    return tuple(kept)


def fetch_related(endpoint: SparqlEndpoint, qids: Iterable[str], languages: Sequence[str]) -> dict[str, Related]:
    """Other names of each item value; one query per batch of :data:`BATCH` ids. A value's own names — its
    labels and aliases in ``languages`` — are read from the same answer."""
    from bot.selection.terms import rows_by_entity

    rows_by_value = rows_by_entity(endpoint, "value-names", qids, languages, BATCH)
    own = {language.lower() for language in languages}
    return {qid: related_names(qid, rows, languages,
                               [row["text"].value for row in rows
                                if row["kind"].value in ("label", "alias") and row["text"].lang.lower() in own])
            for qid, rows in rows_by_value.items()}


def with_related(statement: Statement, related: Mapping[str, Related]) -> Statement:
    """The statement with its item value's other names from ``fetch_related``'s answer; any other statement
    unchanged. Names equal to the value's label or aliases as the statement has them are dropped again, in case
    they came from other languages than the answer's; so are the names linked through the statement's own subject:
    the statement being checked is what links it ("Amisfield House is located in Scottish Borders" makes
    Amisfield House a place in Scottish Borders, and then every page naming the house would name the value)."""
    value = statement.value
    names = related.get(value.raw) if value.datatype == ITEM_DATATYPE else None
    if not names:
        return statement
    through_subject = f" {statement.item}: "
    kept = _kept(((name, how) for name, how in names if through_subject not in how), (value.text, *value.aliases))
    return replace(statement, value=replace(value, related=kept))


class RelatedLookup:
    """``with_related`` for one statement at a time, each item value looked up once per run (values repeat: one
    award across many items); safe to share between the threads checking statements side by side. A failing
    query leaves the statement with its own names: it is still checked, by its label and aliases only."""

    def __init__(self, endpoint: SparqlEndpoint, languages: Sequence[str]) -> None:
        self.endpoint = endpoint
        self.languages = tuple(languages)
        self._known: dict[str, Related] = {}
        self._lock = threading.Lock()

    def __call__(self, statement: Statement) -> Statement:
        from bot.errors import QueryError

        value = statement.value
        if value.datatype != ITEM_DATATYPE:
            return statement
        with self._lock:
            known = self._known.get(value.raw)
        if known is None:
            try:
                known = fetch_related(self.endpoint, [value.raw], self.languages).get(value.raw, ())
            except QueryError as error:
                logging.getLogger(__name__).warning("other names of %s could not be read (%s); it is looked for "
                                                    "by its label and aliases only", value.raw, error)
                return statement
            with self._lock:
                self._known[value.raw] = known
        return with_related(statement, {value.raw: known})
