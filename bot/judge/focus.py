"""Evidence selection inside a snippet: the sentences that name the claim's entities, and which of the other
values a snippet writes is likeliest to be the claim's property's.

A small model reads a relation better from the two or three sentences that name both entities than from a
whole abstract, and it reads them faster. Short snippets are left whole, since their other sentences often
carry the coreference ("She …") that links an entity to the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.datamodel import Claim
from bot.documents.sentences import sentence_spans
from bot.judge.fitting import split_sentences
from bot.values import Found
from bot.values.date_mentions import find_dates
from bot.values.dates import DATE_LANGUAGES
from bot.values.names import mentions
from bot.values.strings import personal_name_words


def focus(snippet: str, subject: str, object_: str, *, min_sentences: int = 4) -> str:
    """The sentences naming both entities, else those naming either, in order; the whole snippet when it is
    short or names neither."""
    sentences = split_sentences(snippet)
    if len(sentences) < min_sentences:
        return snippet
    names = [name for name in (subject, object_) if name.strip()]
    named = [sum(mentions(name, sentence) for name in names) for sentence in sentences]
    wanted = len(names) if any(count == len(names) for count in named) else 1
    chosen = [index for index, count in enumerate(named) if count >= wanted]
    if not chosen or len(chosen) == len(sentences):
        return snippet
    parts: list[str] = []
    for position, index in enumerate(chosen):
        if position and index != chosen[position - 1] + 1:
            parts.append("…")
        parts.append(sentences[index])
    return " ".join(parts)


def names_subject(subject: str, text: str) -> bool:
    """Does the text name the subject: its label (``mentions``), or — for a personal name — its last name as a
    capitalised word ("Halaška was born …")? A page that never names the subject may be about someone else,
    whose dates are no finding about this one."""
    if mentions(subject, text):
        return True
    words = personal_name_words(subject)
    surname = words[-1] if words else ""
    return len(surname) >= 3 and re.search(rf"(?<!\w){re.escape(surname)}(?!\w)", text) is not None


# Words of a property's label and phrases that say nothing of which property a sentence states.
_FILLER = frozenset("a an the of on in at to by for from with as is was were be been has had have its it "
                    "his her their date number place time point value".split())


# Words a property's label is written with in prose in another form than its first letters show: "died" for
# "death", "born" for "birth" (English word families; a stem finds the rest: "birth" finds "birthday").
_WORD_FAMILIES = {"birth": ("born",), "death": ("died", "dies"), "burial": ("buried",), "marriage": ("married",),
                  "foundation": ("founded",), "inception": ("founded", "established"), "publication": ("published",)}


def stem(word: str) -> str:
    """The first letters a word's forms share: five ("birth" finds "birthday"), more for a long word, whose first
    five letters begin other words too ("published" is no "public", "population" "populated")."""
    return word[:max(5, len(word) - 3)]


def property_words(claim: Claim) -> tuple[str, ...]:
    """The words that name the claim's property in a sentence ("born" for "was born on", "tonnage"), from its
    label and phrases (Wikidata's label, the catalogue's phrases), fillers left out, with the forms prose writes
    them in ("died" for "date of death")."""
    words: list[str] = []
    for text in (claim.predicate, claim.predicate_phrase, *claim.predicate_other_phrases):
        for word in re.findall(r"\w+", text.casefold()):
            if len(word) >= 3 and word not in _FILLER and not word.isdigit():
                words += [form for form in (word, *_WORD_FAMILIES.get(word, ())) if form not in words]
    return tuple(words)


# The abbreviations genealogies and registers write for a property's word: "b. 12 December 1855", "d. 1931".
ABBREVIATIONS = {"born": ("b",), "birth": ("b",), "died": ("d",), "death": ("d",)}


# A life span as catalogues, authority files and biographical dictionaries write it right after a person's name:
# "Middleton, Conyers, 1683-1750", "Conyers Middleton (1683–1750)", "Russell, Henry Norris, 1877-". Its first
# year is the year of birth, its second that of death: such a year names the property as "born" would. Only after
# the subject's own name ("Henry Norris Russell Papers, 1894-1956" dates papers, not a life).
_LIFE_SPAN = re.compile(r"(?:,\s*|\(\s*|\s)(?:(?:b|d|c|ca)\.\s*)?(\d{3,4})\s?[-–—]\s?(\d{3,4})?(?=[\s.,;)]|\Z)")
_BIRTH = ("born", "birth")
_DEATH = ("died", "death")
LONGEST_LIFE = 120
_DASH = re.compile(r"\s*[-–—]\s*")
# A label in a table or an infobox ("Born", "Date of death:") is a sentence of at most this many words.
LABEL_WORDS = 3
_LAST_WORD = re.compile(r"\(?([^\s,()]+)\)?[\s,]*\Z")
_INITIAL = re.compile(r"(?:[^\W\d_]{1,2}\.)+\Z")


def _name_parts(name: str) -> set[str]:
    return {part for part in re.split(r"[\s-]+", name.casefold()) if part}


def _lifetime(span: re.Match[str], subject: str) -> bool:
    """A life span of a plausible length right after the subject's name: the word before it is one of the
    subject's names or an initial ("F.-É.")."""
    if span.group(2) is not None and not 0 < int(span.group(2)) - int(span.group(1)) <= LONGEST_LIFE:
        return False
    last = _LAST_WORD.search(span.string, 0, span.start())
    if last is None:
        return False
    names = _name_parts(subject)
    if not _own_name(last.group(1), names):
        return False
    # Another given name before the family name is another person's life: "the son of Charles Clarke (1795-1857)".
    given = _LAST_WORD.search(span.string, 0, last.start())
    word = given.group(1) if given is not None and not span.string[given.end():last.start()].strip(" ") else ""
    return not word[:1].isupper() or _own_name(word, names)


