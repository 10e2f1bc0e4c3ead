"""Checking one statement: candidates → documents → paragraphs judged → outcome and proposed reference.

Every client is in :class:`Tools`, built once per run by ``bot.wiring``; this module does no wiring.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date

from bot.checking import candidates as find
from bot.checking.against import NEGATED, evidence_against
from bot.clock import Clock, stamp, system_clock
from bot.checking.judging import Strategy, judge_in_rounds, not_ranked, queue, worded_at_most
from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome, Search, StatementCheck
from bot.corroboration.stage import Corroboration, Corroborator, Finding
from bot.datamodel import Claim, Paragraph, Statement, Verdict
from bot.documents.archive import Wayback
from bot.documents.fetching import Fetcher
from bot.documents.paragraphs import ParagraphRules
from bot.documents.retrieval import Retrieved, Wanted, retrieve_many
from bot.documents.search import SearchBackend, search_query, web_search
from bot.documents.wikipedia import Article
from bot.errors import BackendUnavailable, InternalError, JudgeError, PartUnavailable, QueryError, RefbotError
from bot.faults import Fault, fault_of
from bot.judge.engine import Judge
from bot.options import uses
from bot.properties import PropertyProfile, PropertyProfiles
from bot.properties.profile import statement_claim
from bot.checking.ranking import Embed, rank, subject_names, supporting_sentence
from bot.references import ProposedReference, StatedIn, quickstatements, wayback_date
from bot.checking.subject_check import on_official_site
from bot.values import statement_finder

SUMMARY = "reference proposed by refbot"


@dataclass(frozen=True)
class Plan:
    """What the options say about checking (``bot.checking.plan_from``)."""

    source: str = "all"  # all, kg, web, wikipedia or both (web and wikipedia): bot.options.SOURCES
    # Search documents even when an authority record corroborates the statement.
    all_sources: bool = False
    strategy: Strategy = Strategy()
    documents: int = 8
    search_results: int = 5
    allow_domains: tuple[str, ...] = ()
    deny_domains: tuple[str, ...] = ()
    fetch_workers: int = 8


@dataclass(frozen=True)
class Tools:
    judge: Judge
    fetcher: Fetcher
    rules: ParagraphRules
    wayback: Wayback | None = None
    search: SearchBackend | None = None
    embed: Embed | None = None
    # How each property is stated and what it is told apart from; without it a claim has no contrasts.
    profiles: PropertyProfiles | None = None
    # The item's authority records (--source kg or all); without it none is read.
    corroborator: Corroborator | None = None
    # What stamps each check's start (the fetcher and the corroborator take the same clock).
    clock: Clock = system_clock
    # The other names Wikidata links to an item value (bot.selection.related), so that a text naming it another way
    # is found, and shown how; without it a value is looked for by its label and aliases only.
    related: Callable[[Statement], Statement] | None = None
    # The statement with its subject's names in a page's language (bot.selection.page_language), for a page in a
    # language the run's labels are not in; without it such a page is read by the names the statement has.
    names_in: Callable[[Statement, str], Statement] | None = None


def check_statement(statement: Statement, tools: Tools, plan: Plan, article: Article | None = None,
                    article_error: str = "", *, websites: Sequence[str] = ()) -> StatementCheck:
    """Never raises for a statement's own trouble (a failing search engine, dead pages, unreadable answers):
    that becomes its outcome and reason. Only a part every statement needs, gone, stops the run (PartUnavailable:
    the judge's server, the workers' Redis).

    An exception from refbot's own code or install (a missing library, a bug) is never blamed on the pages:
    the statement ends as ``error`` with the fault named, and ``fault`` is set for the run to act on."""
    started, clock = stamp(tools.clock()), time.monotonic()
    watch = Stopwatch()
    claim: Claim | None = None
    searches: list[Search] = []
    documents: list[DocumentCheck] = []
    problems: list[str] = [article_error] if article_error and uses(plan.source, "wikipedia") else []
    fault: Fault | None = None
    profile = None
    corroboration: Corroboration | None = None
    try:
        if tools.profiles is not None:
            profile = tools.profiles.profile(statement.property_id, statement.property_label)
        if tools.related is not None:
            statement = tools.related(statement)
        claim = statement_claim(statement, profile)
        if tools.corroborator is not None and uses(plan.source, "kg"):
            with watch.stage("kg"):
                corroboration = _corroborate(statement, tools.corroborator, profile)
        if _wants_documents(plan, corroboration):
            with watch.stage("search"):
                searched = _search(statement, tools, plan, searches, problems)
            with watch.stage("article"):
                cited, article_check = _cited(statement, claim, tools, plan, article)
            if article_check is not None:
                documents.append(article_check)
            wanted = find.merge(cited, searched, limit=plan.documents)
            documents += _judge_documents(statement, claim, tools, plan, wanted, websites, watch)
    except PartUnavailable:  # the judge's server, the workers' Redis: the run stops and is tried again
        raise
    except InternalError as error:  # refbot's own failure, raised on purpose: never the statement's problem
        fault = fault_of(error)
    except RefbotError as error:  # anything else a statement runs into is its own outcome, not the run's
        problems.append(str(error))
    except Exception as error:  # refbot's own failure: recorded as such, and the run decides whether to go on
        fault = fault_of(error)
    if fault is not None:
        return StatementCheck(statement, Outcome.ERROR, str(fault), started, round(time.monotonic() - clock, 3),
                              tuple(searches), tuple(documents), fault=fault, profile=profile, stages=watch.stages,
                              corroboration=corroboration)
    outcome, reason, reference = _decide_all(statement, plan, corroboration, documents, problems)
    if isinstance(reference, ProposedReference) and claim is not None and tools.judge.justify:
        with watch.stage("justify"):  # only the paragraph that is proposed is explained
            documents = _justify(documents, claim, tools.judge)
    return StatementCheck(statement, outcome, reason, started, round(time.monotonic() - clock, 3), tuple(searches),
                          tuple(documents), reference,
                          quickstatements(statement, reference, SUMMARY) if reference else "", profile=profile,
                          stages=watch.stages, corroboration=corroboration)


def _corroborate(statement: Statement, corroborator: Corroborator, profile: PropertyProfile | None
                 ) -> Corroboration:
    """The records' verdict; silent, with the error, when the endpoint cannot say which records the item has."""
    try:
        return corroborator.corroborate(statement, profile)
    except QueryError as error:
        return Corroboration(Finding.SILENT, f"the item's identifiers could not be read: {error}", error=str(error))


