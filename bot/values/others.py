"""Other values a text gives for a statement's property: another date of birth, another tonnage, another
identifier. Pure.

A page that writes "born 12 March 1944" may contradict a statement of 14 January 1943; the judge asks about such
candidates. ``other_values`` returns what the text writes of the value's kind that is not the value in any form
refbot knows (``bot.values.value_finder``), in text order, each other value once:

- a time: dates that deny the value at their own precision or the value's, whichever is coarser
  (``bot.values.date_mentions``): for a day, another full date, another month, or another year ("1683" denies
  27 December 1677; "1677" and "December 1677" do not); for a year, another year that looks like one (1000–2099,
  or with an era; "1951/52"). The same day in the other calendar is the value. Decades and centuries have none.
  Dates at the value's precision come first (each kind in text order): "October 14, 1999" is likelier another
  date of death than "1961". Never one of the page's own dates (``bot.values.own_dates``: a dateline, "Retrieved
  …", a citation's ``archivedate = …``), unless its label names the property ("Published 14 June 1987" for a
  publication date, among ``property_words``).
- a quantity: numbers that are no reading of the value, within ×0.2–×5 of it, with their scale word; not parts of
  dates, of compounds ("0-306-40615", "13:30"), of numbering ("No. 12"), nor 4-digit years unless the value is
  year-like itself.
- a string or an identifier holding a digit: tokens of the same shape (digits, letters and the other characters
  in the same places, "0-306-40615-3" for "0-306-40615-2").
- items and the rest: none; ``other_names`` gives the proper names a text writes, the candidates for another
  value of a single-valued item property (a country of registry, a place of birth).

Finders are built once per value (``lru_cache``): this runs on every paragraph of a page that does not write the
value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import lru_cache

from bot.datamodel import Value
from bot.values.amounts import SCALE_WORD, NUMBER, SCALES, Amount, parse_amount, readings, states
from bot.values.date_mentions import NUMBERING, find_dates
from bot.values.dates import DATE_LANGUAGES, WikibaseTime, calendar_equivalents, date_pattern, parse_time
from bot.values.found import AMOUNT, DATE, STRING, Found
from bot.values.own_dates import page_date
from bot.values.strings import DASHES, QUOTES

OtherFinder = Callable[[str, int], "list[Found]"]
_YEAR_LIKE = re.compile(r"(?:1\d{3}|20\d{2})\Z")
_COMPOUND_BEFORE = re.compile(r"\d[-/:‐‑–]\Z")
_COMPOUND_AFTER = re.compile(r"[-/:‐‑–]\d")
STEM = 5  # a label names the property when their words share the first letters: "published", "publication"


def other_values(value: Value, text: str, limit: int = 3, *, languages: Sequence[str] = (),
                 property_words: Sequence[str] = ()) -> list[Found]:
    """Up to ``limit`` values of the kind of ``value`` that ``text`` writes and that are not ``value``.
    ``property_words``: the words naming the statement's property (``bot.judge.focus.property_words``), by which a
    page's own date is kept where its label names the property."""
    if limit <= 0:
        return []
    return _finder(value, tuple(dict.fromkeys((*languages, *DATE_LANGUAGES))), tuple(property_words))(text, limit)


@lru_cache(maxsize=256)
def _finder(value: Value, languages: tuple[str, ...], property_words: tuple[str, ...] = ()) -> OtherFinder:
    if value.datatype == "time" and (time := parse_time(value.raw, value.text)) is not None:
        return _time_finder(time, languages, property_words)
    if value.datatype == "quantity" and (amount := parse_amount(value.raw, value.text)) is not None:
        return _amount_finder(amount, languages)
    if value.datatype in ("string", "external-id"):
        return _shape_finder(value.text)
    return _none


def _none(text: str, limit: int) -> list[Found]:
    return []


def _time_key(time: WikibaseTime, precision: int) -> tuple[int, ...]:
    return (time.year, time.month, time.day)[:precision - 8]


