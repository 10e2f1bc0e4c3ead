"""What `refbot review`, `approve`, `reject`, `export` and `apply` do, as library calls on an options object.

Each opens the run ledger (``[run] ledger``), works on one run (the latest when none is named) and leaves the run's
report (``reports/run-ID.html``) showing every proposal's state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from bot.output.file_names import run_stem
from bot.errors import InputError
from bot.options import Options
from bot.output import trace as traces
from bot.output.report import naming, render, write_report as write_html
from bot.output.trace import read
from bot.redaction import write_private
from bot.review.applying import Outcome, Wiki, apply_approved, new_batch
from bot.review.guids import resolve
from bot.review.proposals import (Proposal, export_note, export_problem, quickstatements_batch,
                                  quickstatements_dropped, quickstatements_problem)
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger


@contextmanager
def reviewing(options: Options, *, run_id: int | None = None, trace: Path | None = None) -> Iterator[
        tuple[ReviewLedger, int]]:
    """The review ledger and the run to work on: ``run_id``, the run a trace file becomes, or the latest run.
    InputError when the run has no trace, or a proposal whose page would show other snaks than apply writes."""

    if trace is not None and run_id is not None:
        raise InputError("name a run or a trace file, not both")
    ledger = RunLedger.of(options.run, create=trace is not None)  # (only a trace file makes a ledger where none is)
    try:
        store = ReviewLedger(ledger)
        chosen = store.import_trace(read(trace), trace) if trace is not None else store.run_or_latest(run_id)
        store.index(chosen)  # InputError now if the run has no trace to review, or a proposal whose snaks disagree
        yield store, chosen
    finally:
        ledger.close()


# A run's report puts its whole trace together in memory (about 190 KB a statement: 933 MB for 5,000 in
# `benchmarks/review_queue.py --statements 5000 --report-at-stop`). It is rewritten on the way (after a decision, when
# the review server stops, as the server's report page) only for runs up to this many statements; a larger run is
# decided in the queue, which reads one card at a time, and its report written when asked: `refbot report --run ID`.
REPORT_MOST_STATEMENTS = 5_000


def report_too_large(store: ReviewLedger, run_id: int) -> str:
    """Why the run's report is not rewritten on the way ("": it is): a run of more than REPORT_MOST_STATEMENTS."""
    run = store.ledger.run(run_id)
    statements = sum(store.ledger.counts(run).values()) if run is not None else 0
    if statements <= REPORT_MOST_STATEMENTS:
        return ""
    most = f"{REPORT_MOST_STATEMENTS:,}"
    return (f"run {run_id} has {statements:,} statements, more than the {most} whose report refbot rewrites on the way "
            f"(it puts the whole trace together in memory, about 1 GB for {most}): decide in the review queue; "
            f"`refbot report --run {run_id}` writes the report where there is the memory")


# A served report (`refbot serve-review`'s /run/ID/, `refbot review`'s page) shows this many statements a page, read
# from the ledger for the page alone: about 10 MB put together, whatever the run's size.
REPORT_PAGE_STATEMENTS = 50


