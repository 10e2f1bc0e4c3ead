"""`refbot apply`: write the approved references, each once, after reading the item again.

For each approved statement not yet written: read the item; skip it, with the reason recorded, when the statement
is gone, its value is not the one checked, or it already has a reference with the same URL; otherwise add the
proposed reference in one edit, based on the revision just read. Without ``live`` the edits are simulated: the
wiki is read, nothing is sent, nothing is recorded. A refused edit is recorded as failed and stays approved, to
be tried by the next apply; a fatal refusal (login, block, a wiki that stays lagged) ends the apply there.

Each edit's summary says what happened (the model and the support for a judged page; the database and the
identifier for an authority record), links the bot's documentation page, and ends with the apply's EditGroups
tag: one random batch id per apply, so that curators can review or undo an apply's edits together on
https://editgroups.toolforge.org (Wikidata:Edit_groups/Adding_a_tool, "For custom bots").

The wiki is reached through a :class:`Wiki` (``bot.review.wikibase`` does it with pywikibot).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from bot.datamodel import TIME_QUALIFIERS
from bot.errors import WriteError
from bot.redaction import withheld
from bot.review.datavalues import (ValueFormError, reference_snaks, reference_urls, reference_values, same_url,
                                   same_value, value_text)
from bot.review.proposals import Proposal
from bot.review.qualifiers import statement_qualifiers
from bot.review.store import ReviewLedger
from bot.review.summaries import summary

URL_MAX = 500  # the longest value Wikibase's URL datatype takes
EDITGROUPS = "https://editgroups.toolforge.org/b/CB/{batch}/"


@dataclass(frozen=True)
class Edit:
    """One ``wbsetreference``: the reference's snaks added to the statement, based on the item's revision."""

    item: str
    statement: str
    snaks: dict[str, list[dict[str, Any]]]
    snaks_order: list[str]
    base_revision: int
    summary: str
    # The hash of the statement's reference these snaks replace (its own snaks and the ones added): "" for a new
    # reference.
    reference: str = ""

    def parameters(self) -> dict[str, str]:
        """The API parameters (without the token, maxlag, assert and bot flag the writer adds)."""
        return {"action": "wbsetreference", "statement": self.statement,
                "snaks": json.dumps(self.snaks, ensure_ascii=False, separators=(",", ":")),
                "snaks-order": json.dumps(self.snaks_order), "baserevid": str(self.base_revision),
                **({"reference": self.reference} if self.reference else {}), "summary": self.summary}


@dataclass(frozen=True)
class Sent:
    """A ``wbsetreference`` the wiki took: the new revision, and the hash it gave the reference written (Wikibase
    hashes a reference's content: the hash finds that reference, as written, and nothing else; "" when the answer
    named none)."""

    revision: int
    reference: str = ""

    @staticmethod
    def of(answer: dict[str, Any]) -> "Sent":
        """From the API's answer (``pageinfo.lastrevid``, ``reference.hash``)."""
        reference = answer.get("reference")
        hashed = str(reference.get("hash") or "") if isinstance(reference, dict) else ""
        return Sent(int(answer["pageinfo"]["lastrevid"]), hashed if len(hashed) <= 64 else "")


@dataclass(frozen=True)
class Outcome:
    run_id: int
    proposal: Proposal
    state: str  # written, skipped, failed, or simulated (nothing sent, nothing recorded)
    revision: int | None = None
    reason: str = ""
    edit: Edit | None = None


class Wiki(Protocol):
    api_url: str

    @property
    def account(self) -> str:
        """Who the edits are made as (the BotPassword login), as `apply` says before it starts."""

    def statement(self, item: str, guid: str) -> tuple[int, dict[str, Any] | None]:
        """The item's current revision and the statement's JSON (None when the item no longer has it)."""

    def add_reference(self, edit: Edit) -> Sent:
        """Send the edit; the new revision and the written reference's hash. WriteError when the wiki refuses it."""

    def blocked(self, user: str) -> str:
        """Why the wiki's account ``user`` is blocked now ("" when it is not, or there is no such account: a curator
        of `refbot review` named otherwise). WriteError when the wiki cannot say."""


def block_reason(user: str, answer: dict[str, Any] | None) -> str:
    """Why ``user`` is blocked ("" when not), from MediaWiki's ``list=users`` (or ``meta=userinfo``) answer for them:
    a partial block counts too (it may cover the items' namespace). The block's fields are read at the top level, as
    MediaWiki's ``list=users`` gives them, or under ``blockinfo``, as its error answers and pywikibot's userinfo do."""
    if not answer or answer.get("missing") or answer.get("invalid"):
        return ""
    if isinstance(answer.get("blockinfo"), dict):
        answer = answer["blockinfo"]
    if not answer.get("blockid"):
        return ""
    reason = str(answer.get("blockreason") or "").strip()
    by = str(answer.get("blockedby") or "").strip()
    expiry = str(answer.get("blockexpiry") or "").strip()
    return f"{user} is blocked on the wiki" + (f" by {by}" if by else "") + \
        (f" until {expiry}" if expiry and expiry != "infinite" else "") + (f" ({reason})" if reason else "")