def _own_name(word: str, names: set[str]) -> bool:
    """Whether each part of ``word`` is one of the subject's names or an initial ("Guérin-Méneville", "F.-É.")."""
    parts = [part for part in re.split(r"-", word.casefold()) if part]
    return bool(parts) and all(part in names or _INITIAL.match(part) for part in parts)


def _life_span_years(snippet: str, subject: str, words_of_property: Sequence[str]) -> set[int]:
    """Where the snippet writes the subject's year of birth (for a property named "born"/"birth") or death
    ("died"/"death") in a life span after the subject's name."""
    wanted = [group for group, words in ((1, _BIRTH), (2, _DEATH)) if set(words) & set(words_of_property)]
    if not wanted:
        return set()
    years = {span.start(group) for span in _LIFE_SPAN.finditer(snippet) if _lifetime(span, subject)
             for group in wanted if span.group(group)}
    return years | _dated_life_span(snippet, subject, wanted)


def _dated_life_span(snippet: str, subject: str, wanted: Sequence[int]) -> set[int]:
    """Where a parenthesis gives two dates joined by a dash — "(15 December, 1843 – 30 January, 1917)" — in a
    sentence naming the subject: the first is the date of birth (group 1), the second that of death (group 2)."""
    mentions_ = find_dates(snippet, DATE_LANGUAGES)
    starts: set[int] = set()
    for first, second in zip(mentions_, mentions_[1:]):
        if not _DASH.fullmatch(snippet, first.end, second.start) or not snippet[:first.start].rstrip().endswith("("):
            continue
        sentence = next((snippet[s:e] for s, e in sentence_spans(snippet) if s <= first.start < e), snippet)
        if names_subject(subject, sentence):
            starts |= {(first.start, second.start)[group - 1] for group in wanted}
    return starts


# How far from a value a word of the property names it: a few words either side, in its clause ("born in the
# village of Horní Lhota on 3 March 1921"); a long sentence or a line of label–value pairs ("Date of Birth 1926
# Place of Birth Krakow … Date of Death 1944") names other properties for its other values.
WORDS_BEFORE, WORDS_AFTER = 12, 6
_BOUNDARY = re.compile(r"[;()\[\]|—–\n]")
# Phrases in which a property's word names another event than the property's: a sentence passed ("sentenced to
# death", "a death sentence", "the death penalty"), a threat, a toll; a birth dated by another event ("born in the
# year of the flood"). The date beside them is the other event's, never the property's cue.
_OTHER_EVENTS = re.compile(
    r"\b(?:sentenced|condemned|sentencing|sentence|sentences)\s+(?:him\s+|her\s+|them\s+)?to\s+death\b"
    r"|\bdeath[\s-]+(?:sentences?|penalty|penalties|warrants?|row|threats?|squads?|toll|camps?|march(?:es)?)\b"
    r"|\bborn\s+in\s+the\s+year\s+of\b"
    # Others' events: a toll ("tried for the deaths of 22 prisoners"), a relative's ("after the death of his wife").
    r"|\b(?:deaths|births)\b|\b(?:death|birth)\s+of\s+(?:his|her|their|its|a|an|the|one|two|three)\b",
    re.IGNORECASE)
