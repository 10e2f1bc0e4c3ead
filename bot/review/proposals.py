"""The references a trace proposes, read back from its statement elements: what a curator approves and what
`refbot apply` writes. Pure: takes lxml elements of a trace (``xslt/trace.xsd``).

A reference says each snak three times: its text (the review page shows it), its value (`refbot apply` writes it)
and the QuickStatements line (`refbot export`). refbot writes all three from one value; a proposal whose three
disagree (a trace changed since) is refused when it is read, so what is approved is what is written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.errors import InputError
from bot.references import Snak, quickstatements_hazard
from bot.review.datavalues import snak_disagreement
from bot.output.trace import tag

CHANGED_HINT = "the trace was changed after refbot wrote it; run `refbot check` on the item again"
# Snaks a reference stands without: its page's title and the quotation. One QuickStatements would change is left out
# of the export's line, rather than the whole reference.
OPTIONAL_SNAKS = ("P1476", "P1683")


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
    # The statement's qualifiers when it was checked: (property, value as QuickStatements writes it, as people read
    # it), from the trace's <qualifier> elements (none in traces of refbot before qualifiers were recorded).
    qualifiers: tuple[tuple[str, str, str], ...] = ()
    # The hash of the statement's reference the snaks are added to (`refbot verify`'s archived copy of a dead page);
    # "" for a reference of its own.
    extends: str = ""
    # For such snaks (an archived copy of a dead page): what the judge made of the copy ("supports", "does not
    # support", …, as the trace's ``archived`` finding says); "" for a reference of its own, which is proposed only
    # when a page supports the statement.
    archived: str = ""
    # A record (an authority file's statement of the same fact) corroborates the statement rather than a page's
    # support: its support is no judge's, 0.
    corroborated: bool = False

    @property
    def supported(self) -> bool:
        """Whether a page supports the statement: every reference of its own; an archived copy only when the judge
        found that it does (the copy of a dead page is proposed either way, to mend the link)."""
        return not self.extends or self.archived == "supports"

    @property
    def key(self) -> str:
        """What decisions and writes record it under: the statement's GUID, and the reference's hash for snaks added
        to one (as the verify run's ledger keys its references)."""
        return f"{self.guid}#{self.extends}" if self.extends else self.guid

    def without(self, property_ids: Sequence[str]) -> Proposal:
        """The proposal with these snaks left out (of its snaks and its QuickStatements line)."""
        if not property_ids:
            return self
        return replace(self, snaks=tuple(snak for snak in self.snaks if snak.property_id not in property_ids),
                       quickstatements=line_without(self.quickstatements, property_ids))

    def snak(self, property_id: str) -> Snak | None:
        return next((snak for snak in self.snaks if snak.property_id == property_id), None)

    @property
    def grounds(self) -> str:
        """What the proposal stands on, as a list of decisions shows it: ``support 0.91``, or ``corroborated by a
        record`` (no judge's support)."""
        return "corroborated by a record" if self.corroborated else f"support {self.support:.2f}"

    @property
    def shown(self) -> str:
        """The statement as a curator names it: ``Marta Novotná · award received · Purkyně Prize for Chemistry``."""
        return " · ".join(part for part in (self.item_label or self.item, self.property_label or self.property_id,
                                            self.value_text or self.value) if part)


def quickstatements_problem(proposal: Proposal) -> str:
    """Why the proposal's QuickStatements line cannot add this reference to exactly this statement at all (""
    when it can, perhaps without an optional snak: :func:`quickstatements_dropped`): a value QuickStatements cannot
    match, or a required snak it would change (see :func:`bot.references.quickstatements_hazard`)."""
    if proposal.extends:
        return (f"QuickStatements cannot add snaks to an existing reference (it would add a second reference beside "
                f"reference {proposal.extends}); refbot apply adds them to it")
    if '\\"' in proposal.value:
        return "its value holds a double quote, which QuickStatements cannot match (it has no escapes)"
    hazard = quickstatements_hazard(proposal.value)
    if hazard:
        return f"its value {hazard}"
    for snak in proposal.snaks:
        hazard = quickstatements_hazard(snak.value)
        if hazard and snak.property_id not in OPTIONAL_SNAKS:
            return f"the {snak.label or snak.property_id} ({snak.property_id}) {hazard}"
    return ""


def quickstatements_dropped(proposal: Proposal) -> list[tuple[Snak, str]]:
    """The optional snaks (title, quotation) QuickStatements would change, with why: the export's line leaves them
    out and adds the rest of the reference."""
    return [(snak, hazard) for snak in proposal.snaks
            if snak.property_id in OPTIONAL_SNAKS and (hazard := quickstatements_hazard(snak.value))]


def exported_line(proposal: Proposal) -> str:
    """The QuickStatements line `refbot export` writes for the proposal: its own, without the optional snaks
    QuickStatements would change ("" when it cannot write the reference at all)."""
    if quickstatements_problem(proposal):
        return ""
    return line_without(proposal.quickstatements, [snak.property_id for snak, _ in quickstatements_dropped(proposal)])


def line_without(line: str, property_ids: Sequence[str]) -> str:
    """A QuickStatements line without the reference snaks of these properties."""
    dropped = {"S" + property_id[1:] for property_id in property_ids}
    if not dropped:
        return line
    columns = line.split("\t")
    summary = [columns.pop()] if columns[-1].startswith("/*") else []
    pairs = [pair for pair in zip(columns[3::2], columns[4::2]) if pair[0] not in dropped]
    return "\t".join([*columns[:3], *(part for pair in pairs for part in pair), *summary])


def export_note(proposal: Proposal) -> str:
    """What the export does other than write the reference as it is ("" when it does): why it leaves the reference
    out, or which snaks it writes the reference without and why."""
    problem = quickstatements_problem(proposal)
    if problem:
        return problem
    return "; ".join(f"without the {snak.label or snak.property_id} ({snak.property_id}), which {hazard}"
                     for snak, hazard in quickstatements_dropped(proposal))


def disagreement(proposal: Proposal) -> str:
    """Why the proposal's snaks do not say one thing in their texts, their values and its QuickStatements line, and
    why its reference URL is not its P854 snak's ("" when they agree)."""
    columns = proposal.quickstatements.split("\t")
    if columns[-1].startswith("/*"):
        columns.pop()  # the summary
    head, pairs = columns[:3], list(zip(columns[3::2], columns[4::2]))
    if head != [proposal.item, proposal.property_id, proposal.value]:
        return (f"its QuickStatements line is about {' '.join(head)}, not the statement ({proposal.item} "
                f"{proposal.property_id} {proposal.value})")
    for position, snak in enumerate(proposal.snaks):
        where = f"snak {snak.property_id} ({snak.label or 'no label'})"
        problem = snak_disagreement(snak)
        if problem:
            return f"{where}: {problem}"
        listed = pairs[position] if position < len(pairs) else None
        if listed != ("S" + snak.property_id[1:], snak.value):
            return f"{where}: its value {snak.value} is not the QuickStatements line's ({' '.join(listed or ['none'])})"
    if len(columns) != 3 + 2 * len(proposal.snaks):
        return "its QuickStatements line has more snaks than the reference"
    url = proposal.snak("P854")
    if url is not None and url.text != proposal.url:
        return f"snak P854 (reference URL): it is {url.text}, but the reference's URL is {proposal.url}"
    return ""


def statement_proposal(item: Any, statement: Any, source: str = "the run ledger") -> Proposal | None:
    """The proposal of one statement element (under its item element); None when it has no reference. InputError
    naming ``source``, the statement and the snak when the proposal's snaks disagree (see :func:`disagreement`)."""
    reference = statement.find(tag("reference"))
    if reference is None or statement.get("outcome") not in ("supported", "corroborated"):
        return None
    supports = [float(judgement.get("support")) for judgement in statement.iter(tag("judgement"))
                if judgement.get("supports") == "true"]
    revision = item.get("revision")
    proposal = Proposal(
        guid=statement.get("guid"), item=item.get("id"), item_label=item.get("label"),
        property_id=statement.get("property"), property_label=statement.get("property-label"),
        datatype=statement.get("datatype"), value=statement.get("value"), value_text=statement.get("value-text"),
        item_revision=int(revision) if revision else None, support=max(supports, default=0.0),
        url=reference.get("url"),
        snaks=tuple(Snak(snak.get("property"), snak.get("value"), snak.get("text"), snak.get("label"),
                         snak.get("datatype") or "") for snak in reference.iter(tag("snak"))),
        quickstatements=reference.findtext(tag("quickstatements")) or "",
        qualifiers=tuple((qualifier.get("property"), qualifier.get("value"), qualifier.get("value-text") or "")
                         for qualifier in statement.iterfind(tag("qualifier"))),
        corroborated=statement.get("outcome") == "corroborated")
    problem = disagreement(proposal)
    if problem:
        raise InputError(f"statement {proposal.guid}: {problem}", path=source, hint=CHANGED_HINT)
    return proposal


def verification_proposal(item: Any, verification: Any) -> Proposal | None:
    """The fix a verify run proposes for one reference (a ``verification`` element): the archived copy of its dead
    page, added to that reference; None when it proposes none."""
    reference = verification.find(tag("reference"))
    if reference is None or reference.get("kind") != "archive":
        return None
    revision = item.get("revision")
    snaks = tuple(Snak(snak.get("property"), snak.get("value"), snak.get("text"), snak.get("label"),
                       snak.get("datatype") or "") for snak in reference.iter(tag("snak")))
    return Proposal(
        guid=verification.get("guid"), item=item.get("id"), item_label=item.get("label"),
        property_id=verification.get("property"), property_label=verification.get("property-label"),
        datatype=verification.get("datatype"), value=verification.get("value"),
        value_text=verification.get("value-text"), item_revision=int(revision) if revision else None,
        support=float(verification.get("support") or 0.0), url=reference.get("url"), snaks=snaks, quickstatements="",
        qualifiers=tuple((qualifier.get("property"), qualifier.get("value"), qualifier.get("value-text") or "")
                         for qualifier in verification.iterfind(tag("qualifier"))),
        extends=reference.get("extends") or verification.get("reference"),
        archived=(verification.get("archived") or "").replace("-", " "))


def element_proposal(item: Any, element: Any, source: str = "the run ledger") -> Proposal | None:
    """The proposal of a statement element (a reference found for it) or of a verification element (a fix)."""
    if element.tag == tag("verification"):
        return verification_proposal(item, element)
    return statement_proposal(item, element, source)


def export_problem(item: Any, statement: Any) -> tuple[str, str]:
    """What `refbot export` does with the statement's reference other than write its line as it is, by the export's
    own rule — (why, the line it writes instead: "" when it leaves the reference out); ("", "") when it writes it as
    it is: what a report marks as not to be pasted, and shows instead."""
    try:
        proposal = statement_proposal(item, statement, "the trace")
    except InputError as error:  # its snaks disagree: no line of it is exported
        return str(error), ""
    if proposal is None:
        return "", ""
    note = export_note(proposal)
    return note, exported_line(proposal) if note else ""


def proposals(root: Any, source: str = "the trace") -> Iterator[Proposal]:
    """Every proposal of a trace, in the trace's order (InputError as :func:`statement_proposal` says)."""
    for item in root.iter(tag("item")):
        for element in item:
            if element.tag not in (tag("statement"), tag("verification")):
                continue
            proposal = element_proposal(item, element, source)
            if proposal is not None:
                yield proposal


def quickstatements_batch(chosen: list[Proposal]) -> str:
    """A QuickStatements V1 batch (one command per line, tab-separated) adding these references, each as
    :func:`exported_line` writes it."""
    return "".join(exported_line(proposal) + "\n" for proposal in chosen)
