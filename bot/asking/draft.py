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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.asking.fragment import Triple, item_pattern, unsourced_lines
from bot.asking.linking import Link, words

TARGET_AFTER = frozenset({"whose", "unsourced", "unreferenced", "uncited"})
NEGATIONS = frozenset({"not", "no", "without", "non", "never", "nor"})
GLUE = frozenset({"a", "an", "the", "any", "in", "of", "at", "by", "from", "to", "with", "been", "be", "have", "has",
                  "had", "are", "is", "was", "were", "who", "that", "which"})


@dataclass(frozen=True)
class Draft:
    text: str  # "" when the question named no term the draft could use
    target: Link | None
    negated: tuple[Link, ...] = ()


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
    return Draft(f"SELECT DISTINCT ?item WHERE {{\n{body}\n}}\nLIMIT {limit}", aim, tuple(denied))
