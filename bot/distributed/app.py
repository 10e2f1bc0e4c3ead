"""The Celery application: tasks through a Redis broker, acknowledged only once done (a worker that dies mid-task
leaves it unacknowledged, and the broker gives it to another worker after ``[queue] visibility_timeout``), one task
at a time per worker process, no results kept (the ledger is the result).

`refbot worker` is a Celery worker on the queue of its settings (``bot.distributed.work.queue_name``), in one
process (the solo pool: the process builds its parts — judge, embedding model, HTTP clients — once, and checks
each item with them); scale by starting more processes, here or on other machines.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from celery import Celery

from bot.distributed.work import Send, check_items, queue_name
from bot.errors import RefbotError
from bot.options import Options, QueueOptions
from bot.runledger import RunLedger
from bot.wiring import Wiring

TASK = "refbot.check_items"
# A task whose run failed (the judge unreachable) is tried again this much later, this many times.
RETRY_AFTER_S = 30
RETRIES = 20


def make_app(queue: QueueOptions) -> Celery:
    app = Celery("refbot", broker=queue.broker, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # acknowledged when done: a dead worker's task is given to another
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker holds no task it has not started
        task_ignore_result=True,
        task_serializer="json", accept_content=["json"],
        broker_transport_options={"visibility_timeout": queue.visibility_timeout},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        task_default_queue="refbot",
    )
    return app


def sender(app: Celery) -> Send:
    def send(queue: str, run_id: int, items: list[str]) -> None:
        app.send_task(TASK, args=[run_id, items], queue=queue)
    return send


class WorkerState:
    """What a worker process builds once and uses for every task: its parts and the shared ledger."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._parts: Any = None
        self._ledger: RunLedger | None = None

    @property
    def parts(self) -> Any:
        if self._parts is None:  # the composition root builds the worker's clients, once
            self._parts = Wiring(self.options)
        return self._parts

    @property
    def ledger(self) -> RunLedger:
        if self._ledger is None:
            self._ledger = RunLedger.of(self.options.run, clock=self.parts.clock)
        return self._ledger


def register(app: Celery, state: WorkerState) -> None:
    """The check task, with the worker's state."""
    log = logging.getLogger("refbot.worker")

    @app.task(name=TASK, bind=True, max_retries=RETRIES, acks_late=True)
    def check(task: Any, run_id: int, items: list[str]) -> dict[str, int]:
        try:
            counts = check_items(state.parts, state.ledger, run_id, items)
        except RefbotError as error:  # the judge or the endpoint gone: tried again later, by any worker
            log.warning("run %s items %s: %s; trying again in %s s", run_id, ",".join(items), error, RETRY_AFTER_S)
            raise task.retry(exc=error, countdown=RETRY_AFTER_S) from None
        log.info("run %s items %s: %s", run_id, ",".join(items),
                 ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing left to check")
        return counts


def serve(options: Options, *, name: str = "", loglevel: str = "INFO") -> None:
    """Run a worker in this process until it is stopped (SIGTERM: it finishes its task first)."""
    app = make_app(options.queue)
    register(app, WorkerState(options))
    hostname = name or f"refbot-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(["worker", "--pool=solo", "--concurrency=1", f"--queues={queue_name(options)}",
                     f"--hostname={hostname}", "--without-gossip", "--without-mingle", f"--loglevel={loglevel}"])
