"""A waitress server that stops cleanly when asked from any thread or a signal handler.

waitress has no supported way to stop a server from another thread (Pylons/waitress#343, #372). The usual trick,
``server.trigger.pull_trigger(lambda: close_all(map))`` from the stopping thread, races: ``pull_trigger`` queues the
thunk first and writes to the trigger's pipe after, and waitress's request threads pull the same trigger, so the
loop can run ``close_all`` — closing the pipe — before the stopping thread writes; the write then fails (EBADF) or,
if the descriptor number was reused meanwhile, lands in another file or socket.

Here the loop is run one pass at a time (``wasyncore.loop(count=1)``) by the thread that called :meth:`run`, and
everything is closed by that thread, in an order where nothing writes to a closed descriptor:

1. :meth:`stop` only sets a flag, and wakes the loop through the trigger while holding a lock the loop takes
   before it closes the trigger (never waiting for it: a signal handler may run in the loop's own thread);
2. the loop sees the flag between passes and stops listening (no new connection);
3. it keeps running while the requests already taken are answered and their answers sent (the request threads wait
   for the loop to flush a long answer), up to ``grace_s``;
4. it ends the request threads, still running the loop while the last ones finish;
5. it closes every connection, and the trigger last — only once no request thread is left that could pull it.
   A thread still busy after ``grace_s`` (a request stuck in the application) is logged and the trigger's pipe is
   left open: a few descriptors kept until the process ends rather than a byte written into a reused one.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from waitress import wasyncore
from waitress.server import create_server

from bot.review.lanes import Lanes

log = logging.getLogger(__name__)

POLL_S = 0.5  # the longest a loop pass waits for a socket; a stop wakes it at once (the trigger)
GRACE_S = 20.0  # how long the requests in hand may take to be answered once a stop is asked for


class StopRequest(Protocol):
    """What tells a server to stop from outside it: a ``threading.Event``, or ``bot.cli.signals.Stop`` set by a
    signal handler."""

    def is_set(self) -> bool: ...


class StoppableServer:
    """A waitress server of ``app`` on ``host``:``port`` (0: a free port) with ``threads`` request threads. Serve
    with :meth:`run` (in one thread: the one that closes its sockets); :meth:`stop` from any other thread, a signal
    handler, or setting ``stop`` (checked between loop passes) ends it gracefully."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, threads: int = 4,
                 stop: StopRequest | None = None, grace_s: float = GRACE_S, poll_s: float = POLL_S,
                 ident: str = "refbot", dispatcher: Lanes | None = None) -> None:
        self._map: dict[int, Any] = {}
        if dispatcher is not None:
            dispatcher.set_thread_count(threads)  # (waitress starts the threads only of a dispatcher of its own)
        self.server: Any = create_server(app, map=self._map, host=host, port=port, threads=threads, ident=ident,
                                         **({"_dispatcher": dispatcher} if dispatcher is not None else {}))
        self._asked = stop
        self._stopping = False
        self._trigger_lock = threading.Lock()  # held to pull the trigger from outside, and to close it
        self._trigger_closed = False
        self._closed = False
        self.grace_s, self.poll_s = grace_s, poll_s

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def host(self) -> str:
        return str(self.server.effective_host)

    def stop(self) -> None:
        """Ask the server to stop; returns at once (:meth:`run` returns once it has). Safe from any thread and
        from a signal handler, also one running in the loop's own thread."""
        self._stopping = True
        if self._trigger_lock.acquire(blocking=False):  # not got: the loop is closing it, or another stop wakes it
            try:
                if not self._trigger_closed:
                    self.server.trigger.pull_trigger()  # (the loop cannot close it before this write: the lock)
            finally:
                self._trigger_lock.release()

    def stop_requested(self) -> bool:
        return self._stopping or (self._asked is not None and self._asked.is_set())

    def run(self) -> None:
        """Serve until a stop is asked for (or KeyboardInterrupt in this thread), then close everything."""
        try:
            while not self.stop_requested():
                wasyncore.loop(timeout=self.poll_s, map=self._map, count=1)
        finally:
            self.close()

    def _pass(self) -> None:
        wasyncore.loop(timeout=0.05, map=self._map, count=1)

    def _busy(self) -> bool:
        """Whether a request taken is still waiting for a thread, being answered, or its answer being sent."""
        if _pending(self.server.task_dispatcher):
            return True
        return any(channel.requests or channel.total_outbufs_len
                   for channel in list(self.server.active_channels.values()))

    def close(self) -> None:
        """Stop listening, answer the requests in hand, end the request threads and close every socket (what
        :meth:`run` does when it ends; for a server that was never run). Call it from the thread that ran the loop."""
        if self._closed:
            return
        self._closed = True
        server, dispatcher = self.server, self.server.task_dispatcher
        deadline = time.monotonic() + self.grace_s
        wasyncore.dispatcher.close(server)  # no new connection; the trigger stays open
        while self._busy() and time.monotonic() < deadline:
            self._pass()
        dispatcher.set_thread_count(0)  # each request thread ends after the request it is answering
        while dispatcher.threads and time.monotonic() < deadline:
            self._pass()
        with dispatcher.lock:  # requests no thread took: their connections close below
            if isinstance(dispatcher, Lanes):
                dispatcher.cancel_pending()
            while dispatcher.queue:
                dispatcher.queue.popleft().cancel()
        for channel in list(server.active_channels.values()):
            channel.handle_close()  # also wakes a request thread waiting for its answer to be sent
        for dispatcher_of_socket in list(self._map.values()):
            if dispatcher_of_socket is not server.trigger:
                dispatcher_of_socket.close()
        if dispatcher.threads:
            log.warning("%d request thread(s) still busy %g s after the stop was asked for; the server's wake-up "
                        "pipe is left open for them", len(dispatcher.threads), self.grace_s)
            return
        with self._trigger_lock:
            self._trigger_closed = True
            server.trigger.close()


def _pending(dispatcher: Any) -> int:
    """How many requests wait for a thread (waitress's one queue, or each of the curators' lanes)."""
    return dispatcher.pending() if isinstance(dispatcher, Lanes) else len(dispatcher.queue)
