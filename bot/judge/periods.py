"""When a claim holds, and whether a text gives its value for another time. Pure.

A statement's point in time (P585), start time (P580) and end time (P582) say when it holds: a population of 12,480
in 2021, an award received in 2019. The judge is shown that time with the claim (``when_text``: "in 2021", "from
2015 to 2019"), and a text that writes the value only beside another time — "in 2011 the town had 12,480
inhabitants" for the 2021 figure, "she won the prize in 2004" for the prize of 2021 — does not state the claim,
whatever a model would say (``other_time``). A date counts as the value's when it stands in the value's clause, at
most ``NEAR_WORDS`` words away (not across a comma or a parenthesis: "the prize, founded in 1952," dates the prize,
not the award); a text that writes the value anywhere without such a date, or beside one within the claim's time,
is judged as any other.

The judge is asked about the time only where the text writes the value beside a date within it (``timing``): a
page often dates an event by its own date alone ("earlier this month she received the prize", in a feature of June
2021), which the judge, shown only the paragraph, cannot see; asked about "in 2021" there, a small model answers
no to a page that supports the statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.datamodel import Qualifier
from bot.documents.sentences import sentence_spans
from bot.values import Found
from bot.values.date_mentions import DateMention, find_dates
from bot.values.dates import parse_time

POINT_IN_TIME, START_TIME, END_TIME = "P585", "P580", "P582"
# How far (in words) a date may stand from the value and still say when the value held: "12,480 inhabitants in
# 2011", "in 2011 the town had 12,480", "won the Prague Spring Violin Prize in 2004 at the age of 23".
NEAR_WORDS = 6
# Occurrences of the value looked at in one text, at most.
MAX_OCCURRENCES = 12
_WORD = re.compile(r"\w+")
_OPEN = 10_000


@dataclass(frozen=True)
class Period:
    """Years (inclusive) in which the claim holds; one range per point in time, or the start–end range."""

    ranges: tuple[tuple[int, int], ...]

    def holds_in(self, year: int) -> bool:
        return any(low <= year <= high for low, high in self.ranges)


def _years(qualifier: Qualifier) -> tuple[int, int] | None:
    """The years a time qualifier's value covers at its precision (a decade, a century, a year or finer)."""
    time = parse_time(qualifier.value.raw, qualifier.value.text)
    if time is None or time.precision < 7:
        return None
    width = {8: 10, 7: 100}.get(time.precision, 1)
    first = time.year - (time.year % width) if width > 1 else time.year
    if time.precision == 7:
        first = (time.year - 1) // 100 * 100 + 1  # the 20th century is 1901–2000
    return first, first + width - 1


def period(when: Sequence[Qualifier]) -> Period | None:
    """The years of a claim's time qualifiers; None when it has none that can be read."""
    points = [years for q in when if q.property_id == POINT_IN_TIME and (years := _years(q)) is not None]
    starts = [years[0] for q in when if q.property_id == START_TIME and (years := _years(q)) is not None]
    ends = [years[1] for q in when if q.property_id == END_TIME and (years := _years(q)) is not None]
    ranges = list(points)
    if starts or ends:
        ranges.append((min(starts) if starts else -_OPEN, max(ends) if ends else _OPEN))
    return Period(tuple(ranges)) if ranges else None


def when_text(when: Sequence[Qualifier]) -> str:
    """The time as a sentence ends with it: "in 2021", "in June 2021", "on 2021-06-14", "from 2015 to 2019",
    "since 2015", "until 2019"; "" without time qualifiers."""
    def at(qualifier: Qualifier) -> str:
        text = qualifier.value.text
        if re.match(r"^-?\d{1,4}-\d\d-\d\d\b|^\d{1,2} ", text):
            return f"on {text}"
        return f"in the {text}" if re.search(r"\d0s\b|century|millennium", text) else f"in {text}"

    points = [q for q in when if q.property_id == POINT_IN_TIME]
    starts = [q.value.text for q in when if q.property_id == START_TIME]
    ends = [q.value.text for q in when if q.property_id == END_TIME]
    parts = [" and ".join(at(q) for q in points)] if points else []
    if starts and ends:
        parts.append(f"from {starts[0]} to {ends[-1]}")
    elif starts:
        parts.append(f"since {starts[0]}")
    elif ends:
        parts.append(f"until {ends[-1]}")
    return ", ".join(parts)