def _dates_the_page(text: str, start: int, end: int, property_words: Sequence[str]) -> bool:
    """Whether the date at ``text[start:end]`` is one of the page's own, its label not naming the property."""
    label = page_date(text, start, end)
    return bool(label) and not any(word[:STEM] == part[:STEM] for word in property_words if len(word) >= STEM
                                   for part in label.split())


def _time_finder(time: WikibaseTime, languages: tuple[str, ...], property_words: tuple[str, ...]) -> OtherFinder:
    if time.precision < 9:
        return _none
    precision = min(time.precision, 11)
    same_times = (time, *calendar_equivalents(time))
    # The value at its own precision and at each coarser one down to the year: "1683" is no day, but it denies
    # any day of 1677, while "1943" is no other value of 14 January 1943.
    own = {_time_key(same, coarser) for same in same_times for coarser in range(9, precision + 1)}
    value_pattern = date_pattern(time, languages)

    def find(text: str, limit: int) -> list[Found]:
        written: list[tuple[int, int]] | None = None  # where the value is written, looked for when needed
        exact: list[Found] = []  # at the value's precision: the likelier value given for the property
        coarser: list[Found] = []
        seen: set[tuple[int, ...]] = set()
        for mention in find_dates(text, languages):
            keys = {_time_key(reading, min(reading.precision, precision)) for reading in mention.readings
                    if reading.precision >= 9}
            if not keys or keys & own or keys & seen:
                continue
            if written is None:
                written = [match.span() for match in value_pattern.finditer(text)]
            if any(start < mention.end and mention.start < end for start, end in written):
                continue
            if _dates_the_page(text, mention.start, mention.end, property_words):
                continue
            seen |= keys
            full = any(reading.precision >= precision for reading in mention.readings)
            (exact if full else coarser).append(Found(mention.form, mention.start, mention.end, DATE))
            if len(exact) == limit:
                break
        return (exact + coarser)[:limit]
    return find


def _amount_finder(amount: Amount, languages: tuple[str, ...]) -> OtherFinder:
    magnitude = abs(amount.value)
    if not magnitude:
        return _none
    lowest, highest = magnitude * Decimal("0.2"), magnitude * 5
    year_like = amount.value == amount.value.to_integral_value() and 1000 <= amount.value <= 2099

    def find(text: str, limit: int) -> list[Found]:
        dates = [(mention.start, mention.end) for mention in find_dates(text, languages)
                 if any(reading.precision >= 10 for reading in mention.readings)]
        found: list[Found] = []
        seen: set[Decimal] = set()
        for match in NUMBER.finditer(text):
            written, start, end = match.group(0), match.start(), match.end()
            if any(first < end and start < last for first, last in dates):
                continue
            if not year_like and _YEAR_LIKE.match(written):
                continue
            if _COMPOUND_BEFORE.search(text, 0, start) or _COMPOUND_AFTER.match(text, end) \
                    or NUMBERING.search(text, max(0, start - 12), start):
                continue
            scale = SCALE_WORD.match(text, end)
            factor = SCALES[scale.group(1).lower()] if scale else Decimal(1)
            numbers = [reading * factor for reading in readings(written)]
            if any(states(amount, number, written) for number in numbers):
                continue
            near = sorted(number for number in numbers if lowest <= abs(number) <= highest)
            if not near or near[0] in seen:
                continue
            seen.add(near[0])
            stop = scale.end() if scale else end
            found.append(Found(text[start:stop], start, stop, AMOUNT))
            if len(found) == limit:
                break
        return found
    return find


