"""Statements checked by a bounded pool: fetching for one statement overlaps judging for another.

At most ``workers`` statements are in progress; results come in completion order. When the judge becomes
unavailable, the time budget is spent, or refbot's own code keeps failing (:class:`Breaker`), no new statement
starts; those in progress finish and are yielded.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Plan, Tools, check_statement
from bot.datamodel import Statement
from bot.errors import InternalError
from bot.faults import FIX, Fault
from bot.pool import in_flight


class Breaker:
    """Stops a run that is only recording refbot's own failure: once the same fault has ended ``limit``
    statements and no statement has yet read a document without one, the installation (or the code) is broken,
    and checking more statements would only write the same error again. A fault among working statements (a
    bug one page triggers) stays that statement's ``error`` and the run goes on."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = max(1, limit)
        self.faults: Counter[tuple[str, str, str]] = Counter()
        self.working = False
        self.tripped: Fault | None = None

    def observe(self, check: StatementCheck) -> None:
        if check.fault is None:
            self.working = self.working or any(document.readable for document in check.documents)
            return
        self.faults[check.fault.signature] += 1
        if not self.working and self.tripped is None and self.faults[check.fault.signature] >= self.limit:
            self.tripped = check.fault

    def error(self) -> InternalError | None:
        if self.tripped is None:
            return None
        count = self.faults[self.tripped.signature]
        return InternalError(f"stopped after {count} statement(s) failed the same way in refbot itself, not in "
                             f"the pages: {self.tripped}", component=self.tripped.component, hint=FIX)


def check_many(work: Iterable[tuple[ItemContext, Statement]], tools: Tools, plan: Plan, *, workers: int = 2,
               deadline: float | None = None, clock: Callable[[], float] = time.monotonic,
               breaker: Breaker | None = None) -> Iterator[tuple[ItemContext, StatementCheck]]:
    """``deadline`` is a ``clock()`` value after which no statement starts. Raises :class:`InternalError`, after
    the statements in progress are yielded, when ``breaker`` (by default one that trips on the third identical
    fault) stops the run."""
    breaker = breaker or Breaker()

    def tasks() -> Iterator[tuple[ItemContext, Callable[[], StatementCheck]]]:
        for context, statement in work:
            if breaker.tripped is not None:
                return
            yield context, partial(check_statement, statement, tools, plan, context.article, context.error)

    for context, check in in_flight(tasks(), workers, name="statement", deadline=deadline, clock=clock):
        breaker.observe(check)
        yield context, check
    stop = breaker.error()
    if stop is not None:
        raise stop
