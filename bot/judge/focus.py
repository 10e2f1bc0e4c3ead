"""Evidence selection inside a snippet: the sentences that name the claim's entities.

A small model reads a relation better from the two or three sentences that name both entities than from a
whole abstract, and it reads them faster. Short snippets are left whole, since their other sentences often
carry the coreference ("She …") that links an entity to the evidence.
"""

from __future__ import annotations

from bot.judge.fitting import split_sentences
from bot.values.names import mentions


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
