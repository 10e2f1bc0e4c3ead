"""Keeping a prompt within the model's context: an over-long snippet is split at sentence boundaries."""

from __future__ import annotations

from collections.abc import Callable

from bot.documents.sentences import sentence_spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (``bot.documents.sentences``: not cut at initials or abbreviations)."""
    return [text[start:end].strip() for start, end in sentence_spans(text) if text[start:end].strip()]


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
