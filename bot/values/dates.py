"""A time value as pages write it: "14 January 1943", "January 14th, 1943", "the 14th of January, 1943",
"Sept. 3, 1943", "14 de enero de 1943", "14. ledna 1943", "14.1.1943", "1943-01-14", "in 1943", "c. 1943",
"1942/43", "nineteen forty-three", "the 1940s", "19th century", "44 BC". Pure.

The value's parts (``WikibaseTime``) come from its QuickStatements form (``+1943-01-14T00:00:00Z/11``, a Julian
date ending in ``/J``) or from the text `refbot select` shows ("1943-01-14", "October 1936", "1943", "1940s",
"19th century", "44 BCE", "… (Julian calendar)"). Patterns are built once per value (``date_pattern``) and
searched in each paragraph: month names come from the CLDR data Babel ships, in each language asked for (format
and stand-alone forms, wide and abbreviated, so Czech "ledna" and "leden" both count); years in words from
num2words (``bot.values.words``). A value is found at its own precision or finer: a year is found in
"14 January 1943" and in the season "1942/43" too, never in "19431" or in the amount "1943.5". A footnote marker
glued to it does not count ("1943[2]", "1943²", and "14 January 1943.2", where a day or a month leads the year and
".2" can only be a note: ``bot.values.markers``). A day is also found as the
same day in the other calendar where pages write it so (``calendar_equivalents``): a Julian day as its Gregorian
date, a Gregorian day of 1582–1923 as its Julian ("Old Style") date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from bot.values.markers import FREE_YEAR_END, WORD_END, YEAR_END
from bot.values.words import words_regex, year_words

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
    julian: bool = False  # the day is a Julian-calendar one (QuickStatements "/J")


_RAW = re.compile(r"^([+-])(\d+)-(\d\d)-(\d\d)T[\d:]+Z/(\d+)")
_ISO = re.compile(r"^(-?\d{1,4})-(\d\d)-(\d\d)$")
_MONTH_YEAR = re.compile(r"^([A-Za-z]+) (\d{1,4})( BCE)?$")
_YEAR = re.compile(r"^(\d{1,4})( BCE)?$")
_DECADE = re.compile(r"^(\d{1,3}0)s( BCE)?$")
_CENTURY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th) century( BCE)?$")
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2}) ([A-Za-z]+) (\d{1,4})( BCE)?$")
_JULIAN_RAW = re.compile(r"/J\s*$")
_JULIAN_TEXT = " (Julian calendar)"
# The Gregorian calendar began in 1582; Greece, the last country to leave the Julian, did so in 1923.
GREGORIAN_START, JULIAN_END = (1582, 10, 15), 1923
_ENGLISH_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                   "october", "november", "december")


def parse_time(raw: str, text: str = "") -> WikibaseTime | None:
    """The value's parts from its QuickStatements form, else from the text `refbot select` renders."""
    julian = bool(_JULIAN_RAW.search(raw)) or _JULIAN_TEXT in text
    match = _RAW.match(raw)
    if match:
        sign, year, month, day, precision = match.groups()
        number = int(year)
        return WikibaseTime(-number if sign == "-" else number, int(month), int(day), int(precision), julian)
    shown = text.replace(_JULIAN_TEXT, "").strip() or raw.strip()
    if (match := _ISO.match(shown)):
        return WikibaseTime(int(match.group(1)), int(match.group(2)), int(match.group(3)), 11, julian)
    if (match := _DAY_MONTH_YEAR.match(shown)) and match.group(2).lower() in _ENGLISH_MONTHS:
        year = int(match.group(3)) * (-1 if match.group(4) else 1)
        return WikibaseTime(year, _ENGLISH_MONTHS.index(match.group(2).lower()) + 1, int(match.group(1)), 11, julian)
    if (match := _MONTH_YEAR.match(shown)) and match.group(1).lower() in _ENGLISH_MONTHS:
        year = int(match.group(2)) * (-1 if match.group(3) else 1)
        return WikibaseTime(year, _ENGLISH_MONTHS.index(match.group(1).lower()) + 1, 0, 10, julian)
    if (match := _YEAR.match(shown)):
        return WikibaseTime(int(match.group(1)) * (-1 if match.group(2) else 1), 0, 0, 9)
    if (match := _DECADE.match(shown)):
        return WikibaseTime(int(match.group(1)) * (-1 if match.group(2) else 1), 0, 0, 8)
    if (match := _CENTURY.match(shown)):
        century = int(match.group(1))
        return WikibaseTime((century * 100) * (-1 if match.group(2) else 1), 0, 0, 7)
    return None


