"""Splitting an over-long paragraph at sentence boundaries, so the judge sees whole sentences.

A deliberately small splitter, the one refbot uses everywhere (paragraph packing, ranking, the judge's focus): a
boundary is ``.``, ``!``, ``?`` or ``…`` (with closing quotes or brackets) followed by whitespace and a capital
letter, digit or opening quote — or directly by a capitalised word, where extraction ran sentences together —
except after an initial ("V. Havel", "b. 3 Aug. 1841"), a common abbreviation or a dotted one ("U.S.", "p.m.";
such a sentence end is missed rather than a name cut).
Pieces are packed greedily up to the length limit; a single sentence longer than the limit is cut at the last
space before it.
"""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"""[.!?…]+["'”’)\]]*\s+(?=["'“‘(\[]?[A-ZÀ-ÖØ-ÞĀ-ſ0-9])"""
                       r"|(?<=[a-z]{3})[.!?](?=[A-Z][a-z])")  # or sentences run together: "…in Prague.The next"
_ABBREVIATIONS = frozenset("""mr mrs ms dr prof sr jr st mt no nos vol pp p fig figs al gen col lt sgt capt
    rev hon jan feb mar apr jun jul aug sep sept oct nov dec inc ltd co corp vs etc approx dept univ ca cf""".split())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence in ``text``; whitespace between sentences belongs to none."""
    spans = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        before = text[start:match.start()].rsplit(None, 1)
        word = before[-1].rstrip(".").lower() if before else ""
        if len(word) == 1 and word.isalpha() or word in _ABBREVIATIONS or "." in word:
            continue  # an initial ("V."), an abbreviation ("Dr."), or dotted ("U.S.", "e.g.", "p.m.")
        end = match.end() - len(match.group()) + len(match.group().rstrip())
        spans.append((start, end))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text.rstrip())))
    return [(a, b) for a, b in spans if b > a]


def split_long(text: str, limit: int) -> list[tuple[int, int]]:
    """Spans of ``text`` no longer than ``limit``, cut between sentences where possible."""
    if len(text) <= limit:
        return [(0, len(text))]
    pieces: list[tuple[int, int]] = []
    for start, end in sentence_spans(text):
        while end - start > limit:
            cut = text.rfind(" ", start, start + limit + 1)
            cut = cut if cut > start else start + limit
            pieces.append((start, cut))
            start = cut + 1 if text[cut:cut + 1] == " " else cut
        if pieces and end - pieces[-1][0] <= limit and _joinable(text, pieces[-1][1], start):
            pieces[-1] = (pieces[-1][0], end)
        else:
            pieces.append((start, end))
    return pieces


def _joinable(text: str, previous_end: int, start: int) -> bool:
    return not text[previous_end:start].strip()
