"""A run: check the statements of a worklist that need a reference, keep each finished one in a ledger, and write
the run's trace and report. What `refbot run` and `refbot check` do, as a library call::

    from bot.options import load_options
    from bot.runs import Run
    from bot.selection.worklists import Worklist

    with Run.open(load_options(), Worklist.of_items(["Q36233"])) as run:
        result = run.check(on_progress=lambda progress: print(progress.check.outcome.value))
        xml, html = run.write_trace()

A run kept in the ledger file (``[run] ledger``) is resumed when opened again with the same worklist and settings:
only what it has not finished is checked, and statements another run checked less than ``[run] recheck_days``
ago are skipped. ``Run.open(..., ledger=None)`` keeps the ledger in memory: a dry run that checks everything
once, as `refbot check` does for one item. Each finished statement is committed on its own, so a run that is
stopped or killed loses only the statements in progress.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.checking.items import ItemContext
from bot.checking.records import Outcome, StatementCheck
from bot.clock import Clock, stamp, system_clock
from bot.datamodel import Statement
from bot.errors import InputError, RefbotError
from bot.options import Options, uses
from bot.runledger import RunLedger
from bot.runledger import Run as LedgerRun
from bot.selection.worklists import Worklist

if TYPE_CHECKING:
    from bot.checking.statement import Tools
    from bot.documents.services import ServiceClient
    from bot.selection.endpoint import SparqlEndpoint

OUTCOMES = tuple(outcome.value for outcome in Outcome)
# Outcomes a summary names only when some statement ended so.
OCCASIONAL = ("corroborated", "contradicted", "undecided")


@dataclass(frozen=True)
class Clients:
    """What a check talks to, built once from the options: the SPARQL endpoint, the polite client for Wikimedia
    and the web, and the tools (the judge with its model loaded, the fetcher, the archive, the search engine, the
    embedding model, the property profiles)."""

    endpoint: SparqlEndpoint
    services: ServiceClient
    tools: Tools

    @classmethod
    def from_options(cls, options: Options, clock: Clock = system_clock) -> Clients:
        """``clock`` stamps what the run records (its fetches, checks, ledger rows)."""
        from bot.checking import make_tools
        from bot.documents import make_politeness, make_services, make_session
        from bot.selection import make_endpoint

        endpoint = make_endpoint(options)
        http = make_session(options)
        services = make_services(options, http, make_politeness(options))
        return cls(endpoint, services, make_tools(options, http, services, endpoint, clock))


@dataclass(frozen=True)
class Progress:
    """One statement finished: ``done`` of the ``total`` this call of :meth:`Run.check` set out to check."""

    check: StatementCheck
    item: ItemContext
    done: int
    total: int


@dataclass(frozen=True)
class RunResult:
    """What one call of :meth:`Run.check` did. ``counts`` cover the whole run (with what a resumed run had finished
    before), ``checked`` this call's statements in worklist order. ``failure``: why the run stopped early (the
    judge became unavailable, refbot's own code kept failing); what finished is kept either way."""

    run_id: int
    selected: int
    checked: tuple[StatementCheck, ...]
    counts: dict[str, int]
    skipped: int
    left: int
    failure: RefbotError | None = None

    @property
    def complete(self) -> bool:
        return not self.left and self.failure is None

    @property
    def summary(self) -> str:
        """``2 supported, 1 not-found, 0 irretrievable, 0 error``; corroborated, contradicted and undecided only
        when some statement ended so."""
        return ", ".join(f"{self.counts.get(name, 0)} {name}" for name in OUTCOMES
                         if self.counts.get(name, 0) or name not in OCCASIONAL)