def _wants_documents(plan: Plan, corroboration: Corroboration | None) -> bool:
    if not (uses(plan.source, "web") or uses(plan.source, "wikipedia")):
        return False
    return plan.all_sources or corroboration is None or corroboration.finding is not Finding.CORROBORATED


def _decide_all(statement: Statement, plan: Plan, corroboration: Corroboration | None,
                documents: list[DocumentCheck], problems: list[str]
                ) -> tuple[Outcome, str, ProposedReference | StatedIn | None]:
    """A contradiction, by an authority record or by a page, is flagged whatever else was found, and nothing is
    proposed; a corroboration proposes its "stated in" reference; otherwise the documents decide."""
    searched = uses(plan.source, "web") or uses(plan.source, "wikipedia")
    found = decide(documents, problems, has_candidates=any(d.evidence for d in documents)) if searched else None
    if corroboration is not None and corroboration.finding is Finding.CONTRADICTED:
        said = f"; the documents: {found[0].value} ({found[1]})" if found is not None else ""
        return Outcome.CONTRADICTED, f"an authority record states another value: {corroboration.reason}{said}", None
    if corroboration is not None and corroboration.finding is Finding.CORROBORATED:
        if found is not None and found[0] is Outcome.CONTRADICTED:  # --all-sources: a page disagrees with the record
            return Outcome.CONTRADICTED, f"{found[1]}; yet an authority record states it: {corroboration.reason}", \
                None
        return Outcome.CORROBORATED, f"an authority record states it: {corroboration.reason}", corroboration.reference
    if found is None:  # --source kg
        if corroboration is None:
            return Outcome.ERROR, "no authority record was read: no SPARQL endpoint to list the item's identifiers", \
                None
        if corroboration.error or problems:
            return Outcome.ERROR, "; ".join([*problems, corroboration.reason]), None
        return Outcome.NOT_FOUND, f"no authority record states it: {corroboration.reason}", None
    outcome, reason = found
    reference = propose(statement, documents) if outcome is Outcome.SUPPORTED else None
    return outcome, reason, reference


class Stopwatch:
    """Seconds per stage of a statement's check, summed over the stage's visits."""

    def __init__(self) -> None:
        self._seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self._seconds[name] = self._seconds.get(name, 0.0) + time.monotonic() - started

    @property
    def stages(self) -> tuple[tuple[str, float], ...]:
        return tuple((name, round(seconds, 3)) for name, seconds in self._seconds.items())


