"""What the queue carries and what a worker does with it, over parts passed in (the ledger, the run's parts, the
broker): :func:`enqueue` turns a worklist into a run of the shared ledger and one task per batch of its items, on the
run's own queue (``bot.distributed.names``); :func:`servable` says which runs of its ledger a worker serves (those
enqueued with its settings) and why it refuses the others; :func:`perform` is one delivery of a task — the message
checked (``bot.distributed.messages``, then against the ledger), the items checked exactly as `refbot run` checks
them, each statement recorded once in the run whatever worker records it, the item then marked finished (the run
with its last item) — and says how it ended: done, refused, to be tried again later, or failed for good (the run's
error, which `refbot run --status` shows).

Delivery is at least once (a worker that dies before acknowledging its task leaves it to another): a task whose
items are finished already does nothing, and statements already recorded are not checked again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import islice
from typing import Any, Protocol

from bot import shared_settings
from bot.checking.statement import Tools
from bot.clock import Clock, stamp
from bot.distributed.messages import MAX_DELAY_S, BadMessage, TaskMessage, task_message
from bot.distributed.names import queue_name, run_of_queue
from bot.documents.services import ServiceClient
from bot.errors import ConfigError, InputError, InternalError, RefbotError
from bot.judge.engine import Judge
from bot.options import Options
from bot.output.run_trace import TraceRecords, keep_run_settings
from bot.ledger.ledger import Queue, RunLedger, SharedRun
from bot.ledger.ledger import Run as LedgerRun
from bot.check_run import Parts, Run, run_key, settings_key
from bot.selection import selection_rules
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.worklists import Worklist, select
from bot.verify_run import KEY_PREFIX as VERIFY_KEY
from bot.verify_run import VerifyRun
from bot.verifying.selection import select_cited

# The longest pause before a failed task is tried again (a message with a later ETA is refused as none of refbot's).
MAX_RETRY_DELAY_S = MAX_DELAY_S
# Workers that may end (their process dying) with an item in hand before the item fails for good.
MAX_STOPS = 3
log = logging.getLogger("refbot.worker")


class Broker(Protocol):
    """The queue's side of enqueueing (``bot.distributed.app.CeleryBroker``)."""

    def ping(self) -> None:
        """Return when the broker answers; a RefbotError naming it otherwise."""

    def send(self, queue: str, message: TaskMessage) -> None: ...

    def pending(self, queue: str) -> int:
        """Tasks waiting on the queue (not those a worker holds)."""


@dataclass(frozen=True)
class Enqueued:
    run: LedgerRun
    items: int  # the run's items
    sent: int  # tasks sent now
    left: int  # items not finished
    queue: str


def enqueue(parts: Parts, worklist: Worklist, ledger: RunLedger, broker: Broker, *, batch: int = 1,
            new: bool = False, visibility_timeout: float = 3600.0, verify: bool = False) -> Enqueued:
    """The worklist's run opened (or an unfinished one resumed) in the shared ledger, its items and settings recorded,
    and a task sent to the run's queue for each ``batch`` of items that no pending task holds: enqueuing a worklist
    again sends only what is left and not on the queue already — also when two processes enqueue it at once. The
    broker is asked first and the worklist selected before the run is opened: an unreachable broker or endpoint leaves
    no run behind. The items are those with statements that need a reference (``--limit`` counts statements, a worker
    checks each of its items' statements); with ``verify``, those with statements that cite a page (a verify run,
    ``--limit`` counting references), whose references the workers verify."""
    options = parts.options
    broker.ping()
    endpoint, rules, page_size = parts.require_endpoint(), selection_rules(options), options.sparql.page_size
    if verify:  # the items of the first --limit references (read no further), or of all
        cited = (entry.statement.item for selection in select_cited(endpoint, worklist, rules, page_size=page_size)
                 for entry in selection.cited for _ in entry.citations)
        key, description = VERIFY_KEY + run_key(options, worklist), f"verify {worklist.description} (workers)"
    else:  # the items of the first --limit statements, or of all
        cited = (statement.item for selection in select(endpoint, worklist, rules, page_size=page_size)
                 for statement in selection.statements)
        key, description = run_key(options, worklist), f"{worklist.description} (workers)"
    items = list(dict.fromkeys(islice(cited, worklist.limit or None)))
    record = ledger.open_run(key, description, new=new)
    ledger.enqueue(record, items, settings=settings_key(options), properties=worklist.properties,
                   shared=shared_settings.shared(options))
    identity, name = ledger.identity, queue_name(ledger.identity, record.id)
    # Tasks sent earlier are on the queue or with a worker, unless the queue lost them (its Redis emptied): those
    # sent longer ago than a task is held are sent again only when nothing waits on the queue.
    resend_before = stamp(parts.clock() - timedelta(seconds=visibility_timeout)) if not broker.pending(name) \
        else None
    sent = ledger.send_unsent(record, lambda chunk: broker.send(name, TaskMessage(identity, record.id, tuple(chunk))),
                              batch=batch, resend_before=resend_before)
    queue = ledger.queue(record.id)
    left = queue.left if queue else 0
    if not left:
        ledger.finish_if_done(record)
    return Enqueued(record, queue.items if queue else 0, sent, left, name)