def report_page(store: ReviewLedger, run_id: int, page: int, **parameters: str) -> str | None:
    """The HTML of page ``page`` (from 1) of the run's report, with every proposal's state and links to the other
    pages; None for a page beyond the last (a run with no statement has one, empty). ``parameters``: the
    stylesheet's, as :func:`bot.output.report.render` takes them. InputError as :meth:`ReviewLedger.trace_page`."""
    tree, statements = store.trace_page(run_id, page, REPORT_PAGE_STATEMENTS)
    pages = max(1, -(-statements // REPORT_PAGE_STATEMENTS))
    if not 1 <= page <= pages:
        return None
    return render(tree, left_out=export_problem, page=str(page), pages=str(pages),
                  page_size=str(REPORT_PAGE_STATEMENTS), statements=str(statements), **parameters)


def write_report(options: Options, store: ReviewLedger, run_id: int) -> tuple[Path, Path] | None:
    """The run's trace and report with every proposal's state: ``reports/run-ID.xml`` and ``.html``; None for a run
    too large to rewrite on the way (:func:`report_too_large`)."""

    if report_too_large(store, run_id):
        return None
    tree = store.trace(run_id)
    stem = run_stem(options.check.reports, store.ledger, run_id)
    return traces.write(tree, stem.with_suffix(".xml")), write_html(tree, stem.with_suffix(".html"),
                                                                    left_out=export_problem)


def chosen_guids(store: ReviewLedger, run_id: int, guids: Sequence[str], *, all_supported: bool = False,
                 min_support: float = 0.0, states: tuple[str, ...] = ("proposed",)) -> list[str]:
    """The run's GUIDs that ``guids`` name in any form Wikidata or its query service prints (InputError with a hint
    for one that names none: :func:`bot.review.guids.resolve`), or (``all_supported``) every proposal a page
    supports (an archived copy of a dead page only when the judge found it supports the statement:
    ``Proposal.supported``) or a record corroborates, still in one of ``states``; with ``min_support``, only those a
    page supports at least that much (a corroborated one has no judge's support: :func:`left_out_by_support`)."""
    if not all_supported:
        return resolve(list(guids), [proposal.key for proposal in store.proposals(run_id)], run_id)
    reviews = store.reviews(run_id)
    return [proposal.key for proposal in store.proposals(run_id)
            if proposal.supported and reviews[proposal.key].state in states
            and (not min_support or (not proposal.corroborated and proposal.support >= min_support))]


def left_out_by_support(store: ReviewLedger, run_id: int, min_support: float, *,
                        states: tuple[str, ...] = ("proposed",)) -> tuple[int, int]:
    """What ``--min-support`` leaves out of ``--all-supported``: (proposals judged below it, proposals a record
    corroborates — no judge's support to compare)."""
    if not min_support:
        return 0, 0
    reviews = store.reviews(run_id)
    waiting = [proposal for proposal in store.proposals(run_id)
               if proposal.supported and reviews[proposal.key].state in states]
    return (sum(1 for proposal in waiting if not proposal.corroborated and proposal.support < min_support),
            sum(1 for proposal in waiting if proposal.corroborated))


def run_proposing(store: ReviewLedger, guids: Sequence[str], *, most_runs: int = 200) -> int | None:
    """The newest run (of the ``most_runs`` newest) that proposes a reference for every statement ``guids`` name;
    None when none does (the latest run then says which it does not propose)."""
    latest = store.ledger.latest_run()
    for run_id in range(latest.id if latest is not None else 0, 0, -1)[:most_runs]:
        if store.ledger.run(run_id) is None:
            continue
        try:
            resolve(list(guids), [proposal.key for proposal in store.proposals(run_id)], run_id)
        except InputError:  # (not all of them proposed here, or a run with no trace to review)
            continue
        return run_id
    return None


def refuse_over_colleagues(store: ReviewLedger, run_id: int, guids: Sequence[str], decision: str, *,
                           curator: str) -> None:
    """InputError naming the colleague, their decision and when, for the first statement ``guids`` name that
    another curator decided otherwise (a curator changes their own decisions freely)."""
    reviews = store.reviews(run_id, list(guids))
    for guid in guids:
        review = reviews[guid]
        if review.state in ("approved", "rejected") and review.state != decision and review.curator \
                and review.curator.strip() != curator.strip():
            note = f" (note: {review.note})" if review.note else ""
            raise InputError(f"statement {guid} was {review.state} by {review.curator} at "
                             f"{review.decided or 'an unknown time'}{note}; nothing was recorded",
                             hint="talk to them, or pass --force to record your decision over theirs")


def decide(options: Options, store: ReviewLedger, run_id: int, guids: Sequence[str], decision: str, *,
           curator: str, note: str = "", seen: Mapping[str, int] | None = None) -> list[str]:
    """Record the decision and rewrite the run's report; the GUIDs whose state changed. ``seen``: as
    :meth:`ReviewLedger.decide` takes it."""
    changed = store.decide(run_id, guids, decision, curator=curator or options.review.curator, note=note, seen=seen)
    write_report(options, store, run_id)
    return changed


def preview(store: ReviewLedger, run_id: int, guids: Sequence[str], decision: str, *,
            note: str = "") -> list[Proposal]:
    """The proposals :func:`decide` would change, in order, recording nothing; InputError, as it raises, for one
    written or skipped already (its decision is final)."""
    reviews = store.reviews(run_id)
    proposals = {proposal.key: proposal for proposal in store.proposals(run_id)}
    for guid in guids:
        if reviews[guid].state in ("written", "skipped"):
            raise InputError(f"statement {guid} was {reviews[guid].state} already; its decision is final")
    return [proposals[guid] for guid in dict.fromkeys(guids)
            if reviews[guid].state != decision or reviews[guid].note != note.strip()]


def export_quickstatements(store: ReviewLedger, run_id: int, path: Path, *, approved_only: bool
                           ) -> tuple[list[Proposal], list[tuple[Proposal, str]], list[tuple[Proposal, str]]]:
    """The V1 batch of the run's proposals (only the approved, unwritten ones with ``approved_only``) at ``path``:
    (the proposals written, those left out with the reason, those written without a snak with which and why). A
    reference QuickStatements cannot write faithfully (a value it cannot match, a required snak it would change:
    :func:`quickstatements_problem`) is left out; one whose title or quotation it would change is written without
    that snak (:func:`quickstatements_dropped`)."""
    reviews = store.reviews(run_id)
    wanted = ("approved",) if approved_only else ("proposed", "approved")
    chosen = [proposal for proposal in store.proposals(run_id, reviews) if reviews[proposal.key].state in wanted]
    left_out = [(proposal, problem) for proposal in chosen if (problem := quickstatements_problem(proposal))]
    batch = [proposal for proposal in chosen if not quickstatements_problem(proposal)]
    trimmed = [(proposal, export_note(proposal)) for proposal in batch if quickstatements_dropped(proposal)]
    with naming(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, quickstatements_batch(batch))
    return batch, left_out, trimmed


WRONG_VALUE_COLUMNS = ("item", "item label", "property", "property label", "value", "statement", "statement URL",
                       "evidence", "source", "curator", "decided", "note")


def export_wrong_values(store: ReviewLedger, run_id: int, path: Path) -> int:
    """The run's statements curators marked as holding a wrong value (a source says otherwise), as a tab-separated
    table with a header for the editors who correct them on Wikidata: the statement, the evidence against (why, and
    the source), who marked it, when, and their note. The rows written."""
    shelf = store.index(run_id)
    rows = []
    for guid in store.resolved(run_id, "value-wrong"):
        card = shelf.card(guid)
        if card is None:
            continue
        evidence = card.against[0] if card.against else None
        rows.append((card.item, card.item_label, card.property_id, card.property_label, card.value_text, card.guid,
                     card.statement_url, evidence.why if evidence else card.reason,
                     evidence.url if evidence else (card.source.url if card.source else ""), card.curator,
                     card.decided, card.note))
    lines = ["\t".join(WRONG_VALUE_COLUMNS)] + ["\t".join(" ".join(str(cell).split()) for cell in row) for row in rows]
    with naming(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, "\n".join(lines) + "\n")
    return len(rows)


def apply(options: Options, connect: Callable[[], Wiki], *, run_id: int | None, live: bool,
          limit: int | None = None, on_start: Callable[[str, str], None] | None = None,
          on_outcome: Callable[[Outcome], None] | None = None, batch: str = "") -> list[Outcome]:
    """Write (``live``) or simulate the approved references of one run, or of every run with approvals, on the
    wiki ``connect`` gives (asked only when something is to be written); the reports of the runs touched are
    rewritten. Every edit carries the EditGroups tag of ``batch`` (a new one when not given), which ``on_start``
    hears with the account. WriteError when the wiki refuses for good (the login, a block)."""
    ledger = RunLedger.of(options.run, create=False)
    try:
        store = ReviewLedger(ledger)
        runs = [store.run_or_latest(run_id)] if run_id is not None else store.runs_with_approvals()
        chosen = store.approved_unwritten(runs)
        if not chosen:
            return []
        wiki = connect()
        batch = batch or new_batch()
        if on_start is not None:
            on_start(wiki.account, batch)
        reviews = {run: store.reviews(run) for run in runs}
        try:
            return apply_approved(store, wiki, chosen, live=live, model_of=store.model,
                                  curator_of=lambda run, guid: reviews[run][guid].curator,
                                  account_of=lambda run, guid: reviews[run][guid].curator
                                  if reviews[run][guid].confirmed else "",
                                  report_url=lambda run: options.apply.report_url.replace("{run}", str(run)),
                                  documentation=options.apply.documentation_page, batch=batch,
                                  limit=limit, on_outcome=on_outcome)
        finally:
            if live:
                for run in sorted({run for run, _ in chosen}):
                    write_report(options, store, run)
    finally:
        ledger.close()
