"""Whose fault is an exception: the page's, or refbot's own code or installation?

A page may be damaged in ways no parser survives (a truncated PDF, markup that defeats lxml); that is the page's
outcome — when the exception came from inside the parser and the parser still reads a known-good sample. But an
exception raised in refbot's own code, or one that only a broken install raises (a missing module, a module
without the function refbot calls), says nothing about the page: recording it as the page's outcome would make a
broken installation look like a web full of broken pages. Such failures become a :class:`Fault` naming the
component and the fix; the statement ends as ``error``, and a run whose statements keep failing the same way
stops (``bot.checking.batch``).
"""

from __future__ import annotations

import sqlite3
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# Exceptions a damaged document does not explain: a missing library, a bug, refbot's own storage (the HTTP cache).
_NEVER_THE_PAGE = (ImportError, NameError, MemoryError, SystemError, sqlite3.Error)
# The component a module of refbot belongs to, for messages (longest prefix wins).
_COMPONENTS = {
    "bot.documents.paragraphs": "paragraph extraction",
    "bot.documents.decoding": "paragraph extraction",
    "bot.documents.sentences": "paragraph extraction",
    "bot.documents": "document retrieval",
    "bot.checking.ranking": "pre-ranking",
    "bot.checking.embedding": "sentence embeddings",
    "bot.judge": "judge",
    "bot.judge.prompts": "judge",
    "bot.references": "proposed reference",
    "bot.output.trace": "trace",
    "bot.output.report": "report",
    "bot.checking": "statement checking",
}
REINSTALL = "run scripts/setup, or `pip install -c constraints.txt -e .` in a checkout"
FIX = f"run `refbot doctor` to see which part is broken, then reinstall: {REINSTALL.removeprefix('run ')}"


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
        return f"refbot's {self.component} failed: {self.error} (at {self.where})"


def raised_in_refbot(error: BaseException) -> bool:
    """True when the innermost frame of the traceback is refbot's own code (not a library's)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and _inside_package(frames[-1].filename)


def blames_the_page(error: BaseException, library_works: Callable[[], bool] = lambda: True) -> bool:
    """True for an exception a damaged document explains: raised inside a library (not in refbot's own code), not
    of a kind only a broken install raises (ImportError, a module without an attribute it should have, …), and
    ``library_works`` — the library still reads a known-good sample (``bot.documents.samples``), so it failed
    because of this document (pdfminer raises TypeError and AttributeError on damaged PDFs)."""
    if isinstance(error, _NEVER_THE_PAGE) or raised_in_refbot(error):
        return False
    if isinstance(error, AttributeError) and isinstance(getattr(error, "obj", None), types.ModuleType):
        return False  # a library without the function refbot calls: a broken or incompatible install
    return library_works()


def signature_of(error: BaseException) -> str:
    """``PSEOF in pdfminer/psparser.py:256``: the exception's type and the innermost place it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return type(error).__name__
    parts = Path(frames[-1].filename).parts
    return f"{type(error).__name__} in {'/'.join(parts[-2:])}:{frames[-1].lineno}"


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
    component = getattr(error, "component", "") or component  # an InternalError names its own
    message = first_line(error)
    return Fault(component, where, f"{type(error).__name__}: {message}" if message else type(error).__name__)


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _inside_package(filename: str) -> bool:
    path = Path(filename)
    if not path.is_absolute():  # a compiled module's pseudo-path (src/lxml/parser.pxi) or <string>
        return False
    try:
        return path.resolve().is_relative_to(_PACKAGE)
    except (OSError, ValueError):
        return False


def _component(path: Path) -> str:
    module = ".".join(path.relative_to(_PACKAGE.parent).with_suffix("").parts)
    matches = [prefix for prefix in _COMPONENTS if module == prefix or module.startswith(prefix + ".")]
    return _COMPONENTS[max(matches, key=len)] if matches else module
