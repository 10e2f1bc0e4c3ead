"""The draft query the model starts from: each linked item by its usual pattern, the target property's statements
without a reference as ``queries/`` writes them, and what the question negates inside ``FILTER NOT EXISTS``. The
model keeps, corrects and completes it (dates, counts, what the rules below do not read); the draft itself is never
sent unless the model writes it. Pure.

Which property is the target — the one whose statements are to be referenced — and what is negated are read from
the question's English word order: the constrained property right after "whose" or "unsourced" ("people whose
date of birth…", "chemists with unsourced awards…"), else the first constrained property the question names
("awards of people educated at…"); a term is negated when "not", "no", "without" or "non" comes just before it
("…who have no date of death", "…who are not German citizens"). In another language the first constrained
property is the target and nothing is negated.

A draft is *complete* when it reads every word of the question: each word is a linked term the draft writes (the
target, a negated term, an item by its pattern, a property whose item follows it and is reached through it), says
that the statements cite nothing ("unsourced", "without a reference", "cite nothing"), negates a term, or is glue
("of", "whose", "the"…). Nothing is then left for a model to add, and ``refbot select --ask`` takes the draft
without writing candidates; a word the rules do not read ("before 1900", "more than two", "or", "anywhere", a
question in another language) leaves the draft to the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.asking.fragment import Triple, item_pattern, unsourced_lines
from bot.asking.linking import Link, words

TARGET_AFTER = frozenset({"whose", "unsourced", "unreferenced", "uncited"})
NEGATIONS = frozenset({"not", "no", "without", "non", "never", "nor"})
# What a question says when its statements cite nothing: one word, or an absence beside a citing word.
UNCITED = frozenset({"unsourced", "unreferenced", "uncited"})
ABSENT = frozenset({"no", "not", "without", "nothing", "none", "lack", "lacks", "lacking", "missing", "need",
                    "needs", "needing"})
CITED = frozenset({"reference", "references", "referenced", "source", "sources", "sourced", "cite", "cites", "cited",
                   "citing", "citation", "citations"})
# Words that name no condition: what a worklist question is phrased with besides its terms.
FILLER = frozenset({"a", "an", "the", "any", "all", "each", "every", "of", "at", "in", "by", "from", "to", "with",
                    "been", "be", "being", "have", "has", "had", "are", "is", "was", "were", "who", "whom", "whose",
                    "that", "which", "their", "them", "these", "those", "this", "its", "it", "for", "on", "as", "do",
                    "does", "did", "into", "find", "list", "show", "give", "me", "items", "statements"})
GLUE = frozenset({"a", "an", "the", "any", "in", "of", "at", "by", "from", "to", "with", "been", "be", "have", "has",
                  "had", "are", "is", "was", "were", "who", "that", "which"})


@dataclass(frozen=True)
class Draft:
    text: str  # "" when the question named no term the draft could use
    target: Link | None
    negated: tuple[Link, ...] = ()
    # The question's words the draft does not read (see ``complete``); None: not read against a question.
    unread: tuple[str, ...] | None = None

    @property
    def complete(self) -> bool:
        """Whether the draft says all the question says: it has a target, and every word is read (module note)."""
        return bool(self.text) and self.target is not None and self.unread == ()


def _word_before(tokens: Sequence[str], start: int) -> str:
    """The nearest word before position ``start`` that is not GLUE ("who are not German": "not"); "" for none."""
    for token in reversed(tokens[:start]):
        if token.casefold() not in GLUE:
            return token.casefold()
    return ""


def target(question: str, links: Sequence[Link]) -> Link | None:
    """The property whose unsourced statements the question asks for (see the module's note)."""
    tokens = words(question)
    constrained = [item for item in links if item.kind == "property" and item.citation_needed]
    for item in constrained:
        if item.start >= 0 and any(t.casefold() in TARGET_AFTER for t in tokens[max(0, item.start - 2):item.start]):
            return item
    return constrained[0] if constrained else None


def negated(question: str, item: Link) -> bool:
    """Whether "not", "no", "without"… comes just before the term (GLUE words aside)."""
    return item.start >= 0 and _word_before(words(question), item.start) in NEGATIONS


def draft(question: str, links: Sequence[Link], triples: Mapping[str, Sequence[Triple]], *, limit: int) -> Draft:
    """The draft for ``question`` whose terms are ``links`` (``triples``: what the fragment holds of its items)."""
    aim = target(question, links)
    positive: list[str] = []
    negative: list[str] = []
    denied: list[Link] = []
    patterns: dict[int, str] = {}  # by the link's start: the pattern each item is written with
    for item in links:
        if item is aim:
            continue
        if item.kind == "property":
            if negated(question, item):
                negative.append(f"FILTER NOT EXISTS {{ ?item wdt:{item.id} ?value . }}")
                denied.append(item)
            continue
        pattern = item_pattern(item.id, triples.get(item.id, ()))
        if pattern is None:
            continue
        patterns[item.start] = pattern
        if negated(question, item):
            negative.append(f"FILTER NOT EXISTS {{ {pattern} }}")
            denied.append(item)
        else:
            positive.append(pattern)
    lines = list(positive)
    if aim is not None:
        lines += unsourced_lines(aim.id)
    lines += negative
    if not lines:
        return Draft("", aim, tuple(denied))
    body = "\n".join(f"  {line}" for line in lines)
    return Draft(f"SELECT DISTINCT ?item WHERE {{\n{body}\n}}\nLIMIT {limit}", aim, tuple(denied),
                 unread(question, links, aim, denied, patterns))


def _span(item: Link) -> range:
    return range(item.start, item.start + len(words(item.words)))


def _next_word(tokens: Sequence[str], start: int, step: int) -> int:
    """The position of the nearest word from ``start`` on (``step`` 1: after, -1: before) that is not FILLER; -1
    for none."""
    position = start
    while 0 <= position < len(tokens):
        if tokens[position].casefold() not in FILLER:
            return position
        position += step
    return -1


def unread(question: str, links: Sequence[Link], aim: Link | None, denied: Sequence[Link],
           patterns: Mapping[int, str]) -> tuple[str, ...]:
    """The words of ``question`` the draft does not read, in their order (see the module's note). ``patterns``:
    the pattern each item the draft writes is written with, by the start of its link."""
    tokens = words(question)
    read = [token.casefold() in FILLER for token in tokens]
    for number, item in enumerate(links):
        if item.start < 0:
            continue
        written = item is aim or any(item is other for other in denied) or item.start in patterns
        if item.kind == "property" and not written:  # "educated at Charles University": the item says it
            following = links[number + 1] if number + 1 < len(links) else None
            written = (following is not None and following.start in patterns
                       and _next_word(tokens, _span(item).stop, 1) == following.start
                       and f"wdt:{item.id} " in patterns[following.start])
        if written:
            for position in _span(item):
                if position < len(read):
                    read[position] = True
        if any(item is other for other in denied):  # the negation negated() found: the nearest word not GLUE
            before = next((position for position in range(item.start - 1, -1, -1)
                           if tokens[position].casefold() not in GLUE), -1)
            if before >= 0:
                read[before] = True
    for position, token in enumerate(tokens):
        word = token.casefold()
        if word in UNCITED:
            read[position] = True
        elif word in ABSENT:
            for step in (1, -1):
                other = _next_word(tokens, position + step, step)
                if other >= 0 and tokens[other].casefold() in CITED:
                    read[position] = read[other] = True
    return tuple(token for token, done in zip(tokens, read) if not done)
