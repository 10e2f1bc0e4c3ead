"""The names of countries, regions, languages, currencies and cities in another language, as CLDR gives them. Pure.

A bot asking Wikidata in English gets "Denmark", "English language", "Euro"; a Russian page writes "Дания",
"английский", "евро", a Turkish one "Danimarka", "İngilizce". These are names the Unicode CLDR holds for every
language (Babel ships it; refbot already reads month names there). ``names_in(label, language)`` gives the names
of the country, region, language or currency whose English name is ``label`` — a country also by the names
ISO 3166 gives it ("Republic of Ireland", "Russian Federation": ``bot.values.countries``), a language by the label
Wikidata gives languages ("English language") — and of the city CLDR names a time zone by ("London" is "Londra" in
Turkish, "Londres" in French, "Лондон" in Russian: the exemplar cities of its time-zone names, some 400 of the
world's larger cities), so that a page in any language states such a value as plainly as an English one (places
of birth, death and formation are among the properties that most need a reference). Any other label has none: an
item's own name in a language is Wikidata's to give (its labels and aliases in the page's language), not a
table's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from babel import Locale, UnknownLocaleError

from bot.values.countries import country_code

COMMON_NAME = "name in the text's language (CLDR)"
_BRACKETED = re.compile(r"\s*\([^()]*\)\s*$")
# Wikidata labels a language "English language", "Irish language": the name CLDR gives it, then this word.
_LANGUAGE_WORD = " language"


def names_in(label: str, language: str) -> tuple[str, ...]:
    """The names CLDR gives in ``language`` to what ``label`` names in English; () when it names none of them or
    CLDR does not know ``language``."""
    try:
        locale = Locale.parse(language)
    except (UnknownLocaleError, ValueError):
        return ()
    key = " ".join(label.split()).casefold()
    names: list[str] = []
    territory = _english("territories").get(key) or country_code(label)
    if territory and territory in locale.territories:
        names.append(locale.territories[territory])
    if key.endswith(_LANGUAGE_WORD) and (code := _english("languages").get(key[:-len(_LANGUAGE_WORD)])):
        if code in locale.languages:
            names.append(locale.languages[code])
    if (currency := _english("currencies").get(key)) and currency in locale.currencies:
        names.append(locale.currencies[currency])
    if zone := _cities().get(key):  # without what a bracket adds to tell it apart ("Tripoli (Libye)")
        names.append(_BRACKETED.sub("", locale.time_zones.get(zone, {}).get("city", "")))
    return tuple(dict.fromkeys(name for name in names if name and name.casefold() != key))


@lru_cache(maxsize=3)
def _english(kind: str) -> dict[str, str]:
    """English name (casefolded) → code, for "territories", "languages" or "currencies"; a name two codes share
    (an old and a new one) is left out."""
    names: dict[str, str] = {}
    shared: set[str] = set()
    for code, name in getattr(Locale("en"), kind).items():
        key = name.casefold()
        if key in names and names[key] != code:
            shared.add(key)
        names[key] = code
    return {key: code for key, code in names.items() if key not in shared}


@lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """English name of a time zone's exemplar city (casefolded) → the zone ("london" → "Europe/London"): CLDR's
    English name where it gives one ("Ho Chi Minh City"), else the zone's last part ("America/New_York" → "New
    York", as CLDR's root does). A name two zones share is left out; "Etc/…" names no city."""
    english = Locale("en").time_zones
    zones: dict[str, str] = {}
    shared: set[str] = set()
    every: set[str] = {str(zone) for code in _ZONE_LOCALES for zone in Locale(code).time_zones}
    for zone in sorted(every):
        if "/" not in zone or zone.startswith("Etc/"):
            continue
        name = english.get(zone, {}).get("city") or zone.rsplit("/", 1)[1].replace("_", " ")
        key = name.casefold()
        if key in zones and zones[key] != zone:
            shared.add(key)
        zones[key] = zone
    return {key: zone for key, zone in zones.items() if key not in shared}


# Locales whose time-zone names together hold every zone CLDR names a city for in some language.
_ZONE_LOCALES = ("en", "ru", "es", "tr", "fr", "de", "ja", "zh", "ar")
