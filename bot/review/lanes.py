"""Curators first: how the review service's threads take the requests waitress has read.

Anyone may read the service, so a crowd (or anyone's script) can ask for report pages faster than they are put
together. waitress hands every request to its threads in the order it came (one queue for all), so before this a
crowd of readers made a signed-in curator's queue page and decision wait behind theirs (7–8 s with 48 readers). Here
the requests go in two lanes, sorted as waitress hands them over, before any thread or the application sees them:

- a **curator's** — one whose session cookie names a session this process has seen signed in (``is_curator``, from
  ``bot.review.sessions``; a made-up cookie is anyone's) — is taken first, by the first thread free;
- a **sign-in's** (``/login`` and the provider's return to ``/oauth/callback``: someone becoming a curator) next,
  at most all threads but ``reserved`` at once, so that a crowd never keeps a curator from signing in, and a stream of
  sign-ins never takes the threads kept for the signed-in;
- **anyone else's** waits in a line of at most ``waiting`` requests, and at most all threads but ``reserved`` answer
  them at once, so that a curator's request always finds a thread soon; a request beyond the line is answered at once
  with 503 and Retry-After by waitress itself (no thread of the application's is held, the connection is closed),
  by the first thread free after the curators' requests.

Connections beyond waitress's ``connection_limit`` (100) wait to be accepted whoever sends them: a flood of
connections is the proxy's to bound (Toolforge's, an Ingress's). A client's address plays no part here: behind
Toolforge's or an Ingress's proxy every request comes from the proxy, and a crowd comes from many addresses anyway.
waitress offers no supported hook for this (``create_server``'s
``_dispatcher`` is its test shim); this module follows the dispatcher of the waitress version ``setup.cfg`` allows,
and ``tests/test_review_crowd.py`` checks it with a real crowd.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from waitress.task import ThreadedTaskDispatcher
from waitress.utilities import Error

RETRY_AFTER_S = 5
SIGNING_IN = ("/login", "/oauth/callback")  # the paths of a sign-in (bot.review.service)


class Busy(Error):
    """waitress's own answer to a request beyond the line: 503, come back in a few seconds."""

    code = 503
    reason = "Service Unavailable"

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        status, headers, body = super().to_response(ident)
        return status, [*headers, ("Retry-After", str(RETRY_AFTER_S))], body


class Lanes(ThreadedTaskDispatcher):
    """waitress's task dispatcher with a curators' lane first (see the module's docstring). ``is_curator`` reads a
    request's headers (waitress's: ``COOKIE``…) and says whether it is a signed-in curator's; it must be quick and
    never raise."""

    def __init__(self, is_curator: Callable[[Mapping[str, str]], bool], *, reserved: int = 2,
                 waiting: int = 64) -> None:
        super().__init__()
        self.is_curator, self.reserved, self.waiting = is_curator, reserved, waiting
        self.first: deque[Any] = deque()  # curators' requests (waitress's own ``queue`` holds readers')
        self.refusing: deque[Any] = deque()  # readers' requests beyond the line, answered 503 by waitress
        self.signing: deque[Any] = deque()  # sign-ins' requests
        self.reading = 0  # readers' requests being answered now
        self.signing_in = 0  # sign-ins' requests being answered now

    def add_task(self, task: Any) -> None:
        """``task``: waitress's channel, its next request ``task.requests[0]`` (parsed, not yet answered)."""
        request = task.requests[0] if getattr(task, "requests", None) else None
        headers = getattr(request, "headers", None) or {}
        try:
            curator = bool(self.is_curator(headers))
        except Exception:  # (a header refbot cannot read is anyone's request)
            curator = False
        with self.lock:
            if curator:
                self.first.append(task)
            elif getattr(request, "path", "") in SIGNING_IN:
                self.signing.append(task)
            elif len(self.queue) >= self.waiting and request is not None and not request.error:
                request.error = Busy("The review service is busy; try again in a few seconds.")
                self.refusing.append(task)  # (answered by waitress in a moment, after any curator's request)
            else:
                self.queue.append(task)
            self.queue_cv.notify()

    def handler_thread(self, thread_no: int) -> None:
        while True:
            with self.lock:
                while True:
                    if self.stop_count > 0:
                        self.active_count -= 1
                        self.stop_count -= 1
                        self.threads.discard(thread_no)
                        self.thread_exit_cv.notify()
                        return
                    task, lane = self._next()
                    if task is not None:
                        break
                    self.active_count -= 1  # idle until woken, as waitress's own threads
                    self.queue_cv.wait()
                    self.active_count += 1
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)
            finally:
                if lane:
                    with self.lock:
                        if lane == "signing":
                            self.signing_in -= 1
                        else:
                            self.reading -= 1
                        self.queue_cv.notify()

    def _next(self) -> tuple[Any, str]:
        """The request to answer next (None: none this thread may take now), and its lane when it is counted
        ("signing", "reading"; "" a curator's)."""
        most = max(1, len(self.threads) - self.reserved)
        if self.first:
            return self.first.popleft(), ""
        if self.refusing:
            return self.refusing.popleft(), ""
        if self.signing and self.signing_in < most:
            self.signing_in += 1
            return self.signing.popleft(), "signing"
        if self.queue and self.reading < most:
            self.reading += 1
            return self.queue.popleft(), "reading"
        return None, ""

    def pending(self) -> int:
        """How many requests wait for a thread, in any lane."""
        return len(self.first) + len(self.refusing) + len(self.signing) + len(self.queue)

    def cancel_pending(self) -> None:
        """Cancel every request no thread has taken (the server is stopping); call with :attr:`lock` held."""
        for lane in (self.first, self.refusing, self.signing, self.queue):
            while lane:
                lane.popleft().cancel()
