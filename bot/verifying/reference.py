"""Verifying one reference: the page it names read as it is now (or its archived copy, when it is dead), judged
against the statement as `refbot check` judges a page, and one finding.

Every client is in ``bot.checking.Tools``, built once per run by ``bot.wiring``; this module does no wiring.
"""

from __future__ import annotations

import time

from bot.checking.judging import judge_in_rounds, not_ranked, queue
from bot.checking.records import Candidate, DocumentCheck, Outcome
from bot.checking.statement import Plan, Stopwatch, Tools, decide, read_against
from bot.clock import stamp
from bot.datamodel import Statement
from bot.documents.retrieval import Retrieved, retrieve
from bot.errors import InternalError, PartUnavailable, RefbotError
from bot.faults import Fault, fault_of
from bot.properties.profile import statement_claim
from bot.verifying.citations import Citation
from bot.verifying.records import Finding, ReferenceCheck

# How `refbot check`'s outcome for one page reads as a reference's finding.
_FROM_OUTCOME = {Outcome.SUPPORTED: Finding.SUPPORTS, Outcome.CONTRADICTED: Finding.CONTRADICTS,
                 Outcome.NOT_FOUND: Finding.DOES_NOT_SUPPORT, Outcome.UNDECIDED: Finding.DOES_NOT_SUPPORT,
                 Outcome.ERROR: Finding.ERROR, Outcome.IRRETRIEVABLE: Finding.UNREADABLE}


def verify_reference(statement: Statement, citation: Citation, tools: Tools, plan: Plan) -> ReferenceCheck:
    """Never raises for the page's own trouble (dead, unreadable, a judge's answer that cannot be read): that is its
    finding. Only a part every reference needs, gone, stops the run (PartUnavailable); refbot's own failure is the
    finding ``error`` with the fault named, never blamed on the page."""
    started, clock = stamp(tools.clock()), time.monotonic()
    watch = Stopwatch()
    profile = None
    document: DocumentCheck | None = None
    fault: Fault | None = None
    problem = ""
    try:
        if tools.profiles is not None:
            profile = tools.profiles.profile(statement.property_id, statement.property_label)
        if tools.related is not None:
            statement = tools.related(statement)
        claim = statement_claim(statement, profile)
        candidate = Candidate(citation.url, "reference", access_date=citation.retrieved,
                              archive_url=citation.archive_url)
        with watch.stage("fetch"):
            retrieved = retrieve(citation.url, tools.fetcher, tools.rules, tools.wayback,
                                 access_date=citation.retrieved, archive_url=citation.archive_url, notice_gone=True)
        with watch.stage("rank"):
            page = retrieved.document
            if tools.names_in is not None and page is not None:  # the subject as the page's language names it
                statement = tools.names_in(statement, page.language)
            entries = queue(retrieved.paragraphs, statement, plan.strategy, tools.embed,
                            title=page.title if page else "", heading=page.heading if page else "", claim=claim,
                            cited=True)
        with watch.stage("judge"):
            answers = judge_in_rounds(tools.judge, claim, [entries], justify=False,
                                      first_only=plan.strategy.name == "ranked")[0]
        document = DocumentCheck(candidate, retrieved, tuple(read_against(statement, claim, answers)),
                                 len(retrieved.paragraphs) - len(answers),
                                 not_ranked(len(retrieved.paragraphs), plan.strategy))
    except PartUnavailable:
        raise
    except InternalError as error:
        fault = fault_of(error)
    except RefbotError as error:
        problem = str(error)
    except Exception as error:  # refbot's own failure: recorded as such, never as what the page did
        fault = fault_of(error)
    elapsed = round(time.monotonic() - clock, 3)
    if fault is not None:
        return ReferenceCheck(statement, citation, Finding.ERROR, str(fault), started, elapsed, document,
                              fault=fault, profile=profile, stages=watch.stages)
    if document is None:
        return ReferenceCheck(statement, citation, Finding.ERROR, problem, started, elapsed, profile=profile,
                              stages=watch.stages)
    finding, reason, archived = find(document, citation)
    return ReferenceCheck(statement, citation, finding, reason, started, elapsed, document, archived,
                          profile=profile, stages=watch.stages)


def find(document: DocumentCheck, citation: Citation) -> tuple[Finding, str, Finding | None]:
    """Pure: the page as read → (finding, reason, what a dead page's archived copy says). A dead page whose
    reference already names an archived copy is judged by that copy: there is nothing to add to the reference."""
    retrieved = document.retrieved
    assert retrieved is not None
    if retrieved.dead:
        why = _why_dead(retrieved)
        if not document.readable:
            tried = f"; {'; '.join(retrieved.notes)}" if retrieved.notes else ""
            return Finding.DEAD_NO_ARCHIVE, f"the page is dead ({why}) and no archived copy could be read{tried}", \
                None
        said, reason = judged(document)
        copy = retrieved.used.archive_url
        if citation.archive_url:
            return said, f"the page is dead ({why}); its archived copy the reference names ({copy}): {reason}", None
        return Finding.DEAD_ARCHIVED, (f"the page is dead ({why}); an archived copy of "
                                       f"{retrieved.used.archive_timestamp[:8] or 'unknown date'} was read "
                                       f"({copy}): it {said.value.replace('-', ' ')} the statement: {reason}"), said
    if not document.readable:
        return Finding.UNREADABLE, f"the page cannot be read: {_why_unreadable(retrieved)}", None
    said, reason = judged(document)
    words = text_words(document)
    if said is Finding.DOES_NOT_SUPPORT and words < MIN_WORDS:
        return Finding.UNREADABLE, (f"the page gives almost no text ({words} word(s) beside its title: a page "
                                    f"its scripts fill in, or a scan), so it cannot be said not to support it"), None
    if retrieved.archived is not None and retrieved.used is retrieved.archived:
        reason = f"the page itself gave no text ({_why_unreadable_live(retrieved)}); read its archived copy " \
                 f"{retrieved.archived.archive_url}: {reason}"
    return said, reason, None


# A page with fewer words than this beside its title states nothing refbot could read: built by script (its
# <noscript> line is all a reader without one gets), an image or a scan. Such a page that supports or contradicts
# the statement all the same is judged by what it says.
MIN_WORDS = 12


def text_words(document: DocumentCheck) -> int:
    """The words of the page's text, its title aside."""
    retrieved = document.retrieved
    return sum(len(paragraph.text.split()) for paragraph in (retrieved.paragraphs if retrieved else ())
               if paragraph.kind != "title")


def judged(document: DocumentCheck) -> tuple[Finding, str]:
    """What one readable page's judged paragraphs say, decided as `refbot check` decides for its documents."""
    outcome, reason = decide([document], [], has_candidates=True)
    return _FROM_OUTCOME[outcome], reason


def _why_dead(retrieved: Retrieved) -> str:
    if retrieved.gone:
        return retrieved.gone
    live = retrieved.live
    return live.reason or (f"HTTP {live.status}" if live.status else live.outcome.value)


def _why_unreadable_live(retrieved: Retrieved) -> str:
    live = retrieved.live
    return live.reason or (f"{live.outcome.value}" if not live.ok else "no paragraph of text")


def _why_unreadable(retrieved: Retrieved) -> str:
    used = retrieved.used
    if not used.ok:
        return used.reason or used.outcome.value
    return "no paragraph of text in it (a page built by script, a scan without text)"
