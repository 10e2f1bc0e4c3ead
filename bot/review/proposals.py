"""The references a trace proposes, read back from its statement elements: what a curator approves and what
`refbot apply` writes. Pure: takes lxml elements of a trace (``xslt/trace.xsd``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bot.references import Snak
from bot.trace import tag


@dataclass(frozen=True)
class Proposal:
    """A supported statement and the reference proposed for it, as the trace recorded them."""

    guid: str
    item: str
    item_label: str
    property_id: str
    property_label: str
    datatype: str
    value: str  # the statement's value as QuickStatements writes it, when it was checked
    value_text: str
    item_revision: int | None  # the item's revision the check read
    support: float  # the best support among the paragraphs that support the statement
    url: str  # the reference URL (P854)
    snaks: tuple[Snak, ...]
    quickstatements: str

    def snak(self, property_id: str) -> Snak | None:
        return next((snak for snak in self.snaks if snak.property_id == property_id), None)


def statement_proposal(item: Any, statement: Any) -> Proposal | None:
    """The proposal of one statement element (under its item element); None when it has no reference."""
    reference = statement.find(tag("reference"))
    if reference is None or statement.get("outcome") not in ("supported", "corroborated"):
        return None
    supports = [float(judgement.get("support")) for judgement in statement.iter(tag("judgement"))
                if judgement.get("supports") == "true"]
    revision = item.get("revision")
    return Proposal(
        guid=statement.get("guid"), item=item.get("id"), item_label=item.get("label"),
        property_id=statement.get("property"), property_label=statement.get("property-label"),
        datatype=statement.get("datatype"), value=statement.get("value"), value_text=statement.get("value-text"),
        item_revision=int(revision) if revision else None, support=max(supports, default=0.0),
        url=reference.get("url"),
        snaks=tuple(Snak(snak.get("property"), snak.get("value"), snak.get("text"), snak.get("label"),
                         snak.get("datatype") or "") for snak in reference.iter(tag("snak"))),
        quickstatements=reference.findtext(tag("quickstatements")) or "")


def proposals(root: Any) -> Iterator[Proposal]:
    """Every proposal of a trace, in the trace's order."""
    for item in root.iter(tag("item")):
        for statement in item.iter(tag("statement")):
            proposal = statement_proposal(item, statement)
            if proposal is not None:
                yield proposal


def quickstatements_batch(chosen: list[Proposal]) -> str:
    """A QuickStatements V1 batch (one command per line, tab-separated) adding these references."""
    return "".join(proposal.quickstatements + "\n" for proposal in chosen)