@dataclass
class Run:
    """A run opened on a worklist: its statements are selected and the ledger read; :meth:`check` checks what is
    left, :meth:`write_trace` writes the trace and report of everything the run has finished."""

    options: Options
    worklist: Worklist
    clients: Clients
    ledger: RunLedger
    record: LedgerRun
    selected: list[Statement]
    todo: list[Statement]
    done_before: int
    skipped: int
    kept: bool  # the ledger is a file: the run can be resumed
    started: str
    clock: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)
    failure: RefbotError | None = None  # why the last check stopped early
    _contexts: dict[str, ItemContext] = field(default_factory=dict)
    _counted: float = 0.0  # the monotonic clock when the run's time was last added to the ledger

    def __post_init__(self) -> None:
        self._counted = self._counted or self.clock

    @classmethod
    def open(cls, options: Options, worklist: Worklist, *, keep: bool = True, new: bool = False,
             clients: Clients | None = None, clock: Clock | None = None) -> Run:
        """Open (or resume) the run of ``worklist``: check the install, load the models, select the statements.
        ``keep``: the run is kept in the ledger file ``options.run_ledger`` (resumable); otherwise in memory, a
        dry run that checks every selected statement. ``new`` starts a new run even if one with this worklist is
        unfinished; ``clients`` reuses clients already built (their models loaded); ``clock`` stamps what the run
        records (the clients' own by default)."""
        from bot.doctor import preflight

        opened = time.monotonic()
        clock = clock or (clients.tools.clock if clients is not None else system_clock)
        preflight()  # a broken install stops here, named, before any page could be blamed for it
        path = options.run_ledger if keep else None
        store = RunLedger(path, clock=clock)
        try:
            record = store.open_run(run_key(options, worklist), worklist.description, new=new or path is None)
            store.claim(record)  # a second process on the same run stops here, before it checks anything twice
            clients = clients or Clients.from_options(options, clock)
            done = store.done(record)
            recent = store.recently_checked(record, options.run_recheck_days) \
                if path is not None and options.run_recheck_days else set()
            selected = _select(clients, options, worklist)
            todo = [s for s in selected if s.guid not in done and s.guid not in recent]
            if worklist.limit:  # at most N checked in a run, counting those finished before a resume
                todo = todo[: max(0, worklist.limit - len(done))]
            skipped = sum(1 for s in selected if s.guid in recent and s.guid not in done)
        except BaseException:
            store.close()
            raise
        return cls(options, worklist, clients, store, record, selected, todo, len(done), skipped,
                   kept=path is not None, started=record.started if path is not None else stamp(clock()),
                   clock=opened)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def services(self) -> tuple[str, ...]:
        """The URLs of the services the options configure: no trace shows their query values."""
        return service_urls(self.options)

    @property
    def resumed(self) -> bool:
        return self.record.resumed

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.ledger.close()

    def check(self, *, on_progress: Callable[[Progress], None] | None = None,
              time_budget: float | None = None) -> RunResult:
        """Check the statements left, a bounded pool of them at once, each recorded in the ledger as it finishes.
        ``time_budget``: seconds from :meth:`open` (model loading and selection included) after which no statement
        starts; the next run goes on from there. Raises only what stops refbot itself (KeyboardInterrupt):
        a judge that becomes unavailable ends the check early, in ``RunResult.failure``."""
        from bot.checking import plan_from
        from bot.checking.batch import Breaker, check_many

        deadline = self.clock + time_budget if time_budget is not None else None
        breaker = Breaker(statements=len(self.todo))
        checked: list[StatementCheck] = []
        failure: RefbotError | None = None
        self.failure = None
        try:
            for context, check in check_many(self._with_items(self.todo), self.clients.tools,
                                             plan_from(self.options), workers=self.options.check_workers,
                                             deadline=deadline, breaker=breaker):
                self._record(context, check)
                checked.append(check)
                if on_progress is not None:
                    on_progress(Progress(check, context, len(checked), len(self.todo)))
        except RefbotError as error:  # the judge is gone, an item could not be read: finished work is kept
            failure = error
            if error is breaker.tripped and self.kept:  # what the broken part may have spoiled is checked on resume
                self.ledger.forget(self.record, breaker.suspects)
        self.failure = failure
        done = self.ledger.done(self.record)
        left = sum(1 for statement in self.todo if statement.guid not in done)
        if left and failure is None:
            self.notes.append(f"time budget spent; {left} statement(s) left for the next run")
        if not left and failure is None:
            self.ledger.finish(self.record)
        self._account()
        order = {statement.guid: index for index, statement in enumerate(self.todo)}
        checked.sort(key=lambda check: order[check.statement.guid])
        return RunResult(self.id, len(self.selected), tuple(checked), self.ledger.counts(self.record), self.skipped,
                         left, failure)

    def _record(self, context: ItemContext, check: StatementCheck) -> None:
        """One finished statement into the ledger, as its trace element (its URLs redacted)."""
        from bot.output.trace import checked_statement_element, to_string

        self.ledger.record(self.record, check.statement.guid, check.statement.item, check.outcome.value,
                           to_string(checked_statement_element(context, check, self.services)))
        self._account()  # a run killed later keeps the time spent up to here

    def trace(self, *, complete: bool | None = None) -> Any:
        """The run's trace (an lxml tree, valid against xslt/trace.xsd): every statement the run has finished,
        under its item as first read in the run, each item's statements in worklist order."""
        from bot.output.trace import assemble, from_string

        if not self.kept:  # a dry run describes its items even when none of their statements could be checked
            for item in self.worklist.items:
                if item not in self._contexts:
                    label = next((s.item_label for s in self.selected if s.item == item), "")
                    self._remember(self._read_item(item, label, strict=not self.selected))
        order = {statement.guid: index for index, statement in enumerate(self.selected)}
        items = [(from_string(element), [from_string(text) for _, text in
                                         sorted(statements, key=lambda pair: order.get(pair[0], len(order)))])
                 for _, element, statements in self.ledger.items(self.record, with_empty=not self.kept)]
        left = sum(1 for statement in self.todo if statement.guid not in self.ledger.done(self.record))
        finished = not left and self.failure is None
        return assemble(self._info(complete=finished if complete is None else complete), items)

    def write_trace(self, stem: Path | None = None, *, complete: bool | None = None) -> tuple[Path, Path]:
        """The trace (validated against the schema) and its HTML report, at ``stem`` with .xml and .html; by default
        ``reports/run-<id>`` for a kept run, ``reports/check-<item>-<time>`` for a dry run."""
        from bot.output import trace as traces
        from bot.output.report import write_report

        if stem is None:
            stamp = self.started.replace("-", "").replace(":", "")
            name = f"run-{self.id}" if self.kept else f"check-{'-'.join(self.worklist.items[:1]) or 'run'}-{stamp}"
            stem = self.options.check_reports / name
        tree = self.trace(complete=complete)
        if self.kept:  # the run can then be reviewed from the ledger alone, with its decisions shown
            from bot.review.store import ReviewLedger, annotate

            self.ledger.record_run_element(self.record, traces.to_string(tree.getroot().find(traces.tag("run"))))
            annotate(tree.getroot(), ReviewLedger(self.ledger).reviews(self.id))
        xml = traces.write(tree, stem.with_suffix(".xml"))
        return xml, write_report(tree, stem.with_suffix(".html"))

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

    def _remember(self, context: ItemContext) -> None:
        from bot.output.trace import item_element, to_string

        self._contexts[context.item] = context
        # The item as first read in the run: statements checked before a resume keep the revision they saw.
        self.ledger.record_item(self.record, context.item, to_string(item_element(context, self.services)))

    def _read_item(self, item: str, label: str, *, strict: bool = False) -> ItemContext:
        """The item's revision and article. Unless ``strict``, an item the Wikidata API does not know (deleted
        since the SPARQL service saw it) is recorded as the item's error, and its statements are still checked."""
        from bot.checking.items import read_item, wikidata_site

        options = self.options
        try:
            return read_item(self.clients.services, options.wikidata_api_url, item, label,
                             wiki=options.wikipedia_wiki, article_url=options.wikipedia_article_url,
                             chunk_chars=options.wikipedia_chunk_chars,
                             want_article=uses(options.check_source, "wikipedia"))
        except InputError as error:
            if strict:
                raise
            return ItemContext(item, label, wikidata_site(options.wikidata_api_url), error=str(error))

    def _info(self, *, complete: bool) -> Any:
        from bot.selection import endpoint_url
        from bot.output.trace import RunInfo

        options, judge = self.options, self.clients.tools.judge
        endpoints = [("sparql", endpoint_url(options.sparql_endpoint)), ("wikidata-api", options.wikidata_api_url)]
        if uses(options.check_source, "wikipedia"):
            endpoints.append(("wikipedia", options.wikipedia_article_url))
        if uses(options.check_source, "web") and options.search_backend:
            endpoints.append((f"search ({options.search_backend})", options.search_url or "(the engine's default)"))
        if options.archive_enabled:
            endpoints += [("wayback-availability", options.archive_availability_url),
                          ("wayback-cdx", options.archive_cdx_url), ("wayback", options.archive_web_url)]
        if options.judge_backend == "openai":
            endpoints.append(("judge", options.judge_url))
        return RunInfo(mode="run" if self.kept else "check", started=self.started,
                       finished=stamp(self.clients.tools.clock()),
                       duration_s=self._account(), complete=complete,
                       judge_backend=options.judge_backend, model=judge.model_id, template=judge.template.id,
                       prompt_template=judge.template.text, threshold=judge.threshold,
                       strategy=options.check_strategy, top=options.check_top,
                       embeddings=options.check_embedding_model if self.clients.tools.embed else "none",
                       endpoints=endpoints, options=sorted(options.public().items()), notes=self.notes,
                       skipped=self.skipped, run_id=str(self.id) if self.kept else "", services=self.services)


