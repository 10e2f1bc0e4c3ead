"""The Celery application: tasks through a Redis broker, acknowledged only once done (a worker that dies mid-task
leaves it unacknowledged, and the broker gives it to another worker after ``[queue] visibility_timeout``), one task
at a time per worker process, no results kept (the ledger is the result).

Every key it writes in Redis begins with the tool's prefix (``bot.distributed.names``), and every message a worker
takes is screened first (``bot.distributed.transport``). Each run has a queue of its own: `refbot worker` serves the
unfinished runs of its ledger that were enqueued with its settings — looking for new ones every
:data:`REFRESH_S` seconds, and logging once, naming each differing setting, why it refuses any other — in one
process (the solo pool: the process builds its parts — judge, embedding model, HTTP clients — once, and checks each
item with them); scale by starting more processes, here or on other machines.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis

from celery import Celery, bootsteps
from celery.exceptions import Reject, SecurityWarning
from kombu.exceptions import ChannelError, OperationalError

from bot.distributed.messages import TASK, BadMessage, TaskMessage, task_message
from bot.distributed.names import idle_queue, key_prefix, queue_name, run_of_queue
from bot.distributed import lease
from bot.distributed.presence import Heartbeat, forget_queue, seen_workers, worker_key
from bot.distributed.transport import NAME as TRANSPORT
from bot.distributed.work import perform, servable
from bot.errors import InputError, RefbotError, ServiceError
from bot.faults import first_line
from bot.options import Options, QueueOptions, without_password
from bot.ledger.ledger import RunLedger
from bot.wiring import Wiring

# How often a worker looks in its ledger for runs to serve, in seconds.
REFRESH_S = 5.0
log = logging.getLogger("refbot.worker")


def make_app(queue: QueueOptions, *, prefix: str, default_queue: str) -> Celery:
    """``prefix``: what every Redis key begins with; ``default_queue``: where a task named no queue would go."""
    app = Celery("refbot", broker=queue.broker, set_as_current=False)
    app.conf.update(
        broker_transport=TRANSPORT,  # kombu's Redis transport, every message screened as it is taken
        task_acks_late=True,  # acknowledged when done: a dead worker's task is given to another
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker holds no task it has not started
        task_ignore_result=True,
        task_serializer="json", accept_content=["json"],
        # A dead worker's task is looked for every 10 s (kombu's default: every 100 s).
        broker_transport_options={"visibility_timeout": queue.visibility_timeout, "global_keyprefix": prefix,
                                  "unacked_restore_throttle": 1},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        worker_enable_remote_control=False,  # no control queue: a worker reads only its runs' queues
        task_default_queue=default_queue,
    )
    return app


class CeleryBroker:
    """The enqueuer's side of the queue (``bot.distributed.work.Broker``)."""

    def __init__(self, app: Celery, url: str) -> None:
        self.app, self.url = app, without_password(url)

    def ping(self) -> None:
        with self._answering("no run was opened"):
            with self.app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1, timeout=10)
                connection.default_channel.client.ping()

    def send(self, queue: str, message: TaskMessage) -> None:
        with self._answering("the items not sent are sent when the worklist is enqueued again"):
            self.app.send_task(TASK, args=[message.as_json()], queue=queue)

    @contextmanager
    def _answering(self, then: str) -> Iterator[None]:
        """The broker's failures (kombu's, redis-py's: refused, a wrong password, a wrong database) as one line."""
        try:
            yield
        except (OperationalError, ChannelError, OSError, redis.RedisError) as error:
            reason = str(error).strip().splitlines()
            raise ServiceError(reason[0] if reason else type(error).__name__, service="the queue", url=self.url,
                               hint=f"check [queue] broker and that Redis runs; {then}") from None

    def pending(self, queue: str) -> int:
        with self.app.connection_for_write() as connection:
            try:
                return int(connection.default_channel.queue_declare(queue=queue, passive=True).message_count)
            except ChannelError:  # (Redis keeps no empty queue)
                return 0


