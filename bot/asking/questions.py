"""`refbot select --ask` as a library call: the clients it is given (the SPARQL endpoint, the search its names are
looked up with, the model) over the pure stages, and what an answer leaves behind — the saved query and the JSON
record of how it was chosen."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import __version__
from bot.asking.ask import Answer, Asker
from bot.asking.draft import Draft, draft, target
from bot.asking.fragment import Triple, defining_triples, value_usage
from bot.asking.linking import Link, Lookup, link
from bot.asking.properties import IndexCache, property_index
from bot.asking.safety import statement_properties
from bot.clock import Clock, day_of, system_clock
from bot.errors import InputError
from bot.judge.prompts import ASK_SPARQL
from bot.options import Options
from bot.selection.terms import fetch_terms

if TYPE_CHECKING:
    from bot.judge.backend import Backend
    from bot.selection.endpoint import SparqlEndpoint

MAX_QUESTION = 500  # characters


@dataclass(frozen=True)
class Terms:
    """What the model is shown for a question: its linked terms, their triples, the draft query; and the ids of
    every property the endpoint has (a candidate may name them)."""

    question: str
    links: list[Link]
    triples: dict[str, list[Triple]]
    draft: Draft
    properties: frozenset[str]


def question_terms(options: Options, question: str, endpoint: SparqlEndpoint, search: Lookup, *,
                   clock: Clock = system_clock) -> Terms:
    """Link the question's words to the graph (its names looked up with ``search``) and read the fragment and the
    draft from the endpoint."""
    question = " ".join(question.split())
    if not question:
        raise InputError("the question is empty", hint='ask in words, e.g. --ask "awards of Czech chemists"')
    if len(question) > MAX_QUESTION:
        raise InputError(f"the question is {len(question)} characters long; at most {MAX_QUESTION} are taken")
    language = options.languages[0]
    index = property_index(endpoint, IndexCache(options.properties.cache, options.properties.cache_days), language,
                           day_of(clock))
    links = link(question, index, search)
    items = [item.id for item in links if item.kind == "entity"]
    triples = defining_triples(endpoint, items, language)
    names = {term.id: term.label for term in index.properties}
    aim = target(question, links)
    for item, uses in value_usage(endpoint, items, names, among=aim.id if aim else None).items():
        triples.setdefault(item, []).extend(uses)
    return Terms(question, links, triples, draft(question, links, triples, limit=options.ask.limit),
                 frozenset(names))


def answer_question(options: Options, question: str, *, endpoint: SparqlEndpoint,
                    backend: Backend | Callable[[], Backend], search: Lookup, candidates: int | None = None) -> Answer:
    """Link the question; take its draft where it reads every word of the question, else show the model
    (``backend``, or a function giving it when first needed) its fragment and draft, check and run its candidates
    on ``endpoint``, choose one."""
    terms = question_terms(options, question, endpoint, search)
    asker = Asker(backend, endpoint, ASK_SPARQL, candidates=candidates or options.ask.candidates,
                  limit=options.ask.limit, labels=endpoint_labels(endpoint, options.languages),
                  take_complete_draft=options.ask.take_complete_draft)
    return asker.ask(terms.question, terms.links, terms.triples, draft=terms.draft, properties=terms.properties)


def endpoint_labels(endpoint: SparqlEndpoint, languages: Sequence[str]) -> Callable[[Sequence[str]], dict[str, str]]:
    """The labels the endpoint has for ids, in the preferred languages: what shows a candidate's items and what
    confirms that an id a candidate names exists. An id the endpoint has no label for is left out, never given its
    own id as a label (which would confirm any id)."""
    def labels(ids: Sequence[str]) -> dict[str, str]:
        return {entity: found.label for entity, found in fetch_terms(endpoint, ids, languages).items()
                if found.language}

    return labels


def worklist_properties(answer: Answer) -> list[str]:
    """The properties whose statements the chosen query asks about (its ``p:`` patterns) and that need a reference:
    the statements a run of the worklist checks. Empty: every unsourced statement of the items."""
    if answer.chosen is None:
        return []
    needed = {item.id for item in answer.links if item.kind == "property" and item.citation_needed}
    return [pid for pid in statement_properties(answer.chosen.sent) if pid in needed]


def record(answer: Answer, *, model: str, clock: Clock = system_clock) -> dict[str, Any]:
    """What a saved query's JSON record holds: enough to see again how it was chosen."""
    return {
        "question": answer.question, "refbot": __version__, "model": model or None, "template": ASK_SPARQL.id,
        "asked": clock().isoformat(),
        "links": [asdict(item) for item in answer.links], "fragment": answer.fragment, "draft": answer.draft,
        "candidates": [{"number": c.number, "written": c.written, "sent": c.sent, "refused": c.refused,
                        "repaired": c.repaired, "items": len(c.items), "error": c.error, "same_as": c.same_as}
                       for c in answer.candidates],
        "chosen": answer.chosen.number if answer.chosen else None, "why": answer.why,
        "prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens,
        "seconds": round(answer.seconds, 2)}


def save(answer: Answer, path: Path, *, model: str) -> tuple[Path, Path]:
    """The chosen query at ``path`` (the question as a comment first), its record beside it (``.json``)."""
    if answer.chosen is None:
        raise InputError(f"nothing to save: {answer.why}", hint="ask again in other words, or with --explain")
    if path.suffix != ".rq":
        raise InputError(f"{path} does not end in .rq", hint="save the query as a .rq file for --query")
    question = " ".join(answer.question.split())
    writer = "refbot's draft from the linked terms" if answer.chosen.number == 0 else model
    header = (f"# {question}\n# Written by {writer} for `refbot select --ask` (refbot {__version__}); chosen: "
              f"{answer.why}.\n# How: {path.with_suffix('.json').name}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + answer.chosen.sent.rstrip() + "\n", encoding="utf-8")
    beside = path.with_suffix(".json")
    beside.write_text(json.dumps(record(answer, model=model), ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    return path, beside
