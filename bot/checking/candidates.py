"""Candidate documents for a statement: web search results and the sources an article cites near the value. Pure.

From the article, a citation counts when the text it follows (since the previous citation marker) names the
statement's value; failing that, citations of paragraphs that name it anywhere. Wikipedia itself is never a
candidate: only what it cites.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from bot.checking.records import Candidate
from bot.datamodel import Statement
from bot.documents.citations import ArticleParagraph, Citation
from bot.documents.search import SearchResult
from bot.checking.ranking import name_score, subject_names
from bot.values import statement_finder


def from_search(results: Sequence[SearchResult]) -> list[Candidate]:
    return [Candidate(result.url, "search", title=result.title, rank=result.rank or number)
            for number, result in enumerate(results, start=1)]


def cited_candidate(citation: Citation, paragraph: int) -> Candidate:
    return Candidate(citation.url, "wikipedia", title=citation.title, access_date=_date(citation.access_date),
                     archive_url=citation.archive_url, cited_in=paragraph)


def from_article(paragraphs: Sequence[ArticleParagraph], statement: Statement) -> list[Candidate]:
    """Cited sources of the sentences that name the value first, then of the paragraphs that name it;
    within each, paragraphs that also name the subject first, then in reading order."""
    find_value, subjects = statement_finder(statement), subject_names(statement)
    ranked: list[tuple[tuple[int, int, int, int], Candidate]] = []
    for paragraph in paragraphs:
        if find_value(paragraph.text) is None:
            continue
        names_subject = name_score(subjects, paragraph.text)[0] == 1.0
        covered = _covered_text(paragraph)
        for order, citation in enumerate(paragraph.citations):
            if not citation.url:
                continue
            near = find_value(covered.get(citation.note, "")) is not None
            key = (0 if near else 1, 0 if names_subject else 1, paragraph.position, order)
            ranked.append((key, cited_candidate(citation, paragraph.position)))
    return [candidate for _, candidate in sorted(ranked, key=lambda pair: pair[0])]


def from_paragraphs(paragraphs: Iterable[ArticleParagraph]) -> list[Candidate]:
    """Every cited URL of the given paragraphs, in reading order (the published method's step)."""
    return [cited_candidate(citation, paragraph.position)
            for paragraph in paragraphs for citation in paragraph.citations if citation.url]


def merge(*groups: Sequence[Candidate], limit: int) -> list[Candidate]:
    """The groups in turn, repeated URLs dropped, at most ``limit`` documents."""
    kept: list[Candidate] = []
    seen: set[str] = set()
    for group in groups:
        for candidate in group:
            key = candidate.url.split("#", 1)[0].rstrip("/")
            if key in seen:
                continue
            seen.add(key)
            kept.append(candidate)
    return kept[:limit]


def _covered_text(paragraph: ArticleParagraph) -> dict[str, str]:
    """For each citation note, the text its marker follows (since the previous marker; markers side by side,
    as in "…prize.[3][4]", share it)."""
    covered: dict[str, str] = {}
    start, segment = 0, ""
    for note, offset in paragraph.markers:
        if offset > start:
            segment = paragraph.text[start:offset]
            start = offset
        covered[note] = covered.get(note, "") + " " + segment
    return covered


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None