class WorkerState:
    """What a worker process builds once and uses for every task: its parts, the shared ledger and its heartbeat
    (None: not started)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self._parts: Any = None
        self._ledger: RunLedger | None = None
        self.heartbeat: Heartbeat | None = None
        self.broker: Any = None  # the worker's own Redis client (heartbeat, lease)
        self.lost: InputError | None = None  # another ledger of the same identity holds the lease now

    def renew(self) -> None:
        """Renew the ledger's lease on the broker (``bot.distributed.lease``); when another ledger of the same
        identity holds it, remember why and stop the worker (it finishes nothing more: SIGTERM, a warm
        shutdown). Redis not answering is logged (a worker goes on; the lease is renewed at the next beat)."""
        if self.broker is None or self.lost is not None:
            return
        try:
            lease.hold(self.broker, key_prefix(self.options), self.ledger)
        except InputError as error:
            self.lost = error
            log.error("%s", error)
            os.kill(os.getpid(), signal.SIGTERM)
        except (redis.RedisError, RefbotError) as error:
            log.warning("the ledger's lease was not renewed: %s", error)

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

    @app.task(name=TASK, bind=True, acks_late=True, max_retries=None)
    def check(task: Any, *args: Any, **kwargs: Any) -> dict[str, int] | None:
        queue = (task.request.delivery_info or {}).get("routing_key") or ""
        state.renew()  # (a worker of a copy that lost the lease leaves the task on the queue for the holder)
        if state.lost is not None:
            raise Reject(f"this worker's ledger does not hold its identity's lease: {state.lost}", requeue=True)
        if state.heartbeat is not None:
            state.heartbeat.working(*_task_of(args, kwargs, state.ledger.identity, queue))
        try:
            end = perform(state.parts, state.ledger, args, kwargs, queue=queue, attempt=task.request.retries or 0,
                          retries=state.options.queue.retries, retry_delay=state.options.queue.retry_delay,
                          worker=str(task.request.hostname or ""))
        finally:
            if state.heartbeat is not None:
                state.heartbeat.idle()
        where = f"run {end.run} items {','.join(end.items)}" if end.run is not None else f"queue {queue}"
        if end.kind == "refused":
            log.warning("refused a task on %s: %s", where, end.detail)
        elif end.kind == "failed":
            log.error("%s failed for good: %s", where, end.detail)
        elif end.kind == "retry":
            log.warning("%s: %s; trying again in %g s", where, end.detail, end.retry_in)
            raise task.retry(countdown=end.retry_in, max_retries=None)
        else:
            log.info("%s: %s", where, ", ".join(f"{n} {outcome}" for outcome, n in sorted(end.counts.items()))
                     or "nothing left to check")
        return end.counts


def _task_of(args: Any, kwargs: Any, ledger: str, queue: str) -> tuple[int, tuple[str, ...]]:
    """The run and items a task names, for the heartbeat (a message that is none: the run of its queue)."""
    try:
        message = task_message(args, kwargs)
        return message.run, message.items
    except BadMessage:
        return run_of_queue(ledger, queue) or 0, ()


def served_runs(state: WorkerState) -> type[bootsteps.StartStopStep]:
    """The consumer's step that keeps the worker on the queues of the runs it serves."""

    class ServedRuns(bootsteps.StartStopStep):
        requires = {"celery.worker.consumer.tasks:Tasks"}

        def __init__(self, parent: Any, **kwargs: Any) -> None:
            super().__init__(parent, **kwargs)
            self.served: dict[int, str] = {}
            self.refused: set[int] = set()
            self.timer: Any = None

        def start(self, consumer: Any) -> None:
            self.served.clear()  # (a consumer restarted after a lost connection consumes its start queues only)
            self.refresh(consumer)
            self.timer = consumer.timer.call_repeatedly(REFRESH_S, self.refresh, (consumer,), priority=10)

        def stop(self, consumer: Any) -> None:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def refresh(self, consumer: Any) -> None:
            try:
                runs = servable(state.options, state.ledger.shared_runs())
                identity = state.ledger.identity
            except RefbotError as error:
                log.warning("cannot read the runs to serve: %s", error)
                return
            wanted = {}
            for shared, refusal in runs:
                if refusal is None:
                    wanted[shared.run.id] = queue_name(identity, shared.run.id)
                elif shared.run.id not in self.refused:
                    self.refused.add(shared.run.id)
                    log.error("refusing run %s: %s (start workers with the configuration it was enqueued with)",
                              shared.run.id, refusal)
            for run_id, queue in wanted.items():
                if run_id not in self.served:
                    consumer.add_task_queue(queue)
                    self.served[run_id] = queue
                    log.info("serving run %s (queue %s)", run_id, queue)
            for run_id in [run_id for run_id in self.served if run_id not in wanted]:
                queue = self.served.pop(run_id)
                consumer.cancel_task_queue(queue)
                try:
                    with consumer.app.connection_for_write() as connection:
                        forget_queue(connection.default_channel.client, queue)
                except (OperationalError, ChannelError, OSError, redis.RedisError) as error:
                    log.warning("run %s finished; its queue's keys stay (%s)", run_id, error)
                log.info("run %s finished: no longer served, its queue deleted", run_id)

    return ServedRuns


