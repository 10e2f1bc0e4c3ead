"""A bounded pool: tasks run on threads with at most ``limit`` in flight, results in completion order."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

Key = TypeVar("Key")
Result = TypeVar("Result")


def in_flight(tasks: Iterable[tuple[Key, Callable[[], Result]]], limit: int, *, name: str = "task",
              deadline: float | None = None, clock: Callable[[], float] = time.monotonic
              ) -> Iterator[tuple[Key, Result]]:
    """Run ``(key, task)`` pairs, ``limit`` at a time, yielding ``(key, result)`` as each finishes.

    Tasks are taken from ``tasks`` only as room frees up, so a generator may do work (read the next item) lazily.
    When a task raises, or taking the next one does, no new task starts; those in flight finish and are
    yielded, then the first error is raised. After ``deadline`` (a ``clock()`` value) no new task starts. On an
    interrupt the pool does not wait for tasks in flight.
    """
    limit = max(1, limit)
    pending: dict[Future[Result], Key] = {}
    pool = ThreadPoolExecutor(max_workers=limit, thread_name_prefix=name)
    left = iter(tasks)
    failure: BaseException | None = None
    try:
        while True:
            while failure is None and len(pending) < limit and (deadline is None or clock() < deadline):
                try:
                    task = next(left, None)
                except Exception as problem:
                    failure = problem
                    break
                if task is None:
                    break
                key, run = task
                pending[pool.submit(run)] = key
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                key = pending.pop(future)
                error = future.exception()
                if error is not None:
                    failure = failure or error
                else:
                    yield key, future.result()
    finally:
        pool.shutdown(wait=not pending, cancel_futures=True)
    if failure is not None:
        raise failure
