"""The references statements already have, as `refbot verify` reads them: the page each names. Pure.

A reference names a page by its reference URL (P854), or by an external identifier whose property has a formatter
URL (P1630: ``https://viaf.org/viaf/$1``), usually with the database it is stated in (P248). It may say when the
page was read (retrieved, P813) and where a copy was archived (archive URL P1065, archive date P2960). Rows of
``statement-references.rq`` are folded here into one :class:`Citation` per reference of a statement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from urllib.parse import quote

from bot.selection.binding import entity_id
from bot.selection.endpoint import Row

REFERENCE_PREFIX = "http://www.wikidata.org/reference/"
# The reference URL: the page itself.
REFERENCE_URL = "P854"


@dataclass(frozen=True)
class Citation:
    """One reference of a statement that names a page.

    ``hash`` identifies the reference to the Wikidata API (``wbsetreference``'s ``reference``); ``via`` is the
    property that names the page (P854, or the external identifier's property with ``identifier``)."""

    guid: str
    hash: str
    url: str
    via: str = REFERENCE_URL
    identifier: str = ""
    stated_in: str = ""
    retrieved: date | None = None
    archive_url: str = ""
    archive_date: date | None = None

    @property
    def key(self) -> str:
        """What a run records the reference's check under: the statement's GUID and the reference's hash."""
        return f"{self.guid}#{self.hash}"

    def to_json(self) -> dict:
        return {"guid": self.guid, "hash": self.hash, "url": self.url, "via": self.via,
                **({"identifier": self.identifier} if self.identifier else {}),
                **({"stated_in": self.stated_in} if self.stated_in else {}),
                **({"retrieved": self.retrieved.isoformat()} if self.retrieved else {}),
                **({"archive_url": self.archive_url} if self.archive_url else {}),
                **({"archive_date": self.archive_date.isoformat()} if self.archive_date else {})}

    @classmethod
    def from_json(cls, data: Mapping) -> Citation:
        return cls(data["guid"], data["hash"], data["url"], data.get("via", REFERENCE_URL),
                   data.get("identifier", ""), data.get("stated_in", ""), _day(data.get("retrieved")),
                   data.get("archive_url", ""), _day(data.get("archive_date")))


def formatted(formatter: str, identifier: str) -> str:
    """The page an identifier names: its property's formatter URL with ``$1`` replaced, as Wikidata links it
    (the identifier percent-encoded, spaces as underscores are left to the formatter's site)."""
    return formatter.replace("$1", quote(identifier, safe="/:@!$&'()*+,;=-._~"))


def reference_hash(reference_iri: str) -> str:
    return reference_iri[len(REFERENCE_PREFIX):] if reference_iri.startswith(REFERENCE_PREFIX) else reference_iri


def build_citations(rows: Iterable[Row], guid_of: Callable[[str], str]) -> dict[str, tuple[Citation, ...]]:
    """Rows of statement-references.rq → each statement's citations (by GUID), in reference-hash order. A
    reference with several URLs names its first (in text order); one naming a page by a reference URL and an
    identifier is read at its URL; a reference naming no page (only P248 and P813) is left out."""
    snaks: dict[tuple[str, str], dict[str, list]] = {}
    for row in rows:
        guid = guid_of(row["statement"].value)
        reference = reference_hash(row["reference"].value)
        found = snaks.setdefault((guid, reference), {})
        if "url" in row:
            found.setdefault("url", []).append(row["url"].value)
        if "identifier" in row and "formatter" in row and "identifierProperty" in row:
            prop = entity_id(row["identifierProperty"].value)
            found.setdefault("identifier", []).append(
                (prop, row["identifier"].value, formatted(row["formatter"].value, row["identifier"].value)))
        for name in ("statedIn", "retrieved", "archiveUrl", "archiveDate"):
            if name in row:
                found.setdefault(name, []).append(row[name].value)
    citations: dict[str, list[Citation]] = {}
    for (guid, reference), found in sorted(snaks.items()):
        stated_in = min((entity_id(value) for value in found.get("statedIn", [])), default="")
        retrieved = min(filter(None, (_day(value) for value in found.get("retrieved", []))), default=None)
        archive_url = min(found.get("archiveUrl", []), default="")
        archive_date = min(filter(None, (_day(value) for value in found.get("archiveDate", []))), default=None)
        if found.get("url"):
            url, via, identifier = min(found["url"]), REFERENCE_URL, ""
        elif found.get("identifier"):
            via, identifier, url = min(found["identifier"])
        else:
            continue
        citations.setdefault(guid, []).append(Citation(guid, reference, url, via, identifier, stated_in, retrieved,
                                                       archive_url, archive_date))
    return {guid: tuple(found) for guid, found in citations.items()}


def _day(value: object) -> date | None:
    """A day from ``2019-05-01T00:00:00Z`` (Wikidata's time literal) or ``2019-05-01``; None when unreadable or
    not a day of the Gregorian calendar (a year-precision ``2019-00-00``)."""
    if not value:
        return None
    text = str(value).lstrip("+")
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None
