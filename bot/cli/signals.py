"""How the long-running commands take Ctrl-C and a service manager's SIGTERM: the same way.

systemd, Kubernetes and Toolforge's jobs stop a process with SIGTERM, whose default action ends it at once (exit
143) with nothing cleaned up; an operator expects it to do what Ctrl-C does. Signal handlers are installed from the
main thread only, so these are for the command-line handlers, around the part that runs until stopped, and put the
previous handlers back after it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stop:
    """A request to stop that a signal handler may make: setting it is one assignment, with no lock to deadlock on
    when a second signal arrives while the first handler runs (``threading.Event.set`` takes a lock)."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """While the block runs, SIGTERM raises KeyboardInterrupt, as Ctrl-C does."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def stopped_by_signals() -> Iterator[Stop]:
    """While the block runs, Ctrl-C and SIGTERM set the :class:`Stop` it is given instead of interrupting whatever
    runs at that moment: a server polls it, answers the requests in hand and returns. A second signal only asks
    again."""
    stop = Stop()

    def asked(_signal: int, _frame: Any) -> None:
        stop.set()

    previous = {number: signal.signal(number, asked) for number in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _interrupt(_signal: int, _frame: Any) -> None:
    raise KeyboardInterrupt