def occurrences(find: Callable[[str], Found | None], text: str) -> list[tuple[int, int]] | None:
    """Every span where ``find`` finds the value in ``text``; None when a match cannot be located (a fuzzy name
    match gives no span), so that nothing is concluded from where the value stands."""
    spans: list[tuple[int, int]] = []
    position = 0
    while len(spans) < MAX_OCCURRENCES and position < len(text):
        found = find(text[position:])
        if found is None:
            break
        if found.end <= found.start:
            return None
        spans.append((position + found.start, position + found.end))
        position += found.end
    return spans


def _words_between(text: str, start: int, end: int) -> int:
    return len(_WORD.findall(text[start:end])) if end > start else 0


def dates_beside(text: str, span: tuple[int, int], dates: Sequence[DateMention]) -> list[DateMention]:
    """The dates in the clause of the value at ``span``, at most ``NEAR_WORDS`` words from it: nothing between the
    date and the value that closes a clause or an aside (``, ; ( ) [ ] — –``), so that "the prize, founded in 1952,"
    and "Marková (born 1998) won the prize" date something else than the value."""
    sentence = next(((a, b) for a, b in sentence_spans(text) if a <= span[0] < b), (0, len(text)))
    near: list[DateMention] = []
    for mention in dates:
        if mention.start < sentence[0] or mention.end > sentence[1] or \
                (mention.start < span[1] and mention.end > span[0]):  # outside the sentence, or part of the value
            continue
        gap = (span[1], mention.start) if mention.start >= span[1] else (mention.end, span[0])
        same_clause = _CLAUSE_BREAK.search(text, gap[0], gap[1]) is None or _opening(text, sentence[0], mention, span)
        if same_clause and _words_between(text, *gap) <= NEAR_WORDS:
            near.append(mention)
    return near


def _opening(text: str, start: int, mention: DateMention, span: tuple[int, int]) -> bool:
    """Whether ``mention`` is in the sentence's opening phrase, which dates its main clause where the value is: "At
    the 2011 census, the town had 12,480 inhabitants" (one comma, the sentence's first, between them)."""
    if mention.end > span[0]:
        return False
    breaks = [match.start() for match in _CLAUSE_BREAK.finditer(text, start, span[0])]
    return len(breaks) == 1 and text[breaks[0]] == "," and mention.end <= breaks[0]


_CLAUSE_BREAK = re.compile(r"[,;()\[\]—–]")


def timing(when: Sequence[Qualifier], spans: Sequence[tuple[int, int]], text: str) -> tuple[str, bool]:
    """Where the text writes the value (``spans``) against the claim's time: why it gives the value only for another
    time ("the paragraph gives the value for 2011; the statement holds in 2021"; "" when it writes it somewhere with
    no date beside it, or with a date within the claim's time), and whether it writes it beside a date within the
    claim's time (then the text can state the time, and the judge is asked about it)."""
    held = period(when)
    if held is None or not spans:
        return "", False
    dates = find_dates(text)
    others: list[str] = []
    undated = False
    for span in spans:
        beside = dates_beside(text, span, dates)
        if any(held.holds_in(reading.year) for mention in beside for reading in mention.readings):
            return "", True
        if not beside:
            undated = True
        others += [mention.form for mention in beside if mention.form not in others]
    if undated:
        return "", False
    return f"the paragraph gives the value for {' and '.join(others)}; the statement holds {when_text(when)}", False


def other_time(when: Sequence[Qualifier], spans: Sequence[tuple[int, int]], text: str) -> str:
    """Why the text gives the value only for another time than the claim's, or "" (see ``timing``)."""
    return timing(when, spans, text)[0]


def sentence_giving(qualifier: Qualifier, text: str) -> str:
    """The sentence of ``text`` that gives the qualifier: for a time (point in time, start, end) one writing a date
    within the qualifier's years; for any other, one writing its value ("" when the text gives it nowhere)."""
    spans = sentence_spans(text) or [(0, len(text))]

    def sentence_at(position: int) -> str:
        return next((text[a:b].strip() for a, b in spans if a <= position < b), text.strip())

    if qualifier.property_id in (POINT_IN_TIME, START_TIME, END_TIME):
        years = _years(qualifier)
        if years is None:
            return ""
        for mention in find_dates(text):
            if any(years[0] <= reading.year <= years[1] for reading in mention.readings):
                return sentence_at(mention.start)
        return ""
    words = qualifier.value.text.split()
    found = re.search(r"\s+".join(map(re.escape, words)), text, re.I) if words else None
    return sentence_at(found.start()) if found is not None else ""