def servable(options: Options, runs: Sequence[SharedRun]) -> list[tuple[SharedRun, str | None]]:
    """Each unfinished run of the ledger with why this worker refuses it (None: it serves it): a run enqueued with
    other settings that change an outcome, naming each."""
    mine = settings_key(options)
    return [(run, None if run.settings == mine else _other_settings(options, run)) for run in runs]


def _other_settings(options: Options, run: SharedRun) -> str:
    outcome, _ = shared_settings.recorded(run.shared)
    named = shared_settings.differences(outcome, shared_settings.outcome_settings(options)) if outcome else []
    return ("it was enqueued with other settings than this worker's: "
            + ("; ".join(named) if named else "it recorded none to compare (enqueued by an older refbot)"))


@dataclass(frozen=True)
class TaskEnd:
    """How one delivery of a task ended: ``done`` (``counts``: outcomes recorded now), ``refused`` (no task this
    worker may do: never tried again), ``retry`` (after ``retry_in`` seconds, by any worker) or ``failed`` (for
    good: the run's error)."""

    kind: str
    detail: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    retry_in: float = 0.0
    run: int | None = None
    items: tuple[str, ...] = ()


def perform(parts: Parts, ledger: RunLedger, args: Sequence[Any], kwargs: Mapping[str, Any], *, queue: str = "",
            attempt: int = 0, retries: int = 8, retry_delay: float = 30.0, worker: str = "") -> TaskEnd:
    """One delivery of a task (``attempt``: the deliveries before it that failed). Errors that can never succeed —
    a message that is no task of this worker's, an item the run does not hold, an option missing (no search engine)
    — end it at once; any other (a part unavailable, refbot's own failure) is tried again ``retries`` times, after
    ``retry_delay`` seconds and twice as long each next time, and then fails for good. ``worker``: the name the
    items are taken in hand under (a worker whose process dies keeps them: the next one reports it)."""
    try:
        message = task_message(args, kwargs)
    except BadMessage as error:
        return TaskEnd("refused", str(error))
    try:
        shared, refusal = _task_run(parts.options, ledger, message, queue)
    except Exception as error:  # noqa: BLE001 (the ledger unreachable: the task is tried again)
        if attempt >= retries:  # (its error cannot be recorded in a ledger that does not answer)
            return TaskEnd("failed", f"{_reason(error)} (tried {attempt + 1} times)", run=message.run,
                           items=message.items)
        return TaskEnd("retry", _reason(error), retry_in=_pause(attempt, retry_delay), run=message.run,
                       items=message.items)
    if shared is None:
        return TaskEnd("refused", refusal, run=message.run, items=message.items)
    _, worklist = shared_settings.recorded(shared.shared)
    run_parts = RunParts(parts, shared_settings.with_worklist(parts.options, worklist))
    verifying = shared.run.key.startswith(VERIFY_KEY)
    try:
        if verifying:
            counts = verify_items(run_parts, ledger, shared.run, message.items, properties=shared.properties,
                                  worker=worker)
        else:
            counts = check_items(run_parts, ledger, shared.run, message.items, properties=shared.properties,
                                 worker=worker)
        keep_run_settings(ledger, shared.run, run_parts, mode="verify" if verifying else "run")
    except (ConfigError, InputError, WorkersEnded) as error:  # another try would end alike
        _let_go(ledger, shared.run, message.items)
        return _failed(ledger, shared.run, message.items, str(error))
    except Exception as error:  # noqa: BLE001 (a part unavailable, or refbot's own failure: tried again)
        _let_go(ledger, shared.run, message.items)
        if attempt >= retries:
            return _failed(ledger, shared.run, message.items, f"{_reason(error)} (tried {attempt + 1} times)")
        return TaskEnd("retry", _reason(error), retry_in=_pause(attempt, retry_delay), run=shared.run.id,
                       items=message.items)
    return TaskEnd("done", counts=counts, run=shared.run.id, items=message.items)


