"""The curator's HTML report: ``xslt/report.xsl`` applied to a trace with lxml (XSLT 1.0)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lxml import etree

from bot.assets import asset_path

_transform: Any = None
# Why `refbot export` leaves a reference's QuickStatements line out ("": it writes it), from the statement's item and
# statement elements: the export's own rule, passed in by its caller (bot.review.proposals.export_problem).
LeftOut = Callable[[Any, Any], tuple[str, str]]
# In the ``left-out`` parameter: between a reason and the line the export writes instead, and for a tab in that line
# (private-use characters, which no reason or QuickStatements line holds).
LINE_MARK, TAB_MARK = "\ue000", "\ue001"


def stylesheet() -> Any:
    global _transform
    if _transform is None:
        # No document(), no extension functions, no network: the stylesheet reads only the trace.
        access = etree.XSLTAccessControl.DENY_ALL
        _transform = etree.XSLT(etree.parse(str(asset_path("xslt", "report.xsl"))), access_control=access)
    return _transform


def render(trace: Any, *, left_out: LeftOut | None = None, **parameters: str) -> str:
    """The HTML page of a trace. ``parameters`` are the stylesheet's string parameters, ``_`` written for ``-``
    (``review_token="…"`` sets ``review-token``); each is passed quoted, as text, never as an XPath expression.
    ``left_out``: `refbot export`'s rule, whose refused QuickStatements lines the page marks as not to be pasted."""
    quoted = {name.replace("_", "-"): etree.XSLT.strparam(str(value)) for name, value in parameters.items()}
    if left_out is not None:
        quoted["left-out"] = etree.XSLT.strparam(left_out_lines(trace, left_out))
    return str(stylesheet()(trace, **quoted))


def left_out_lines(trace: Any, left_out: LeftOut) -> str:
    """The stylesheet's ``left-out`` parameter: for each statement whose reference the export does not write as it
    is (``left_out`` says why, and the line it writes instead: "" when none), a line break, its GUID, a tab, the
    reason (on one line), LINE_MARK and that line (its tabs TAB_MARK), then a line break."""
    root = trace.getroot() if hasattr(trace, "getroot") else trace
    namespace = etree.QName(root).namespace
    item_tag, statement_tag, reference_tag = (f"{{{namespace}}}{name}" for name in ("item", "statement", "reference"))
    lines = []
    for item in root.iter(item_tag):
        for statement in item.iter(statement_tag):
            if statement.find(reference_tag) is not None:
                why, instead = left_out(item, statement)
                reason = " ".join(why.split())
                if reason:
                    lines.append(f"{statement.get('guid')}\t{reason}{LINE_MARK}{instead.replace(chr(9), TAB_MARK)}\n")
    return "\n" + "".join(lines)


def write_report(trace: Any, path: Path, *, left_out: LeftOut | None = None) -> Path:
    """The report, written atomically, readable by its owner only (0600): publishing it is a choice. ``left_out``:
    as :func:`render` takes it."""
    from bot.output.trace import write_atomically

    page = render(trace, left_out=left_out).encode("utf-8")
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
