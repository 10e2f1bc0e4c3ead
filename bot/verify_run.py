"""A verify run: the references a worklist's statements already have, each read and judged once, recorded in the
run ledger as it finishes — what `refbot verify` does, as a library call::

    with RunLedger(None) as ledger, VerifyRun.open(Wiring(options), Worklist.of_items(["Q42"]), ledger) as run:
        result = run.verify()

As for `refbot run`: a run kept in a ledger file resumes where it stopped when opened again with the same worklist
and settings, references another verify run read less than ``[run] recheck_days`` ago are skipped, and each finished
reference is committed on its own. References are taken in an order that alternates between sites, so that one
site's pace (``[fetch] delay``, kept per host and, with a queue, across workers) never holds every worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Protocol

from bot.checking import plan_from
from bot.checking.batch import Breaker
from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Plan, Tools, check_statement
from bot.clock import Clock, stamp
from bot.datamodel import Statement
from bot.documents.politeness import host_key
from bot.documents.services import ServiceClient
from bot.errors import InternalError, RefbotError
from bot.faults import FIX
from bot.options import Options, uses
from bot.pool import in_flight
from bot.ledger.ledger import VERIFY_KEY, RunLedger
from bot.ledger.ledger import Run as LedgerRun
from bot.check_run import item_context, run_key
from bot.selection import selection_rules
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.worklists import Worklist
from bot.verifying.citations import Citation
from bot.verifying.records import FINDINGS, Finding, ReferenceCheck
from bot.verifying.reference import verify_reference
from bot.verifying.selection import Cited, select_cited

KEY_PREFIX = VERIFY_KEY  # what a verify run's key starts with


class Records(Protocol):
    def item(self, context: ItemContext) -> str: ...

    def statement(self, context: ItemContext, check: StatementCheck) -> str: ...

    def verification(self, context: ItemContext, check: ReferenceCheck) -> str: ...


class Parts(Protocol):
    options: Options
    clock: Clock

    @property
    def verify_tools(self) -> Tools: ...

    @property
    def tools(self) -> Tools: ...

    @property
    def services(self) -> ServiceClient: ...

    @property
    def records(self) -> Records: ...

    def require_endpoint(self) -> SparqlEndpoint: ...


@dataclass(frozen=True)
class Progress:
    check: ReferenceCheck
    item: ItemContext
    done: int
    total: int


@dataclass(frozen=True)
class VerifyResult:
    """Where a verify run stands (as ``bot.check_run.RunResult`` for a check run): ``counts`` by finding over the whole
    run, ``checked`` this call's references in worklist order."""

    run_id: int
    worklist: Worklist
    kept: bool
    started: str
    finished: str
    seconds: float
    selected: tuple[Cited, ...]
    checked: tuple[ReferenceCheck, ...]
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
        """``3 supports, 1 does-not-support, …``: every finding some reference ended with, in a fixed order."""
        shown = [f"{self.counts[name]} {name}" for name in FINDINGS if self.counts.get(name)]
        return ", ".join(shown) or "no reference verified"


