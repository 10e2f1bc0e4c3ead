"""The property index a question's words are linked to: every property's label, aliases, description, datatype and
whether it needs a reference, read with ``property-index.rq`` and kept on disk beside the property profiles
(``[properties] cache``, ``cache_days``), one file per endpoint and language, so an offline run still has it."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from bot.datamodel import LANGUAGE_PATTERN, PID_PATTERN
from bot.errors import QueryError
from bot.redaction import redact_url
from bot.selection.binding import bind, entity_id, load_query

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint

ALIAS_SEPARATOR = "\u001f"
DATATYPE_PREFIX = "http://wikiba.se/ontology#"


@dataclass(frozen=True)
class PropertyTerm:
    id: str
    label: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    datatype: str = ""  # WikibaseItem, Time, Quantity, String, ExternalId, Url, …
    citation_needed: bool = False

    def names(self) -> tuple[str, ...]:
        """The label, then the aliases: what a question may call the property."""
        return tuple(name for name in (self.label, *self.aliases) if name)


@dataclass(frozen=True)
class PropertyIndex:
    properties: tuple[PropertyTerm, ...]
    language: str
    source: str  # the endpoint
    retrieved: str  # ISO date

    def get(self, property_id: str) -> PropertyTerm | None:
        return next((term for term in self.properties if term.id == property_id), None)


def fetch_index(endpoint: SparqlEndpoint, language: str, today: date) -> PropertyIndex:
    """The index as the endpoint has it now."""
    terms = []
    for row in endpoint.select(bind(load_query("property-index"), language=[language])):
        property_id = entity_id(row["property"].value)
        if not PID_PATTERN.match(property_id):
            continue
        value = {name: (row[name].value if row.get(name) is not None else "") for name in
                 ("propertyType", "label", "description", "aliases", "citationNeeded")}
        aliases = tuple(sorted({alias.strip() for alias in value["aliases"].split(ALIAS_SEPARATOR) if alias.strip()}))
        terms.append(PropertyTerm(property_id, value["label"], value["description"], aliases,
                                  value["propertyType"].removeprefix(DATATYPE_PREFIX),
                                  value["citationNeeded"] not in ("", "0")))
    terms.sort(key=lambda term: int(term.id[1:]))
    return PropertyIndex(tuple(terms), language, redact_url(endpoint.url), today.isoformat())


class IndexCache:
    """One JSON file per endpoint and language, written atomically; a damaged file counts as absent."""

    def __init__(self, directory: Path, max_age_days: float = 30.0) -> None:
        self.directory = Path(directory).expanduser()
        self.max_age_days = max_age_days

    def path(self, source: str, language: str) -> Path:
        if not LANGUAGE_PATTERN.match(language):
            raise ValueError(f"not a language code: {language!r}")
        digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
        return self.directory / f"index-{language}-{digest}.json"

    def get(self, source: str, language: str, today: date, *, any_age: bool = False) -> PropertyIndex | None:
        try:
            data = json.loads(self.path(source, language).read_text(encoding="utf-8"))
            index = PropertyIndex(tuple(PropertyTerm(**{**term, "aliases": tuple(term["aliases"])})
                                        for term in data["properties"]),
                                  data["language"], data["source"], data["retrieved"])
            age = (today - date.fromisoformat(index.retrieved)).days
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if index.source != source or index.language != language:
            return None
        return index if any_age or 0 <= age < self.max_age_days else None

    def put(self, index: PropertyIndex) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(index.source, index.language)
        handle, name = tempfile.mkstemp(dir=self.directory, prefix=".index-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump({**asdict(index), "properties": [asdict(term) for term in index.properties]}, file,
                          ensure_ascii=False)
            os.replace(name, target)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return target


def property_index(endpoint: SparqlEndpoint, cache: IndexCache, language: str, today: date) -> PropertyIndex:
    """The cached index while it is fresh; otherwise read again and kept. When the endpoint cannot answer, an
    older cached index is better than none; without one the endpoint's error stands."""
    source = redact_url(endpoint.url)
    cached = cache.get(source, language, today)
    if cached is not None:
        return cached
    try:
        index = fetch_index(endpoint, language, today)
    except QueryError:
        stale = cache.get(source, language, today, any_age=True)
        if stale is not None:
            return stale
        raise
    if index.properties:
        cache.put(index)
    return index
