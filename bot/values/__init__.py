"""Is a statement's value in a text, as the text writes it, and which other values does the text give? Pure.

refbot once looked for the value's label only; pages write dates, amounts and strings their own way
("born January 14th, 1943", "14. ledna 1943", "85,868 GT", "three children"), so a page that states the value was
never asked about. ``value_finder`` builds, once per value, a function that returns where and how a paragraph
states it (``Found``, its ``how`` one of the constants below):

- items by label (``LITERAL``), aliases (``ALIAS``) and the names Wikidata links to them (``Value.related``,
  ``how`` as given: "label (de)", "more general item Q515"), exact or fuzzy (``bot.values.names``);
- times (``DATE``) at their precision or finer, in any calendar pages use (``bot.values.dates``, the forms
  listed there; years in words by ``bot.values.words``);
- quantities (``AMOUNT``) with any grouping, decimal mark, scale or rounding (``bot.values.amounts``), small
  whole numbers in words too ("twelve", "drei");
- strings and identifiers (``STRING``) normalised: case, spaces, dashes, quotes (``bot.values.strings``); an
  identifier also without the name of its type (``WITHOUT_PREFIX``) and with the other separators registers write
  between its number and year ("No. 57 of 1962" for "57/1962": ``OTHER_SEPARATORS``), a personal name also
  surname first (``SURNAME_FIRST``);
- dates, amounts and identifiers with a footnote marker glued after them ("1871[2]", "1871²", "85,868[3] GT",
  "born on 3 May 1871.2": ``bot.values.markers``);
- an item that reads as a personal name also surname first and with its given names as initials ("Ellis, Bret
  Easton", "Murphy, R. C.": ``INITIALS``) and with what its label abbreviates or leaves out written out ("Allan Rex
  Sandage", "John Fitzgerald Kennedy": ``WRITTEN_OUT``); "&" and "and" alike in any item's name;
- an item whose label opens with "The", also without it, as written ("Yardbirds'ten" for The Yardbirds:
  ``WITHOUT_ARTICLE``);
- an item whose label has a common noun, with the label's words apart ("Listed Building Category B" for Category B
  listed building, "the director of the film" for film director: ``WORDS_APART``, ``bot.values.strings``);
- a country, for a property that takes one, by its ISO 3166 names and codes and its top-level subdivisions
  ("Kerala" for India: ``COUNTRY_NAME``, ``PLACE_IN_COUNTRY``, ``bot.values.countries``);
- the values male and female of sex or gender by the pronouns and titles English texts use (``GENDERED``);
- in a text in another language (``bot.values.language``), a date with that language's month names, a country,
  region, language or currency by its name there (``COMMON_NAME``, ``bot.values.common_names``), and an item's
  names as the language declines them (``INFLECTED``, ``bot.values.inflection``);
- in a text in another alphabet (Cyrillic, Greek, Armenian, Georgian), an item's name in Latin letters by its sound
  ("Гэри Кон" for Gary Cohn: ``TRANSCRIBED``, ``bot.values.transcription``).

A text must write the value for the judge to accept its support. ``other_values`` (``bot.values.others``)
returns the values of the same kind a text writes instead (another date of birth, another tonnage, another
identifier), the candidates for a contradiction. Both are used by the mention check, the pre-ranking, the judge
(its claim shows the date as the page writes it) and the trace's highlights.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bot.datamodel import Statement, Value
from bot.values.amounts import find_amount, parse_amount, whole_number
from bot.values.common_names import COMMON_NAME, names_in
from bot.values.dates import DATE_LANGUAGES, date_pattern, month_names, parse_time
from bot.values.inflection import INFLECTED, inflected_finder
from bot.values.language import text_language
from bot.values.countries import COUNTRY_NAME, COUNTRY_VALUED, PLACE_IN_COUNTRY, country_finder
from bot.values.found import (ALIAS, AMOUNT, DATE, GENDERED, INITIALS, LITERAL, OTHER_SEPARATORS, STRING,
                              SURNAME_FIRST, WITHOUT_ARTICLE, WITHOUT_PREFIX, WORDS_APART, WRITTEN_OUT,
                              Found)
from bot.values.names import gendered_pattern, similarity
from bot.values.others import other_names, other_values
from bot.values.strings import (find_normalised, find_normalised_pattern, find_words_apart, find_written_out,
                                initialled, normalised, numbered_pattern, personal_name_words, surname_first,
                                without_article, without_type_prefix, written_out)
from bot.values.transcription import TRANSCRIBED, in_alphabet, in_another_alphabet, transcribed_finder
from bot.values.words import find_amount_words

__all__ = ["ALIAS", "AMOUNT", "COMMON_NAME", "COUNTRY_NAME", "COUNTRY_VALUED", "DATE", "GENDERED", "INFLECTED",
           "INITIALS", "LITERAL", "OTHER_SEPARATORS", "PLACE_IN_COUNTRY", "STRING", "SURNAME_FIRST", "TRANSCRIBED",
           "WITHOUT_ARTICLE", "WITHOUT_PREFIX", "WORDS_APART", "WRITTEN_OUT", "Finder", "Found", "matching_digest",
           "names_beyond_reach", "other_names", "other_values", "statement_finder", "value_finder"]

Finder = Callable[[str], "Found | None"]


def value_finder(value: Value, *, languages: Sequence[str] = (), threshold: float = 90.0,
                 country: bool = False) -> Finder:
    """A function finding ``value`` in a text; built once per statement, called for each paragraph.

    ``country``: the statement's property takes a country (``COUNTRY_VALUED``), so the value is also found by its
    ISO 3166 names and the places in it (``bot.values.countries``). Where the value is not written as any language
    writes it, the text's own language (``bot.values.language``) is read: a date with its month names, a number in
    its words, an item by the names CLDR gives it there and by its names' declined forms (``in_text_language``)."""
    searched = tuple(dict.fromkeys((*languages, *DATE_LANGUAGES)))
    written = _written_finder(value, searched, threshold, country)
    local = in_text_language(value, searched, threshold)
    transcribed = _transcribed_finder(value)
    if transcribed is None:
        return lambda text: written(text) or local(text)
    return lambda text: written(text) or local(text) or transcribed(text)


