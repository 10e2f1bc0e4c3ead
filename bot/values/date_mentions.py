"""Every date a text writes, whatever its value: "14 January 1944", "Jan. 3, 1950", "3.1.1950", "1950-01-03",
"May 1950", "1951/52", "1950", "44 BC". Pure.

``bot.values.dates`` looks for one known value; here any value is read, for finding the *other* dates a text gives
for a property (``bot.values.others``) and the numbers that are parts of dates. The forms are those
``bot.values.dates`` knows, stricter where a guess would mislead: a year needs four digits or an era marker, an
abbreviated month name its dot (Czech "pro" is also "for"; English "Jan" needs none), a year standing alone must
look like one (1000–2099, not a page or a catalogue number, not a length in metres). "01/04/1943" is read both
ways. Footnote markers glued to a date end it as they end the value ``bot.values.dates`` looks for
(``bot.values.markers``: "1943[2]", "1943²", "14 January 1943.2").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from functools import lru_cache

from bot.values.dates import (BCE_MARKERS, DATE_LANGUAGES, DAY_MONTH_LINK, MONTH_YEAR_LINK, ORDINAL_SUFFIX,
                              WikibaseTime, month_names)
from bot.values.markers import FREE_YEAR_END, WORD_END, YEAR_END

_ERA = rf"(?P<era>\s?{BCE_MARKERS})?"
_YEAR = rf"(?P<year>\d{{1,4}}){YEAR_END}"
_WORD = re.compile(r"[^\W\d_]+")
_FREE_YEAR = r"(?P<year>1\d{3}|20\d{2})"
# Before a number that is not a year: "No. 1687", "p. 1943", "S. 1943", "vol. 1901", "#1999", "ISBN 1943…".
NUMBERING = re.compile(r"(?:\b(?:no|nos|nr|page|pages|vol|art|čís|isbn|issn|tel|fax|id)\.?|\b(?:p|pp|s|č)\.|[#§№])"
                       r"\s*\Z", re.IGNORECASE)
# After a number that is a measure: "1943 m", "2000 km", "1500 ft", "1990 %".
_MEASURE = re.compile(r"\s?(?:m|km|cm|mm|ft|mi|kg|t|%|metres|meters|feet|m²|km²)(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class DateMention:
    """A date as a text writes it, with every value it can be read as (two for "01/04/1943", two years for
    "1951/52")."""

    form: str
    start: int
    end: int
    readings: tuple[WikibaseTime, ...]


@lru_cache(maxsize=16)
def _month_table(languages: tuple[str, ...]) -> tuple[dict[str, int], str, str]:
    """Month names (casefolded) to numbers; an alternation of names that need no dot, and one of names that do."""
    table: dict[str, int] = {}
    plain: set[str] = set()
    dotted: set[str] = set()
    for month in range(1, 13):
        wide = set(month_names(month, languages, ("wide",)))
        english = set(month_names(month, ("en",)))
        for name in month_names(month, languages):
            table[name.casefold()] = month
            (plain if name in wide or name in english else dotted).add(name)

    def alternation(names: set[str]) -> str:
        return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return table, alternation(plain), alternation(dotted)


@lru_cache(maxsize=16)
def _patterns(languages: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    _, plain, dotted = _month_table(languages)
    month = rf"(?P<month_name>(?<!\w)(?:{plain})(?!\w)\.?|(?<!\w)(?:{dotted})\.)"
    day = r"(?<![\w.])(?P<day>\d{1,2})"
    forms = {
        "day month year": rf"{day}{ORDINAL_SUFFIX}\s+{DAY_MONTH_LINK}{month}\s*,?\s+{MONTH_YEAR_LINK}{_YEAR}{_ERA}",
        "month day year": rf"{month}\s+(?:the\s+)?(?P<day>\d{{1,2}}){ORDINAL_SUFFIX}\s*,?\s+{_YEAR}{_ERA}",
        "dotted": rf"(?<![\w.])(?P<day>\d{{1,2}})\.\s?(?P<month>\d{{1,2}})\.\s?(?P<year>\d{{4}}){YEAR_END}",
        "iso": r"(?<![\w.\-])(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?!\d)(?!-\d)",
        "slashed": r"(?<![\w./])(?P<first>\d{1,2})/(?P<second>\d{1,2})/(?P<year>\d{4})(?![\d/])",
        "month year": rf"{month}\s*,?\s+{MONTH_YEAR_LINK}{_YEAR}{_ERA}",
        "iso month": rf"(?<![\w.\-/])(?P<year>\d{{4}})-(?P<month>\d{{2}})(?![\-/]){WORD_END}",
        "season": rf"(?<![\w.,\-/])(?P<year>1\d{{3}}|20\d{{2}})\s?[/–-]\s?(?P<second>\d{{4}}|\d{{2}}){WORD_END}"
                  rf"(?![/\-]\d){FREE_YEAR_END}",
        "era": rf"(?<![\w.,])(?P<year>\d{{1,4}})\s?(?P<era>{BCE_MARKERS}){WORD_END}",
        "year": rf"(?<!\w)(?<!\d[.,]){_FREE_YEAR}{WORD_END}{FREE_YEAR_END}(?!\s?{BCE_MARKERS})",
    }
    return tuple((kind, re.compile(form, re.IGNORECASE)) for kind, form in forms.items())


def _day(year: int, month: int, day: int) -> WikibaseTime | None:
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    if year > 0 and day > calendar.monthrange(year, month)[1]:
        return None
    return WikibaseTime(year, month, day, 11)


def _readings(kind: str, match: re.Match[str], months: dict[str, int]) -> tuple[WikibaseTime, ...]:
    groups = match.groupdict()
    digits = groups["year"]
    era = groups.get("era")
    if len(digits) < 4 and not era:
        return ()
    year = -int(digits) if era else int(digits)
    month = months.get((groups.get("month_name") or "").rstrip(".").casefold()) or int(groups.get("month") or 0)
    if kind == "slashed":
        first, second = int(groups["first"]), int(groups["second"])
        days = [day for day in (_day(year, second, first), _day(year, first, second)) if day is not None]
        return tuple(dict.fromkeys(days))
    if "day" in kind or kind in ("dotted", "iso"):
        found = _day(year, month, int(groups["day"]))
        return (found,) if found else ()
    if "month" in kind:
        return (WikibaseTime(year, month, 0, 10),) if 1 <= month <= 12 else ()
    if kind == "season":
        second = int(groups["second"])
        if second not in (year + 1, (year + 1) % 100):
            return ()
        return WikibaseTime(year), WikibaseTime(year + 1)
    return (WikibaseTime(year),)


def _looks_numbered(text: str, match: re.Match[str]) -> bool:
    return bool(NUMBERING.search(text, max(0, match.start() - 12), match.start())
                or _MEASURE.match(text, match.end()))


def find_dates(text: str, languages: tuple[str, ...] = DATE_LANGUAGES) -> list[DateMention]:
    """Every date ``text`` writes, in text order; where forms overlap, the longest (the day in "14 January 1944"
    and not its year)."""
    months = _month_table(languages)[0]
    # Forms led by a month name are tried only where one stands: an alternation of every month name tried at
    # every position costs ten times the rest.
    named = [word.start() for word in _WORD.finditer(text) if word.group(0).casefold() in months]
    found: list[DateMention] = []
    for kind, pattern in _patterns(languages):
        if kind.startswith("month"):
            matches = [match for start in named if (match := pattern.match(text, start))]
        else:
            matches = list(pattern.finditer(text))
        for match in matches:
            if kind in ("year", "season", "era") and _looks_numbered(text, match):
                continue
            readings = _readings(kind, match, months)
            if readings:
                found.append(DateMention(match.group(0), match.start(), match.end(), readings))
    found.sort(key=lambda mention: (mention.start, mention.start - mention.end))
    kept: list[DateMention] = []
    for mention in found:
        if kept and mention.start < kept[-1].end:
            continue
        kept.append(mention)
    return kept