def _let_go(ledger: RunLedger, run: LedgerRun, items: Sequence[str]) -> None:
    """The task's items out of this worker's hand: its task ended here, not with its process."""
    try:
        ledger.let_go(run, items)
    except Exception as error:  # noqa: BLE001 (the ledger gone: the next worker reports a stop that was none)
        log.warning("run %s items %s could not be let go of (%s)", run.id, ",".join(items), _reason(error))


def _reason(error: Exception) -> str:
    return str(error) if isinstance(error, RefbotError) else f"{type(error).__name__}: {error}"


def _pause(attempt: int, retry_delay: float) -> float:
    """Seconds before try ``attempt + 1``: twice as long as before each time, at most MAX_RETRY_DELAY_S."""
    return min(MAX_RETRY_DELAY_S, retry_delay * 2 ** attempt)


def _failed(ledger: RunLedger, run: LedgerRun, items: Sequence[str], reason: str) -> TaskEnd:
    error = f"items {','.join(items)}: {reason}"
    try:
        ledger.fail_items(run, items, error)
    except Exception as unrecorded:  # noqa: BLE001 (the ledger gone too: the task is tried again later)
        return TaskEnd("retry", f"{reason}; the error could not be recorded ({unrecorded})",
                       retry_in=MAX_RETRY_DELAY_S / 12, run=run.id, items=tuple(items))
    return TaskEnd("failed", error, run=run.id, items=tuple(items))


def _task_run(options: Options, ledger: RunLedger, message: TaskMessage, queue: str) -> tuple[SharedRun | None, str]:
    """The run the task's message names, or why the message is refused."""
    if message.ledger != ledger.identity:
        return None, f"it is a task of another ledger ({message.ledger}), not of {ledger.path}"
    if queue and run_of_queue(ledger.identity, queue) != message.run:
        return None, f"it names run {message.run} but came on queue {queue}"
    shared = ledger.shared_run(message.run)
    if shared is None:
        return None, f"the ledger {ledger.path} has no enqueued run {message.run}"
    if shared.finished:
        return None, f"run {message.run} is finished"
    if shared.settings != settings_key(options):
        return None, _other_settings(options, shared)
    enqueued = ledger.enqueued_among(shared.run, message.items)
    outside = [item for item in message.items if item not in enqueued]
    if outside:
        return None, f"{outside[0]} is not an item of run {message.run}"
    return shared, ""