# Where another predicate starts after a value: "received the Order of Labour in 1947 and died in Brno" names no
# death for 1947 — the words after a conjunction are another clause's.
_NEXT_PREDICATE = re.compile(r"\b(?:and|but|or|while|whereas|although|though|until)\b", re.IGNORECASE)


def _around(snippet: str, sentence_start: int, sentence_end: int, other: Found) -> str:
    """The words around ``other`` in its sentence that may name its property: up to ``WORDS_BEFORE`` before it and
    ``WORDS_AFTER`` after it, not across a bracket, a dash, a semicolon or a line break, nor after it across a
    conjunction opening another predicate ("in 1947 and died in Brno")."""
    bounds = _BOUNDARY.finditer(snippet, sentence_start, other.start)
    left = max([sentence_start, *(match.end() for match in bounds)])
    before = list(re.finditer(r"\S+", snippet[left:other.start]))
    if len(before) > WORDS_BEFORE:
        left += before[-WORDS_BEFORE].start()
    ends = [pattern.search(snippet, other.end, sentence_end) for pattern in (_BOUNDARY, _NEXT_PREDICATE)]
    right = min((match.start() for match in ends if match), default=sentence_end)
    after = list(re.finditer(r"\S+", snippet[other.end:right]))
    if len(after) > WORDS_AFTER:
        right = other.end + after[WORDS_AFTER - 1].end()
    return snippet[left:right]


@dataclass(frozen=True)
class Other:
    """Another value a snippet writes, with its sentence (``start`` where it begins in the snippet), whether the
    sentence names the property (``named``: a word, a label, a life span) and whether it names the subject."""

    found: Found
    sentence: str
    start: int
    named: bool
    about: bool


def ranked_others(claim: Claim, snippet: str, others: Sequence[Found]) -> list[Other]:
    """Other values the snippet writes, those most likely to be the claim's property's first: with a word of the
    property near them in their sentence (``_around``; "born", "tonnage": its ``stem``, so that "birth" finds
    "birthday"; "b." for born), or
    right after a label of at most ``LABEL_WORDS`` words that names it (an infobox's "Death." before "14 Feb
    2010"), or as a year or date of a life span after the subject's name ("Middleton, Conyers, 1683-1750", "(15
    December, 1843 – 30 January, 1917)") for birth and death; then in the order of ``others`` (for dates, those at
    the value's precision first: "Died: October 14, 1999" before the "1961" of a sentence that also says "died")."""
    words_of_property = property_words(claim)
    stems = [stem(word) for word in words_of_property]
    abbreviations = {short for word in words_of_property for short in ABBREVIATIONS.get(word, ())}
    life_years = _life_span_years(snippet, claim.subject, words_of_property)
    spans = [(start, end) for start, end in sentence_spans(snippet)]

    def names_property(text: str) -> bool:
        words = re.findall(r"\w+", _OTHER_EVENTS.sub(" ", text).casefold())
        return any(word.startswith(stem) for stem in stems for word in words) or any(
            re.search(rf"(?<!\w){short}\.\s", text, re.IGNORECASE) for short in abbreviations)

    chosen = []
    for order, other in enumerate(others):
        index = next((i for i, (s, e) in enumerate(spans) if s <= other.start < e), None)
        start, end = spans[index] if index is not None else (0, len(snippet))
        if not snippet[start:end].strip():
            start, end = 0, len(snippet)
        sentence = snippet[start:end].strip()
        start += len(snippet[start:end]) - len(snippet[start:end].lstrip())
        label = snippet[slice(*spans[index - 1])] if index else ""
        cue = names_property(_around(snippet, start, end, other)) or other.start in life_years or (
            0 < len(re.findall(r"\w+", label)) <= LABEL_WORDS and names_property(label))
        chosen.append((not cue, order, Other(other, sentence, start, cue, mentions(claim.subject, sentence))))
    chosen.sort(key=lambda entry: entry[:2])
    return [other for *_, other in chosen]
