"""Whose fault is an exception: the page's, or refbot's own code or installation?

A page may be damaged in ways no parser survives (a truncated PDF, markup that defeats lxml); that is the page's
outcome. But an exception raised in refbot's own code, or one that only a broken install raises (a missing
module, an attribute a library no longer has), says nothing about the page: recording it as the page's outcome
would make a broken installation look like a web full of broken pages. Such failures become a :class:`Fault`
naming the component and the fix; the statement ends as ``error``, and a run whose statements keep failing the
same way stops (``bot.checking.batch``).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# Exceptions a damaged document does not explain: a missing or incompatible library, or a bug.
_NEVER_THE_PAGE = (ImportError, AttributeError, NameError, TypeError, MemoryError, SystemError)
# The component a module of refbot belongs to, for messages (longest prefix wins).
_COMPONENTS = {
    "bot.documents.paragraphs": "paragraph extraction",
    "bot.documents.decoding": "paragraph extraction",
    "bot.documents.sentences": "paragraph extraction",
    "bot.documents": "document retrieval",
    "bot.ranking": "pre-ranking",
    "bot.embedding": "sentence embeddings",
    "bot.judge": "judge",
    "bot.prompts": "judge",
    "bot.references": "proposed reference",
    "bot.trace": "trace",
    "bot.report": "report",
    "bot.checking": "statement checking",
}
FIX = "run `refbot doctor` to see which part is broken, then reinstall: scripts/setup, or " \
      "`pip install -c constraints.txt -e .` in a checkout"


@dataclass(frozen=True)
class Fault:
    """An exception raised by refbot's own code or install while it checked a statement."""

    component: str  # "paragraph extraction"
    where: str  # "bot/documents/paragraphs.py:75 in html_blocks"
    error: str  # "AttributeError: module 'trafilatura' has no attribute 'extract'"

    @property
    def signature(self) -> tuple[str, str, str]:
        """Two faults with the same signature are the same failure (the message may name the page)."""
        return self.component, self.where, self.error.split(":", 1)[0]

    def __str__(self) -> str:
        return f"refbot's {self.component} failed: {self.error}" + (f" (at {self.where})" if self.where else "")


def raised_in_refbot(error: BaseException) -> bool:
    """True when the innermost frame of the traceback is refbot's own code (not a library's)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and _inside_package(frames[-1].filename)


def blames_the_page(error: BaseException) -> bool:
    """True for an exception a damaged document explains: raised inside a parser library, and not of a kind
    (ImportError, AttributeError, TypeError, …) that only a broken install or a bug raises."""
    return not isinstance(error, _NEVER_THE_PAGE) and not raised_in_refbot(error)


def fault_of(error: BaseException) -> Fault:
    """The fault an unexpected exception stands for: the component and place of refbot's code it came from."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [frame for frame in frames if _inside_package(frame.filename)]
    frame = own[-1] if own else (frames[-1] if frames else None)
    if frame is None:
        where, component = "an unknown place", "code"
    else:
        path = Path(frame.filename).resolve()
        inside = _inside_package(frame.filename)
        shown = path.relative_to(_PACKAGE.parent) if inside else Path(frame.filename).name
        where = f"{shown}:{frame.lineno} in {frame.name}"
        component = _component(path) if inside else "code"
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return Fault(component, where, f"{type(error).__name__}: {message}" if message else type(error).__name__)


def _inside_package(filename: str) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(_PACKAGE)
    except (OSError, ValueError):
        return False


def _component(path: Path) -> str:
    module = ".".join(path.relative_to(_PACKAGE.parent).with_suffix("").parts)
    matches = [prefix for prefix in _COMPONENTS if module == prefix or module.startswith(prefix + ".")]
    return _COMPONENTS[max(matches, key=len)] if matches else module