@dataclass
class VerifyRun:
    parts: Parts
    worklist: Worklist
    ledger: RunLedger
    record: LedgerRun
    selected: list[Cited]
    todo: list[tuple[Statement, Citation]]
    done_before: int
    skipped: int
    started: str
    opened: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)
    failure: RefbotError | None = None
    # Check each statement none of whose references supports it (as `refbot check` does: the web, the Wikipedia
    # article's sources, authority records) and propose the reference found beside the ones it has.
    find_support: bool = False
    partial: bool = False  # some items of a run that workers share: the ledger finishes the run, not this
    reached: list[str] = field(default_factory=list)  # the worklist's items read so far, in order
    unread: bool = False  # the time budget ran out before the worklist was read to its end
    time_budget: float | None = None  # seconds from opening (open's): how long the run may read and check
    _contexts: dict[str, ItemContext] = field(default_factory=dict)
    _checked: list[ReferenceCheck] = field(default_factory=list)
    _counted: float = 0.0
    # The statements checked for a supporting reference in this call (``find_support``).
    supported_by_check: list[StatementCheck] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._counted = self._counted or self.opened

    @classmethod
    def open(cls, parts: Parts, worklist: Worklist, ledger: RunLedger, *, new: bool = False,
             find_support: bool = False, time_budget: float | None = None) -> VerifyRun:
        """Open (or resume) the verify run of ``worklist`` and select its references, reading the worklist only as
        far as ``--limit`` and ``time_budget`` (seconds from now) go; the models load here (with ``find_support``,
        the search engine and the records too)."""
        opened = time.monotonic()
        record = ledger.open_run(KEY_PREFIX + run_key(parts.options, worklist), f"verify {worklist.description}",
                                 new=new or ledger.path is None)
        ledger.claim(record)
        if find_support:
            parts.tools  # noqa: B018 (wired before anything is read)
        return cls._selected(parts, worklist, ledger, record, opened, find_support=find_support,
                             time_budget=time_budget)

    @classmethod
    def part_of(cls, parts: Parts, record: LedgerRun, worklist: Worklist, ledger: RunLedger) -> VerifyRun:
        """Some items of a verify run that workers share (``refbot worker``): their references verified within the
        run ``record``, what the ledger holds of these items only; the ledger finishes the run with its last item."""
        return cls._selected(parts, worklist, ledger, record, time.monotonic(), partial=True)

    @classmethod
    def _selected(cls, parts: Parts, worklist: Worklist, ledger: RunLedger, record: LedgerRun, opened: float, *,
                  partial: bool = False, find_support: bool = False, time_budget: float | None = None) -> VerifyRun:
        options, kept = parts.options, ledger.path is not None
        parts.verify_tools  # noqa: B018 (the models load before any reference is due)
        among = worklist.items if partial else ()
        done = ledger.done(record, among)
        recent = ledger.recently_checked(record, options.run.recheck_days, among) \
            if kept and options.run.recheck_days else set()
        quota = max(0, worklist.limit - len(done)) if worklist.limit and not partial else None
        deadline = opened + time_budget if time_budget is not None else None
        selected: list[Cited] = []
        reached: list[str] = []
        unread = False
        todo: list[tuple[Statement, Citation]] = []
        every: list[tuple[Statement, Citation]] = []
        selections = select_cited(parts.require_endpoint(), worklist, selection_rules(options),
                                  page_size=options.sparql.page_size) if quota != 0 else iter(())
        for selection in selections:  # read only as far as the limit or the time budget goes
            reached.extend(selection.selection.items)
            selected.extend(selection.cited)
            pairs = [(entry.statement, citation) for entry in selection.cited for citation in entry.citations]
            every.extend(pairs)
            todo.extend(pair for pair in pairs if pair[1].key not in done and pair[1].key not in recent)
            if quota is not None and len(todo) >= quota:
                break
            if deadline is not None and time.monotonic() >= deadline:
                unread = True
                break
        if quota is not None:  # at most N verified in a run, counting those before a resume
            todo = todo[:quota]
        skipped = sum(1 for _, citation in every if citation.key in recent and citation.key not in done)
        return cls(parts, worklist, ledger, record, selected, alternate_hosts(todo), len(done), skipped,
                   started=record.started if kept else stamp(parts.clock()), opened=opened, find_support=find_support,
                   partial=partial, reached=reached, unread=unread, time_budget=time_budget)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def kept(self) -> bool:
        return self.ledger.path is not None

    @property
    def resumed(self) -> bool:
        return self.record.resumed

    def __enter__(self) -> VerifyRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._account()

    def verify(self, *, on_progress: Callable[[Progress], None] | None = None,
               time_budget: float | None = None) -> VerifyResult:
        """Verify the references left, ``[check] workers`` at once, each recorded as it finishes. A judge that
        becomes unavailable, or refbot's own code failing alike on every reference, ends it early
        (``VerifyResult.failure``); what finished is kept."""
        options = self.parts.options
        time_budget = self.time_budget if time_budget is None else time_budget
        deadline = self.opened + time_budget if time_budget is not None else None
        breaker = Breaker(statements=len(self.todo))
        checking = plan_from(options.check, options.search, options.fetch.workers)
        plan = reading_plan(checking)
        tools = self.parts.verify_tools
        self.failure = None
        self._checked = []

        def tasks() -> Iterator[tuple[ItemContext, Callable[[], ReferenceCheck]]]:
            for statement, citation in self.todo:
                if breaker.tripped is not None:
                    return
                yield self._context(statement), partial(verify_reference, statement, citation, tools, plan)
        try:
            for context, check in in_flight(tasks(), options.check.workers, name="reference", deadline=deadline):
                breaker.observe(check)  # type: ignore[arg-type]  # a reference's check reads as a statement's
                self.ledger.record(self.record, check.key, check.statement.item, check.finding.value,
                                   self.parts.records.verification(context, check))
                self._account()
                self._checked.append(check)
                if on_progress is not None:
                    on_progress(Progress(check, context, len(self._checked), len(self.todo)))
            if breaker.tripped is not None:
                raise breaker.tripped
            if self.find_support:
                self._find_support(checking, deadline)
        except RefbotError as error:
            self.failure = error
            if error is breaker.tripped and self.kept:
                suspects = set(breaker.suspects)
                self.ledger.forget(self.record, [c.key for c in self._checked if c.statement.guid in suspects])
        if not self.kept and self.failure is None:
            for item in self.reached:  # a dry run shows every item named, with nothing to verify too
                if item not in self._contexts:
                    label = next((e.statement.item_label for e in self.selected if e.statement.item == item), "")
                    self._remember(self._read_item(item, label, strict=not self.selected))
        left = self._left()
        if self.unread and self.failure is None:
            after = f" after {self.reached[-1]}" if self.reached else ""
            self.notes.append(f"time budget spent while reading the worklist; its items{after} are read by the "
                              "next run" + (f", and {left} reference(s) selected are left for it" if left else ""))
        elif left and self.failure is None:
            self.notes.append(f"time budget spent; {left} reference(s) left for the next run")
        if not left and not self.unread and self.failure is None and not self.partial:
            self.ledger.finish(self.record)
        return self.result()

    def _find_support(self, plan: Plan, deadline: float | None) -> None:
        """Each statement of the run none of whose references supports it, checked as `refbot check` checks it,
        once per run (recorded under its GUID): a supporting reference found is proposed beside its own."""
        done = self.ledger.done(self.record)
        wanting = [entry.statement for entry in self.selected if entry.statement.guid not in done
                   and needs_support(self.ledger.outcomes(self.record, [c.key for c in entry.citations]))]
        tools = self.parts.tools
        for statement in wanting:
            if deadline is not None and time.monotonic() >= deadline:
                return
            context = self._article(statement)
            check = check_statement(statement, tools, plan, context.article, context.error, websites=context.websites)
            if check.fault is not None:
                raise InternalError(f"checking {statement.guid} for a supporting reference failed: {check.fault}",
                                    component=check.fault.component, hint=FIX)
            self.ledger.record(self.record, statement.guid, statement.item, check.outcome.value,
                               self.parts.records.statement(context, check))
            self._account()
            self.supported_by_check.append(check)

    def _article(self, statement: Statement) -> ItemContext:
        """The item with its Wikipedia article, for a statement checked as `refbot check` checks it."""
        context = self._context(statement)
        if not uses(self.parts.options.check.source, "wikipedia") or context.error:
            return context
        return item_context(self.parts, statement.item, statement.item_label)

    def result(self) -> VerifyResult:
        order = {citation.key: index for index, (_, citation) in enumerate(self.todo)}
        checked = sorted(self._checked, key=lambda check: order[check.key])
        return VerifyResult(self.id, self.worklist, self.kept, self.started, stamp(self.parts.clock()),
                            self._account(), tuple(self.selected), tuple(checked), self.ledger.counts(self.record),
                            self.skipped, self._left(), tuple(self.notes), self.failure, unread=self.unread)

    def _left(self) -> int:
        done = self.ledger.done(self.record, self.worklist.items if self.partial else ())
        return sum(1 for _, citation in self.todo if citation.key not in done)

    def _account(self) -> float:
        now = time.monotonic()
        total = self.ledger.add_seconds(self.record, now - self._counted)
        self._counted = now
        return total

    def _context(self, statement: Statement) -> ItemContext:
        if statement.item not in self._contexts:
            self._remember(self._read_item(statement.item, statement.item_label))
        return self._contexts[statement.item]

    def _remember(self, context: ItemContext) -> None:
        self._contexts[context.item] = context
        self.ledger.record_item(self.record, context.item, self.parts.records.item(context))

    def _read_item(self, item: str, label: str, *, strict: bool = False) -> ItemContext:
        """The item's revision (its article is not read: verify reads only the pages references name)."""
        return item_context(self.parts, item, label, strict=strict, want_article=False)


