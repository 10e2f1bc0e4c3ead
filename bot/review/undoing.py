"""Undoing a written approval: the reference refbot added is taken off the statement again, as the curator who
undoes it, with an edit summary that names the undo — or refbot says exactly why it cannot.

The wiki is read first, as for every write. The reference to take off is the one refbot wrote, found by the hash
the wiki gave it when it was written (recorded with the write; Wikibase hashes a reference's content, so any change
gives another hash); a write recorded before hashes were finds it snak for snak as refbot wrote it. For snaks refbot
added to a statement's reference (an archived copy of a dead page), that reference is set back without them. A
reference someone changed since (another title, quotation or date beside the same URL), or that is gone, is left as
it is, and the curator is told so, with the edit's difference to look at on the wiki. :func:`inverse` is pure;
:func:`undo_written` sends the edit and records it in the ledger (the write row ``undone``, and the curator's
decision ``rejected``, so that the card is open to decide again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bot.review.applying import Edit, Sent
from bot.review.datavalues import reference_snaks, same_url
from bot.review.proposals import Proposal
from bot.review.store import ReviewLedger
from bot.review.summaries import SUMMARY_MAX, batch_tag

JSON = dict[str, Any]


@dataclass(frozen=True)
class Undo:
    """The edit that undoes a written reference: take reference ``remove`` off the statement, or (snaks refbot added
    to a reference) set the reference back with ``restore``."""

    statement: str
    base_revision: int
    summary: str
    remove: str = ""
    restore: Edit | None = None


class UndoingWiki(Protocol):
    api_url: str

    def statement(self, item: str, guid: str) -> tuple[int, dict[str, Any] | None]:
        """The item's current revision and the statement's JSON (None when the item no longer has it)."""

    def add_reference(self, edit: Edit) -> Sent:
        """Send a ``wbsetreference``; the new revision and the reference's hash."""

    def remove_references(self, statement: str, hashes: list[str], base_revision: int, summary: str) -> int:
        """Send a ``wbremovereferences``; the new revision id."""


def undo_summary(revision: int, *, curator: str, note: str = "", batch: str = "") -> str:
    """The undo's edit summary, as MediaWiki words an undo ("Undid revision N"), with who undid it and why."""
    text = (f"Undid revision {revision}: refbot's reference taken off by {curator}"
            + (f" ({' '.join(note.split())})" if note.strip() else ""))
    tag = batch_tag(batch)
    room = SUMMARY_MAX - len(tag)
    return (text if len(text) <= room else text[:room - 1] + "…") + tag


def _anchor(proposal: Proposal) -> tuple[str, str]:
    """What identifies the reference refbot wrote: (property, value) of its URL, archive URL or identifier."""
    for property_id in ("P1065", "P854"):
        snak = proposal.snak(property_id)
        if snak is not None:
            return property_id, snak.text
    identifier = next((snak for snak in proposal.snaks if snak.datatype == "external-id"), None)
    return (identifier.property_id, identifier.text) if identifier is not None else ("", "")


def _values(reference: JSON, property_id: str) -> list[str]:
    return [str((snak.get("datavalue") or {}).get("value")) for snak in (reference.get("snaks") or {}).get(property_id)
            or []]


def _cites(reference: JSON, anchor: tuple[str, str]) -> bool:
    property_id, wanted = anchor
    if property_id in ("P854", "P1065"):
        return any(same_url(value, wanted) for value in _values(reference, property_id))
    return wanted in _values(reference, property_id)


