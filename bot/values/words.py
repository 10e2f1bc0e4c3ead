"""Numbers written in words: "three", "drei", "nineteen forty-three", "in the year nineteen hundred and forty-three".
Pure.

The words come from num2words (cardinal and year forms) in each language asked for that it knows, rather than from
lists written here; a form is matched with any spacing, hyphens or commas between its words ("forty three",
"forty-three") and English "and" optional ("nineteen hundred forty-three"). Only whole words count: "drei" is not
found in "dreißig", nor "three" in "twenty-three" or "three hundred" (a number word next to it makes another
number).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

# Small amounts only: beyond them pages write digits, and "one" (or "ein", "un") is an article more often than
# a number.
SMALLEST_WORDED, LARGEST_WORDED = 2, 100
_OPTIONAL = {"and"}
# Number words that are common words or month abbreviations in another language looked in: Italian "due" (English
# "due to"), French "cent" ("per cent"), Spanish "once", French "sept" ("Sept."), Portuguese "dez" ("Dez."), Italian
# "sei" (German "es sei").
_HOMOGRAPHS = frozenset({"due", "cent", "once", "sept", "dez", "sei"})
# Joining words and articles that may stand beside a number without making another number.
_NOT_NUMBERS = frozenset({"and", "e", "et", "y", "i", "one", "un", "um", "uno", "een", "eine", "ein"})
_SEPARATORS = re.compile(r"[\s,\-‐‑–]+")
_GAP = r"[\s,\-‐‑–]+"
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[\s\-‐‑–]+\Z")
_WORD_AFTER = re.compile(r"[\s\-‐‑–]+([^\W\d_]+)")


@lru_cache(maxsize=8192)
def spelled(number: int, language: str, to: str = "cardinal") -> str:
    """``number`` in words as num2words writes it in ``language`` ("" where it does not know the language)."""
    from num2words import num2words

    try:
        return num2words(number, lang=language, to=to).casefold()
    except (NotImplementedError, ValueError, TypeError, KeyError, OverflowError, IndexError):
        return ""


@lru_cache(maxsize=256)
def year_words(year: int, languages: tuple[str, ...]) -> tuple[str, ...]:
    """A year in words in ``languages``: "nineteen forty-three", "neunzehnhundertdreiundvierzig", and the English
    "nineteen hundred and forty-three"; longest first."""
    if year <= 0:
        return ()
    forms = {spelled(year, language, to) for language in languages for to in ("year", "cardinal")}
    if "en" in languages and 1100 <= year < 2000 and year % 100:
        forms.add(f"{spelled(year // 100, 'en')} hundred and {spelled(year % 100, 'en')}")
    return tuple(sorted(filter(None, forms), key=len, reverse=True))


def words_regex(forms: tuple[str, ...]) -> str:
    """A regular expression for any of ``forms`` written with any separators, as whole words."""
    alternatives = []
    for form in forms:
        tokens = [token for token in _SEPARATORS.split(form) if token]
        if not tokens:
            continue
        parts = [re.escape(tokens[0])]
        for token in tokens[1:]:
            parts.append(f"(?:{_GAP}{re.escape(token)})?" if token in _OPTIONAL else f"{_GAP}{re.escape(token)}")
        alternatives.append("".join(parts))
    if not alternatives:
        return ""
    return r"(?<![\w\-‐‑–])(?:" + "|".join(alternatives) + r")(?!\w)"


@lru_cache(maxsize=16)
def number_vocabulary(languages: tuple[str, ...]) -> frozenset[str]:
    """Every word the numbers 2–100 and the scales (thousand, million, billion) are written with in
    ``languages``: a number word beside one of them is part of a larger number."""
    words = set()
    for language in languages:
        for number in (*range(SMALLEST_WORDED, LARGEST_WORDED + 1), 1000, 10 ** 6, 10 ** 9):
            words.update(_SEPARATORS.split(spelled(number, language)))
    return frozenset(words - _NOT_NUMBERS - _HOMOGRAPHS - {""})


@lru_cache(maxsize=256)
def amount_words_pattern(number: int, languages: tuple[str, ...]) -> re.Pattern[str] | None:
    """A pattern for a small whole number in words in ``languages``; None outside 2–100."""
    if not SMALLEST_WORDED <= number <= LARGEST_WORDED:
        return None
    forms = {spelled(number, language) for language in languages} - _HOMOGRAPHS - {""}
    regex = words_regex(tuple(sorted(forms, key=len, reverse=True)))
    return re.compile(regex, re.IGNORECASE) if regex else None


def find_amount_words(number: int, languages: tuple[str, ...], text: str) -> Iterator[tuple[int, int]]:
    """Where ``text`` writes ``number`` (2–100) in words and no number word beside it makes it part of another
    number, as (start, end) spans."""
    pattern = amount_words_pattern(number, languages)
    if pattern is None:
        return
    vocabulary = number_vocabulary(languages)
    for match in pattern.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, match.start() - 40), match.start())
        after = _WORD_AFTER.match(text, match.end())
        if before and before.group(1).casefold() in vocabulary:
            continue
        if after and after.group(1).casefold() in vocabulary:
            continue
        yield match.start(), match.end()