def _select(clients: Clients, options: Options, worklist: Worklist) -> list[Statement]:
    from bot.selection import selection_rules
    from bot.selection.worklists import select

    return [statement for selection in select(clients.endpoint, worklist, selection_rules(options),
                                              page_size=options.sparql_page_size)
            for statement in selection.statements]


def service_urls(options: Options) -> tuple[str, ...]:
    """The URLs refbot was configured to talk to (``bot.redaction``: their requests' query values are never
    written). The Wayback Machine's web address is left out: an archived copy is a document, evidence a reader must
    be able to open."""
    from bot.selection import endpoint_url

    urls = (options.judge_url, endpoint_url(options.sparql_endpoint), options.search_url,
            options.archive_availability_url, options.archive_cdx_url, options.wikipedia_article_url,
            options.wikidata_api_url)
    return tuple(url for url in urls if url and "://" in url)


def run_key(options: Options, worklist: Worklist) -> str:
    """What makes two runs the same run, to resume: the worklist and every setting that changes an outcome.
    Resuming with another judge or other checking settings would mix their results in one run: that is a new
    run."""
    settings = [",".join(worklist.properties), str(worklist.limit or ""), options.check_source,
                str(options.check_all_sources), str(options.check_kg_top), str(options.check_kg_records),
                options.check_strategy, str(options.check_top), str(options.check_require_mention),
                str(options.check_require_subject), str(options.check_unnamed), str(options.check_documents),
                str(options.check_paragraphs),
                str(options.check_embeddings), options.check_embedding_model, options.judge_backend,
                options.judge_model, options.template, str(options.threshold), str(options.justify)]
    return hashlib.sha256("\n".join([worklist.identity, *settings]).encode()).hexdigest()[:16]
