"""What an edit of refbot's says of itself: its summary — refbot and its version, what found the reference, who
approved it, the report and the EditGroups batch. Pure, so that a review card shows the summary its edit will carry
from the card alone."""

from __future__ import annotations

from bot import __version__
from bot.review.proposals import Proposal

SUMMARY_MAX = 480  # MediaWiki cuts edit summaries at 500 characters
VALUE_MAX = 80  # the statement's value, as the summary names it, at most


def batch_tag(batch: str) -> str:
    """The summary's ending EditGroups reads a custom bot's batch from."""
    return f" ([[:toolforge:editgroups/b/CB/{batch}|details]])" if batch else ""


def summary(proposal: Proposal, *, model: str, curator: str, report_url: str = "", documentation: str = "",
            batch: str = "") -> str:
    """The edit summary: refbot (linked to its ``documentation`` page) and its version, what found the reference
    (the model and the support of a judged page; the database and the identifier of an authority record), who
    approved it, the report, and the batch's EditGroups tag, which is never cut."""
    return summary_of(proposal.property_id, proposal.property_label, found_by(proposal, model), curator=curator,
                      report_url=report_url, documentation=documentation, batch=batch,
                      value=proposal.value_text or proposal.value)


def summary_of(property_id: str, property_label: str, found: str, *, curator: str, report_url: str = "",
               documentation: str = "", batch: str = "", value: str = "") -> str:
    """:func:`summary` from its parts (``found``: :func:`found_by`; ``value``: the statement's, as people read it),
    as a review card shows it."""
    bot = f"[[{documentation}|refbot]]" if documentation else "refbot"
    shown = " ".join(value.split())
    shown = shown if len(shown) <= VALUE_MAX else shown[:VALUE_MAX - 1] + "…"
    text = (f"{bot} {__version__}: reference for {property_id} ({property_label}){f' = {shown}' if shown else ''}: "
            f"{found}, approved by {curator or 'a curator'}")
    if report_url:
        text += f"; report: {report_url}"
    tag = batch_tag(batch)
    room = SUMMARY_MAX - len(tag)
    return (text if len(text) <= room else text[:room - 1] + "…") + tag


def found_by(proposal: Proposal, model: str) -> str:
    """``page judged by MODEL, support 0.87``, or for an authority record's reference (stated in, an identifier)
    ``stated in Integrated Authority File, GND ID 1099020101``: no model wrote it."""
    if proposal.extends:
        archive = proposal.snak("P2960")
        return f"archived copy{f' of {archive.text}' if archive else ''} of the reference's dead page"
    stated = proposal.snak("P248")
    identifier = next((snak for snak in proposal.snaks if snak.datatype == "external-id"), None)
    if stated is None and identifier is None:
        return f"page judged by {model or 'the judge'}, support {proposal.support:.2f}"
    parts = [f"stated in {stated.text}"] if stated is not None else []
    if identifier is not None:
        parts.append(f"{identifier.label or identifier.property_id} {identifier.text}")
    return ", ".join(parts)
