"""``refbot worker`` and the commands of runs that workers share: ``refbot run --enqueue`` (a worklist as tasks on
the queue), ``refbot run --status RUN`` (where it stands) and ``refbot report --run RUN`` (its trace and report,
assembled from the shared ledger)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from bot.output.file_names import run_stem
from bot.cli.arguments import LATEST, ledger_target, worklist_from
from bot.cli.exits import Ended
from bot.clock import stamp, system_clock
from bot.distributed import app as queue_app
from bot.distributed.work import enqueue, status
from bot.distributed.lease import hold_at
from bot.distributed.names import idle_queue, key_prefix
from bot.distributed.presence import SEEN_S, age, seen_at
from bot.errors import ConfigError, InputError, RefbotError, ServiceError
from bot.options import Options
from bot.output.run_trace import ledger_trace, writable_folder, write_run
from bot.review.proposals import export_problem
from bot.review.store import keep_for_review
from bot.ledger.ledger import RunLedger
from bot.selection.worklists import Worklist
from bot.wiring import Wiring


def add_parsers(commands: Any) -> None:
    worker = commands.add_parser(
        "worker", help="check the items of enqueued runs, as one of many worker processes",
        description="A Celery worker: takes the tasks `refbot run --enqueue` put on the queue ([queue] broker) for "
                    "runs with this configuration's settings, checks each item as `refbot run` does, and records "
                    "every statement in the shared ledger ([run] ledger). Start as many as the judge and the hosts "
                    "allow, on any machines; SIGTERM lets a worker finish its task first.")
    worker.add_argument("--name", metavar="NAME", default="", help="the worker's name (default refbot-PID@HOST)")
    worker.add_argument("--loglevel", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="what the worker logs to standard error (INFO: one line a task)")
    worker.add_argument("--ledger", dest="run_ledger", type=ledger_target, metavar="FILE|URL",
                        help="the shared run ledger (a database URL: postgresql://…, mysql+pymysql://…)")
    worker.add_argument("--broker", dest="queue_broker", metavar="URL", help="the queue ([queue] broker, redis://…)")


def _broker(options: Options) -> None:
    if not options.queue.broker:
        raise ConfigError("no queue to put the run's tasks on", hint="set [queue] broker = redis://HOST:6379/0")


def run_worker(args: argparse.Namespace, options: Options) -> Ended | None:
    _broker(options)
    status = queue_app.serve(options, name=args.name, loglevel=args.loglevel)
    if status:
        return Ended(stopped=RefbotError(f"the worker stopped on an unrecoverable error (status {status})",
                                         hint="its log above says which; start it again"))
    return None


def run_enqueue(args: argparse.Namespace, options: Options, *, worklist: Worklist | None = None,
                verify: bool = False) -> None:
    """`refbot run --enqueue` (``verify``: `refbot verify --enqueue`, its references verified by the workers)."""
    _broker(options)
    parts = Wiring(options)
    worklist = worklist or worklist_from(args, limit=args.limit)
    with RunLedger.of(options.run, clock=parts.clock) as ledger:
        app = queue_app.make_app(options.queue, prefix=key_prefix(options), default_queue=idle_queue(ledger.identity))
        hold_at(options.queue.broker, key_prefix(options), ledger)  # refused: a copy of a ledger another uses
        done = enqueue(parts, worklist, ledger, queue_app.CeleryBroker(app, options.queue.broker),
                       batch=options.queue.batch, new=args.new, visibility_timeout=options.queue.visibility_timeout,
                       verify=verify)
    state = "resumed" if done.run.resumed else "new"
    print(f"run {done.run.id} ({state}): {done.items} item(s), {done.left} left; {done.sent} task(s) sent to "
          f"queue {done.queue}")
    if not args.quiet:
        print(f"refbot: start workers with this configuration (`refbot worker`); follow it with "
              f"`refbot run --status {done.run.id}`; its trace with `refbot report --run {done.run.id}`",
              file=sys.stderr)


def ledger_home(options: Options, *, new_identity: bool) -> None:
    """`refbot run --new-identity` (a copy made on purpose becomes a ledger of its own) or `--ledger-moved`."""
    with RunLedger.of(options.run, create=False) as ledger:
        if new_identity:
            identity = ledger.new_identity()
            print(f"the ledger {ledger.path} has its own identity now: {identity}; enqueue its unfinished runs again "
                  f"(`refbot run --enqueue` with their worklists) for its workers")
        else:
            identity = ledger.ledger_moved()
            print(f"the ledger {ledger.path} lives here now; its identity {identity} and its runs' queues are kept")


def run_status(args: argparse.Namespace, options: Options) -> Ended:
    with RunLedger.of(options.run, create=False) as ledger:
        record, queue, counts = status(ledger, run_id(ledger, args.status))
        finished = ledger.run_finished(record)
        identity = ledger.identity
        if options.queue.broker:  # the workers listed are this ledger's only while it holds its identity's lease
            try:
                hold_at(options.queue.broker, key_prefix(options), ledger)
            except ServiceError:
                pass  # (Redis not answering: said on the workers' line below)
    outcomes = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "none yet"
    if queue is None:  # checked in one process (`refbot run`, `refbot verify`): no queue, no workers
        print(f"run {record.id} (checked in one process, not by workers): {sum(counts.values())} statement(s) "
              f"recorded ({outcomes}); " + (f"finished {finished}" if finished else "not finished"))
        return Ended(failed=counts.get("error", 0))
    print(f"run {record.id}: {queue.finished}/{queue.items} item(s) finished, {queue.left} left; "
          f"{sum(counts.values())} statement(s) recorded ({outcomes}); {queue.redelivered} task(s) delivered again; "
          + (f"finished {finished}" if finished else "not finished")
          + (f"; error: {queue.error} (fix it, then enqueue the worklist again)" if queue.error else ""))
    if not finished:
        if queue.oldest:
            waited = (system_clock() - datetime.fromisoformat(queue.oldest.replace("Z", "+00:00"))).total_seconds()
            print(f"  oldest unfinished task: sent {age(waited)} ago")
        print(f"  {_workers(options, identity)}")
    return Ended(failed=counts.get("error", 0) + bool(queue.error))


def _workers(options: Options, identity: str) -> str:
    """The workers of the ledger seen recently, each idle or on a task for so long."""
    if not options.queue.broker:
        return "workers: unknown ([queue] broker is not set)"
    try:
        seen = seen_at(options.queue.broker, key_prefix(options), identity)
    except RefbotError as error:
        return f"workers: unknown ({error})"
    if not seen:
        return f"no worker seen in the last {SEEN_S} s"
    return f"{len(seen)} worker(s) seen in the last {SEEN_S} s: " + ", ".join(worker.shown for worker in seen)


def run_id(ledger: RunLedger, wanted: int | str) -> int:
    """The run ``wanted`` names: its id, or ``latest``'s (the ledger's newest run). InputError when the ledger holds
    no run yet."""
    if wanted != LATEST:
        return int(wanted)
    latest = ledger.latest_run()
    if latest is None:
        raise InputError(f"{ledger.path or 'the ledger'} holds no run yet", hint="run `refbot run` first")
    return latest.id


def report_run(args: argparse.Namespace, options: Options) -> None:
    """The trace of any run from the ledger alone (what it recorded, whatever process or worker recorded it) and its
    report, loading no model; the run element kept for review."""
    with RunLedger.of(options.run, create=False) as ledger:
        chosen = run_id(ledger, args.run)
        stem = args.out.with_suffix("") if args.out else run_stem(options.check.reports, ledger, chosen)
        writable_folder(stem.parent, "--out" if args.out else "[check] reports (--reports)")
        tree = ledger_trace(ledger, chosen, options, now=stamp(system_clock()))
        keep_for_review(ledger, chosen, tree)
    xml, html = write_run(tree, stem, left_out=export_problem)
    print(f"trace: {xml}\nreport: {html}")


HANDLERS = {"worker": run_worker}