# Paragraphs about the subject a cited page is read in for an item value it never writes as refbot knows it: the
# model names the words stating the property, which must name the value (``bot.judge.naming``). Off by default in
# `check`, whose pages are many; a verify reads one page a reference, so the cost is bounded by the page.
VERIFY_NAMING = 3


def reading_plan(plan: Plan) -> Plan:
    """How verify reads a cited page: as `check` reads a page, items named another way looked for in its best
    paragraphs about the subject (``VERIFY_NAMING``, or ``[check] naming`` when it is more)."""
    return replace(plan, strategy=replace(plan.strategy, naming=max(plan.strategy.naming, VERIFY_NAMING)))


def needs_support(findings: Sequence[str]) -> bool:
    """Whether a statement's references, verified (their findings), leave it without one that supports it and
    without one that gives another value (a contradiction is for curators, not for another source)."""
    return bool(findings) and not any(finding in (Finding.SUPPORTS.value, Finding.CONTRADICTS.value, "error")
                                      for finding in findings)


def alternate_hosts(todo: Sequence[tuple[Statement, Citation]]) -> list[tuple[Statement, Citation]]:
    """Pure: the references in an order that takes each site in turn (the first reference of every site, then the
    second, …), each site's own in worklist order, so that references to one site are spread out and workers
    fetching at once wait on different sites' turns."""
    by_host: dict[str, list[tuple[Statement, Citation]]] = {}
    for pair in todo:
        by_host.setdefault(host_key(pair[1].url), []).append(pair)
    queues = list(by_host.values())
    ordered: list[tuple[Statement, Citation]] = []
    for rank in range(max((len(queue) for queue in queues), default=0)):
        ordered += [queue[rank] for queue in queues if rank < len(queue)]
    return ordered


__all__ = ["Finding", "Progress", "VerifyResult", "VerifyRun", "alternate_hosts"]
