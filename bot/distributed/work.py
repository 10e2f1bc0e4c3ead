"""What the queue carries and what a worker does with it, over parts passed in (the ledger, the run's parts, the
function that sends a task): :func:`enqueue` turns a worklist into a run of the shared ledger and one task per batch
of its items; :func:`check_items` is a task — the items checked exactly as `refbot run` checks them, each statement
recorded once in the run whatever worker records it, the item then marked finished (the run with its last item).

Delivery is at least once (a worker that dies before acknowledging its task leaves it to another): a task whose
items are finished already does nothing, and statements already recorded are not checked again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.errors import InputError
from bot.options import Options
from bot.runledger import Queue, RunLedger
from bot.runledger import Run as LedgerRun
from bot.runs import Parts, Run, run_key, settings_key
from bot.selection import selection_rules
from bot.selection.worklists import Worklist, select

# A task: (queue name, run id, items).
Send = Callable[[str, int, list[str]], None]


def queue_name(options: Options) -> str:
    """The queue a run's tasks go to: named after the settings its workers must share, so that a worker with
    other settings (another judge, another threshold) never takes them."""
    return f"refbot-{settings_key(options)}"


@dataclass(frozen=True)
class Enqueued:
    run: LedgerRun
    items: int  # the run's items
    sent: int  # tasks sent now
    left: int  # items not finished (those the tasks carry)
    queue: str


def enqueue(parts: Parts, worklist: Worklist, ledger: RunLedger, send: Send, *, batch: int = 1,
            new: bool = False) -> Enqueued:
    """The worklist's run opened (or an unfinished one resumed) in the shared ledger, its items recorded, and a task
    sent for each ``batch`` of items not finished yet: enqueuing a worklist again re-sends only what is left. The
    items are those with statements that need a reference (``--limit`` counts statements, a worker checks each of
    its items' statements)."""
    options = parts.options
    record = ledger.open_run(run_key(options, worklist), f"{worklist.description} (workers)", new=new)
    statements = [statement for selection in select(parts.require_endpoint(), worklist, selection_rules(options),
                                                    page_size=options.sparql.page_size)
                  for statement in selection.statements]
    if worklist.limit:
        statements = statements[:worklist.limit]
    items = list(dict.fromkeys(statement.item for statement in statements))
    ledger.enqueue(record, items, settings=settings_key(options), properties=worklist.properties)
    left = ledger.unfinished_items(record)
    name = queue_name(options)
    for start in range(0, len(left), batch):
        send(name, record.id, left[start:start + batch])
    if not left:
        ledger.finish_if_done(record)
    queue = ledger.queue(record.id)
    return Enqueued(record, queue.items if queue else 0, -(-len(left) // batch), len(left), name)


def check_items(parts: Parts, ledger: RunLedger, run_id: int, items: Sequence[str]) -> dict[str, int]:
    """One task: each item of the run not finished yet checked as `refbot run` checks it, its statements recorded
    in the shared ledger, the item marked finished. The outcomes recorded now, by outcome. InputError when the
    ledger has no such enqueued run; the run's failure (the judge gone) is raised with the item left unfinished, for
    the task to be tried again."""
    record = ledger.run(run_id)
    shared = ledger.workers_settings(run_id) if record is not None else None
    if record is None or shared is None:
        raise InputError(f"the ledger {ledger.path} has no enqueued run {run_id}",
                         hint="point the worker's [run] ledger at the ledger `refbot run --enqueue` used")
    settings, properties = shared
    if settings != settings_key(parts.options):
        raise InputError(f"run {run_id} was enqueued with other settings than this worker's",
                         hint="start workers with the configuration the run was enqueued with")
    counts: dict[str, int] = {}
    for item in items:
        if not ledger.start_item(record, item):
            continue  # finished by a worker that died before acknowledging the task
        run = Run.part_of(parts, record, Worklist.of_items([item], properties=properties), ledger)
        result = run.check()
        if result.failure is not None:
            raise result.failure
        for check in result.checked:
            counts[check.outcome.value] = counts.get(check.outcome.value, 0) + 1
        ledger.finish_item(record, item)
    return counts


def status(ledger: RunLedger, run_id: int) -> tuple[LedgerRun, Queue, dict[str, int]]:
    """Where an enqueued run stands: its queue and the statements recorded, by outcome."""
    record = ledger.run(run_id)
    queue = ledger.queue(run_id) if record is not None else None
    if record is None or queue is None:
        raise InputError(f"the ledger {ledger.path} has no enqueued run {run_id}",
                         hint="pass the run id `refbot run --enqueue` printed")
    return record, queue, ledger.counts(record)
