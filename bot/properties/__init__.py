"""Property profiles: how a sentence states each property, and the properties it must be told from.

``PropertyProfiles`` answers for any property id, from (in order) profiles already looked up in this run, the
disk cache, a SPARQL endpoint (Wikidata's own property data, joined with the curated catalogue), and offline
from the catalogue alone; a property nothing is known about still gets a phrase made from its label. Which of
these a profile came from is recorded in it, and so in the trace.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Callable

from bot.datamodel import Claim
from bot.errors import QueryError
from bot.properties.cache import ProfileCache
from bot.properties.catalogue import catalogue, curated_profile, find_by_label
from bot.properties.profile import Contrast, PropertyProfile, label_only, template_phrase

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint

__all__ = ["Contrast", "PropertyProfile", "PropertyProfiles", "stated_claim", "template_phrase"]


def _today() -> date:
    return datetime.now(timezone.utc).date()


class PropertyProfiles:
    """Thread-safe: statements checked side by side look up each property once."""

    def __init__(self, *, endpoint: SparqlEndpoint | None = None, endpoint_name: str = "",
                 cache: ProfileCache | None = None, languages: Sequence[str] = ("en", "mul"),
                 today: Callable[[], date] = _today) -> None:
        self.endpoint = endpoint
        self.endpoint_name = endpoint_name or "SPARQL endpoint"
        self.cache = cache
        self.languages = tuple(languages)
        self.today = today
        self._known: dict[str, PropertyProfile] = {}
        self._lock = threading.Lock()

    def profile(self, property_id: str, label: str = "") -> PropertyProfile:
        with self._lock:
            if property_id not in self._known:
                self._known[property_id] = self._look_up(property_id, label)
            return self._known[property_id]

    def _look_up(self, property_id: str, label: str) -> PropertyProfile:
        from bot.properties.wikidata import fetch_profile

        today = self.today()
        offline = self.endpoint is None
        source = None if offline else self.endpoint_name
        cached = self.cache.get(property_id, today, source=source, any_age=offline) if self.cache else None
        if cached is not None:
            return cached
        note = ""
        if self.endpoint is not None:
            try:
                profile = fetch_profile(self.endpoint, property_id, self.languages, catalogue(), today,
                                        self.endpoint_name)
            except QueryError as error:  # the endpoint's trouble: fall back, and say so in the trace
                note = f"the property's data could not be read: {error}"
                stale = self.cache.get(property_id, today, source=source, any_age=True) if self.cache else None
                if stale is not None:
                    return stale
            else:
                if self.cache is not None:
                    try:
                        self.cache.put(profile)
                    except OSError as error:  # a full or read-only disk costs the next run a lookup, no more
                        profile = _noted(profile, f"not kept in the cache {self.cache.directory}: {error}")
                return profile
        curated = curated_profile(property_id)
        if curated is not None:
            return curated if not note else _noted(curated, note)
        return label_only(property_id, label, note=note or "not in refbot's catalogue and no endpoint was asked")

    def for_label(self, label: str) -> PropertyProfile:
        """A profile for a relation named only by a label (an evaluation data set without property ids)."""
        found = find_by_label(label)
        return self.profile(found, label) if found else label_only("", label, note="no property id")


def _noted(profile: PropertyProfile, note: str) -> PropertyProfile:
    return replace(profile, notes=(*profile.notes, note))


def stated_claim(profiles: PropertyProfiles, subject: str, predicate: str, value: str, description: str = "",
                 property_id: str = "") -> Claim:
    """A claim as `refbot check` states it: with ``property_id``, its profile's phrase and contrasting properties
    (from ``profiles``), under the ``predicate`` label given; otherwise the claim alone."""
    if not property_id:
        return Claim(subject, predicate, value, description)
    profile = profiles.profile(property_id, predicate)
    return replace(profile.claim(subject, value), predicate=predicate,
                   predicate_description=description or profile.description)
