"""What verifying one reference found: pure records the trace, the ledger and the exports are written from.

One finding per reference, never mixed: the page as it is now supports the statement, does not, or gives another
value; the page is dead and an archived copy was (or was not) found; the page cannot be read (a paywall, a page
made only of script, a scan); or refbot itself failed. A statement's summary counts its references' findings both
as refbot reads them and as ProVe does (supports − refutes over the references judged), so that results compare.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from bot.checking.ranking import supporting_sentence
from bot.checking.records import DocumentCheck, Judged
from bot.datamodel import Statement
from bot.faults import Fault
from bot.properties.profile import PropertyProfile
from bot.references import ArchivedCopy, wayback_date
from bot.verifying.citations import Citation


class Finding(str, Enum):
    SUPPORTS = "supports"
    DOES_NOT_SUPPORT = "does-not-support"
    # The page gives another value for the statement's property (the sentence and the value are kept).
    CONTRADICTS = "contradicts"
    # The page is dead (its address fails, it moved away, it is a "not found" page) and an archived copy was read:
    # the fix is to add the copy to the reference.
    DEAD_ARCHIVED = "dead-archived"
    DEAD_NO_ARCHIVE = "dead-no-archive"
    UNREADABLE = "unreadable"
    ERROR = "error"


FINDINGS = tuple(finding.value for finding in Finding)
# What a page's words can say about a statement; the rest say the page could not be judged.
JUDGED = (Finding.SUPPORTS, Finding.DOES_NOT_SUPPORT, Finding.CONTRADICTS)
# Shown first to curators: a finding about Wikidata's value, or about the reference.
ORDER = {Finding.CONTRADICTS: 0, Finding.DEAD_ARCHIVED: 1, Finding.DOES_NOT_SUPPORT: 2, Finding.DEAD_NO_ARCHIVE: 3,
         Finding.UNREADABLE: 4, Finding.ERROR: 5, Finding.SUPPORTS: 6}


@dataclass(frozen=True)
class ReferenceCheck:
    """One reference verified. ``document`` is the page as refbot read it (the archived copy when the page is
    dead); ``archived`` says what that copy says of the statement when the finding is ``dead-archived``."""

    statement: Statement
    citation: Citation
    finding: Finding
    reason: str
    started: str
    elapsed_s: float
    document: DocumentCheck | None = None
    archived: Finding | None = None
    fault: Fault | None = None
    profile: PropertyProfile | None = None
    stages: tuple[tuple[str, float], ...] = ()

    @property
    def key(self) -> str:
        return self.citation.key

    @property
    def documents(self) -> tuple[DocumentCheck, ...]:
        """As a statement's check has them (``bot.checking.batch.Breaker`` reads a run's checks so)."""
        return (self.document,) if self.document is not None else ()

    @property
    def judged(self) -> Finding | None:
        """What the page's (or its archived copy's) words say of the statement: supports, does not support,
        contradicts; None when no words were judged."""
        if self.finding in JUDGED:
            return self.finding
        return self.archived

    @property
    def best(self) -> Judged | None:
        """The paragraph the finding rests on: the contradicting one, else the best supporting one, else the
        best judged."""
        if self.document is None or not self.document.judged:
            return None
        judged = self.document.judged
        contradicting = [entry for entry in judged if entry.judgement.contradicted]
        if contradicting and self.judged is Finding.CONTRADICTS:
            return contradicting[0]
        return max(judged, key=lambda entry: (entry.judgement.supported, entry.judgement.support))

    @property
    def support(self) -> float | None:
        """The judge's support for the statement from the best paragraph; None when none was judged."""
        best = self.best
        return round(best.judgement.support, 4) if best is not None else None

    @property
    def sentence(self) -> str:
        """The sentence the finding quotes: the one giving another value, or the supporting one."""
        best = self.best
        if best is None:
            return ""
        if best.judgement.contradiction is not None and self.judged is Finding.CONTRADICTS:
            return best.judgement.contradiction.sentence
        if self.judged is Finding.SUPPORTS:
            return supporting_sentence(best.ranked.paragraph.text, self.statement)
        return ""

    @property
    def other_value(self) -> str:
        """The value the page gives instead of the statement's (as written), for a contradiction."""
        best = self.best
        if self.judged is Finding.CONTRADICTS and best is not None and best.judgement.contradiction is not None:
            return best.judgement.contradiction.form
        return ""

    @property
    def read_url(self) -> str:
        """Where the words judged came from: the page, or its archived copy."""
        retrieved = self.document.retrieved if self.document is not None else None
        if retrieved is None:
            return self.citation.url
        used = retrieved.used
        return used.archive_url or used.final_url or used.url

    @property
    def fix(self) -> ArchivedCopy | None:
        """The archived copy to add to the reference: for a dead page whose copy was read, the copy's address and
        date (None otherwise)."""
        retrieved = self.document.retrieved if self.document is not None else None
        if self.finding is not Finding.DEAD_ARCHIVED or retrieved is None or retrieved.archived is None:
            return None
        copy = retrieved.archived
        when = wayback_date(copy.archive_timestamp)
        if not copy.archive_url or when is None:
            return None
        return ArchivedCopy(self.citation.url, copy.archive_url, when, self.citation.hash)

    @property
    def asked(self) -> int:
        return sum(1 for judged in (self.document.judged if self.document else ()) if judged.asked)


def summarise(checks: Sequence[ReferenceCheck]) -> tuple[dict[str, int], float | None]:
    """A statement's references: the count of each finding (a dead page's archived copy counted by what it says
    in ``archived-…``), and ProVe's score over the references whose words were judged."""
    counts: dict[str, int] = {}
    supports = refutes = judged = 0
    for check in checks:
        counts[check.finding.value] = counts.get(check.finding.value, 0) + 1
        said = check.judged
        if said is None:
            continue
        judged += 1
        supports += said is Finding.SUPPORTS
        refutes += said is Finding.CONTRADICTS
    return counts, (round((supports - refutes) / judged, 4) if judged else None)


def statement_verdict(checks: Sequence[ReferenceCheck]) -> str:
    """refbot's word for a statement from its references: contradicted (some page gives another value),
    supported, unsupported (the pages judged do not state it), unverified (no page could be judged), error."""
    said = {check.judged for check in checks}
    if Finding.CONTRADICTS in said:
        return "contradicted"
    if Finding.SUPPORTS in said:
        return "supported"
    if Finding.DOES_NOT_SUPPORT in said:
        return "unsupported"
    if any(check.finding is Finding.ERROR for check in checks):
        return "error"
    return "unverified"