def edit_lines(proposal: Proposal, edit: Edit) -> list[str]:
    """An edit as the review card shows it, for people: each snak of the reference with its property's label, the
    revision it is based on and the summary (``--live`` sends exactly these, as ``wbsetreference``)."""
    lines = [f"add to reference {edit.reference} of {edit.statement}, based on revision {edit.base_revision}:"
             if edit.reference else f"add a reference to {edit.statement}, based on revision {edit.base_revision}:"]
    lines += [f"  {snak.label or snak.property_id} ({snak.property_id}): {snak.shown}" for snak in proposal.snaks]
    lines.append(f"  edit summary: {edit.summary}")
    return lines


def new_batch() -> str:
    """An EditGroups batch id for one apply: 16 random lowercase hex digits."""
    return secrets.token_hex(8)


def editgroups_url(batch: str) -> str:
    """Where curators review, and may undo, the batch's edits."""
    return EDITGROUPS.format(batch=batch)


def skip_reason(proposal: Proposal, current: dict[str, Any] | None) -> str:
    """Why the reference must not be written to the statement as it is now ("" when it may be); final: the
    statement will not take this reference."""
    if current is None:
        return "the statement is no longer on the item"
    if proposal.extends:
        return _extension_skip(proposal, current)
    if withheld(proposal.url):
        return "the reference URL had a secret-looking parameter withheld from the trace; add the reference by hand"
    if len(proposal.url) > URL_MAX:
        return f"the reference URL is longer than the {URL_MAX} characters Wikidata takes"
    mainsnak = current.get("mainsnak") or {}
    if not same_value(proposal.datatype, proposal.value, mainsnak):
        return f"the statement's value changed since the check (now {value_text(proposal.datatype, mainsnak)})"
    changed = _time_changed(proposal, current)
    if changed:
        return changed
    for url in reference_urls(current):
        if same_url(url, proposal.url):
            return f"the statement already has a reference to {url}"
    stated = proposal.snak("P248")
    identifier = next((snak for snak in proposal.snaks if snak.datatype == "external-id"), None)
    if identifier is not None and identifier.text in reference_values(current, identifier.property_id):
        where = f" (stated in {stated.text})" if stated is not None else ""
        return f"the statement already has a reference to {identifier.property_id} {identifier.text}{where}"
    return ""


def _extension_skip(proposal: Proposal, current: dict[str, Any]) -> str:
    """Why the snaks must not be added to the reference they extend: the statement's value changed, the reference
    has an archived copy already, or it is not on the statement any more (edited or removed since the verify run:
    verify it again)."""
    mainsnak = current.get("mainsnak") or {}
    if not same_value(proposal.datatype, proposal.value, mainsnak):
        return f"the statement's value changed since the check (now {value_text(proposal.datatype, mainsnak)})"
    archive = proposal.snak("P1065")
    if archive is not None and any(same_url(url, archive.text) for url in reference_urls(current)):
        return f"the statement already has a reference to {archive.text}"
    reference = extended(proposal, current)
    if reference is None:
        return (f"reference {proposal.extends} is no longer on the statement (it was edited or removed since it was "
                f"verified); verify the item again")
    if (reference.get("snaks") or {}).get("P1065"):
        return f"reference {proposal.extends} has an archive URL already"
    return ""


def extended(proposal: Proposal, current: dict[str, Any]) -> dict[str, Any] | None:
    """The statement's reference the proposal adds snaks to (Wikibase JSON), by its hash."""
    return next((reference for reference in current.get("references") or []
                 if reference.get("hash") == proposal.extends), None)