def serve(options: Options, *, name: str = "", loglevel: str = "INFO") -> int:
    """Run a worker in this process until it is stopped (SIGTERM: it finishes its task first); its exit status
    (not 0: something stopped it)."""
    state = WorkerState(options)
    idle = idle_queue(state.ledger.identity)  # the ledger opened first: one that cannot be is a one-line error
    app = make_app(options.queue, prefix=key_prefix(options), default_queue=idle)
    register(app, state)
    app.steps["consumer"].add(served_runs(state))
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # said once, by refbot, instead of Celery's six-line warning
        log.warning("the worker runs as root: run it as an unprivileged user (a container's image does; see "
                    "docs/workers.md)")
        warnings.filterwarnings("ignore", category=SecurityWarning)
    hostname = name or f"refbot-{os.getpid()}@{socket.gethostname()}"
    worker = app.Worker(hostname=hostname, pool_cls="solo", concurrency=1, queues=[idle], without_gossip=True,
                        without_mingle=True, without_heartbeat=True, loglevel=loglevel, quiet=True)
    client = state.broker = redis.Redis.from_url(options.queue.broker, socket_connect_timeout=10, socket_timeout=10)
    prefix = key_prefix(options)
    try:
        lease.hold(client, prefix, state.ledger)  # another live ledger of this identity: refused before any task
    except redis.RedisError as error:
        client.close()
        raise ServiceError(first_line(error), service="the queue", url=without_password(options.queue.broker),
                           hint="check [queue] broker and that Redis runs") from None
    except RefbotError:
        client.close()
        raise
    state.heartbeat = Heartbeat(client, worker_key(prefix, state.ledger.identity, hostname), hostname,
                                renew=state.renew)
    state.heartbeat.start()
    try:
        worker.start()
    finally:
        state.heartbeat.stop()
        _release_if_last(state, prefix)
        client.close()
    if state.lost is not None:
        raise state.lost
    return int(worker.exitcode or 0)


def _release_if_last(state: WorkerState, prefix: str) -> None:
    """Free the ledger's lease when no other worker of it is heard from (a restore may then take it over at once)."""
    if state.lost is not None:
        return
    try:
        if not seen_workers(state.broker, prefix, state.ledger.identity):
            lease.release(state.broker, prefix, state.ledger)
    except (redis.RedisError, RefbotError) as error:
        log.warning("the ledger's lease was left to expire: %s", error)
