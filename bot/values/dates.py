"""A time value as pages write it: "14 January 1943", "January 14, 1943", "14. ledna 1943", "14.1.1943",
"1943-01-14", "in 1943", "the 1940s", "19th century", "44 BC". Pure.

The value's parts (``WikibaseTime``) come from its QuickStatements form (``+1943-01-14T00:00:00Z/11``) or from
the text `refbot select` shows ("1943-01-14", "October 1936", "1943", "1940s", "19th century", "44 BCE").
Patterns are built once per value (``date_pattern``) and searched in each paragraph: month names come from the
CLDR data Babel ships, in each language asked for (format and stand-alone forms, wide and abbreviated, so
Czech "ledna" and "leden" both count). A value is found at its own precision or finer: a year is found in
"14 January 1943" too, never in "19431" or "1943.5".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Languages whose month names are always looked for, beside the user's: a reference page is as likely to be
# in English as in the item's own language.
DATE_LANGUAGES = ("en", "cs", "de", "fr", "es", "it", "pl", "nl", "pt", "sk")
BCE_MARKERS = r"(?:BCE|B\.\s?C\.(?:\s?E\.)?|BC|v\.\s?Chr\.|př\.\s?n\.\s?l\.|př\.\s?Kr\.|av\.\s?J\.-C\.|a\.\s?C\.)"


@dataclass(frozen=True)
class WikibaseTime:
    year: int  # historical: 44 BCE is -44
    month: int = 0
    day: int = 0
    precision: int = 9  # 11 day, 10 month, 9 year, 8 decade, 7 century


_RAW = re.compile(r"^([+-])(\d+)-(\d\d)-(\d\d)T[\d:]+Z/(\d+)")
_ISO = re.compile(r"^(-?\d{1,4})-(\d\d)-(\d\d)$")
_MONTH_YEAR = re.compile(r"^([A-Za-z]+) (\d{1,4})( BCE)?$")
_YEAR = re.compile(r"^(\d{1,4})( BCE)?$")
_DECADE = re.compile(r"^(\d{1,3}0)s( BCE)?$")
_CENTURY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th) century( BCE)?$")
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2}) ([A-Za-z]+) (\d{1,4})( BCE)?$")
_ENGLISH_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                   "october", "november", "december")


def parse_time(raw: str, text: str = "") -> WikibaseTime | None:
    """The value's parts from its QuickStatements form, else from the text `refbot select` renders."""
    match = _RAW.match(raw)
    if match:
        sign, year, month, day, precision = match.groups()
        number = int(year)
        return WikibaseTime(-number if sign == "-" else number, int(month), int(day), int(precision))
    shown = text.replace(" (Julian calendar)", "").strip() or raw.strip()
    if (match := _ISO.match(shown)):
        return WikibaseTime(int(match.group(1)), int(match.group(2)), int(match.group(3)), 11)
    if (match := _DAY_MONTH_YEAR.match(shown)) and match.group(2).lower() in _ENGLISH_MONTHS:
        year = int(match.group(3)) * (-1 if match.group(4) else 1)
        return WikibaseTime(year, _ENGLISH_MONTHS.index(match.group(2).lower()) + 1, int(match.group(1)), 11)
    if (match := _MONTH_YEAR.match(shown)) and match.group(1).lower() in _ENGLISH_MONTHS:
        year = int(match.group(2)) * (-1 if match.group(3) else 1)
        return WikibaseTime(year, _ENGLISH_MONTHS.index(match.group(1).lower()) + 1, 0, 10)
    if (match := _YEAR.match(shown)):
        return WikibaseTime(int(match.group(1)) * (-1 if match.group(2) else 1), 0, 0, 9)
    if (match := _DECADE.match(shown)):
        return WikibaseTime(int(match.group(1)) * (-1 if match.group(2) else 1), 0, 0, 8)
    if (match := _CENTURY.match(shown)):
        century = int(match.group(1))
        return WikibaseTime((century * 100) * (-1 if match.group(2) else 1), 0, 0, 7)
    return None


@lru_cache(maxsize=64)
def month_names(month: int, languages: tuple[str, ...]) -> tuple[str, ...]:
    """Every name CLDR gives ``month`` (1–12) in ``languages``, longest first."""
    from babel import Locale, UnknownLocaleError

    names = set()
    for language in languages:
        try:
            locale = Locale.parse(language)
        except (UnknownLocaleError, ValueError):
            continue
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                name = locale.months[context][width].get(month)
                if name:
                    names.add(name.rstrip("."))
    return tuple(sorted(names, key=len, reverse=True))


def _alternation(options) -> str:
    return "(?:" + "|".join(re.escape(option) for option in options) + ")"


def _ordinal_suffix() -> str:
    return r"(?:st|nd|rd|th|\.)?"


def date_pattern(time: WikibaseTime, languages: tuple[str, ...] = DATE_LANGUAGES) -> re.Pattern[str]:
    """A pattern for the value as texts write it, at its precision (a day, a month, a year, a decade, a
    century); BCE values need an era marker after the year."""
    year = abs(time.year)
    era = rf"\s?{BCE_MARKERS}" if time.year < 0 else rf"(?!\s?{BCE_MARKERS})"
    year_tail = rf"{year}(?![\d]|[.,]\d){era}"  # after a day or a month the text itself leads in
    year_re = rf"(?<![\d.,]){year_tail}"
    forms: list[str] = []
    if time.precision >= 10 and 1 <= time.month <= 12:
        month = _alternation(month_names(time.month, languages)) + r"\.?"
        numeric_month = rf"0?{time.month}"
        if time.precision >= 11 and time.day:
            day = rf"(?<!\d)0?{time.day}"
            forms += [
                rf"{day}{_ordinal_suffix()}\s+(?:of\s+)?{month}\s*,?\s+{year_re}",  # 14 January 1943, 14. ledna 1943
                rf"{month}\s+{day}{_ordinal_suffix()}\s*,?\s+{year_re}",  # January 14, 1943
                rf"{day}\.\s?{numeric_month}\.\s?{year_tail}",  # 14.1.1943, 14. 1. 1943
                rf"(?<!\d){year}-0?{time.month}-0?{time.day}(?!\d)",  # 1943-01-14
            ]
            if time.day > 12 or time.day == time.month:  # 14/01/1943 can only be day first
                forms.append(rf"{day}/{numeric_month}/{year_tail}")
                forms.append(rf"(?<!\d){numeric_month}/{time.day}/{year_tail}")
        else:
            forms += [rf"{month}\s*,?\s+{year_re}", rf"(?<!\d){year}-{time.month:02d}(?![\d-])",
                      rf"(?<![\d.]){numeric_month}/{year_tail}"]
    if time.precision == 9 or (time.precision >= 10 and not forms):  # a year, or a month not understood
        forms.append(year_re)
    elif time.precision == 8:
        decade = year // 10 * 10
        forms += [rf"(?<!\d){decade}['’]?s\b", rf"(?<![\d.,]){decade}(?:–|-|\s?to\s?)\d{{2,4}}"]
    elif time.precision == 7:
        century = (year - 1) // 100 + 1  # as Wikidata shows it: 1900 is the 19th century
        forms += [rf"(?<!\d){century}(?:st|nd|rd|th|\.)?\s+(?:century|století|Jahrhundert|siècle|stoleti)"]
    return re.compile("|".join(f"(?:{form})" for form in forms), re.IGNORECASE)
