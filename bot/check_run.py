"""A run: check the statements of a worklist that need a reference against a ledger, and report progress. What
`refbot run` and `refbot check` do, as a library call::

    from bot.options import load_options
    from bot.ledger.ledger import RunLedger
    from bot.check_run import Run
    from bot.selection.worklists import Worklist
    from bot.wiring import Wiring

    with RunLedger(None) as ledger, Run.open(Wiring(load_options()), Worklist.of_items(["Q36233"]), ledger) as run:
        result = run.check(on_progress=lambda progress: print(progress.check.outcome.value))

A run kept in a ledger file is resumed when opened again with the same worklist and settings: only what it has not
finished is checked, and statements another run checked less than ``[run] recheck_days`` ago are skipped. A ledger
in memory (``RunLedger(None)``) makes a dry run that checks everything once, as `refbot check` does for one item.
Each finished statement is committed on its own, so a run that is stopped or killed loses only the statements in
progress. The :class:`RunResult` is what the trace writer (``bot.output.run_trace``) and the review store read; the run
itself neither writes traces nor knows of reviews.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.checking import plan_from
from bot.checking.batch import Breaker, check_many
from bot.checking.items import ItemContext, read_item, wikidata_site
from bot.checking.records import Outcome, StatementCheck
from bot.checking.statement import Tools
from bot.clock import Clock, stamp
from bot.datamodel import Statement
from bot.documents.services import ServiceClient
from bot.errors import InputError, RefbotError
from bot import shared_settings
from bot.options import Options, uses
from bot.ledger.ledger import Run as LedgerRun
from bot.ledger.ledger import RunLedger
from bot.selection import selection_rules
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.worklists import Worklist, select

OUTCOMES = tuple(outcome.value for outcome in Outcome)


class Records(Protocol):
    """How a run keeps what it finished in its ledger: each item as first read, each statement's check, as text
    (``bot.output.run_trace.TraceRecords``: trace elements)."""

    def item(self, context: ItemContext) -> str: ...

    def statement(self, context: ItemContext, check: StatementCheck) -> str: ...


class Parts(Protocol):
    """What a run talks to (``bot.wiring.Wiring`` builds it from the options, or a test passes its own)."""

    options: Options
    clock: Clock

    @property
    def tools(self) -> Tools: ...

    @property
    def services(self) -> ServiceClient: ...

    @property
    def records(self) -> Records: ...

    def require_endpoint(self) -> SparqlEndpoint: ...


@dataclass(frozen=True)
class Progress:
    """One statement finished: ``done`` of the ``total`` this call of :meth:`Run.check` set out to check."""

    check: StatementCheck
    item: ItemContext
    done: int
    total: int


@dataclass(frozen=True)
class RunResult:
    """Where a run stands: what the trace writer and the review store read. ``counts`` cover the whole run (with
    what a resumed run had finished before), ``checked`` this call's statements in worklist order. ``failure``: why
    the run stopped early (the judge became unavailable, refbot's own code kept failing); what finished is kept
    either way. ``kept``: the run is in a ledger file (resumable, reviewable)."""

    run_id: int
    worklist: Worklist
    kept: bool
    started: str
    finished: str
    seconds: float
    selected: tuple[Statement, ...]
    checked: tuple[StatementCheck, ...]
    counts: dict[str, int]
    skipped: int
    left: int
    notes: tuple[str, ...] = ()
    failure: RefbotError | None = None
    unread: bool = False  # the time budget ran out before the worklist was read to its end

    @property
    def complete(self) -> bool:
        return not self.left and not self.unread and self.failure is None

    @property
    def summary(self) -> str:
        """``2 supported, 1 not found``: the outcomes as the report words them, each that some statement ended
        with (supported always, so that none is said)."""
        return ", ".join(f"{self.counts.get(name, 0)} {name.replace('-', ' ')}" for name in OUTCOMES
                         if self.counts.get(name, 0) or name == "supported")


@dataclass
class Run:
    """A run opened on a worklist: its statements are selected and the ledger read; :meth:`check` checks what is
    left and records each statement as it finishes; :meth:`result` says where the run stands."""

    parts: Parts
    worklist: Worklist
    ledger: RunLedger
    record: LedgerRun
    selected: list[Statement]
    todo: list[Statement]
    done_before: int
    skipped: int
    started: str
    opened: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)
    failure: RefbotError | None = None  # why the last check stopped early
    partial: bool = False  # some items of a run that workers share: the ledger finishes the run, not this
    reached: list[str] = field(default_factory=list)  # the worklist's items read so far, in order
    unread: bool = False  # the time budget ran out before the worklist was read to its end
    time_budget: float | None = None  # seconds from opening (open's): how long the run may read and check
    _contexts: dict[str, ItemContext] = field(default_factory=dict)
    _checked: list[StatementCheck] = field(default_factory=list)
    _counted: float = 0.0  # the monotonic clock when the run's time was last added to the ledger

    def __post_init__(self) -> None:
        self._counted = self._counted or self.opened

    @classmethod
    def open(cls, parts: Parts, worklist: Worklist, ledger: RunLedger, *, new: bool = False,
             time_budget: float | None = None) -> Run:
        """Open (or resume) the run of ``worklist`` in ``ledger`` and select its statements. A ledger in memory
        makes a dry run that checks every selected statement; ``new`` starts a new run even if one with this
        worklist is unfinished; ``time_budget``: seconds from now after which no more of the worklist is read (nor,
        in :meth:`check`, any statement started). The parts' models are loaded here, before anything is checked."""
        opened = time.monotonic()
        kept = ledger.path is not None
        record = ledger.open_run(run_key(parts.options, worklist), worklist.description, new=new or not kept)
        ledger.claim(record)  # a second process on the same run stops here, before it checks anything twice
        return cls._selected(parts, worklist, ledger, record, opened, time_budget=time_budget)

    @classmethod
    def part_of(cls, parts: Parts, record: LedgerRun, worklist: Worklist, ledger: RunLedger) -> Run:
        """Some items of a run that workers share (``refbot worker``): the statements of ``worklist`` checked
        within the run ``record`` — not held by this process (the other workers check its other items) and not
        finished here (the ledger finishes the run with its last item)."""
        return cls._selected(parts, worklist, ledger, record, time.monotonic(), partial=True)

    @classmethod
    def _selected(cls, parts: Parts, worklist: Worklist, ledger: RunLedger, record: LedgerRun,
                  opened: float, *, partial: bool = False, time_budget: float | None = None) -> Run:
        """The run with its statements selected: the worklist read a batch of items at a time, only until the
        statements to check reach the limit (counting those finished before a resume) or the time budget is spent
        (what is not read then is read by the next run: the run is left unfinished)."""
        with ThreadPoolExecutor(1, thread_name_prefix="refbot-models") as loading:
            # The models load while the statements are selected, before any statement is due (not inside the first).
            models = loading.submit(lambda: parts.tools)
            try:
                run = cls._selecting(parts, worklist, ledger, record, opened, partial=partial,
                                     time_budget=time_budget)
            except Exception:
                # What the tools could not be made of (no search engine configured, no model) comes first: it would
                # stop the run whatever the selection found.
                unmade = models.exception()
                if unmade is not None:
                    raise unmade from None
                raise
            models.result()
        return run

    @classmethod
    def _selecting(cls, parts: Parts, worklist: Worklist, ledger: RunLedger, record: LedgerRun,
                   opened: float, *, partial: bool, time_budget: float | None) -> Run:
        options, kept = parts.options, ledger.path is not None
        among = worklist.items if partial else ()  # a worker's part: what the ledger holds of its items only
        done = ledger.done(record, among)
        recent = ledger.recently_checked(record, options.run.recheck_days, among) \
            if kept and options.run.recheck_days else set()
        quota = max(0, worklist.limit - len(done)) if worklist.limit else None
        deadline = opened + time_budget if time_budget is not None else None
        selected: list[Statement] = []
        todo: list[Statement] = []
        reached: list[str] = []
        unread = False
        selections = select(parts.require_endpoint(), worklist, selection_rules(options),
                            page_size=options.sparql.page_size) if quota != 0 else iter(())
        for selection in selections:
            reached.extend(selection.items)
            selected.extend(selection.statements)
            todo.extend(s for s in selection.statements if s.guid not in done and s.guid not in recent)
            if quota is not None and len(todo) >= quota:
                break
            if deadline is not None and time.monotonic() >= deadline:
                unread = True
                break
        if quota is not None:  # at most N checked in a run
            todo = todo[:quota]
        skipped = sum(1 for s in selected if s.guid in recent and s.guid not in done)
        return cls(parts, worklist, ledger, record, selected, todo, len(done), skipped,
                   started=record.started if kept else stamp(parts.clock()), opened=opened, partial=partial,
                   reached=reached, unread=unread, time_budget=time_budget)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def kept(self) -> bool:
        """The run is in a ledger file: it can be resumed and reviewed."""
        return self.ledger.path is not None

    @property
    def resumed(self) -> bool:
        return self.record.resumed

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._account()

    def check(self, *, on_progress: Callable[[Progress], None] | None = None,
              time_budget: float | None = None) -> RunResult:
        """Check the statements left, a bounded pool of them at once, each recorded in the ledger as it finishes.
        ``time_budget``: seconds from :meth:`open` (model loading and selection included) after which no statement
        starts; the next run goes on from there. Raises only what stops refbot itself (KeyboardInterrupt):
        a judge that becomes unavailable ends the check early, in ``RunResult.failure``."""
        options = self.parts.options
        time_budget = self.time_budget if time_budget is None else time_budget
        deadline = self.opened + time_budget if time_budget is not None else None
        breaker = Breaker(statements=len(self.todo))
        self.failure = None
        self._checked = []
        try:
            plan = plan_from(options.check, options.search, options.fetch.workers)
            for context, check in check_many(self._with_items(self.todo), self.parts.tools, plan,
                                             workers=options.check.workers, deadline=deadline, breaker=breaker):
                self._record(context, check)
                self._checked.append(check)
                if on_progress is not None:
                    on_progress(Progress(check, context, len(self._checked), len(self.todo)))
        except RefbotError as error:  # the judge is gone, an item could not be read: finished work is kept
            self.failure = error
            if error is breaker.tripped and self.kept:  # what the broken part may have spoiled is checked on resume
                self.ledger.forget(self.record, breaker.suspects)
        if not self.kept and self.failure is None:  # a dry run describes its items even with nothing checked
            self._describe_items()
        left = self._left()
        if self.unread and self.failure is None:
            after = f" after {self.reached[-1]}" if self.reached else ""
            self.notes.append(f"time budget spent while reading the worklist; its items{after} are read by the "
                              "next run" + (f", and {left} statement(s) selected are left for it" if left else ""))
        elif left and self.failure is None:
            self.notes.append(f"time budget spent; {left} statement(s) left for the next run")
        if not left and not self.unread and self.failure is None and not self.partial:
            self.ledger.finish(self.record)
        return self.result()

    def result(self) -> RunResult:
        """Where the run stands now (after an interruption too): its counts, this call's checks, the time spent."""
        order = {statement.guid: index for index, statement in enumerate(self.todo)}
        checked = sorted(self._checked, key=lambda check: order[check.statement.guid])
        return RunResult(self.id, self.worklist, self.kept, self.started, stamp(self.parts.clock()),
                         self._account(), tuple(self.selected), tuple(checked), self.ledger.counts(self.record),
                         self.skipped, self._left(), tuple(self.notes), self.failure, unread=self.unread)

    def _left(self) -> int:
        done = self.ledger.done(self.record, self.worklist.items if self.partial else ())
        return sum(1 for statement in self.todo if statement.guid not in done)

    def _record(self, context: ItemContext, check: StatementCheck) -> None:
        """One finished statement into the ledger."""
        self.ledger.record(self.record, check.statement.guid, check.statement.item, check.outcome.value,
                           self.parts.records.statement(context, check))
        self._account()  # a run killed later keeps the time spent up to here

    def _account(self) -> float:
        """Add the time since the last count to the run's total in the ledger (a resumed run's trace gives the
        time of all its invocations); the total."""
        now = time.monotonic()
        total = self.ledger.add_seconds(self.record, now - self._counted)
        self._counted = now
        return total

    def _with_items(self, statements: Sequence[Statement]) -> Iterator[tuple[ItemContext, Statement]]:
        """(item, statement) pairs; each item is read once, when its first statement is due, and recorded."""
        for statement in statements:
            if statement.item not in self._contexts:
                self._remember(self._read_item(statement.item, statement.item_label))
            yield self._contexts[statement.item], statement

    def _describe_items(self) -> None:
        """Read the worklist's items that no statement brought in: an item with nothing to check is still shown;
        one the Wikidata API does not know is an error when nothing was selected at all."""
        for item in self.reached:
            if item not in self._contexts:
                label = next((s.item_label for s in self.selected if s.item == item), "")
                self._remember(self._read_item(item, label, strict=not self.selected))

    def _remember(self, context: ItemContext) -> None:
        self._contexts[context.item] = context
        # The item as first read in the run: statements checked before a resume keep the revision they saw.
        self.ledger.record_item(self.record, context.item, self.parts.records.item(context))

    def _read_item(self, item: str, label: str, *, strict: bool = False) -> ItemContext:
        return item_context(self.parts, item, label, strict=strict,
                            want_article=uses(self.parts.options.check.source, "wikipedia"))


def item_context(parts: Parts, item: str, label: str, *, strict: bool = False, want_article: bool = True
                 ) -> ItemContext:
    """The item's revision (and, ``want_article``, its Wikipedia article). Unless ``strict``, an item the Wikidata API
    does not know (deleted since the SPARQL service saw it) is recorded as the item's error, and its statements are
    still checked."""
    options = parts.options
    try:
        return read_item(parts.services, options.wikidata.api_url, item, label, wiki=options.wikipedia.wiki,
                         article_url=options.wikipedia.article_url, chunk_chars=options.wikipedia.chunk_chars,
                         want_article=want_article)
    except InputError as error:
        if strict:
            raise
        return ItemContext(item, label, wikidata_site(options.wikidata.api_url), error=str(error))


def run_key(options: Options, worklist: Worklist) -> str:
    """What makes two runs the same run, to resume: the worklist and every setting that changes an outcome
    (``bot.shared_settings``). Resuming with another judge or other checking settings would mix their results in one
    run: that is a new run."""
    settings = [",".join(worklist.properties), str(worklist.limit or ""), settings_key(options)]
    return hashlib.sha256("\n".join([worklist.identity, *settings]).encode()).hexdigest()[:16]


def settings_key(options: Options) -> str:
    """The digest of every setting that changes an outcome: the workers of one run must share it."""
    return shared_settings.digest(shared_settings.outcome_settings(options))
