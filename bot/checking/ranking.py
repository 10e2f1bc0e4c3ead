"""Pre-ranking paragraphs before any LLM call: which paragraphs could state the statement at all. Pure.

Seed methods adapted: mentions of the subject's and object's labels and aliases, exact or fuzzy (rapidfuzz
partial ratio, FactGenius's threshold 90), and optionally the cosine similarity between the verbalised
statement and each paragraph from a sentence-embedding model (GPT-LODS used all-MiniLM-L6-v2), supplied as
a function so that this module stays free of models. The object matters most: a paragraph that never names
it cannot state the claim directly.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from bot.datamodel import Paragraph, Statement
from bot.documents.sentences import sentence_spans
from bot.values.names import similarity
from bot.values import Found, statement_finder

Embed = Callable[[list[str]], list[list[float]]]
# A paragraph and the names found in it: subject score and name, object score and form, the value as found.
_Named = tuple[Paragraph, float, str, float, str, Found | None]
FUZZY_THRESHOLD = 90.0
# The paragraphs of one document ranked at most (``rank``'s ``limit`` in refbot's ranked strategy): the best by the
# names they mention, the rest never embedded nor judged. A document's page would rarely state a claim only in
# its 201st best paragraph. 20,000 paragraphs took 7 minutes and 0.9 GB to embed on two cores; 200 take seconds.
MAX_RANKED = 200


@dataclass(frozen=True)
class Ranked:
    paragraph: Paragraph
    score: float
    subject: float
    object: float
    semantic: float | None = None
    # The names found, for highlighting in the report.
    matched: tuple[str, ...] = ()
    # Why the paragraph counts as about the statement's subject (``bot.checking.subject_check``); "" when it does not.
    subject_rule: str = ""
    # How the paragraph writes the value ("January 14, 1943") and how that was recognised (``bot.values``).
    value_form: str = ""
    value_match: str = ""
    # What the judge reads before a paragraph that counts only because its page is about the subject: the line
    # of the page that names it ("Haná Chamber Orchestra" before "The orchestra was founded in 1994").
    context: str = ""
    # Queued because the paragraph writes a word of an item value's names, where the page never writes it whole
    # (``bot.checking.judging.Strategy.value_words``): such paragraphs are bounded per statement, not per document.
    worded: bool = False

    @property
    def snippet(self) -> str:
        """The text put to the judge."""
        return f"{self.context}\n\n{self.paragraph.text}" if self.context else self.paragraph.text


def name_score(names: Sequence[str], text: str, threshold: float = FUZZY_THRESHOLD) -> tuple[float, str]:
    """(1.0, name) for the first name the text mentions (``bot.values.names.similarity``); otherwise the best
    partial similarity and ""."""
    best = 0.0
    for name in names:
        score = similarity(name, text, threshold=threshold)
        if score == 1.0:
            return 1.0, name
        best = max(best, score)
    return best, ""


def subject_names(statement: Statement) -> list[str]:
    return [name for name in (statement.item_label, *statement.item_aliases) if name]


def object_names(statement: Statement) -> list[str]:
    return [name for name in (statement.value.text, *statement.value.aliases) if name]


def verbalise(statement: Statement) -> str:
    return f"{statement.item_label or statement.item} {statement.property_label or statement.property_id} " \
           f"{statement.value.text}"


def cosine(left: Sequence[float], right: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(left, right))
    norm = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return dot / norm if norm else 0.0


def rank(paragraphs: Sequence[Paragraph], statement: Statement, *, embed: Embed | None = None,
         threshold: float = FUZZY_THRESHOLD, limit: int | None = None) -> list[Ranked]:
    """Paragraphs best first; ties keep document order.

    ``limit``: at most that many are ranked and returned, those the names alone score best (ties: the earlier);
    the others are never embedded. The names are looked for in every paragraph, which is cheap, keeping only the
    best ``limit``; embedding is not (a page of 20,000 paragraphs naming the value held its statement for minutes)."""
    find_value = statement_finder(statement, threshold=threshold)
    by_name = statement.value.datatype.startswith("wikibase-")
    subjects = subject_names(statement)

    def names_in(paragraph: Paragraph) -> _Named:
        subject, subject_hit = name_score(subjects, paragraph.text, threshold)
        found = find_value(paragraph.text)
        if found is not None:  # as the paragraph writes it: an alias, "January 14, 1943", "85,868"
            object_, object_hit = 1.0, found.form
        elif by_name:  # how close the nearest name comes, to rank paragraphs that name none
            object_, object_hit = name_score(object_names(statement), paragraph.text, threshold)[0], ""
        else:
            object_, object_hit = 0.0, ""
        return paragraph, subject, subject_hit, object_, object_hit, found

    scanned = map(names_in, paragraphs)
    named = list(scanned) if limit is None else _best_by_names(scanned, limit)
    ranked = []
    for paragraph, subject, subject_hit, object_, object_hit, found in named:
        matched = tuple(name for name in (subject_hit, object_hit) if name)
        ranked.append(Ranked(paragraph, round(_by_names(object_, subject), 6), subject, object_, None, matched,
                             value_form=found.form if found else "", value_match=found.how if found else ""))
    return with_closeness(ranked, statement, embed) if embed is not None else _best_first(ranked)


def with_closeness(ranked: Sequence[Ranked], statement: Statement, embed: Embed) -> list[Ranked]:
    """``ranked`` rescored with each paragraph's closeness to the verbalised statement (the embeddings' cosine),
    best first; ties keep document order. A paragraph already rescored is not embedded again."""
    wanted = [index for index, entry in enumerate(ranked) if entry.semantic is None]
    rescored = list(ranked)
    if wanted:
        vectors = embed([verbalise(statement)] + [ranked[index].paragraph.text for index in wanted])
        for index, vector in zip(wanted, vectors[1:]):
            entry = ranked[index]
            closeness = max(0.0, cosine(vectors[0], vector))
            score = 0.5 * entry.object + 0.2 * entry.subject + 0.3 * closeness
            rescored[index] = replace(entry, score=round(score, 6), semantic=closeness)
    return _best_first(rescored)


def _best_first(ranked: Iterable[Ranked]) -> list[Ranked]:
    return sorted(ranked, key=lambda r: (-r.score, r.paragraph.position))


def _best_by_names(scanned: Iterable[_Named], limit: int) -> list[_Named]:
    """The ``limit`` entries the names score best (ties: the earlier) in document order, holding no more than
    that many while scanning; all of them, in their order, when there are no more."""
    best = heapq.nsmallest(limit + 1, enumerate(scanned),
                           key=lambda pair: (-_by_names(pair[1][3], pair[1][1]), pair[1][0].position, pair[0]))
    if len(best) <= limit:
        return [entry for _, entry in sorted(best, key=lambda pair: pair[0])]
    return sorted((entry for _, entry in best[:limit]), key=lambda entry: entry[0].position)


def _by_names(object_: float, subject: float) -> float:
    """A paragraph's score from the names it mentions alone (the object counts most)."""
    return 0.7 * object_ + 0.3 * subject