def _justify(documents: list[DocumentCheck], claim: Claim, judge: Judge) -> list[DocumentCheck]:
    """The proposed paragraph's judgement with its justification, written now rather than for every paragraph
    that supported. A justification that cannot be had is noted in the answer; the support stands."""
    best = _best_support(documents)
    if best is None:
        return documents
    document, judged = best
    judgement = judged.judgement
    try:
        explained = judge.explain(claim, judged.ranked.snippet)
    except BackendUnavailable:
        raise
    except JudgeError as error:
        updated = replace(judgement, answer=f"{judgement.answer}; no justification: {error}")
    else:
        updated = replace(judgement, justification=explained.text, justification_s=round(explained.seconds, 3),
                          prompt_tokens=judgement.prompt_tokens + explained.prompt_tokens,
                          completion_tokens=judgement.completion_tokens + explained.completion_tokens)
    answers = tuple(replace(j, judgement=updated) if j is judged else j for j in document.judged)
    return [replace(d, judged=answers) if d is document else d for d in documents]


def _search(statement: Statement, tools: Tools, plan: Plan, searches: list[Search],
            problems: list[str]) -> list[Candidate]:
    if not uses(plan.source, "web") or tools.search is None:
        return []
    try:
        query, results = web_search(tools.search, statement, plan.search_results, allow=plan.allow_domains,
                                    deny=plan.deny_domains)
    except PartUnavailable:
        raise
    except RefbotError as error:
        searches.append(Search(tools.search.name, search_query(statement), error=str(error)))
        problems.append(f"web search failed: {error}")
        return []
    searches.append(Search(tools.search.name, query, tuple(results)))
    return find.from_search(results)


def _cited(statement: Statement, claim: Claim, tools: Tools, plan: Plan, article: Article | None
           ) -> tuple[list[Candidate], DocumentCheck | None]:
    if not uses(plan.source, "wikipedia") or article is None:
        return [], None
    if plan.strategy.name != "paper":
        return find.from_article(article.paragraphs, statement), None
    # The published order: every chunk of the article is judged; the paragraphs of a supporting chunk one by
    # one; the sources cited by a supporting paragraph become the candidates.
    chunk_queue = [rank([Paragraph(chunk.text, article.permalink, chunk.position)], statement)[0]
                   for chunk in article.chunks]
    judged: list[Judged] = []
    supporting_paragraphs = []
    by_position = {paragraph.position: paragraph for paragraph in article.paragraphs}
    for index, judgement in tools.judge.judge_all((i, claim, entry.paragraph.text)
                                                  for i, entry in enumerate(chunk_queue)):
        judged.append(Judged(chunk_queue[index], judgement))
        if not judgement.supported:
            continue
        members = [by_position[position] for position in article.chunks[index].paragraphs]
        paragraph_queue = rank([Paragraph(p.text, article.permalink, p.position) for p in members], statement)
        paragraph_queue.sort(key=lambda entry: entry.paragraph.position)
        for inner, answer in tools.judge.judge_all((i, claim, e.paragraph.text) for i, e in enumerate(paragraph_queue)):
            judged.append(Judged(paragraph_queue[inner], answer))
            if answer.supported:
                supporting_paragraphs.append(by_position[paragraph_queue[inner].paragraph.position])
    supporting_paragraphs.sort(key=lambda paragraph: paragraph.position)
    record = DocumentCheck(Candidate(article.permalink, "article", title=article.sitelink.title), None,
                           tuple(judged), evidence=False)
    return find.from_paragraphs(supporting_paragraphs), record


def _judge_documents(statement: Statement, claim: Claim, tools: Tools, plan: Plan,
                     wanted: list[Candidate], websites: Sequence[str], watch: Stopwatch) -> list[DocumentCheck]:
    if not wanted:
        return []
    with watch.stage("fetch"):
        retrieved = retrieve_many([Wanted(c.url, c.access_date, c.archive_url) for c in wanted], tools.fetcher,
                                  tools.rules, tools.wayback, workers=plan.fetch_workers)
    # Each page read with the subject's names in its language too, where the run's labels are in others.
    as_named = [tools.names_in(statement, result.document.language)
                if tools.names_in is not None and result.document is not None else statement for result in retrieved]
    with watch.stage("rank"):
        queues = [queue(result.paragraphs, named, plan.strategy, tools.embed,
                        title=result.document.title if result.document else "",
                        heading=result.document.heading if result.document else "",
                        official=on_official_site(candidate.url, websites), claim=claim)
                  for candidate, result, named in zip(wanted, retrieved, as_named)]
        queues = worded_at_most(queues, plan.strategy.value_words)
    with watch.stage("judge"):
        judged = judge_in_rounds(tools.judge, claim, queues, justify=False,
                                 first_only=plan.strategy.name == "ranked")
    return [DocumentCheck(candidate, result, tuple(read_against(named, claim, answers)),
                          len(result.paragraphs) - len(answers), not_ranked(len(result.paragraphs), plan.strategy))
            for candidate, result, answers, named in zip(wanted, retrieved, judged, as_named)]


