"""Curators' decisions and the bot's writes, kept in the run ledger beside the runs they are about.

Both tables only grow: a decision changed is a new row, so the record shows who approved what and when, and
each write attempt is a row (written with its revision, skipped with its reason, or failed and left approved
to be tried again). A statement written is final: its decision cannot change any more, and it is never
written twice. A trace from a file (`refbot review TRACE.xml`) is brought into the ledger as a run of its own,
so every review works on a run id.

Each decision row's id is the version of its statement's decision: a decision made on a page that showed an older
one (a colleague decided since) is refused with :class:`DecidedMeanwhile`, never recorded over theirs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, or_, select

from bot.clock import stamp
from bot.errors import InputError
from bot.ledger.tables import cards, checks, decisions, items, run_elements, runs, writes
from bot.output.trace import assemble_elements, from_string, review_element, tag, to_string
from bot.review.alternatives import with_paragraph
from bot.review.proposals import OPTIONAL_SNAKS, Proposal, element_proposal
from bot.review.proposals import proposals as trace_proposals
from bot.review.shelf import Shelf, undone_since
from bot.ledger.ledger import VERIFY_KEY, Run, RunLedger
DECISIONS = ("approved", "rejected")
# What a curator makes of a statement a source says is false, where nothing is proposed: seen and left as it is
# (acknowledged), or Wikidata's value is wrong (listed for editors: `refbot export --wrong-values`).
RESOLUTIONS = ("acknowledged", "value-wrong")
# sending: an edit about to be sent (so that an apply killed before it recorded the outcome is noticed);
# written and skipped are final; failed leaves the reference approved, to be tried again; undone: a curator took the
# written reference off again (``bot.review.undoing``): the statement is as if never written, and may be decided again.
WRITE_STATES = ("sending", "written", "skipped", "failed", "undone")
FINAL = ("written", "skipped")


@dataclass(frozen=True)
class Review:
    """Where one proposal stands: ``proposed`` (no decision yet), ``approved``, ``rejected``, ``written`` (with
    its revision) or ``skipped`` (the statement was gone, changed or referenced already: ``reason``). An approved
    statement whose last write failed stays ``approved``, with the failure in ``reason``."""

    state: str
    curator: str = ""
    decided: str = ""
    note: str = ""
    revision: int | None = None
    written: str = ""
    reason: str = ""
    revision_url: str = ""  # the edit on the wiki
    decision_id: int = 0  # the latest decision's row: the version a decision is made on (0: none yet)
    dropped: tuple[str, ...] = ()  # the optional snaks the curator left out of the approved reference
    paragraph: str = ""  # another supporting paragraph whose reference was approved ("" the one proposed)
    confirmed: bool = False  # the curator is the wiki account of that name, as OAuth confirmed it (the service)
    reference: str = ""  # the hash the wiki gave the reference written ("": not written, or written before 0009)


class DecidedMeanwhile(InputError):
    """A decision made on a page that showed an older decision of the statement than the ledger holds now."""

    def __init__(self, guid: str, review: Review) -> None:
        note = f" (note: {review.note})" if review.note else ""
        super().__init__(f"statement {guid} was {review.state} by {review.curator or 'a curator'} at "
                         f"{review.decided or 'an unknown time'}{note} after your page was loaded; your decision "
                         "was not recorded", hint="reload the page to see the decision and decide again")
        self.guid = guid
        self.review = review


class ReviewLedger:
    """Decisions and writes on a :class:`RunLedger` (the same database: its migrations make both)."""

    def __init__(self, ledger: RunLedger) -> None:
        self.ledger = ledger
        self._shelves: dict[int, Shelf] = {}

    # -- runs ------------------------------------------------------------------------------------------------
    def trace(self, run_id: int) -> Any:
        """The run's trace put together from the ledger, with each proposal's review state (see :func:`annotate`).
        InputError when the ledger has no such run or the run never wrote a trace."""
        run, element = self._reviewable(run_id)
        items = [(from_string(item), [from_string(text) for _, text in statements])
                 for _, item, statements in self.ledger.items(run)]
        tree = assemble_elements(from_string(element), items)
        annotate(tree.getroot(), self.reviews(run_id))
        return tree

    def trace_page(self, run_id: int, page: int, size: int) -> tuple[Any, int]:
        """One page of the run's trace (``size`` statements, the ``page``-th from 1: contradicted statements first,
        as :meth:`RunLedger.items_page` orders them) with its proposals' review states, and the run's number of
        finished statements. Only that page's elements are read and put together. InputError as :meth:`trace`
        raises it."""
        run, element = self._reviewable(run_id)
        statements = sum(self.ledger.counts(run).values())
        chosen = self.ledger.items_page(run, (page - 1) * size, size) if page >= 1 else []
        tree = assemble_elements(from_string(element), [
            (from_string(item), [from_string(text) for _, text in texts]) for _, item, texts in chosen])
        root = tree.getroot()
        keys = [statement.get("guid") if statement.tag == tag("statement")
                else f"{statement.get('guid')}#{statement.get('reference')}"
                for statement in (*root.iter(tag("statement")), *root.iter(tag("verification")))
                if statement.find(tag("reference")) is not None]
        annotate(root, self.reviews(run_id, keys) if keys else {})
        return tree, statements

    def index(self, run_id: int, on_progress: Callable[[int], None] | None = None) -> Shelf:
        """The run's review queue, its statements read into cards (those not read yet: ``on_progress`` hears how
        many so far). InputError when the ledger has no such run, the run never wrote a trace, or a proposal's snaks
        disagree."""
        self._reviewable(run_id)
        shelf = self.shelf(run_id)
        shelf.fill(on_progress)
        return shelf

    def shelf(self, run_id: int) -> Shelf:
        """The run's cards as they are in the ledger (:meth:`index` reads the statements they lack)."""
        shelf = self._shelves.get(run_id)
        if shelf is None:
            shelf = self._shelves[run_id] = Shelf(self.ledger, run_id, lambda guids: self.reviews(run_id, guids))
        return shelf

    def latest_reviewable(self) -> int | None:
        """The newest curation run kept for review (its trace's run element in the ledger) — a verify run's queue
        only when no curation run is kept; None when there is none."""
        with self.ledger.transaction() as connection:
            kept = select(func.max(run_elements.c.run_id)).select_from(
                run_elements.join(runs, runs.c.id == run_elements.c.run_id))
            newest = connection.execute(kept.where(~runs.c.key.startswith(VERIFY_KEY))).scalar()
            if newest is None:
                newest = connection.execute(kept).scalar()
        return int(newest) if newest is not None else None

    def _reviewable(self, run_id: int) -> tuple[Run, str]:
        """The run and its trace's run element."""
        run = self.ledger.run(run_id)
        element = self.ledger.run_element(run_id) if run else None
        if run is None or element is None:
            where = self.ledger.path or "the ledger"
            raise InputError(f"{where} has no trace of run {run_id}" if run else f"{where} has no run {run_id}",
                             hint="pass the id `refbot run` printed (reports/run-ID.html), or a trace file")
        return run, element

    def model(self, run_id: int) -> str:
        """The judge's model the run used (from its trace's run element)."""
        element = self.ledger.run_element(run_id)
        judge = from_string(element).find(tag("judge")) if element else None
        return judge.get("model", "") if judge is not None else ""

    def import_trace(self, tree: Any, source: Path) -> int:
        """A trace file as a finished run of the ledger (once: the same file again is the same run)."""
        digest = hashlib.sha256(to_string(tree.getroot()).encode("utf-8")).hexdigest()
        key = f"trace:{digest}"
        known = self.ledger.run_by_key(key)
        if known is not None:
            return known
        root = tree.getroot()
        for _ in trace_proposals(root, str(source)):  # InputError when what a curator reads is not what apply writes
            pass
        with self.ledger.transaction():  # all of it or nothing: an import stopped half-way is not a run
            run = self.ledger.open_run(key, f"trace {source.name}", new=True)
            self.ledger.finish(run)
            for item in root.iter(tag("item")):
                statements = list(item.iter(tag("statement")))
                for statement in statements:
                    item.remove(statement)
                self.ledger.record_item(run, item.get("id"), to_string(item))
                for statement in statements:
                    self.ledger.record(run, statement.get("guid"), item.get("id"), statement.get("outcome"),
                                       to_string(statement))
            self.ledger.record_run_element(run, to_string(root.find(tag("run"))))
        self.index(run.id)
        return run.id

    def run_or_latest(self, run_id: int | None) -> int:
        if run_id is not None:
            return run_id
        latest = self.ledger.latest_run()
        if latest is None:
            raise InputError(f"{self.ledger.path or 'the ledger'} holds no run yet",
                             hint="run `refbot run` first, or review a trace file")
        return latest.id

    def proposals(self, run_id: int, reviews: Mapping[str, Review] | None = None) -> list[Proposal]:
        """The run's proposals; with ``reviews``, each as its curator approved it (another paragraph's reference,
        the snaks left out)."""
        run = self._run(run_id)
        found = []
        for _, item, statements in self.ledger.items(run):
            item_element = from_string(item)
            for guid, text in statements:
                review = (reviews or {}).get(guid)
                proposal = _as_approved(item_element, from_string(text), f"run {run_id}", review)
                if proposal is not None:
                    found.append(proposal)
        return found

    def proposal(self, run_id: int, guid: str, review: Review | None = None) -> Proposal | None:
        """The proposal of one statement of the run, read from its rows alone (None when it has none); with its
        ``review``, as its curator approved it."""
        with self.ledger.transaction() as connection:
            row = connection.execute(select(checks.c.item, checks.c.element)
                                     .where(checks.c.run_id == run_id, checks.c.guid == guid)).first()
            item = connection.execute(select(items.c.element).where(items.c.run_id == run_id,
                                                                    items.c.item == row.item)).scalar() \
                if row is not None else None
        if row is None or item is None:
            return None
        return _as_approved(from_string(item), from_string(row.element), f"run {run_id}", review)

    def checked_statements(self, item: str) -> list[tuple[int, str, str]]:
        """(run id, GUID, outcome) of the item's statements, each from the latest run that checked it, in GUID
        order (read through the GUID index: a statement's GUID begins with its item's id and ``$``)."""
        latest: dict[str, tuple[int, str, str]] = {}
        with self.ledger.transaction() as connection:
            for row in connection.execute(select(checks.c.run_id, checks.c.guid, checks.c.outcome, checks.c.checked)
                                          .where(or_(*(and_(checks.c.guid >= f"{prefix}$", checks.c.guid < f"{prefix}%")
                                                       for prefix in {item, item.lower()})))
                                          .order_by(checks.c.checked, checks.c.id)):
                if row.guid.split("$", 1)[0].upper() == item.upper():
                    latest[row.guid] = (int(row.run_id), row.guid, row.outcome)
        return [latest[guid] for guid in sorted(latest)]

    # -- decisions -------------------------------------------------------------------------------------------
    def decide(self, run_id: int, guids: Sequence[str], decision: str, *, curator: str, note: str = "",
               seen: Mapping[str, int] | None = None, dropped: Sequence[str] = (), paragraph: str = "",
               confirmed: bool = False) -> list[str]:
        """Record ``decision`` for these statements of the run; returns those whose state changed. InputError names
        a GUID that is not a proposal of the run, or one already written (its decision is final). ``seen``: the
        ``decision_id`` of each statement the curator saw; DecidedMeanwhile when another decision came since (unless
        it is this very decision, as a form sent twice makes). ``dropped``: with an approval, the optional snaks
        (``OPTIONAL_SNAKS``: the title, the quotation) the reference is to be written without; ``paragraph``: another
        supporting paragraph its card lists, whose reference is approved instead. ``confirmed``: ``curator`` is the
        wiki account of that name, as the wiki confirmed it (an OAuth sign-in); otherwise a name only."""
        left_out = tuple(sorted(set(dropped)))
        if left_out and (decision != "approved" or not set(left_out) <= set(OPTIONAL_SNAKS)):
            raise InputError(f"only an approved reference may leave out snaks, and only {', '.join(OPTIONAL_SNAKS)} "
                             f"(not {', '.join(left_out)})")
        if paragraph and decision != "approved":
            raise InputError("only an approval may choose another paragraph")
        if decision not in DECISIONS + RESOLUTIONS:
            raise ValueError(decision)
        if not curator.strip():
            raise InputError("no curator name for the decision",
                             hint="set [review] curator in refbot.ini, REFBOT_REVIEW_CURATOR, or pass --curator")
        shelf = self.index(run_id)
        with self.ledger.transaction(lock=f"refbot-decide-{run_id}"):
            # the state read and the decision written at once, for every process
            known = shelf.proposed(guids) if decision in DECISIONS else shelf.against_only(guids)
            current = self.reviews(run_id, [guid for guid in guids if guid in known])
            for guid in guids:
                if guid not in known and decision in DECISIONS:
                    raise InputError(f"run {run_id} proposes no reference for statement {guid}",
                                     hint="use the GUIDs the report lists under “proposed reference”")
                if guid not in known:
                    raise InputError(f"statement {guid} is not one of run {run_id}'s statements a source says is "
                                     "false with nothing proposed", hint="approve or reject its proposed reference")
                review = current[guid]
                if review.state in ("written", "skipped"):
                    raise InputError(f"statement {guid} was {review.state} already; its decision is final")
                if paragraph and paragraph not in {other.key for other in shelf.alternatives(guid)}:
                    raise InputError(f"statement {guid} has no other supporting paragraph {paragraph!r}",
                                     hint="choose one of the paragraphs its card lists")
                same = review.state == decision and review.note == note.strip() and review.dropped == left_out \
                    and review.paragraph == paragraph
                if seen is not None and review.decision_id != seen.get(guid, 0) and not same:
                    raise DecidedMeanwhile(guid, review)
            changed = [guid for guid in dict.fromkeys(guids)
                       if current[guid].state != decision or current[guid].note != note.strip()
                       or current[guid].dropped != left_out or current[guid].paragraph != paragraph]
            now = stamp(self.ledger.clock())
            with self.ledger.transaction() as connection:
                for guid in changed:
                    connection.execute(decisions.insert().values(run_id=run_id, guid=guid, decision=decision,
                                                                 curator=curator.strip(), decided=now,
                                                                 note=note.strip(), dropped=",".join(left_out),
                                                                 paragraph=paragraph, confirmed=confirmed))
        return changed

    def resolved(self, run_id: int, resolution: str) -> list[str]:
        """The GUIDs whose latest decision in the run is ``resolution`` (one of RESOLUTIONS), in decision order."""
        latest: dict[str, str] = {}
        with self.ledger.transaction() as connection:
            for guid, decision in connection.execute(select(decisions.c.guid, decisions.c.decision).where(
                    decisions.c.run_id == run_id).order_by(decisions.c.id)):
                latest.pop(guid, None)
                latest[guid] = decision
        return [guid for guid, decision in latest.items() if decision == resolution]

    def last_decision(self, run_id: int, curator: str) -> tuple[str, str] | None:
        """(GUID, decision) of the curator's latest decision in the run; None before their first."""
        with self.ledger.transaction() as connection:
            row = connection.execute(select(decisions.c.guid, decisions.c.decision).where(
                decisions.c.run_id == run_id, decisions.c.curator == curator.strip())
                .order_by(decisions.c.id.desc()).limit(1)).first()
        return (row.guid, row.decision) if row is not None else None

    def reviews(self, run_id: int, guids: Sequence[str] | None = None) -> dict[str, Review]:
        """Every proposal of the run (or only these, ``guids``: proposals of the run) with its state. A reference
        written (through this run or another that proposed it too) is written whatever the decisions say since; one
        skipped is skipped; otherwise the latest decision stands, with the last failed attempt's reason when the
        reference is still approved. The card queries ask the same of the ledger (``bot.review.shelf``)."""
        if guids is None:
            guids = self.index(run_id).proposals()
        chosen = list(dict.fromkeys(guids))
        whole = len(chosen) > 500  # (a list of GUIDs that long is the run's, read by the run's id)
        decided: dict[str, tuple[str, str, str, str, int, str, str, bool]] = {}
        with self.ledger.transaction() as connection:  # one view of both tables
            for guid, decision, curator, when, note, row, dropped, paragraph, confirmed in connection.execute(
                    select(decisions.c.guid, decisions.c.decision, decisions.c.curator, decisions.c.decided,
                           decisions.c.note, decisions.c.id, decisions.c.dropped, decisions.c.paragraph,
                           decisions.c.confirmed)
                    .where(decisions.c.run_id == run_id, *(() if whole else (decisions.c.guid.in_(chosen),)))
                    .order_by(decisions.c.id)):
                decided[guid] = (decision, curator, when, note, int(row), dropped or "", paragraph or "",
                                 bool(confirmed))
            attempted = list(connection.execute(
                select(writes.c.run_id, writes.c.guid, writes.c.state, writes.c.revision, writes.c.reason,
                       writes.c.at, writes.c.site, writes.c.reference)
                .where(writes.c.guid.in_(self._proposed(run_id) if whole else chosen)).order_by(writes.c.id)))
        attempts: dict[str, tuple[str, int | None, str, str, str, str]] = {}
        for row_run, guid, state, revision, reason, when, site, reference in attempted:
            if state == "undone":  # the reference written before was taken off again: as if never written
                attempts.pop(guid, None)
                continue
            final = attempts.get(guid, ("",))[0] in FINAL
            if (state == "written" and attempts.get(guid, ("",))[0] != "written") or (row_run == run_id and not final):
                attempts[guid] = (state, revision, reason, when, site, reference or "")
        reviews = {}
        for guid in chosen:
            decision, curator, when, note, version, dropped, paragraph, confirmed = decided.get(
                guid, ("proposed", "", "", "", 0, "", "", False))
            state, revision, reason, at, site, reference = attempts.get(guid, ("", None, "", "", "", ""))
            if state == "written" or (state == "skipped" and decision == "approved"):
                decision = state
            elif state == "sending":
                reason = "an apply stopped while sending this edit; the next apply reads the item to see if it landed"
            done = state == "written"
            reviews[guid] = Review(decision, curator, when, note, revision if done else None, at if done else "",
                                   reason if decision != "rejected" else "",
                                   diff_url(site, revision) if done and site and revision else "", version,
                                   tuple(pid for pid in dropped.split(",") if pid), paragraph, confirmed,
                                   reference if done else "")
        return reviews

    # -- writes ----------------------------------------------------------------------------------------------
    def approved_unwritten(self, run_ids: Iterable[int]) -> list[tuple[int, Proposal]]:
        """(run id, proposal) of every approved statement not yet written or skipped, oldest run first; a statement
        approved in two runs is written once (for its first run; statement GUIDs hold a UUID, unique across
        wikis)."""
        chosen: list[tuple[int, Proposal]] = []
        seen: set[str] = set()
        for run_id in sorted(run_ids):
            reviews = self.reviews(run_id)
            for proposal in self.proposals(run_id, reviews):
                if reviews[proposal.key].state == "approved" and proposal.key not in seen:
                    chosen.append((run_id, proposal))
                    seen.add(proposal.key)
        with self.ledger.transaction() as connection:
            written = {row.guid for row in connection.execute(
                select(writes.c.guid).where(writes.c.state == "written", ~undone_since()))}
        return [(run_id, proposal) for run_id, proposal in chosen if proposal.key not in written]

    def last_attempt(self, run_id: int, guid: str) -> str:
        """The state of the last write attempt of a statement in this run ("" when none)."""
        with self.ledger.transaction() as connection:
            state = connection.execute(select(writes.c.state).where(writes.c.run_id == run_id, writes.c.guid == guid)
                                       .order_by(writes.c.id.desc()).limit(1)).scalar()
        return state or ""

    def decision(self, run_id: int, guid: str) -> str:
        """The latest decision on a statement of the run (``proposed`` when none)."""
        with self.ledger.transaction() as connection:
            decision = connection.execute(
                select(decisions.c.decision).where(decisions.c.run_id == run_id, decisions.c.guid == guid)
                .order_by(decisions.c.id.desc()).limit(1)).scalar()
        return decision or "proposed"

    def runs_with_approvals(self) -> list[int]:
        with self.ledger.transaction() as connection:
            return [int(run_id) for run_id in connection.execute(
                select(decisions.c.run_id).distinct().order_by(decisions.c.run_id)).scalars()]

    def record_write(self, run_id: int, guid: str, state: str, *, revision: int | None = None, reason: str = "",
                     site: str = "", reference: str = "") -> None:
        """Record a write attempt; a written one with its revision and the hash the wiki gave the reference."""
        if state not in WRITE_STATES:
            raise ValueError(state)
        with self.ledger.transaction() as connection:
            connection.execute(writes.insert().values(run_id=run_id, guid=guid, state=state, revision=revision,
                                                      reason=reason, at=stamp(self.ledger.clock()), site=site,
                                                      reference=reference))

    def record_undo(self, run_id: int, guid: str, *, revision: int, curator: str, note: str, site: str) -> None:
        """Record that ``curator`` took the written reference of ``guid`` off again in ``revision``: the write row
        ``undone`` and their decision ``rejected`` (``note`` saying so), at once, so that the statement is open to be
        decided again."""
        now = stamp(self.ledger.clock())
        with self.ledger.transaction() as connection:
            connection.execute(writes.insert().values(run_id=run_id, guid=guid, state="undone", revision=revision,
                                                      reason=note, at=now, site=site))
            connection.execute(decisions.insert().values(run_id=run_id, guid=guid, decision="rejected",
                                                         curator=curator.strip(), decided=now, note=note,
                                                         dropped="", paragraph="", confirmed=True))

    def _proposed(self, run_id: int) -> Any:
        return select(cards.c.guid).where(cards.c.run_id == run_id, cards.c.kind != "").scalar_subquery()

    def _run(self, run_id: int) -> Run:
        run = self.ledger.run(run_id)
        if run is None:
            raise InputError(f"{self.ledger.path or 'the ledger'} has no run {run_id}",
                             hint="pass the id `refbot run` printed (reports/run-ID.html)")
        return run


