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
from bot.documents.politeness import host_key
from bot.faults import FIX
from bot.pool import in_flight


class Breaker:
    """Stops a run that is only recording a broken refbot. Until some statement has read a page, it trips

    - when the same fault of refbot's own (``StatementCheck.fault``) has ended ``limit`` statements, or
    - when pages of ``hosts`` different sites have all failed alike in their parser (the same exception in the same
      place, ``Fetched.parser_failure``): a parser that fails on every page the same way is broken, even if it
      still reads refbot's own sample.

    Checking more statements would only write the same error again. Once a page has been read, a fault stays that
    statement's ``error`` (a bug one page triggers) and the run goes on."""

    def __init__(self, limit: int = 3, *, statements: int | None = None, hosts: int = 3) -> None:
        """``statements``: how many the run has, when fewer than ``limit`` (then all of them must fail)."""
        self.limit = max(1, min(limit, statements) if statements is not None else limit)
        self.hosts = hosts
        self.faults: Counter[tuple[str, str, str]] = Counter()
        self.failing: dict[str, set[str]] = {}  # parser failure → sites whose pages it hit
        self.working = False
        self.tripped: InternalError | None = None
        # Statements the broken part may have spoiled (a fault, a parser failure): checked again once it is mended.
        self.suspects: list[str] = []

    def observe(self, check: StatementCheck) -> None:
        self.working = self.working or any(document.readable for document in check.documents)
        failures = [f for d in check.documents if d.retrieved for f in (d.retrieved.live, d.retrieved.archived)
                    if f is not None and f.parser_failure]
        if self.working or (check.fault is None and not failures):
            return
        self.suspects.append(check.statement.guid)
        if self.tripped is not None:
            return
        if check.fault is not None:
            self.faults[check.fault.signature] += 1
            count = self.faults[check.fault.signature]
            if count >= self.limit:
                self.tripped = InternalError(
                    f"stopped after {count} statement(s) failed the same way in refbot itself, not in the pages: "
                    f"{check.fault}", component=check.fault.component, hint=FIX)
            return
        for fetched in failures:
            sites = self.failing.setdefault(fetched.parser_failure, set())
            sites.add(host_key(fetched.final_url or fetched.url))
            if len(sites) >= self.hosts:
                self.tripped = InternalError(
                    f"stopped: pages of {len(sites)} sites all failed the same way in their parser "
                    f"({fetched.parser_failure}: {fetched.reason}) and none could be read; the parser, not the "
                    f"pages, is broken", component="paragraph extraction", hint=FIX)
                return


def check_many(work: Iterable[tuple[ItemContext, Statement]], tools: Tools, plan: Plan, *, workers: int = 2,
               deadline: float | None = None, clock: Callable[[], float] = time.monotonic,
               breaker: Breaker | None = None) -> Iterator[tuple[ItemContext, StatementCheck]]:
    """``deadline`` is a ``clock()`` value after which no statement starts. Raises :class:`InternalError`, after
    the statements in progress are yielded, when ``breaker`` (by default ``Breaker()``) stops the run."""
    breaker = breaker or Breaker()

    def tasks() -> Iterator[tuple[ItemContext, Callable[[], StatementCheck]]]:
        pending = iter(work)
        while breaker.tripped is None:  # asked before the next item is read: a stopped run reads no more
            try:
                context, statement = next(pending)
            except StopIteration:
                return
            yield context, partial(check_statement, statement, tools, plan, context.article, context.error,
                                   websites=context.websites)

    for context, check in in_flight(tasks(), workers, name="statement", deadline=deadline, clock=clock):
        breaker.observe(check)
        yield context, check
    if breaker.tripped is not None:
        raise breaker.tripped