def supporting_sentence(text: str, statement: Statement, threshold: float = FUZZY_THRESHOLD) -> str:
    """The sentence of a supporting paragraph that names the object (and the subject, if one does), for the
    reference's quotation (P1683)."""
    spans = sentence_spans(text) or [(0, len(text))]
    best, best_score = text[spans[0][0]:spans[0][1]], -1.0
    find_value = statement_finder(statement, threshold=threshold)
    for start, end in spans:
        sentence = text[start:end]
        object_ = 1.0 if find_value(sentence) is not None else 0.0
        subject, _ = name_score(subject_names(statement), sentence, threshold)
        score = 2 * object_ + subject
        if score > best_score:
            best, best_score = sentence, score
    return best


def match_spans(text: str, names: Sequence[str], threshold: float = FUZZY_THRESHOLD) -> list[tuple[int, int]]:
    """Where ``names`` occur in ``text`` (case-insensitive; a fuzzy alignment for a long name found only
    fuzzily), as sorted, non-overlapping (start, end) spans, for highlighting."""
    from rapidfuzz import fuzz

    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters change length when lowered; match case-sensitively then
        lowered = text
    spans: list[tuple[int, int]] = []
    for name in names:
        needle = " ".join(name.split()).lower()
        if not needle:
            continue
        start, found = lowered.find(needle), False
        while start != -1:
            spans.append((start, start + len(needle)))
            found = True
            start = lowered.find(needle, start + len(needle))
        if not found and len(needle) > 4:
            alignment = fuzz.partial_ratio_alignment(needle, lowered)
            if alignment is not None and alignment.score >= threshold:
                spans.append((alignment.dest_start, alignment.dest_end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