def inverse(proposal: Proposal, revision: int, current: JSON | None, summary: str, written: str = "") -> Undo | str:
    """The edit that takes refbot's reference off the statement as it is now (``current``, read at ``revision``),
    or why there is none to make. ``written``: the hash the wiki gave the reference refbot wrote; the reference with
    that hash is refbot's, as written (Wikibase hashes a reference's content), and any other is left alone. Without
    one (a write recorded before the hash was), only a reference that is snak for snak what refbot wrote is taken:
    the same URL with another title, quotation or date is someone else's."""
    if current is None:
        return "the statement is no longer on the item; there is nothing to undo"
    anchor = _anchor(proposal)
    sent, _ = reference_snaks(proposal.snaks)
    references = [reference for reference in current.get("references") or [] if isinstance(reference, dict)]
    citing = [reference for reference in references if anchor[0] and _cites(reference, anchor)]
    if written:
        reference = next((reference for reference in references if reference.get("hash") == written), None)
    else:
        reference = next((reference for reference in citing if _holds(reference, sent, only=not proposal.extends)),
                         None)
    if reference is None:
        if not citing:
            return (f"the statement no longer has the reference refbot wrote (none cites {anchor[1] or 'its source'}):"
                    " someone removed or changed it since; see the item's history")
        return ("the reference refbot wrote was changed since (it is not as refbot wrote it now); it is left as it "
                "is: undo it on the wiki if it should go")
    if not proposal.extends:
        return Undo(proposal.guid, revision, summary, remove=str(reference.get("hash") or ""))
    kept = {property_id: snaks for property_id, snaks in (reference.get("snaks") or {}).items()
            if property_id not in sent}
    if not kept:
        return Undo(proposal.guid, revision, summary, remove=str(reference.get("hash") or ""))
    snaks = {property_id: [{key: part for key, part in snak.items() if key != "hash"} for snak in values]
             for property_id, values in kept.items()}
    order = [property_id for property_id in reference.get("snaks-order") or kept if property_id in kept]
    return Undo(proposal.guid, revision, summary, restore=Edit(
        proposal.item, proposal.guid, snaks, order, revision, summary, str(reference.get("hash") or "")))


def _holds(reference: JSON, sent: dict[str, list[JSON]], *, only: bool) -> bool:
    """Whether ``reference`` has the snaks refbot sent, each property's values the same and in the same number
    (``only``: and no other property)."""
    snaks = reference.get("snaks") or {}
    if only and set(snaks) != set(sent):
        return False
    return all(len(snaks.get(property_id) or []) == len(values)
               and all(_same_snak(have, want) for have, want in zip(snaks.get(property_id) or [], values))
               for property_id, values in sent.items())


def _same_snak(have: Any, want: JSON) -> bool:
    """A snak of the wiki's as the one refbot sent: its kind and its value (each part refbot sent, the same)."""
    if not isinstance(have, dict) or have.get("snaktype") != want.get("snaktype"):
        return False
    value, wanted = (have.get("datavalue") or {}).get("value"), want["datavalue"]["value"]
    if isinstance(wanted, dict):
        return isinstance(value, dict) and all(value.get(key) == part for key, part in wanted.items())
    return bool(value == wanted)


def send(wiki: UndoingWiki, undo: Undo) -> int:
    """Make the undo's edit; the new revision id. WriteError when the wiki refuses it."""
    if undo.restore is not None:
        return wiki.add_reference(undo.restore).revision
    return wiki.remove_references(undo.statement, [undo.remove], undo.base_revision, undo.summary)


def undo_written(store: ReviewLedger, wiki: UndoingWiki, run_id: int, proposal: Proposal, *, curator: str,
                 written_revision: int, written_reference: str = "", note: str = "",
                 batch: str = "") -> tuple[int | None, str]:
    """Undo the written reference of ``proposal`` (written in ``written_revision``, the wiki naming it
    ``written_reference``: :func:`inverse`) as ``curator``:
    (the undo's revision, "") when it was made and recorded, (None, why not) when there was nothing to make. The
    write row becomes ``undone`` and the curator's decision ``rejected`` with the undo in its note, so that the
    statement can be decided again. WriteError when the wiki refuses (nothing is recorded)."""
    summary = undo_summary(written_revision, curator=curator, note=note, batch=batch)
    revision, current = wiki.statement(proposal.item, proposal.guid)
    undo = inverse(proposal, revision, current, summary, written_reference)
    if isinstance(undo, str):
        return None, undo
    undone = send(wiki, undo)
    store.record_undo(run_id, proposal.key, revision=undone, curator=curator,
                      note=f"undid revision {written_revision}" + (f": {note.strip()}" if note.strip() else ""),
                      site=wiki.api_url)
    return undone, ""
