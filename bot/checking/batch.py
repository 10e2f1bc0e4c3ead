"""Statements checked by a bounded pool: fetching for one statement overlaps judging for another.

At most ``workers`` statements are in progress; results come in completion order. When the judge becomes
unavailable, or the time budget is spent, no new statement starts; those in progress finish and are yielded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Plan, Tools, check_statement
from bot.datamodel import Statement
from bot.pool import in_flight


def check_many(work: Iterable[tuple[ItemContext, Statement]], tools: Tools, plan: Plan, *, workers: int = 2,
               deadline: float | None = None, clock: Callable[[], float] = time.monotonic
               ) -> Iterator[tuple[ItemContext, StatementCheck]]:
    """``deadline`` is a ``clock()`` value after which no statement starts."""
    tasks = ((context, partial(check_statement, statement, tools, plan, context.article, context.error))
             for context, statement in work)
    return in_flight(tasks, workers, name="statement", deadline=deadline, clock=clock)
