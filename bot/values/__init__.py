"""Is a statement's value in a text, as the text writes it? Pure.

refbot once looked for the value's label only; pages write dates, amounts and strings their own way
("born January 14, 1943", "14. ledna 1943", "85,868 GT"), so a page that states the value was never asked
about. ``value_finder`` builds, once per value, a function that returns where and how a paragraph states it:
items by label and aliases (``bot.values.names``, exact or fuzzy), times by ``bot.values.dates``, quantities by
``bot.values.amounts``, strings and identifiers normalised (case, spaces, dashes, quotes). It is used by the
mention check, the pre-ranking, the judge's claim (the date as the page writes it) and the trace's highlights.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.datamodel import Value
from bot.values.names import similarity
from bot.values.amounts import find_amount, parse_amount
from bot.values.dates import DATE_LANGUAGES, date_pattern, parse_time

LITERAL = "label"
DATE = "date"
AMOUNT = "amount"
STRING = "normalised text"


@dataclass(frozen=True)
class Found:
    """Where a text states the value: the words as written, their span, and how they were recognised."""

    form: str
    start: int
    end: int
    how: str


Finder = Callable[[str], "Found | None"]


def value_finder(value: Value, *, languages: Sequence[str] = (), threshold: float = 90.0) -> Finder:
    """A function finding ``value`` in a text; built once per statement, called for each paragraph."""
    if value.datatype == "time":
        time = parse_time(value.raw, value.text)
        if time is not None:
            pattern = date_pattern(time, tuple(dict.fromkeys((*languages, *DATE_LANGUAGES))))
            return lambda text: _first(pattern.search(text), DATE)
    if value.datatype == "quantity":
        amount = parse_amount(value.raw, value.text)
        if amount is not None:
            def find(text: str) -> Found | None:
                for start, end in find_amount(amount, text):
                    return Found(text[start:end], start, end, AMOUNT)
                return None
            return find
    if value.datatype in ("string", "external-id", "monolingualtext", "url"):
        needle = _normalised(value.text)
        return lambda text: _find_normalised(needle, text) if needle else None
    names = [name for name in (value.text, *value.aliases) if name]
    return lambda text: _find_name(names, text, threshold)


def matching_digest() -> str:
    """A digest of how values are found (this package's code): an evaluation ledger resumed with other rules would
    mix verdicts."""
    import hashlib
    from pathlib import Path

    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def must_be_written(value: Value) -> bool:
    """True for a value texts write only one way, so that a text without it cannot state it: an amount, or an
    item whose label holds a number ("Member of the 1558 Parliament", "Apollo 11")."""
    if value.datatype == "quantity":
        return True
    return value.datatype.startswith("wikibase-") and any(char.isdigit() for char in value.text)


def _first(match: re.Match[str] | None, how: str) -> Found | None:
    return Found(match.group(0), match.start(), match.end(), how) if match else None


_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
_QUOTES = dict.fromkeys(map(ord, "„“”«»‚‘’`´"), "'") | {ord('"'): "'"}


def _normalised(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES).casefold()
    return " ".join(folded.split())


def _find_normalised(needle: str, text: str) -> Found | None:
    """Case, dashes, quotes and runs of spaces do not matter; a short needle must be a whole word."""
    haystack = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES).casefold()
    # Map positions of the space-collapsed haystack back to the text.
    positions, collapsed, previous_space = [], [], False
    for index, char in enumerate(haystack):
        if char.isspace():
            if previous_space:
                continue
            char, previous_space = " ", True
        else:
            previous_space = False
        positions.append(index)
        collapsed.append(char)
    joined = "".join(collapsed)
    for match in re.finditer(re.escape(needle), joined):
        start, end = match.start(), match.end()
        before = joined[start - 1] if start else " "
        after = joined[end] if end < len(joined) else " "
        if (before.isalnum() and needle[0].isalnum()) or (after.isalnum() and needle[-1].isalnum()):
            continue
        first, last = positions[start], positions[end - 1] + 1
        if len(haystack) == len(text):
            return Found(text[first:last], first, last, STRING)
        return Found(needle, 0, 0, STRING)
    return None


def _find_name(names: Sequence[str], text: str, threshold: float) -> Found | None:
    for name in names:
        if similarity(name, text, threshold=threshold) == 1.0:
            start = text.casefold().find(" ".join(name.casefold().split()))
            if start >= 0 and len(text.casefold()) == len(text):
                return Found(text[start:start + len(name)], start, start + len(name), LITERAL)
            return Found(name, 0, 0, LITERAL)
    return None