def read_against(statement: Statement, claim: Claim, answers: Sequence[Judged]) -> Iterator[Judged]:
    """The judged paragraphs, each that writes the value about the subject without supporting it marked with why
    it says otherwise (``bot.checking.against``)."""
    find_value = statement_finder(statement)
    names = subject_names(statement)
    for judged in answers:
        judgement = judged.judgement
        if judgement.supported or judgement.contradicted or not judgement.written or not judged.ranked.subject_rule:
            yield judged
            continue
        yield replace(judged, against=evidence_against(judged.ranked.paragraph.text, find_value, names,
                                                       claim.relation, claim.alternatives))


def decide(documents: list[DocumentCheck], problems: list[str], *, has_candidates: bool) -> tuple[Outcome, str]:
    """A page that gives another value beats everything, support included: curators must look at both. Then
    support; a failed service or unreadable answers (a later run tries again); nothing readable; paragraphs in the
    judge's undecided band; and what is left is not found."""
    evidence = [document for document in documents if document.evidence]
    contradicting = [(document, judged) for document in evidence for judged in document.contradicting]
    supporting = [judged for document in evidence for judged in document.supporting]
    otherwise = [(document, judged) for document in evidence for judged in document.stating_otherwise]
    if contradicting:
        return Outcome.CONTRADICTED, _contradicted(contradicting, evidence)
    if supporting:
        sources = sum(1 for document in evidence if document.supporting)
        against = f"; {len(otherwise)} paragraph(s) state otherwise: {_states_otherwise(*otherwise[0])}" \
            if otherwise else ""
        return Outcome.SUPPORTED, f"{len(supporting)} supporting paragraph(s) in {sources} document(s){against}"
    # A paragraph that negates the value says the statement is false; one that states a contrasting relation (taught
    # at, nominated for) does not rule the statement out (one may study and teach at a university): it is shown as
    # evidence against beside whatever else is decided.
    negating = [(document, judged) for document, judged in otherwise
                if judged.against is not None and judged.against.kind == NEGATED]
    if negating:
        said = [_states_otherwise(document, judged) for document, judged in negating[:SHOWN_CONTRADICTIONS]]
        if len(negating) > SHOWN_CONTRADICTIONS:
            said.append(f"{len(negating) - SHOWN_CONTRADICTIONS} more paragraph(s) negate it")
        return Outcome.CONTRADICTED, "; ".join(said)
    outcome, reason = _unsupported(documents, evidence, problems, has_candidates)
    if otherwise and outcome in (Outcome.NOT_FOUND, Outcome.UNDECIDED):
        reason += f"; evidence against: {_states_otherwise(*otherwise[0])}"
    return outcome, reason


def _unsupported(documents: list[DocumentCheck], evidence: list[DocumentCheck], problems: list[str],
                 has_candidates: bool) -> tuple[Outcome, str]:
    """The outcome of a statement no paragraph supports, contradicts or negates."""
    unreadable = sum(1 for document in documents for judged in document.judged
                     if judged.judgement.verdict is Verdict.UNPARSEABLE)
    if problems:
        return Outcome.ERROR, "; ".join(problems)
    if unreadable:
        return Outcome.ERROR, f"the judge's answer could not be read for {unreadable} paragraph(s); run again"
    if not has_candidates:
        return Outcome.NOT_FOUND, "no candidate document: the search found nothing and no cited source names the value"
    if not any(document.readable for document in evidence):
        reasons = "; ".join(sorted({_why_unreadable(document.retrieved) for document in evidence
                                    if document.retrieved is not None}))
        return Outcome.IRRETRIEVABLE, f"none of {len(evidence)} document(s) could be read ({reasons})"
    readable = sum(1 for document in evidence if document.readable)
    asked = sum(1 for document in evidence for judged in document.judged if judged.asked)
    undecided = [judged.judgement for document in evidence for judged in document.judged if judged.judgement.undecided]
    if undecided:
        calibrated = [judgement.calibrated for judgement in undecided if judgement.calibrated is not None]
        best = f"best calibrated support {max(calibrated):.2f}" if calibrated else \
            f"best support {max(judgement.support for judgement in undecided):.2f}"
        return Outcome.UNDECIDED, (f"undecided: {len(undecided)} of {asked} paragraph(s) judged in {readable} readable "
                                   f"document(s) lie in the judge's undecided band ({best}); none supports or "
                                   f"contradicts it, so it is neither proposed nor called unsupported")
    return Outcome.NOT_FOUND, f"no supporting paragraph: {asked} judged in {readable} readable document(s)"