def extension_snaks(proposal: Proposal, current: dict[str, Any]) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The extended reference's snaks as they are on the wiki, with the proposal's added after them: what
    ``wbsetreference`` with ``reference`` sets (nothing of the reference is lost, whatever refbot read of it)."""
    reference = extended(proposal, current) or {}
    snaks = {property_id: [{key: part for key, part in snak.items() if key != "hash"} for snak in values]
             for property_id, values in (reference.get("snaks") or {}).items()}
    order = list(reference.get("snaks-order") or snaks)
    added, added_order = reference_snaks(proposal.snaks)
    for property_id in added_order:
        snaks.setdefault(property_id, []).extend(added[property_id])
        if property_id not in order:
            order.append(property_id)
    return snaks, order


def _time_changed(proposal: Proposal, current: dict[str, Any]) -> str:
    """Why the statement no longer holds for the time it was checked for ("" when its time qualifiers are those the
    check read; a trace that recorded none is not compared)."""
    checked = sorted((pid, value) for pid, value, _ in proposal.qualifiers if pid in TIME_QUALIFIERS)
    if not checked:
        return ""
    now = [qualifier for qualifier in statement_qualifiers(current) if qualifier.property_id in TIME_QUALIFIERS]
    if sorted((qualifier.property_id, qualifier.value.raw) for qualifier in now) == checked:
        return ""
    shown = "; ".join(f"{qualifier.property_id} {qualifier.value.text}" for qualifier in now) or "none"
    return f"the statement's time qualifiers changed since the check (now {shown})"


def apply_approved(store: ReviewLedger, wiki: Wiki, chosen: Iterable[tuple[int, Proposal]], *, live: bool,
                   model_of: Callable[[int], str], curator_of: Callable[[int, str], str],
                   account_of: Callable[[int, str], str] = lambda run, guid: "",
                   report_url: Callable[[int], str] = lambda run: "", documentation: str = "", batch: str = "",
                   limit: int | None = None, on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Apply ``chosen`` (run id, approved proposal) in order; at most ``limit`` edits sent (or simulated), failed
    ones included; every summary links ``documentation`` and carries ``batch``'s EditGroups tag. A WriteError that
    is ``fatal`` ends the apply (after recording the statement it hit). ``account_of``: the wiki account the
    approval's curator is confirmed to be ("" a name typed into `refbot review`: no account's block is read)."""
    outcomes: list[Outcome] = []
    attempts = 0
    for run_id, proposal in chosen:
        if limit is not None and attempts >= limit:
            break
        if live and store.decision(run_id, proposal.key) != "approved":
            continue  # a curator changed their mind while this apply ran
        curator = curator_of(run_id, proposal.key)
        written_as = summary(proposal, model=model_of(run_id), curator=curator,
                             report_url=report_url(run_id), documentation=documentation, batch=batch)
        outcome = _apply_one(store, wiki, run_id, proposal, live=live, edit_summary=written_as,
                             account=account_of(run_id, proposal.key))
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
        if outcome.edit is not None:
            attempts += 1
    return outcomes


def _apply_one(store: ReviewLedger, wiki: Wiki, run_id: int, proposal: Proposal, *, live: bool,
               edit_summary: str, account: str) -> Outcome:
    def record(state: str, **details: Any) -> None:
        if live:
            store.record_write(run_id, proposal.key, state, site=wiki.api_url, **details)

    interrupted = store.last_attempt(run_id, proposal.key) == "sending"
    try:
        # Read again before every write: an account blocked after it approved does not have its approval written,
        # by the bot's account or its own (it stays approved; once the block ends, an apply writes it).
        blocked = wiki.blocked(account) if account else ""
        if blocked:
            reason = f"approved by {account}, who is blocked now: {blocked}; not written while the block lasts"
            if not interrupted:  # (an edit an apply stopped while sending keeps that mark: the next apply finds it)
                record("failed", reason=reason)
            return Outcome(run_id, proposal, "failed", reason=reason)
        revision, current = wiki.statement(proposal.item, proposal.guid)
        reason = skip_reason(proposal, current)
        snaks, order = extension_snaks(proposal, current or {}) if proposal.extends and not reason else \
            reference_snaks(proposal.snaks)
    except (ValueFormError, KeyError, TypeError) as error:  # refbot could not read a value: not the wiki's state
        reason = f"refbot could not compare or build the values: {error}"
        record("failed", reason=reason)
        return Outcome(run_id, proposal, "failed", reason=reason)
    except WriteError as error:
        record("failed", reason=f"{error.code}: {error}")
        if error.fatal:
            raise
        return Outcome(run_id, proposal, "failed", reason=str(error))
    if interrupted and reason.startswith("the statement already has a reference"):
        # An apply was killed between sending this edit and recording it: it landed.
        record("written", reason="written by an apply that stopped before it recorded the revision")
        return Outcome(run_id, proposal, "written", reason="already on the item: an earlier apply sent it and stopped "
                       "before it heard back")
    if reason:
        record("skipped", reason=reason)
        return Outcome(run_id, proposal, "skipped", reason=reason)
    edit = Edit(proposal.item, proposal.guid, snaks, order, revision, edit_summary, proposal.extends)
    if not live:
        return Outcome(run_id, proposal, "simulated", edit=edit)
    record("sending")
    try:
        written = wiki.add_reference(edit)
    except WriteError as error:
        record("failed", reason=f"{error.code}: {error}")
        if error.fatal:
            raise
        return Outcome(run_id, proposal, "failed", reason=str(error), edit=edit)
    record("written", revision=written.revision, reference=written.reference)
    return Outcome(run_id, proposal, "written", revision=written.revision, edit=edit)
