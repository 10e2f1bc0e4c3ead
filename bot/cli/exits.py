"""How a command ended, and the one mapping from that to its exit status and its lines on standard error.

A handler returns None (it did its work), an :class:`Ended` (it went on past failures, or stopped part-way with
what finished kept), or raises; ``bot.cli.main`` hands either to :func:`exit_code` and :func:`error_lines`, which are
pure. Handlers print their results; only these functions speak of errors.

Exit codes: 0 success; 1 a command that failed part-way (work done so far is kept; also `refbot doctor` finding
something broken); 2 a usage, configuration or input error, or an installation refbot cannot run in (nothing was
done); 130 interrupted.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import ConfigError, InputError, InternalError, ModelError, RefbotError

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
# Errors raised before any work was done: what the user gave or installed must change first.
BEFORE_WORK = (ConfigError, InputError, ModelError, InternalError, ImportError)


@dataclass(frozen=True)
class Ended:
    """A command that did its work, not all of it well: ``failed`` of its items (statements, edits, documents)
    went wrong while it went on; ``stopped``: the error that ended it part-way; ``then``: what was kept and how to
    go on, said after that error."""

    failed: int = 0
    stopped: BaseException | None = None
    then: str = ""


Outcome = Ended | BaseException | None


def exit_code(outcome: Outcome) -> int:
    """The exit status of a command that returned or raised ``outcome``."""
    if outcome is None:
        return EXIT_OK
    if isinstance(outcome, Ended):  # work was done: whatever stopped it, it is kept
        return EXIT_PARTIAL if outcome.stopped is not None or outcome.failed else EXIT_OK
    if isinstance(outcome, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(outcome, BEFORE_WORK):
        return EXIT_USAGE
    return EXIT_PARTIAL  # another RefbotError, an OSError: part of the work may be done, and is kept


def error_lines(outcome: Outcome, *, fix: str = "") -> list[str]:
    """What standard error says about ``outcome``, one line each; ``fix``: how to mend a library that cannot be
    imported (``bot.doctor.fix_for``)."""
    if isinstance(outcome, Ended):
        lines = error_lines(outcome.stopped, fix=fix) if outcome.stopped is not None else []
        return lines + ([f"refbot: {outcome.then}"] if outcome.then and lines else [])
    if outcome is None:
        return []
    if isinstance(outcome, KeyboardInterrupt):
        return ["refbot: interrupted; work done so far is saved"]
    if isinstance(outcome, ImportError):
        return [f"refbot: error: a library refbot needs cannot be imported: {outcome}" + (f" ({fix})" if fix else "")]
    if isinstance(outcome, RefbotError):
        return [f"refbot: error: {outcome}"]
    if isinstance(outcome, OSError):
        where = f"{outcome.filename}: " if outcome.filename else ""
        return [f"refbot: error: {where}{outcome.strerror or outcome}"]
    return [f"refbot: error: {outcome}"]
