"""How many heavy requests a server answers at once: a report page puts statements together in memory and renders
them (about 10 MB and a fraction of a second a page), so a few at a time is what a small container's memory and its
cores allow; the rest wait a little and are then told to come back (503 with Retry-After), never queued without
bound."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

# How long a heavy request waits for its turn before it is told to come back, and when to come back.
WAIT_S = 10.0
RETRY_AFTER_S = 5


class AtOnce:
    """At most ``most`` requests of a kind at once, across a server's threads."""

    def __init__(self, most: int, *, wait_s: float | None = None) -> None:
        if most < 1:
            raise ValueError(f"at least one request at once, not {most}")
        self.most = most
        self._slots = threading.BoundedSemaphore(most)
        self._wait_s = wait_s

    @contextmanager
    def turn(self) -> Iterator[bool]:
        """True inside while this request has its turn; False when none came within the wait (answer 503)."""
        got = self._slots.acquire(timeout=WAIT_S if self._wait_s is None else self._wait_s)
        try:
            yield got
        finally:
            if got:
                self._slots.release()