def in_text_language(value: Value, searched: tuple[str, ...], threshold: float = 90.0) -> Finder:
    """A function finding ``value`` as the language of the text writes it, where that is neither English nor
    among ``searched`` for dates: a date with the language's month names, a whole number in its words; an item by
    the names CLDR gives it in the language (a country, region, language or currency: ``bot.values.common_names``)
    and by the declined forms of its names (``bot.values.inflection``). Built per language on first need."""
    by_language: dict[str, Finder | None] = {}

    def find(text: str) -> Found | None:
        language = text_language(text)
        if language is None or language == "en":
            return None
        if language not in by_language:
            by_language[language] = _language_finder(value, language, searched, threshold)
        finder = by_language[language]
        return finder(text) if finder is not None else None
    return find


def _language_finder(value: Value, language: str, searched: tuple[str, ...], threshold: float) -> Finder | None:
    if value.datatype == "time":
        time = parse_time(value.raw, value.text)
        if time is None or language in searched or not month_names(1, (language,)):
            return None
        pattern = date_pattern(time, (language,))
        return lambda text: _first(pattern.search(text), DATE)
    if value.datatype == "quantity":
        amount = parse_amount(value.raw, value.text)
        worded = whole_number(amount) if amount is not None and language not in searched else None
        if worded is None:
            return None

        def find_words(text: str) -> Found | None:
            span = next(find_amount_words(worded, (language,), text), None)
            return Found(text[span[0]:span[1]], span[0], span[1], AMOUNT) if span else None
        return find_words
    if value.datatype not in ("wikibase-item", "wikibase-property", "wikibase-lexeme") and value.datatype:
        return None
    names = [(name, how) for name, how in ((value.text, LITERAL), *((alias, ALIAS) for alias in value.aliases),
                                           *value.related) if name]
    common = [(name, COMMON_NAME) for name in names_in(value.text, language)]
    inflected = inflected_finder([*common, *names], language)
    if inflected is not None:
        return inflected
    return (lambda text: _find_name(common, text, threshold)) if common else None


def names_beyond_reach(value: Value, text: str) -> bool:
    """Whether ``text`` may name the item ``value`` in words no finder can know: the text is written in an alphabet
    read by sound (``bot.values.transcription.in_another_alphabet``), none of the value's names has a letter of
    such an alphabet, and CLDR gives the value no name in the text's language. Such a text cannot write the
    label, whether it names the value or not: it may translate the name ("Военно-воздушные силы" for Royal Air
    Force) or transcribe it past what ``bot.values.transcription`` reads. A text in Latin letters can write a
    Latin label, and one refbot has a name for in the text's alphabet or language is read by that name."""
    if value.datatype != "wikibase-item" or not value.text or not in_another_alphabet(text):
        return False
    names = (value.text, *value.aliases, *(name for name, _ in value.related))
    if any(in_alphabet(char) for name in names for char in name):
        return False
    language = text_language(text)
    return language is None or not names_in(value.text, language)


def _transcribed_finder(value: Value) -> Finder | None:
    """An item's names in Latin letters as a text in another alphabet writes them by their sound
    (``bot.values.transcription``)."""
    if value.datatype not in ("wikibase-item", "") or not value.text:
        return None
    return transcribed_finder([(name, how) for name, how in (
        (value.text, LITERAL), *((alias, ALIAS) for alias in value.aliases), *value.related) if name])


