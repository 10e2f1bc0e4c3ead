"""Which paragraphs the judge is asked about, and in what order. The judge is passed in.

``ranked`` (refbot's default): each document's paragraphs are pre-ranked (``bot.checking.ranking``) and at most
``top`` of those that name the value (as the page writes it, ``bot.values``) and are about the subject
(``bot.checking.subject_check``) are judged, best first. A document that never writes the value cannot support it;
its paragraphs that give another value for the property about the subject (another date, amount, identifier, in a
sentence naming the property, not one of the page's own dates: ``bot.judge.contradictions``) are judged instead,
every such paragraph looked at and at most ``unnamed`` of them asked, for the judge to tell whether the page
contradicts the statement (the model supports the claim with the page's value). An item value a page may name
another way ("the violist" for *viola*): its ``naming`` best paragraphs about the subject are judged too, the model
naming the words that state it and refbot checking them (``bot.judge.naming``). ``paper`` (the published method):
every paragraph in document order, each document left at its first supporting paragraph, the documents judged side
by side (one paragraph of each per round, so that a server judges them concurrently). ``ranked`` needs only one
supporting paragraph per statement: it asks across the documents in rank order, as many at once as the backend
answers at once, and stops at the first that supports — the outcome is the same as judging them all, at a fraction
of the judgements."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.checking.records import Judged
from bot.documents.blocks import PARAGRAPH
from bot.datamodel import Claim, Paragraph, Statement
from bot.judge.engine import Judge
from bot.checking.ranking import MAX_RANKED, Embed, Ranked, rank, subject_names, with_closeness
from bot.checking.subject_check import PAGE_RULES, admitting_rule, named_somewhere, page_context, page_rule
from bot.judge.contradictions import candidates as contradiction_candidates, stated_for_another
from bot.judge.naming import in_words
from bot.values import names_beyond_reach


@dataclass(frozen=True)
class Strategy:
    name: str = "ranked"  # or "paper"
    top: int = 3
    require_mention: bool = True
    require_subject: bool = True
    # Paragraphs judged in a document that never writes the value as refbot knows it: the likeliest to give another
    # value for the property about the subject (``contradicting``), asked whether the page gives that value instead.
    unnamed: int = 2
    # Paragraphs of a document ranked at most (``ranked`` only): the best by the names they mention; the rest
    # are never embedded nor judged (``not_ranked``), which bounds the work a huge page costs its statement.
    considered: int = MAX_RANKED
    # Paragraphs about the subject judged besides, the best ranked, in a document that never writes an item value as
    # refbot knows it: the model may name the value in the paragraph's words (``bot.judge.naming``; each costs a
    # generation). Off by default (``[check] naming``): on wtr-dev's whole pages it found 1 more supported item in 50
    # statements at several times their judging time.
    naming: int = 0
    # Paragraphs about the subject judged besides, the best ranked, in a document in another alphabet than every name
    # of an item value (``bot.values.names_beyond_reach``: a Russian page cannot write an English label, so not
    # finding it says nothing), the judge asked as for a paragraph writing it (``bot.judge.engine.ACROSS_ALPHABETS``).
    across: int = 2
    # Paragraphs about the subject judged besides, the best ranked, in a document that never writes an item value as
    # refbot knows it but writes a word of one of its names in some form (``bot.judge.naming.in_words``: "Treasury"
    # of "Department of the Treasury"): there the words the model names can be shown to name the value, where in a
    # paragraph holding none of them only an embedding's similarity could. Cheap to choose, one generation each,
    # at most this many a statement (``worded_at_most``). Off by default (``[check] value_words``): the generations
    # cost a CPU 15 % of its statements an hour for 2 more of 69 item statements found on wtr-dev's pages.
    value_words: int = 0


def queue(paragraphs: Sequence[Paragraph], statement: Statement, strategy: Strategy,
          embed: Embed | None = None, *, title: str = "", heading: str = "", official: bool = False,
          single_valued: bool = False, claim: Claim | None = None, cited: bool = False) -> list[Ranked]:
    """The paragraphs to judge, in the order to judge them. ``title`` is their page's title, ``heading`` its main
    heading; ``official`` says the page is on the subject's official website (P856), ``cited`` that it is the
    reference the statement cites (``refbot verify``); ``claim`` is the judge's
    claim (its property's phrases tell which sentences name the property), by default the statement's labels with
    ``single_valued``: the property takes one value (another proper name on a page that does not write the value
    is then a candidate contradiction)."""
    names = subject_names(statement)
    # A cited page is about the subject where it names the subject somewhere (by a name, or by its family name, even
    # after another given name: "Jean-Nicolas Billaud-Varenne" for Jacques-Nicolas): one that never does (a ship's
    # page under the name it bears now) gives its reader no way to tell, and is read as any other page.
    cited = cited and any(named_somewhere(paragraph.text, names) for paragraph in paragraphs)
    if strategy.name == "paper":
        ranked = sorted(rank(paragraphs, statement), key=lambda entry: entry.paragraph.position)
        opening = ranked[0].paragraph.text if ranked else ""
        page = page_rule(names, title=title, opening=opening, official=official, heading=heading, cited=cited)
        context = page_context(names, title=title, opening=opening, heading=heading)
        return [_about(entry, names, page, context) for entry in ranked]
    # The opening paragraph is the page's first prose (not a heading's lines, a table or its title) where it has any.
    opening = min(paragraphs, key=lambda paragraph: (paragraph.kind != "paragraph", paragraph.position)).text \
        if paragraphs else ""
    page = page_rule(names, title=title, opening=opening, official=official, heading=heading, cited=cited)
    context = page_context(names, title=title, opening=opening, heading=heading)
    every = [_about(entry, names, page, context)
             for entry in rank(paragraphs, statement, limit=strategy.considered)]
    if strategy.require_subject:
        every = [entry for entry in every if entry.subject_rule]
    if not strategy.require_mention:
        return _closer_first(every, statement, embed)[:strategy.top]
    # Where units write the value only they can be judged: only they are embedded, to order them among themselves.
    named = _closer_first([entry for entry in every if entry.object == 1.0], statement, embed)
    # A page whose prose writes the value is read in its prose, as a person reads it; its header line, tables and
    # other terse units only where no prose writes it ("Janssens wins the Medal … a shortlist that included
    # Novotná" is no support where the article says she did not win it).
    prose = [entry for entry in named if entry.paragraph.kind == PARAGRAPH]
    if named:
        return (prose or named)[:strategy.top]
    every = _closer_first(every, statement, embed)
    others = contradicting(every, claim or replace(statement.claim, single_valued=single_valued))[
        :min(strategy.unnamed, strategy.top)]
    if statement.value.datatype != "wikibase-item":
        return others
    rest = [entry for entry in every if entry not in others]
    # Those naming the subject themselves first: a page about the subject admits all its units, the weather too.
    across = sorted((entry for entry in rest if names_beyond_reach(statement.value, entry.snippet)),
                    key=lambda entry: entry.subject_rule in PAGE_RULES)[:strategy.across]
    worded = [entry for entry in rest if in_words(statement.value, entry.paragraph.text)][:strategy.value_words]
    return others + [replace(entry, worded=entry in worded and entry not in rest[:strategy.naming]
                             and entry not in across)
                     for entry in rest if entry in rest[:strategy.naming] or entry in across or entry in worded]


def worded_at_most(queues: Sequence[Sequence[Ranked]], limit: int) -> list[list[Ranked]]:
    """The documents' queues with at most ``limit`` paragraphs queued for a word of the value's names
    (``Ranked.worded``) in all: the best scored across the documents, the others left out. Each costs the model a
    generation, and a statement needs one that names the value, not one a page."""
    worded = sorted(((entry.score, -index, -position) for index, entries in enumerate(queues)
                     for position, entry in enumerate(entries) if entry.worded), reverse=True)
    kept = {(-index, -position) for _, index, position in worded[:limit]}
    return [[entry for position, entry in enumerate(entries) if not entry.worded or (index, position) in kept]
            for index, entries in enumerate(queues)]


def _closer_first(entries: Sequence[Ranked], statement: Statement, embed: Embed | None) -> list[Ranked]:
    """``entries`` best first with their closeness to the statement, where an embedding model is given."""
    return with_closeness(entries, statement, embed) if embed is not None else list(entries)


def contradicting(entries: Sequence[Ranked], claim: Claim) -> list[Ranked]:
    """The paragraphs that give another value for the claim's property about its subject
    (``bot.judge.contradictions``), those whose likeliest such value is in a sentence naming the property and then
    the subject first, the better ranked first among equals: every paragraph is looked at, not the best ranked
    only, since ranking by names alone may prefer a paragraph whose other value is no value of the property."""
    found = [(candidates[0], order, entry) for order, entry in enumerate(entries)
             if (candidates := contradiction_candidates(claim, entry.snippet))]
    found.sort(key=lambda item: (not item[0].named, not item[0].about, item[1]))
    return [entry for _, _, entry in found]


def not_ranked(paragraphs: int, strategy: Strategy) -> int:
    """How many of a document's ``paragraphs`` :func:`queue` leaves out before ranking them."""
    return max(0, paragraphs - strategy.considered) if strategy.name != "paper" else 0


def _spans(text: str, form: str) -> list[tuple[int, int]]:
    """Where ``text`` writes ``form``, as it was found there."""
    return [(match.start(), match.end()) for match in re.finditer(re.escape(form), text)]


def _about(entry: Ranked, names: list[str], page: str, context: str) -> Ranked:
    text, form = entry.paragraph.text, entry.value_form
    if form and stated_for_another(text, _spans(text, form), names):
        return replace(entry, subject_rule="")  # "Vlček, who studied at …": the value is someone else's
    rule, name = admitting_rule(entry.paragraph.text, names, page)
    matched = entry.matched if not name or name in entry.matched else (name, *entry.matched)
    # A paragraph admitted for its page is read after the page's line naming the subject, unless it is that line.
    shown = context if rule in PAGE_RULES and context not in entry.paragraph.text else ""
    return replace(entry, subject_rule=rule, matched=matched, context=shown)


def judge_in_rounds(judge: Judge, claim: Claim, queues: Sequence[Sequence[Ranked]], *,
                    justify: bool | None = None, first_only: bool = False) -> list[list[Judged]]:
    """Judge each queue in order until its first supporting paragraph; round r asks for the r-th paragraph of
    every queue still open, all at once. ``justify`` as for ``Judge.judge``.

    ``first_only``: one supporting paragraph is all the statement needs. The paragraphs are asked in one order
    across the queues — the r-th of every queue before the (r+1)-th, the better ranked first — in batches of as
    many as the backend answers at once (one for an in-process model), until a batch holds a support."""
    if first_only:
        return _until_first_support(judge, claim, queues, justify)
    results: list[list[Judged]] = [[] for _ in queues]
    open_ = [bool(entries) for entries in queues]
    step = 0
    while any(open_):
        tasks = [(index, claim, queues[index][step].snippet) for index in range(len(queues)) if open_[index]]
        for index, judgement in judge.judge_all(tasks, justify=justify):
            results[index].append(Judged(queues[index][step], judgement))
            if judgement.supported:
                open_[index] = False
        step += 1
        open_ = [is_open and step < len(queues[index]) for index, is_open in enumerate(open_)]
    return results


def _until_first_support(judge: Judge, claim: Claim, queues: Sequence[Sequence[Ranked]],
                         justify: bool | None) -> list[list[Judged]]:
    width = max(1, judge.backend.max_in_flight)
    found: list[list[Judged]] = [[] for _ in queues]
    for step in range(max((len(entries) for entries in queues), default=0)):
        # The step-th paragraph of every queue, the better ranked first, as many at once as the backend answers.
        due = sorted((index for index, entries in enumerate(queues) if step < len(entries)),
                     key=lambda index: -queues[index][step].score)
        for start in range(0, len(due), width):
            tasks = [(index, claim, queues[index][step].snippet) for index in due[start:start + width]]
            supported = False
            for index, judgement in judge.judge_all(tasks, justify=justify):
                found[index].append(Judged(queues[index][step], judgement))
                supported = supported or judgement.supported
            if supported:
                return found
    return found
