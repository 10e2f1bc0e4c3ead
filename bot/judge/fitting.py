"""Keeping a prompt within the model's context: an over-long snippet is split at sentence boundaries."""

from __future__ import annotations

import re
from collections.abc import Callable

# A sentence ends at . ! or ? followed by space and an upper-case letter, digit or opening bracket; common
# abbreviations ("e.g.", "Dr.") are not treated as ends.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9À-Ý])"
                           r"|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|et al|vs|Dr|Mr|Mrs|Ms|Prof|St|No|Fig|approx|ca|cf)\.$", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start:match.start()].strip()
        if _ABBREVIATIONS.search(text[start:match.start()]):
            continue
        if candidate:
            sentences.append(candidate)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def split_to_fit(text: str, budget: int, count: Callable[[str], int]) -> list[str]:
    """Consecutive parts of ``text``, each within ``budget`` tokens, cut between sentences where possible.

    A single sentence longer than the budget is cut between words. The parts together hold every word.
    Token counts of pieces are added up (each piece counted once), which slightly over-estimates a join.
    """
    if budget <= 0:
        raise ValueError(f"no room for the snippet in the context (budget {budget} tokens)")
    if count(text) <= budget:
        return [text]
    pieces: list[tuple[str, int]] = []
    for sentence in split_sentences(text):
        tokens = count(sentence)
        if tokens <= budget:
            pieces.append((sentence, tokens))
        else:
            pieces.extend((word, count(" " + word)) for word in sentence.split())
    parts: list[str] = []
    current: list[str] = []
    used = 0
    for piece, tokens in pieces:
        if current and used + tokens > budget:
            parts.append(" ".join(current))
            current, used = [], 0
        current.append(piece)
        used += tokens
    if current:
        parts.append(" ".join(current))
    return parts