@lru_cache(maxsize=64)
def month_names(month: int, languages: tuple[str, ...], widths: tuple[str, ...] = ("wide", "abbreviated")
                ) -> tuple[str, ...]:
    """Every name CLDR gives ``month`` (1–12) in ``languages``, longest first, without a final dot (English
    takes British abbreviations too: "Sept")."""
    from babel import Locale, UnknownLocaleError

    names = set()
    for language in languages:
        for variant in (language, "en_GB") if language == "en" else (language,):
            try:
                locale = Locale.parse(variant)
            except (UnknownLocaleError, ValueError):
                continue
            for context in ("format", "stand-alone"):
                for width in widths:
                    name = locale.months[context][width].get(month)
                    if name:
                        names.add(name.rstrip("."))
    return tuple(sorted(names, key=len, reverse=True))


def calendar_equivalents(time: WikibaseTime) -> tuple[WikibaseTime, ...]:
    """The same day in the other calendar, where pages write it so: a Julian day (from the Gregorian reform on)
    as its Gregorian date, a Gregorian day of 1582–1923 as its Julian ("Old Style") date. Converted by
    convertdate; coarser values and days before the reform have none."""
    if time.precision < 11 or not time.day or not 1 <= time.month <= 12 or time.year < GREGORIAN_START[0]:
        return ()
    from convertdate import julian

    try:
        if time.julian:
            year, month, day = julian.to_gregorian(time.year, time.month, time.day)
            if (year, month, day) >= GREGORIAN_START:
                return (WikibaseTime(year, month, day, time.precision),)
        elif GREGORIAN_START <= (time.year, time.month, time.day) and time.year <= JULIAN_END:
            year, month, day = julian.from_gregorian(time.year, time.month, time.day)
            return (WikibaseTime(year, month, day, time.precision, julian=True),)
    except ValueError:
        return ()
    return ()


def _alternation(options) -> str:
    return "(?:" + "|".join(re.escape(option) for option in options) + ")"


ORDINAL_SUFFIX = r"(?:st|nd|rd|th|er|º|°|\.)?"
# "14 de enero de 1943", "14 di gennaio 1943", "the 14th of January 1943"
DAY_MONTH_LINK = r"(?:(?:of|de|del|di)\s+)?"
MONTH_YEAR_LINK = r"(?:(?:de|del)\s+)?"


def _year_forms(year: int) -> tuple[str, str, str]:
    """The year after the digits of a day and a month ("14.1.1943"), after a day or a month's name, and standing
    alone (where a decimal part is a note only before a new sentence: "1943.5" is an amount)."""
    number = abs(year)
    era = rf"\s?{BCE_MARKERS}" if year < 0 else rf"(?!\s?{BCE_MARKERS})"
    tail = rf"{number}{YEAR_END}{era}"
    not_decimals = r"(?<!\d)(?<!\d[.,])"  # "c.1943", not "5.1943"
    return tail, not_decimals + tail, rf"{not_decimals}{number}{FREE_YEAR_END}{era}"


def _year_after_a_month(year: int, languages: tuple[str, ...]) -> str:
    """The year after any month's name ("3 May 1871", "May 1871", "3. května 1871", "enero de 1871"), where a
    decimal part is a note as after a day or a month (``YEAR_END``). An abbreviation needs its dot, but an English
    one (Czech "pro" is also "for"). The names are looked behind the year, so the pattern is only tried where the
    year stands."""
    wide = {name.lower() for month in range(1, 13) for name in (*month_names(month, languages, ("wide",)),
                                                                *month_names(month, ("en",)))}
    abbreviated = {name.lower() for month in range(1, 13) for name in month_names(month, languages)} - wide
    leads = []  # each looked behind as one alternation of names of one length (a look-behind has one width)
    for names, links in ((wide, ("", r"\.", ",", r"\sde", r"\sdel")), (abbreviated, (r"\.",))):
        for length in sorted({len(name) for name in names}):
            alternation = _alternation(sorted(name for name in names if len(name) == length))
            leads += [rf"(?<=(?<!\w){alternation}{link}\s{year})" for link in links]
    return rf"(?<!\d){year}(?:{'|'.join(leads)}){YEAR_END}"


