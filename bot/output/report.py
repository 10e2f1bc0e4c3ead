"""The curator's HTML report: ``xslt/report.xsl`` applied to a trace with lxml (XSLT 1.0)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lxml import etree

from bot.assets import asset_path

_transform: Any = None


def stylesheet() -> Any:
    global _transform
    if _transform is None:
        # No document(), no extension functions, no network: the stylesheet reads only the trace.
        access = etree.XSLTAccessControl.DENY_ALL
        _transform = etree.XSLT(etree.parse(str(asset_path("xslt", "report.xsl"))), access_control=access)
    return _transform


def render(trace: Any, **parameters: str) -> str:
    """The HTML page of a trace. ``parameters`` are the stylesheet's string parameters, ``_`` written for ``-``
    (``review_token="…"`` sets ``review-token``); each is passed quoted, as text, never as an XPath expression."""
    quoted = {name.replace("_", "-"): etree.XSLT.strparam(str(value)) for name, value in parameters.items()}
    return str(stylesheet()(trace, **quoted))


def write_report(trace: Any, path: Path) -> Path:
    """The report, written atomically, readable by its owner only (0600): publishing it is a choice."""
    from bot.output.trace import write_atomically

    page = render(trace).encode("utf-8")
    with naming(path):
        return write_atomically(path, page)


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """A write's OSError that names no file — a full disk (ENOSPC), a file size limit — raised naming ``path``, the
    file being written: "reports/run-1.html: No space left on device", not ": No space left on device"."""
    try:
        yield
    except OSError as error:
        if error.filename or error.errno is None:
            raise
        raise OSError(error.errno, error.strerror, str(path)) from None