def check_items(parts: Parts, ledger: RunLedger, record: LedgerRun, items: Sequence[str], *,
                properties: Sequence[str] = (), worker: str = "") -> dict[str, int]:
    """Each item of the run not finished yet checked as `refbot run` checks it, its statements recorded in the
    shared ledger, the item marked finished. The outcomes recorded now, by outcome. The run's failure (the judge
    gone) is raised with the item left unfinished, for the task to be tried again."""
    counts: dict[str, int] = {}
    for item in items:
        if not _started(ledger, record, item, worker):
            continue  # finished by a worker that died before acknowledging the task
        run = Run.part_of(parts, record, Worklist.of_items([item], properties=tuple(properties)), ledger)
        result = run.check()
        if result.failure is not None:
            raise result.failure
        for check in result.checked:
            counts[check.outcome.value] = counts.get(check.outcome.value, 0) + 1
        ledger.finish_item(record, item)
    return counts


def verify_items(parts: Any, ledger: RunLedger, record: LedgerRun, items: Sequence[str], *,
                 properties: Sequence[str] = (), worker: str = "") -> dict[str, int]:
    """Each item of a verify run not finished yet, its references verified as `refbot verify` verifies them and
    recorded in the shared ledger, the item marked finished. The findings recorded now."""
    counts: dict[str, int] = {}
    for item in items:
        if not _started(ledger, record, item, worker):
            continue
        run = VerifyRun.part_of(parts, record, Worklist.of_items([item], properties=tuple(properties)), ledger)
        result = run.verify()
        if result.failure is not None:
            raise result.failure
        for check in result.checked:
            counts[check.finding.value] = counts.get(check.finding.value, 0) + 1
        ledger.finish_item(record, item)
    return counts


class WorkersEnded(InternalError):
    """Workers ended (their processes died) while they had the item in hand, MAX_STOPS times: it fails for good."""


def _started(ledger: RunLedger, record: LedgerRun, item: str, worker: str) -> bool:
    """The item taken in hand by ``worker``; False when it is finished already. A worker before that ended while it
    had the item (its process died mid-item: a crash, a kill, the machine) is refbot's error, logged; after
    MAX_STOPS such ends the item fails for good (WorkersEnded), rather than end the next worker too."""
    start = ledger.start_item(record, item, worker)
    if start.stopped:
        ended = f"{start.stops} worker(s) ended while checking it, the last {start.stopped}"
        log.error("run %s item %s: %s (its process died mid-item: a crash, a kill or the machine; see that "
                  "worker's log): refbot's error", record.id, item, ended)
        if start.stops >= MAX_STOPS:
            raise WorkersEnded(f"{ended}; left unchecked rather than end another worker", component="workers",
                               hint="read those workers' logs, where a crash prints its stack; then enqueue the "
                                    "worklist again")
    return start.go


class RunParts:
    """A worker's parts, with the options its run recorded for its worklist (``[run] recheck_days``, …)."""

    def __init__(self, parts: Parts, options: Options) -> None:
        self._parts, self.options = parts, options
        self.clock: Clock = parts.clock

    @property
    def tools(self) -> Tools:
        return self._parts.tools

    @property
    def verify_tools(self) -> Tools:
        return self._parts.verify_tools  # type: ignore[attr-defined]

    @property
    def services(self) -> ServiceClient:
        return self._parts.services

    @property
    def records(self) -> TraceRecords:
        return self._parts.records  # type: ignore[return-value]

    @property
    def judge(self) -> Judge:
        return self._parts.judge  # type: ignore[attr-defined]

    def require_endpoint(self) -> SparqlEndpoint:
        return self._parts.require_endpoint()


def status(ledger: RunLedger, run_id: int) -> tuple[LedgerRun, Queue | None, dict[str, int]]:
    """Where a run stands: its queue (None: a run checked in one process, not enqueued) and the statements recorded,
    by outcome. InputError naming the ledger's newest run when it has no run ``run_id``."""
    record = ledger.run(run_id)
    if record is None:
        latest = ledger.latest_run()
        raise InputError(f"the ledger {ledger.path} has no run {run_id}",
                         hint=f"its newest is run {latest.id} (`refbot run --status latest`)" if latest is not None
                         else "no run has been recorded in it yet")
    return record, ledger.queue(run_id), ledger.counts(record)