def _day_forms(time: WikibaseTime, languages: tuple[str, ...]) -> list[str]:
    year_tail, year_re, _ = _year_forms(time.year)
    month = _alternation(month_names(time.month, languages)) + r"\.?"
    numeric_month = rf"0?{time.month}"
    day = rf"(?<!\d)0?{time.day}"
    forms = [
        # 14 January 1943, 14th of January, 1943, 14. ledna 1943, 14 de enero de 1943
        rf"{day}{ORDINAL_SUFFIX}\s+{DAY_MONTH_LINK}{month}\s*,?\s+{MONTH_YEAR_LINK}{year_re}",
        rf"(?<!\w){month}\s+(?:the\s+)?{day}{ORDINAL_SUFFIX}\s*,?\s+{year_re}",  # Jan. 14th, 1943
        rf"{day}\.\s?{numeric_month}\.\s?{year_tail}",  # 14.1.1943, 14. 1. 1943
        rf"(?<!\d){abs(time.year)}-0?{time.month}-0?{time.day}(?!\d)",  # 1943-01-14
    ]
    if time.day > 12 or time.day == time.month:  # 14/01/1943 can only be day first
        forms.append(rf"{day}/{numeric_month}/{year_tail}")
        forms.append(rf"(?<!\d){numeric_month}/{time.day}/{year_tail}")
    return forms


@lru_cache(maxsize=256)
def date_pattern(time: WikibaseTime, languages: tuple[str, ...] = DATE_LANGUAGES) -> re.Pattern[str]:
    """A pattern for the value as texts write it, at its precision (a day, a month, a year, a decade, a
    century); BCE values need an era marker after the year. Built once per value: a year's holds every month's
    name (``_year_after_a_month``)."""

    year = abs(time.year)
    year_tail, year_re, free_year = _year_forms(time.year)
    forms: list[str] = []
    if time.precision >= 10 and 1 <= time.month <= 12:
        if time.precision >= 11 and time.day:
            for same_day in (time, *calendar_equivalents(time)):
                forms += _day_forms(same_day, languages)
        else:
            month = _alternation(month_names(time.month, languages)) + r"\.?"
            forms += [rf"(?<!\w){month}\s*,?\s+{MONTH_YEAR_LINK}{year_re}",
                      rf"(?<!\d){year}-{time.month:02d}(?![\d-])", rf"(?<![\d.])0?{time.month}/{year_tail}"]
    if time.precision == 9 or (time.precision >= 10 and not forms):  # a year, or a month not understood
        forms.append(free_year)
        if time.year > 0:  # "born 3 May 1871.2": a month leads the year, whose decimal part is a note
            forms.append(_year_after_a_month(year, languages))
        if time.year > 1000:  # a season or a fiscal year: 1942/43, 1942–43
            forms.append(rf"(?<![\d.,]){year - 1}\s?[/–-]\s?{year % 100:02d}(?![-/]\d){FREE_YEAR_END}")
        if time.year > 0 and (words := words_regex(year_words(year, languages))):
            forms.append(words)
    elif time.precision == 8:
        decade = year // 10 * 10
        forms += [rf"(?<!\d){decade}['’]?s{WORD_END}", rf"(?<![\d.,]){decade}(?:–|-|\s?to\s?)\d{{2,4}}"]
    elif time.precision == 7:
        century = (year - 1) // 100 + 1  # as Wikidata shows it: 1900 is the 19th century
        forms += [rf"(?<!\d){century}(?:st|nd|rd|th|\.)?\s+(?:century|století|Jahrhundert|siècle|stoleti)"]
    return re.compile("|".join(f"(?:{form})" for form in forms), re.IGNORECASE)