# What a reason quotes of the pages that give another value: the first few, each sentence cut to a readable length
# (the trace keeps every one whole).
SHOWN_CONTRADICTIONS = 3
SHOWN_SENTENCE = 300


def _contradicted(contradicting: list[tuple[DocumentCheck, Judged]], evidence: list[DocumentCheck]) -> str:
    """``https://… gives another value: "3 March 1921" ("He was born on 3 March 1921 in Prostějov.")``, and
    whether other paragraphs support the statement's value all the same."""
    said = [_gives(document, judged) for document, judged in contradicting[:SHOWN_CONTRADICTIONS]]
    if len(contradicting) > SHOWN_CONTRADICTIONS:
        said.append(f"{len(contradicting) - SHOWN_CONTRADICTIONS} more paragraph(s) give another value")
    supporting = sum(len(document.supporting) for document in evidence)
    if supporting:
        sources = sum(1 for document in evidence if document.supporting)
        said.append(f"yet {supporting} paragraph(s) in {sources} document(s) support the statement's value: "
                    f"curators must look, nothing is proposed")
    return "; ".join(said)


def _gives(document: DocumentCheck, judged: Judged) -> str:
    contradiction = judged.judgement.contradiction
    url = document.candidate.url
    if contradiction is None:
        return f"{url} gives another value (paragraph {judged.ranked.paragraph.position})"
    sentence = " ".join(contradiction.sentence.split())
    if len(sentence) > SHOWN_SENTENCE:
        sentence = sentence[:SHOWN_SENTENCE - 1] + "…"
    return f'{url} gives another value: "{contradiction.form}" ("{sentence}")'


def _states_otherwise(document: DocumentCheck, judged: Judged) -> str:
    """``https://… states otherwise: the value is negated (“not”) ("… but not the European Catalysis Medal").``"""
    against = judged.against
    assert against is not None
    sentence = against.sentence if len(against.sentence) <= SHOWN_SENTENCE else \
        against.sentence[:SHOWN_SENTENCE - 1] + "…"
    return f'{document.candidate.url} states otherwise, {against.reason}: "{sentence}"'


def _why_unreadable(retrieved: Retrieved) -> str:
    return retrieved.outcome.value if retrieved.outcome.value != "ok" else "no paragraph"


def _best_support(documents: Sequence[DocumentCheck]) -> tuple[DocumentCheck, Judged] | None:
    """The best supporting paragraph (highest support; the earlier document on a tie) and its document."""
    best: tuple[float, DocumentCheck, Judged] | None = None
    for document in documents:
        if not document.evidence or document.retrieved is None:
            continue
        for judged in document.supporting:
            if best is None or judged.judgement.support > best[0]:
                best = (judged.judgement.support, document, judged)
    return None if best is None else best[1:]


def propose(statement: Statement, documents: list[DocumentCheck]) -> ProposedReference | None:
    """The reference for the best supporting paragraph (highest support; the earlier document on a tie). Its P813
    is when the page cited was read: the day refbot fetched a live page; for an archived copy, the access date the
    citation gave (none when it gave none: refbot read the archive, dated by P2960, not the page)."""
    best = _best_support(documents)
    if best is None:
        return None
    document, judged = best
    retrieved = document.retrieved
    assert retrieved is not None
    used, page = retrieved.used, retrieved.document
    archived = retrieved.archived is not None and used is retrieved.archived
    return ProposedReference(
        url=document.candidate.url,
        retrieved=document.candidate.access_date if archived else _day(used.retrieved),
        title=(page.title if page else "") or document.candidate.title, language=page.language if page else "",
        archive_url=used.archive_url if archived else "",
        archive_date=wayback_date(used.archive_timestamp) if archived else None,
        quotation=supporting_sentence(judged.ranked.paragraph.text, statement))


def _day(iso: str) -> date:
    """The day of a fetch's ``retrieved``, which the fetcher always stamps."""
    return date.fromisoformat(iso[:10])