def _shape_finder(shown: str) -> OtherFinder:
    """Identifiers only: a value with a digit and at least 4 characters (6 when all digits), so that a name is
    never compared with every word of its length nor a short number with every year."""
    value = shown.strip().translate(DASHES).translate(QUOTES)
    digits = sum(char.isdigit() for char in value)
    if not digits or len(value) < 4 or (digits == len(value) and len(value) < 6):
        return _none
    shape = "".join(r"\d" if char.isdigit() else r"[^\W\d_]" if char.isalpha() else re.escape(char)
                    for char in value)
    pattern = re.compile(rf"(?<!\w)(?<!\w[-/.:]){shape}(?!\w)(?![-/.:]\w)")
    folded = value.casefold()

    def find(text: str, limit: int) -> list[Found]:
        plain = text.translate(DASHES).translate(QUOTES)
        found: list[Found] = []
        seen = {folded}
        for match in pattern.finditer(plain):
            key = match.group(0).casefold()
            if key in seen:
                continue
            seen.add(key)
            found.append(Found(text[match.start():match.end()], match.start(), match.end(), STRING))
            if len(found) == limit:
                break
        return found
    return find


# -- items: the proper names a text writes -------------------------------------------------------------------------
NAME = "proper name"
# Words; a name is a run of capitalised ones, with the small words names hold between them ("Isle of Man",
# "Rue de la Couronne"), separated by spaces only.
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# Not "and": "Austria and Hungary" is a list more often than "Trinidad and Tobago" is a name.
_CONNECTORS = frozenset("of de del da do la le the upon am an der von van y".split())
# Where a sentence (or a heading, a list item) begins: a capitalised word there need not be a name.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;|•·\n(\[\"“]\s*)\Z")
# Capitalised words that begin sentences or name no place, body or person.
_NOT_NAMES = frozenset("""a an the he she it his her its their they we i you this that these those there here in on at
by for from with to of and or but as after before during when while since until if although though because source
sources see also mr mrs ms dr sir madam saint st january february march april may june july august september october
november december monday tuesday wednesday thursday friday saturday sunday""".split())


def other_names(value: Value, text: str, limit: int = 3, *, exclude: Sequence[str] = ()) -> list[Found]:
    """The proper names ``text`` writes other than the value's and those in ``exclude`` (the subject's), in text
    order: for an item value that is itself a proper name (its label capitalised: a country, a town, a company),
    the candidates for another value of a single-valued property ("registered under the flag of Bermuda" for a
    statement saying Panama). None for a value written lower case ("poet", "female"): its kind has no names to
    tell in a text."""
    if limit <= 0 or not value.datatype.startswith("wikibase-") or not value.text[:1].isupper():
        return []
    from bot.values.names import mentions

    own = [name for name in (value.text, *value.aliases, *(name for name, _ in value.related), *exclude) if name]
    found: list[Found] = []
    for start, end in capitalised_runs(text):
        words = text[start:end].split()
        while words and words[0].casefold() in _NOT_NAMES:
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else end
            words = words[1:]
        if not words:
            continue
        name = text[start:end]
        if len(words) == 1 and _SENTENCE_START.search(text[:start]):
            continue  # "Rating:", "During …": one capitalised word where a sentence begins
        if len(name) < 3 or any(mentions(name, other) or mentions(other, name) for other in own):
            continue
        if any(name.casefold() == seen.form.casefold() for seen in found):
            continue
        found.append(Found(name, start, end, NAME))
        if len(found) == limit:
            break
    return found


def capitalised_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of capitalised words, connectors allowed inside, separated by spaces only."""
    runs: list[tuple[int, int]] = []
    start = end = last = -1  # the run's start, its last word's end, the last capitalised word's end
    for match in _WORD.finditer(text):
        word = match.group(0)
        joined = start >= 0 and text[end:match.start()] in (" ", "\t")
        if word[:1].isupper() and joined:
            end = last = match.end()
        elif word[:1].isupper():
            if start >= 0:
                runs.append((start, last))
            start, end, last = match.start(), match.end(), match.end()
        elif joined and word in _CONNECTORS:
            end = match.end()
        elif start >= 0:
            runs.append((start, last))
            start = end = last = -1
    if start >= 0:
        runs.append((start, last))
    return runs
