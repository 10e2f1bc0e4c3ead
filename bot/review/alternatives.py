"""The other paragraphs that support a statement, and the reference each would make: a curator may approve the
statement with one of them instead of the one refbot proposed (a better-known source, a page in the item's
language). Pure: read from the statement's trace element.

A paragraph is named by its place in the element (``D:J``: the statement's D-th document, its J-th judgement), which
the decision keeps. Its reference is made as `check` makes the proposed one (``bot.checking.statement.propose``): the
page's URL, title and language, the day it was read (for an archived copy the citation's access date, with the
archive's URL and date), and the paragraph's sentence that names the value as the quotation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from bot.checking.ranking import supporting_sentence
from bot.datamodel import Qualifier, Statement, Value
from bot.errors import InputError
from bot.output.trace import REFERENCE_LABELS, tag
from bot.references import ProposedReference, Snak, quickstatements, wayback_date
from bot.review.proposals import Proposal, statement_proposal

SUMMARY = "reference proposed by refbot"  # as `check` writes it (bot.checking.statement.SUMMARY)
MOST = 4  # alternatives a card offers


@dataclass(frozen=True)
class Alternative:
    key: str  # "D:J"
    url: str
    title: str
    support: float
    paragraph: str


def _supporting(statement: Any) -> list[tuple[str, Any, Any]]:
    """(key, document, judgement) of every paragraph of the statement's evidence that supports it."""
    found = []
    for d, document in enumerate(statement.iterfind(tag("document"))):
        if document.get("evidence") != "true":
            continue
        for j, judgement in enumerate(document.iter(tag("judgement"))):
            if judgement.get("supports") == "true":
                found.append((f"{d}:{j}", document, judgement))
    return found


def _paragraph(judgement: Any) -> str:
    paragraph = judgement.find(tag("paragraph"))
    return "".join(paragraph.itertext()) if paragraph is not None else ""


def alternatives(statement: Any) -> tuple[Alternative, ...]:
    """The paragraphs other than the proposed one that support the statement, best first (at most ``MOST``)."""
    reference = statement.find(tag("reference"))
    if reference is None or (reference.get("kind") or "web") != "web":
        return ()
    quotation = next((snak.get("text") or "" for snak in reference.iter(tag("snak"))
                      if snak.get("property") == "P1683"), "")
    found = [Alternative(key, document.get("url") or "", document.get("title") or "",
                         float(judgement.get("support") or 0.0), _paragraph(judgement))
             for key, document, judgement in _supporting(statement)]
    proposed = next((alternative for alternative in sorted(found, key=lambda a: -a.support)
                     if alternative.url == reference.get("url") and quotation in alternative.paragraph), None)
    others = [alternative for alternative in found if alternative is not proposed]
    return tuple(sorted(others, key=lambda alternative: -alternative.support)[:MOST])


def statement_of(item: Any, statement: Any) -> Statement:
    """The statement a trace element records, as the check had it (its value and qualifiers)."""
    return Statement(item.get("id"), item.get("label") or "", statement.get("guid"), statement.get("property"),
                     statement.get("property-label") or "",
                     Value(statement.get("datatype"), statement.get("value"), statement.get("value-text") or ""),
                     qualifiers=tuple(Qualifier(q.get("property"), q.get("label") or "",
                                                Value(q.get("datatype") or "", q.get("value"), q.get("value-text")))
                                      for q in statement.iterfind(tag("qualifier"))))


def with_paragraph(item: Any, statement: Any, key: str, source: str = "the run ledger") -> Proposal:
    """The statement's proposal with the reference of the paragraph ``key`` instead of the one proposed.
    InputError when the statement has no such supporting paragraph."""
    proposal = statement_proposal(item, statement, source)
    chosen = next(((document, judgement) for found, document, judgement in _supporting(statement) if found == key),
                  None)
    if proposal is None or chosen is None:
        raise InputError(f"statement {statement.get('guid')} has no supporting paragraph {key!r}",
                         hint="choose one of the paragraphs its card lists")
    document, judgement = chosen
    checked = statement_of(item, statement)
    archived = bool(document.get("archive-url"))
    read = document.get("access-date") if archived else (document.get("retrieved") or "")[:10]
    reference = ProposedReference(
        url=document.get("url"), retrieved=date.fromisoformat(read) if read else None,
        title=document.get("title") or "", language=document.get("language") or "",
        archive_url=document.get("archive-url") or "" if archived else "",
        archive_date=wayback_date(document.get("archive-timestamp") or "") if archived else None,
        quotation=supporting_sentence(_paragraph(judgement), checked))
    snaks = tuple(Snak(snak.property_id, snak.value, snak.text, REFERENCE_LABELS.get(snak.property_id, "")
                       or snak.label, snak.datatype) for snak in reference.snaks())
    return replace(proposal, url=reference.url, snaks=snaks, support=float(judgement.get("support") or 0.0),
                   quickstatements=quickstatements(checked, reference, SUMMARY))