def _as_approved(item: Any, statement: Any, source: str, review: Review | None) -> Proposal | None:
    """The statement's proposal, as ``review`` approved it: another paragraph's reference, the snaks left out."""
    if review is not None and review.paragraph:
        proposal: Proposal | None = with_paragraph(item, statement, review.paragraph, source)
    else:
        proposal = element_proposal(item, statement, source)
    return proposal.without(review.dropped) if proposal is not None and review is not None else proposal


def diff_url(api_url: str, revision: int) -> str:
    """``https://www.wikidata.org/w/api.php``, 123 → ``https://www.wikidata.org/w/index.php?diff=123``"""
    return f"{api_url.rsplit('/', 1)[0]}/index.php?diff={revision}"


def annotate(root: Any, reviews: dict[str, Review]) -> None:
    """Put each proposal's review state into the trace: a ``<review>`` element after its ``<reference>``."""
    for statement in (*root.iter(tag("statement")), *root.iter(tag("verification"))):
        key = statement.get("guid") if statement.tag == tag("statement") else \
            f"{statement.get('guid')}#{statement.get('reference')}"
        review = reviews.get(key)
        if review is not None and statement.find(tag("reference")) is not None:
            review_element(statement, review.state, curator=review.curator, decided=review.decided,
                           note=review.note, reason=review.reason, revision=review.revision, written=review.written,
                           revision_url=review.revision_url, decision_id=review.decision_id or None)


def keep_for_review(ledger: RunLedger, run_id: int, tree: Any) -> None:
    """A run's trace, before it is written: its run element kept in the ledger (the run can then be reviewed from
    the ledger alone) and the decisions made so far shown in it."""
    record = ledger.run(run_id)
    if record is None:
        raise InputError(f"run {run_id} is not in the run ledger {ledger.path}")
    ledger.record_run_element(record, to_string(tree.getroot().find(tag("run"))))
    annotate(tree.getroot(), ReviewLedger(ledger).reviews(run_id))  # (its statements read into cards first)
