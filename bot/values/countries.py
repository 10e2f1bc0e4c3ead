"""A country as pages write it: its ISO 3166 names and codes, or a place in it (ISO 3166-2). Pure.

A page rarely writes "United States of America" for the country of a bridge; it writes "Last Chance, Colorado" or
"Philadelphia, Pennsylvania", which state the country as plainly to a reader. Where the statement's property takes
a country (``COUNTRY_VALUED``: country, country of citizenship, of origin …), the value is also found by the
names ISO 3166 gives the country (short, official and common names, its three-letter code, its two-letter code
with dots: "U.S.") and by the names of its top-level subdivisions ("Kerala", "Colorado", "Scotland"), as
pycountry ships them. A subdivision named like a country ("Georgia") names neither and is left out. Names are
matched as written, whole words, capitalised or in capitals ("KERALA"), with or without their diacritics
("Karnataka" for "Karnātaka"); the judge still decides whether the text says the subject is there.

In a run, Wikidata's own links (``bot.selection.related``: places located in the value) add more; this table is
what refbot knows without asking, so `refbot eval` and an offline run find the same.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

import pycountry

from bot.values.found import Found

# Properties whose values are countries (their value-type constraint, Q21510865, names country, Q6256, or
# sovereign state): country, country of citizenship, country of origin, basin country, country for sport,
# country of registry.
COUNTRY_VALUED = frozenset({"P17", "P27", "P205", "P495", "P1532", "P8047"})

COUNTRY_NAME = "country's name (ISO 3166)"
PLACE_IN_COUNTRY = "place in the country (ISO 3166-2)"


def country_finder(label: str) -> Callable[[str], Found | None] | None:
    """A function finding the country called ``label`` in a text by its ISO names or a place in it; None when
    ``label`` names no country pycountry knows."""
    patterns = _patterns(" ".join(label.split()))
    if patterns is None:
        return None
    own, places = patterns

    def find(text: str) -> Found | None:
        for pattern, how in ((own, COUNTRY_NAME), (places, PLACE_IN_COUNTRY)):
            match = pattern.search(text) if pattern is not None else None
            if match:
                return Found(match.group(0), match.start(), match.end(), f"{how}: {match.group(0)}"
                             if how == PLACE_IN_COUNTRY else how)
        return None
    return find


def country_code(label: str) -> str | None:
    """The ISO 3166 two-letter code of the country called ``label`` ("Republic of Ireland" → "IE"); None when it
    names no country pycountry knows."""
    country = _country(" ".join(label.split()))
    return country.alpha_2 if country is not None else None


@lru_cache(maxsize=256)
def _patterns(label: str) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None] | None:
    country = _country(label)
    if country is None:
        return None
    # Not "Korea, Republic of": a catalogue's inversion, which pages do not write.
    names = {name for field in ("name", "official_name", "common_name")
             if isinstance(name := getattr(country, field, None), str) and "," not in name}
    codes = {country.alpha_3, ".".join(country.alpha_2) + "."}
    countries = {_folded(name) for other in pycountry.countries
                 for name in (other.name, getattr(other, "common_name", None)) if name}
    places: set[str] = set()
    for subdivision in pycountry.subdivisions.get(country_code=country.alpha_2) or ():
        if subdivision.parent_code is not None:
            continue
        name = re.sub(r"\s*\[.*?\]\s*", "", subdivision.name).strip()
        if len(name) > 3 and "," not in name and _folded(name) not in countries:
            places.add(name)
    return _alternation(sorted(names), sorted(codes)), _alternation(sorted(places)) if places else None


def _country(label: str):
    try:
        return pycountry.countries.lookup(label)
    except LookupError:
        pass
    try:
        candidates = pycountry.countries.search_fuzzy(label)
    except LookupError:
        return None
    # "Russia" → "Russian Federation": only a candidate whose own names start with the label.
    first = candidates[0] if candidates else None
    names = (getattr(first, field, "") or "" for field in ("name", "official_name", "common_name"))
    return first if first is not None and any(_folded(name).startswith(_folded(label)) for name in names) \
        else None


def _folded(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def _letters(name: str) -> str:
    """A pattern matching ``name`` as written and without its diacritics."""
    parts = []
    for char in name:
        base = _folded(char)
        if len(base) == 1 and base != char.casefold():
            parts.append(f"[{re.escape(char)}{re.escape(base)}{re.escape(base.upper())}]")
        elif char.isspace():
            parts.append(r"\s+")
        else:
            parts.append(re.escape(char))
    return "".join(parts)


def _alternation(names: Sequence[str], codes: Sequence[str] = ()) -> re.Pattern[str]:
    """Names as written or in capitals, codes as written; whole words; the longest first."""
    forms = [form for name in names for form in (_letters(name), _letters(name.upper()))]
    forms += [re.escape(code) for code in codes]
    forms.sort(key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(forms)})(?!\w)")
