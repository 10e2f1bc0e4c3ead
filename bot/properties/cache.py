"""Profiles looked up from a SPARQL endpoint, kept on disk with the date they were read: one JSON file per
property, so a run does not ask the endpoint again for a month, and an offline run still has them."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict
from datetime import date
from pathlib import Path

from bot.datamodel import PID_PATTERN
from bot.properties.profile import Contrast, PropertyProfile


def to_json(profile: PropertyProfile) -> dict:
    return asdict(profile)


def from_json(data: dict) -> PropertyProfile:
    """KeyError/TypeError/ValueError on a malformed record."""
    contrasts = tuple(Contrast(**{**c, "sources": tuple(c["sources"]),
                                  "other_phrases": tuple(c.get("other_phrases", ()))}) for c in data["contrasts"])
    profile = PropertyProfile(**{**data, "aliases": tuple(data["aliases"]), "contrasts": contrasts,
                                 "notes": tuple(data["notes"]), "other_phrases": tuple(data.get("other_phrases", ()))})
    if not PID_PATTERN.match(profile.property_id) or not isinstance(profile.phrase, str) or not profile.phrase:
        raise ValueError("not a property profile")
    date.fromisoformat(profile.retrieved)
    return profile


class ProfileCache:
    def __init__(self, directory: Path, max_age_days: float = 30.0) -> None:
        self.directory = Path(directory).expanduser()
        self.max_age_days = max_age_days

    def path(self, property_id: str) -> Path:
        if not PID_PATTERN.match(property_id):
            raise ValueError(f"not a property id: {property_id!r}")
        return self.directory / f"{property_id}.json"

    def get(self, property_id: str, today: date, *, source: str | None = None,
            any_age: bool = False) -> PropertyProfile | None:
        """The cached profile, if there is a readable one read less than ``max_age_days`` ago (any age when
        ``any_age``: offline, an old profile is better than none) from ``source`` (an endpoint; None: any).
        A damaged file counts as absent."""
        try:
            profile = from_json(json.loads(self.path(property_id).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if source is not None and profile.source != source:
            return None
        age = (today - date.fromisoformat(profile.retrieved)).days
        return profile if any_age or 0 <= age < self.max_age_days else None

    def put(self, profile: PropertyProfile) -> None:
        """Written atomically: a reader never sees half a file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(profile.property_id)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=f".{profile.property_id}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(to_json(profile), file, ensure_ascii=False, indent=1)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