def _written_finder(value: Value, searched: tuple[str, ...], threshold: float, country: bool) -> Finder:
    if value.datatype == "time":
        time = parse_time(value.raw, value.text)
        if time is not None:
            pattern = date_pattern(time, searched)
            return lambda text: _first(pattern.search(text), DATE)
    if value.datatype == "quantity":
        amount = parse_amount(value.raw, value.text)
        if amount is not None:
            worded = whole_number(amount)

            def find(text: str) -> Found | None:
                spans = [next(find_amount(amount, text), None)]
                if worded is not None:
                    spans.append(next(find_amount_words(worded, searched, text), None))
                first = min((span for span in spans if span is not None), default=None)
                return Found(text[first[0]:first[1]], first[0], first[1], AMOUNT) if first else None
            return find
    if value.datatype in ("string", "external-id", "monolingualtext", "url"):
        needle = normalised(value.text)
        # "No. 80/1968" on the page of "S.I. No. 80/1968": the type's name left to the context.
        short = normalised(without_type_prefix(value.text)) if value.datatype != "monolingualtext" else ""
        # "CRAWFORD, Fred Lewis" for a name (native name, birth name): registers write the surname first.
        inverted = normalised(surname_first(value.text)) if value.datatype in ("monolingualtext", "string") else ""
        # "Act No. 57 of 1962" for "57/1962": a numbered act or instrument with its register's separators.
        numbered = [pattern for pattern in (numbered_pattern(needle), numbered_pattern(short)) if pattern] \
            if value.datatype in ("string", "external-id") else []

        def find_string(text: str) -> Found | None:
            found = find_normalised(needle, text) if needle else None
            for other, how in ((short, WITHOUT_PREFIX), (inverted, SURNAME_FIRST)):
                if found is None and other:
                    found = find_normalised(other, text)
                    found = replace(found, how=how) if found is not None else None
            for pattern in numbered:
                if found is None and (found := find_normalised_pattern(pattern, text)) is not None:
                    found = replace(found, how=OTHER_SEPARATORS)
            return found
        return find_string
    names = [(name, how) for name, how in ((value.text, LITERAL), *((alias, ALIAS) for alias in value.aliases),
                                           *value.related) if name]
    item = value.datatype == "wikibase-item"
    # A person's name as catalogues write it: "Ellis, Bret Easton", "Murphy, R. C." — matched exactly, since a
    # fuzzy match of initials would take another person's.
    exact = [(normalised(form), how) for form, how in (
        (surname_first(value.text) if item and personal_name_words(value.text) else "", SURNAME_FIRST),
        *((form, INITIALS) for form in (initialled(value.text) if item else ()))) if form]
    finders = [lambda text: _find_name(names, text, threshold)]
    if exact:
        finders.append(lambda text: next((replace(found, how=how) for form, how in exact
                                          if (found := find_normalised(form, text)) is not None), None))
    # "Allan Rex Sandage" for Allan Sandage, "John Fitzgerald Kennedy" for John F. Kennedy.
    spelled = written_out(value.text) if item else None
    if spelled is not None:
        finders.append(lambda text: _spanned(find_written_out(spelled, value.text, text), text, WRITTEN_OUT))
    gendered = gendered_pattern(value.raw, value.text) if item else None
    if gendered is not None:
        finders.append(lambda text: _first(gendered.search(text), GENDERED))
    in_country = country_finder(value.text) if item and country else None
    if in_country is not None:
        finders.append(in_country)
    article_less = without_article(value.text) if item else None
    if article_less is not None:
        finders.append(lambda text: _first(article_less.search(text), WITHOUT_ARTICLE))
    if item:  # "Listed Building Category B" for Category B listed building, last: the loosest
        finders.append(lambda text: _spanned(find_words_apart(value.text, text), text, WORDS_APART))
    if len(finders) == 1:
        return finders[0]
    return lambda text: next((found for find in finders if (found := find(text)) is not None), None)


def statement_finder(statement: Statement, *, threshold: float = 90.0) -> Finder:
    """``value_finder`` for a statement's value, with what its property says about it (a country)."""
    return value_finder(statement.value, threshold=threshold, country=statement.property_id in COUNTRY_VALUED)


def matching_digest() -> str:
    """A digest of how values are found (this package's code): an evaluation ledger resumed with other rules would
    mix verdicts."""

    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _first(match: re.Match[str] | None, how: str) -> Found | None:
    return Found(match.group(0), match.start(), match.end(), how) if match else None


def _spanned(span: tuple[int, int] | None, text: str, how: str) -> Found | None:
    return Found(text[span[0]:span[1]], span[0], span[1], how) if span is not None else None


def _find_name(names: Sequence[tuple[str, str]], text: str, threshold: float) -> Found | None:
    for name, how in names:
        if similarity(name, text, threshold=threshold) == 1.0:
            start = text.casefold().find(" ".join(name.casefold().split()))
            if start >= 0 and len(text.casefold()) == len(text):
                return Found(text[start:start + len(name)], start, start + len(name), how)
            return Found(name, 0, 0, how)
    return None
