"""Which databases publish an item's records as RDF, and how a record's URI maps back to an item: Wikidata's own
data, read from the SPARQL endpoint (the endpoint is a parameter).

- ``rdf_identifier_properties``: every external-identifier property with a formatter URI for RDF resource
  (P1921), its formatter URL for people (P1630) and its database (P1629) — a few hundred rows on Wikidata, kept on
  disk for ``max_age_days`` (:class:`IdentifierCache`) and used stale when the endpoint cannot be asked;
- ``item_identifiers``: an item's identifiers of those properties;
- ``items_with``: the items carrying one identifier (the reverse lookup);
- ``equivalent_uris``: the URIs other vocabularies use for a property (P1628).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from bot.datamodel import PID_PATTERN, QID_PATTERN
from bot.selection.binding import IDENTIFIER_PATTERN, bind, entity_id, load_query

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint


@dataclass(frozen=True)
class IdentifierProperty:
    """An external-identifier property whose records can be read as RDF."""

    property_id: str
    label: str
    rdf_formatter: str  # P1921, with $1 for the identifier
    formatter: str = ""  # P1630: the record's page for people
    database: str = ""  # P1629: the database's item (the reference's "stated in")
    database_label: str = ""

    def record_url(self, identifier: str) -> str:
        return format_url(self.rdf_formatter, identifier)

    def page_url(self, identifier: str) -> str:
        return format_url(self.formatter, identifier) if self.formatter else ""

    def identifier_of(self, uri: str) -> str:
        """The identifier a URI of this database names (its RDF or page formatter filled in), or ""."""
        for formatter in (self.rdf_formatter, self.formatter):
            if "$1" not in formatter:
                continue
            head, _, tail = formatter.partition("$1")
            # The formatter's own URI, and the same without its suffix: a record names its subject without the
            # document's part (``…/gnd/$1/about/lds`` describes ``…/gnd/$1``).
            for pattern in (_uri_pattern(head, tail), _uri_pattern(head, "")):
                match = pattern.match(uri)
                if match and IDENTIFIER_PATTERN.match(match.group(1)):
                    return match.group(1)
        return ""


@dataclass(frozen=True)
class Identifier:
    """One identifier statement of an item: the property, the value, and what the property says about records."""

    prop: IdentifierProperty
    value: str

    @property
    def record_url(self) -> str:
        return self.prop.record_url(self.value)


def format_url(formatter: str, identifier: str) -> str:
    """Wikidata's formatter rule: ``$1`` replaced by the identifier, its spaces written as underscores and the
    characters a URL cannot hold percent-encoded."""
    return formatter.replace("$1", quote(identifier.replace(" ", "_"), safe="/:@!$&'()*+,;=-._~"))


@lru_cache(maxsize=4096)
def _uri_pattern(head: str, tail: str) -> re.Pattern[str]:
    # http and https, with or without a trailing slash: records name themselves either way.
    rest = re.sub(r"^https?://", "", head)
    return re.compile(r"^https?://" + re.escape(rest) + r"([^/?#]+)" + re.escape(tail.rstrip("/")) + r"/?\Z")


def _bindings(row: Mapping[str, object], name: str) -> str:
    term = row.get(name)
    return str(getattr(term, "value", "")) if term is not None else ""


def rdf_identifier_properties(endpoint: SparqlEndpoint, languages: Sequence[str]) -> dict[str, IdentifierProperty]:
    """Every property with a P1921 formatter (the first in order), labelled in the first of ``languages`` that has
    a label."""
    rows = endpoint.select(bind(load_query("rdf-identifier-properties"), language=list(languages)))
    order = {language: index for index, language in enumerate(languages)}
    found: dict[str, dict[str, str]] = {}
    ranks: dict[tuple[str, str], int] = {}
    for row in rows:
        property_id = entity_id(_bindings(row, "property"))
        if not PID_PATTERN.match(property_id):
            continue
        entry = found.setdefault(property_id, {"rdf_formatter": _bindings(row, "rdfFormatter"), "formatter": "",
                                               "database": "", "label": "", "database_label": ""})
        database = entity_id(_bindings(row, "database"))
        entry["formatter"] = entry["formatter"] or _bindings(row, "formatter")
        entry["database"] = entry["database"] or (database if QID_PATTERN.match(database) else "")
        for key, column in (("label", "propertyLabel"), ("database_label", "databaseLabel")):
            term = row.get(column)
            rank = order.get(getattr(term, "lang", "") or "", len(order))
            if term is not None and rank < ranks.get((property_id, key), len(order) + 1):
                entry[key], ranks[(property_id, key)] = str(getattr(term, "value", "")), rank
    return {pid: IdentifierProperty(pid, entry.pop("label") or pid, **entry)
            for pid, entry in sorted(found.items()) if "$1" in entry["rdf_formatter"]}


def item_identifiers(endpoint: SparqlEndpoint, item: str,
                     known: Mapping[str, IdentifierProperty]) -> list[Identifier]:
    rows = endpoint.select(bind(load_query("item-identifiers"), item=[item]))
    found = []
    for row in rows:
        prop = known.get(entity_id(_bindings(row, "property")))
        value = _bindings(row, "value").strip()
        if prop is not None and value:
            found.append(Identifier(prop, value))
    return found


def items_with(endpoint: SparqlEndpoint, property_id: str, identifier: str) -> list[str]:
    """The items carrying ``identifier`` as their ``property_id``; none for an identifier that cannot be bound."""
    if not IDENTIFIER_PATTERN.match(identifier):
        return []
    rows = endpoint.select(bind(load_query("identifier-items"), property=[property_id], identifier=[identifier]))
    return [item for item in (entity_id(_bindings(row, "item")) for row in rows) if QID_PATTERN.match(item)]


def identifier_counts(endpoint: SparqlEndpoint, items: Sequence[str]) -> dict[str, int]:
    """How many identifiers with RDF records each of ``items`` has (0 for those with none)."""
    counts = {item: 0 for item in items}
    if not items:
        return counts
    for row in endpoint.select(bind(load_query("identifier-counts"), item=list(items))):
        item = entity_id(_bindings(row, "item"))
        if item in counts:
            counts[item] = int(_bindings(row, "identifiers") or 0)
    return counts


def equivalent_uris(endpoint: SparqlEndpoint, property_id: str) -> tuple[str, ...]:
    rows = endpoint.select(bind(load_query("equivalent-properties"), property=[property_id]))
    return tuple(uri for uri in (_bindings(row, "uri") for row in rows) if uri)


class IdentifierCache:
    """The identifier-property list of one endpoint on disk, with the day it was read (one JSON file)."""

    def __init__(self, directory: Path, max_age_days: float = 30.0) -> None:
        self.directory = Path(directory).expanduser()
        self.max_age_days = max_age_days
        self.path = self.directory / "rdf-identifier-properties.json"

    def get(self, today: date, source: str, *, any_age: bool = False) -> dict[str, IdentifierProperty] | None:
        """The list read from ``source`` less than ``max_age_days`` ago (any age when ``any_age``); a damaged
        file counts as absent."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data["source"] != source:
                return None
            age = (today - date.fromisoformat(data["retrieved"])).days
            properties = {row["property_id"]: IdentifierProperty(**row) for row in data["properties"]}
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return properties if any_age or 0 <= age < self.max_age_days else None

    def put(self, properties: Mapping[str, IdentifierProperty], today: date, source: str) -> None:
        """Written atomically: a reader never sees half a file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".rdf-identifiers.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump({"source": source, "retrieved": today.isoformat(),
                           "properties": [asdict(p) for p in properties.values()]}, file, ensure_ascii=False,
                          indent=1)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
