"""The one source of "now" for what refbot stamps: a page's retrieval, a statement's check, a run's start and end,
a curator's decision. A :data:`Clock` returns an aware UTC datetime; every component that stamps takes one as a
parameter (``system_clock`` by default), so a test pins the day and passes on any day."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timezone

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def fixed_clock(moment: str | datetime) -> Clock:
    """A clock that always says ``moment`` (``2026-11-24T10:00:00Z`` or an aware datetime)."""
    when = datetime.fromisoformat(moment.replace("Z", "+00:00")) if isinstance(moment, str) else moment
    if when.tzinfo is None:
        raise ValueError(f"a fixed clock needs a time zone: {moment!r}")
    when = when.astimezone(timezone.utc)
    return lambda: when


def stamp(moment: datetime) -> str:
    """``2026-11-24T10:00:00Z``: how traces and ledgers write a moment."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def day_of(clock: Clock) -> date:
    return clock().astimezone(timezone.utc).date()
