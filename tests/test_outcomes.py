"""A statement's outcome: supported beats everything; a failed service is an error, not a silent not-found; no
readable document is irretrievable, not not-found."""

from __future__ import annotations

from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome
from bot.checking.statement import decide
from bot.datamodel import Judgement, Paragraph, Verdict
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document
from bot.documents.retrieval import Retrieved
from bot.checking.ranking import Ranked

PARAGRAPH = Paragraph("Novotná received the Purkyně Prize for Chemistry in 2021 for her work on catalysts.", "u")


def document(outcome=FetchOutcome.OK, verdict=None, evidence=True):
    fetched = Fetched("https://a.example/", outcome, reason="" if outcome is FetchOutcome.OK else "HTTP 404")
    page = Document("https://a.example/", "html", PARAGRAPH.text, (PARAGRAPH,)) if outcome is FetchOutcome.OK \
        else None
    judged = ()
    if verdict is not None:
        judged = (Judged(Ranked(PARAGRAPH, 1.0, 1.0, 1.0),
                         Judgement(verdict, 0.9 if verdict is Verdict.SUPPORTS else 0.1, "", "", "m", "refbot", 10, 1,
                                   0.1)),)
    return DocumentCheck(Candidate("https://a.example/", "search"), Retrieved("https://a.example/", fetched, page),
                         judged, evidence=evidence)


def test_support_wins_even_when_another_source_failed():
    outcome, reason = decide([document(verdict=Verdict.SUPPORTS), document(FetchOutcome.IRRETRIEVABLE)],
                             ["web search failed: HTTP 500"], has_candidates=True)
    assert outcome is Outcome.SUPPORTED and reason.startswith("1 supporting paragraph")


def test_only_dead_documents_is_irretrievable():
    outcome, reason = decide([document(FetchOutcome.IRRETRIEVABLE), document(FetchOutcome.BLOCKED)], [],
                             has_candidates=True)
    assert outcome is Outcome.IRRETRIEVABLE and "blocked" in reason and "irretrievable" in reason


def test_read_but_unsupported_is_not_found_and_nothing_found_says_so():
    assert decide([document(verdict=Verdict.NOT_INFERRABLE)], [], has_candidates=True)[0] is Outcome.NOT_FOUND
    outcome, reason = decide([], [], has_candidates=False)
    assert outcome is Outcome.NOT_FOUND and "no candidate document" in reason


def test_a_failed_service_or_unreadable_answers_are_errors_to_retry():
    assert decide([document(verdict=Verdict.NOT_INFERRABLE)], ["web search failed: HTTP 500"],
                  has_candidates=True) == (Outcome.ERROR, "web search failed: HTTP 500")
    outcome, reason = decide([document(verdict=Verdict.UNPARSEABLE, evidence=False)], [], has_candidates=False)
    assert outcome is Outcome.ERROR and "could not be read for 1 paragraph" in reason
