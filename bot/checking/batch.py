"""Statements checked by a bounded pool: fetching for one statement overlaps judging for another.

At most ``workers`` statements are in progress; results come in completion order. When the judge becomes
unavailable, or the time budget is spent, no new statement starts; those in progress finish and are yielded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Plan, Tools, check_statement
from bot.datamodel import Statement


def check_many(work: Iterable[tuple[ItemContext, Statement]], tools: Tools, plan: Plan, *, workers: int = 2,
               deadline: float | None = None, clock: Callable[[], float] = time.monotonic
               ) -> Iterator[tuple[ItemContext, StatementCheck]]:
    """``deadline`` is a ``clock()`` value after which no statement starts."""
    pending: dict[Future[StatementCheck], ItemContext] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="statement")
    left = iter(work)
    failure: BaseException | None = None
    try:
        while True:
            while failure is None and len(pending) < workers and (deadline is None or clock() < deadline):
                try:
                    task = next(left, None)
                except Exception as problem:  # reading the next item failed: finish what is in progress first
                    failure = problem
                    break
                if task is None:
                    break
                context, statement = task
                pending[pool.submit(check_statement, statement, tools, plan, context.article, context.error)] = \
                    context
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                context = pending.pop(future)
                error = future.exception()
                if error is not None:
                    failure = failure or error
                else:
                    yield context, future.result()
    finally:
        pool.shutdown(wait=not pending, cancel_futures=True)
    if failure is not None:
        raise failure
