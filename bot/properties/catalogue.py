"""The curated catalogue shipped with refbot (``catalogue.json``): phrases, and contrasts where Wikidata's own
property data is thin, for the properties whose statements most often need a reference.

Offline — the tests, ``refbot eval`` without an endpoint — it is, with the cache, all refbot knows about
properties, so it is validated as a whole when read: a malformed entry is refbot's own fault, never a
statement's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

from bot.datamodel import PID_PATTERN
from bot.errors import InternalError
from bot.properties.profile import CATALOGUE, Named, PropertyProfile, build_profile

FIELDS = {"label": str, "description": str, "phrase": str, "contrasts": list}
# other_phrases: other ways texts state it, weighed beside the phrase. compatible: properties that are never its
# contrasts, whatever Wikidata's data says, because a text stating them supports it too ("country of origin:
# India" for "country: India"); weighing one against the other would take support from true statements.
OPTIONAL = {"other_phrases": list, "compatible": list}


@dataclass(frozen=True)
class Entry:
    label: str
    description: str
    phrase: str
    contrasts: tuple[str, ...]
    other_phrases: tuple[str, ...] = ()
    compatible: tuple[str, ...] = ()

    @property
    def named(self) -> Named:
        return Named(self.label, self.description, (), self.phrase, self.other_phrases)


def parse_catalogue(data: object, where: str = "catalogue") -> Mapping[str, Entry]:
    """Validate the catalogue's JSON; ValueError names the first entry that is wrong and how."""
    if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
        raise ValueError(f"{where}: expected an object with a 'properties' object")
    entries: dict[str, Entry] = {}
    for pid, entry in data["properties"].items():
        if not PID_PATTERN.match(pid):
            raise ValueError(f"{where}: {pid!r} is not a property id")
        if not isinstance(entry, dict) or not set(FIELDS) <= set(entry) <= set(FIELDS) | set(OPTIONAL):
            raise ValueError(f"{where}: {pid} must have the fields {', '.join(FIELDS)} "
                             f"(and optionally {', '.join(OPTIONAL)})")
        for name, kind in {**FIELDS, **OPTIONAL}.items():
            if name in entry and not isinstance(entry[name], kind):
                raise ValueError(f"{where}: {pid}.{name} must be a {kind.__name__}")
        if not entry["label"].strip() or not entry["phrase"].strip():
            raise ValueError(f"{where}: {pid} needs a label and a phrase")
        others = entry.get("other_phrases", [])
        for phrase in [entry["phrase"], *others]:
            if not isinstance(phrase, str) or not phrase.strip() or phrase != phrase.strip() or "{" in phrase:
                raise ValueError(f"{where}: {pid}: each phrase must be plain words without surrounding spaces")
        if entry["phrase"] in others or len(set(others)) != len(others):
            raise ValueError(f"{where}: {pid}.other_phrases must differ from the phrase and from each other")
        contrasts = entry["contrasts"]
        if not all(isinstance(other, str) and PID_PATTERN.match(other) for other in contrasts) \
                or pid in contrasts or len(set(contrasts)) != len(contrasts):
            raise ValueError(f"{where}: {pid}.contrasts must list other property ids, each once")
        compatible = entry.get("compatible", [])
        if not all(isinstance(other, str) and PID_PATTERN.match(other) for other in compatible) \
                or pid in compatible or len(set(compatible)) != len(compatible) or set(compatible) & set(contrasts):
            raise ValueError(f"{where}: {pid}.compatible must list other property ids, each once, none of them "
                             "a contrast")
        entries[pid] = Entry(entry["label"], entry["description"], entry["phrase"], tuple(contrasts),
                             tuple(others), tuple(compatible))
    unknown = sorted({other for entry in entries.values() for other in entry.contrasts} - set(entries))
    if unknown:
        raise ValueError(f"{where}: contrasts not in the catalogue themselves: {', '.join(unknown)}")
    return MappingProxyType(entries)


@cache
def catalogue() -> Mapping[str, Entry]:
    try:
        text = resources.files("bot.properties").joinpath("catalogue.json").read_text(encoding="utf-8")
        return parse_catalogue(json.loads(text), "bot/properties/catalogue.json")
    except (OSError, ValueError) as error:
        raise InternalError(f"refbot's property catalogue is unreadable: {error}", component="bot.properties",
                            hint="reinstall refbot (`pip install .`)") from error


def curated_profile(property_id: str, entries: Mapping[str, Entry] | None = None) -> PropertyProfile | None:
    """The catalogue's profile of a property, or None when it is not curated."""
    entries = catalogue() if entries is None else entries
    entry = entries.get(property_id)
    if entry is None:
        return None
    names = {other: entries[other].named for other in entry.contrasts}
    return build_profile(property_id, entry.named, (), names, curated_contrasts=entry.contrasts, source=CATALOGUE)


def find_by_label(label: str, entries: Mapping[str, Entry] | None = None) -> str | None:
    """The curated property whose label is ``label`` (any case, "_" read as a space), if exactly one is."""
    entries = catalogue() if entries is None else entries
    wanted = " ".join(label.replace("_", " ").split()).casefold()
    found = [pid for pid, entry in entries.items() if entry.label.casefold() == wanted]
    return found[0] if len(found) == 1 else None
