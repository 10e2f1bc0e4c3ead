"""A question's words linked to the graph's terms, as Auto-KGQAGPT does: n-grams of the question, longest first in
a sliding window, matched against label indexes; a matched n-gram's words are not matched again. Pure: the property
index and an entity lookup (``Lookup``: the Wikidata API's ``wbsearchentities``, or the endpoint's labels) are
parameters.

Scores are string similarities in [0, 1] (RapidFuzz's normalised Indel similarity of lower-cased, accent-folded
text); a property n-gram links at ``PROPERTY_MATCH`` or above, an entity n-gram at ``ENTITY_MATCH``; among equal
scores a property with the citation needed constraint, and an entity the lookup ranks first (the popularity the
search engine knows), wins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from bot.asking.properties import PropertyIndex

PROPERTY_MATCH = 0.88
ENTITY_MATCH = 0.90
MAX_WORDS = 6
# Words that never start or end a linked n-gram (a question's glue, not the graph's terms).
STOPWORDS = frozenset("""
a an and any are as at be been by did do does for from had has have how in into is it its of on or that the their
them these this those to was were what when where which who whom whose why with without all each every than
find list show give me items statements cite cites citing nothing no none not need needs needing source sources
sourced reference references referenced unreferenced unsourced lack lacking missing many much
""".split())

# Prepositions that end many property labels ("educated at", "instance of", "located in"): they may end an n-gram.
ENDING = frozenset("of at in for by on from with to".split())
WORD = re.compile(r"[\w][\w'’.-]*[\w]|[\w]")


@dataclass(frozen=True)
class Candidate:
    """An entity a lookup returned for some text: its id, label, description and what matched (label or alias)."""

    id: str
    label: str
    description: str = ""
    matched: str = ""  # the label or alias the lookup matched; "" → the label


Lookup = Callable[[str], Sequence[Candidate]]


@dataclass(frozen=True)
class Link:
    kind: str  # property or entity
    id: str
    label: str
    description: str
    words: str  # the question's n-gram
    score: float
    citation_needed: bool = False
    start: int = -1  # the n-gram's first word, counted from 0 in the question's words (``words()``)


def fold(text: str) -> str:
    """Lower case, accents and punctuation away, spaces normalised: what two spellings of a name share."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(re.sub(r"[^\w\s]", " ", bare).split())


def similarity(a: str, b: str) -> float:
    from rapidfuzz.distance import Indel

    return float(Indel.normalized_similarity(fold(a), fold(b)))


def words(question: str) -> list[str]:
    return WORD.findall(question)


def ngrams(tokens: Sequence[str], *, longest: int = MAX_WORDS) -> list[tuple[int, int]]:
    """(start, end) spans, longest first and left to right within a length; none starts on a stop word, and none
    ends on one but a preposition after another word (as in "educated at")."""
    spans = []
    for size in range(min(longest, len(tokens)), 0, -1):
        for start in range(len(tokens) - size + 1):
            end = start + size
            last = tokens[end - 1].casefold()
            if tokens[start].casefold() in STOPWORDS or (last in STOPWORDS and not (size > 1 and last in ENDING)):
                continue
            spans.append((start, end))
    return spans


def _is_subject(tokens: Sequence[str], start: int, end: int) -> bool:
    """The words that open the question before "whose" name what it is about ("awards whose date of foundation…"):
    a class of items, never a property, even when a property has that label or alias (P166's "awards")."""
    return start == 0 and end < len(tokens) and tokens[end].casefold() == "whose"


def _singular(text: str) -> str:
    """The n-gram with its last word singular, as English plurals usually go (dates → date, prizes → prize)."""
    parts = text.split()
    if parts and len(parts[-1]) > 3 and parts[-1].endswith("s") and not parts[-1].endswith("ss"):
        last = parts[-1][:-3] + "y" if parts[-1].endswith("ies") else parts[-1][:-1]
        parts[-1] = last
    return " ".join(parts)


def link(question: str, index: PropertyIndex, lookup: Lookup | None = None, *,
         property_match: float = PROPERTY_MATCH, entity_match: float = ENTITY_MATCH) -> list[Link]:
    """The terms the question names, in the order its words name them: properties first (from the index), then
    entities (from ``lookup``) among the words no property took."""
    tokens = words(question)
    taken = [False] * len(tokens)
    found: list[tuple[int, Link]] = []
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    names = [(term, name) for term in index.properties for name in term.names()]
    folded = [fold(name) for _, name in names]
    for start, end in ngrams(tokens):
        if any(taken[start:end]) or _is_subject(tokens, start, end):
            continue
        text = " ".join(tokens[start:end])
        scores: dict[int, float] = {}
        for form in {fold(text), fold(_singular(text))}:
            for _, score, position in process.extract(form, folded, scorer=Indel.normalized_similarity,
                                                      score_cutoff=property_match, limit=None):
                scores[position] = max(scores.get(position, 0.0), float(score))
        if not scores:
            continue
        # The best score; then a property that needs references; then a label over an alias; then the lower id.
        position = max(scores, key=lambda n: (scores[n], names[n][0].citation_needed,
                                              names[n][1] == names[n][0].label, -int(names[n][0].id[1:])))
        chosen = names[position][0]
        found.append((start, Link("property", chosen.id, chosen.label, chosen.description, text,
                                  round(scores[position], 3), chosen.citation_needed, start)))
        taken[start:end] = [True] * (end - start)
    if lookup is not None:
        for start, end in ngrams(tokens):
            if any(taken[start:end]):
                continue
            text = " ".join(tokens[start:end])
            ranked = _best_entity(text, lookup(text), entity_match)
            if ranked is None and _singular(text) != text:  # a prefix search does not find "painter" for "painters"
                ranked = _best_entity(text, lookup(_singular(text)), entity_match)
            if ranked is not None:
                found.append((start, replace(ranked, start=start)))
                taken[start:end] = [True] * (end - start)
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]


def _best_entity(text: str, candidates: Iterable[Candidate], threshold: float) -> Link | None:
    best: tuple[float, int] | None = None
    chosen: Link | None = None
    for rank, candidate in enumerate(candidates):
        score = max(similarity(text, candidate.matched or candidate.label),
                    similarity(_singular(text), candidate.matched or candidate.label))
        key = (score, -rank)  # equal scores: the lookup's order (its popularity) decides
        if score >= threshold and (best is None or key > best):
            best = key
            chosen = Link("entity", candidate.id, candidate.label, candidate.description, text, round(score, 3))
    return chosen
