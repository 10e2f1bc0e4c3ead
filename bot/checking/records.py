"""What checking one statement produced, stage by stage: pure records that the trace is written from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import Enum

from bot.checking.against import Against
from bot.corroboration.stage import Corroboration
from bot.datamodel import Judgement, Statement
from bot.documents.retrieval import Retrieved
from bot.documents.search import SearchResult
from bot.faults import Fault
from bot.properties.profile import PropertyProfile
from bot.checking.ranking import Ranked
from bot.references import ProposedReference, StatedIn


class Outcome(str, Enum):
    SUPPORTED = "supported"
    # An authority record states the value (a "stated in" reference is proposed).
    CORROBORATED = "corroborated"
    # An authority record or a page states another value, or a page that writes the value negates it (and none
    # supports it): flagged for curators, never proposed.
    CONTRADICTED = "contradicted"
    # Judged paragraphs lie in the calibrated judge's undecided band, none supports or contradicts: neither
    # proposed nor called unsupported.
    UNDECIDED = "undecided"
    NOT_FOUND = "not-found"
    IRRETRIEVABLE = "irretrievable"
    ERROR = "error"


# How a not-found statement reads when only authority records were read for it and none stated it.
NO_RECORD = "no record states it"


@dataclass(frozen=True)
class Candidate:
    """A document that may support the statement, and where refbot heard of it."""

    url: str
    origin: str  # "search" or "wikipedia"
    title: str = ""
    access_date: date | None = None
    archive_url: str = ""
    # For a cited source: the article paragraph that cites it; for a search result: its rank.
    cited_in: int | None = None
    rank: int = 0


@dataclass(frozen=True)
class Search:
    engine: str
    query: str
    results: tuple[SearchResult, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class Judged:
    """One paragraph the judge was asked about: how it ranked, and what the judge said."""

    ranked: Ranked
    judgement: Judgement
    # Why the paragraph says the statement is false though it writes the value (``bot.checking.against``): it
    # negates the value or states a contrasting relation. Only for paragraphs that do not support it.
    against: Against | None = None

    @property
    def asked(self) -> bool:
        """False when the judge answered without asking the model (the value is not named)."""
        return self.judgement.attempts > 0


@dataclass(frozen=True)
class DocumentCheck:
    candidate: Candidate
    retrieved: Retrieved | None
    judged: tuple[Judged, ...] = ()
    # Paragraphs the strategy did not send to the judge.
    not_judged: int = 0
    # Of those, the paragraphs left out before ranking (a huge page's worst by the names they mention): never
    # embedded nor ranked (``Strategy.considered``).
    not_ranked: int = 0
    # An article read to find cited sources (--strategy paper judges its chunks and paragraphs) is not evidence.
    evidence: bool = True

    @property
    def readable(self) -> bool:
        return self.retrieved is not None and bool(self.retrieved.paragraphs)

    @property
    def supporting(self) -> tuple[Judged, ...]:
        return tuple(judged for judged in self.judged if judged.judgement.supported)

    @property
    def contradicting(self) -> tuple[Judged, ...]:
        """Paragraphs that give another value for the statement's property."""
        return tuple(judged for judged in self.judged if judged.judgement.contradicted)

    @property
    def stating_otherwise(self) -> tuple[Judged, ...]:
        """Paragraphs that write the value but negate it or state a contrasting relation."""
        return tuple(judged for judged in self.judged if judged.against is not None)


@dataclass(frozen=True)
class StatementCheck:
    statement: Statement
    outcome: Outcome
    reason: str
    started: str
    elapsed_s: float
    searches: tuple[Search, ...] = ()
    documents: tuple[DocumentCheck, ...] = ()
    reference: ProposedReference | StatedIn | None = None
    quickstatements: str = ""
    # Set when refbot's own code or install failed on this statement (the outcome is then ``error``).
    fault: Fault | None = None
    # How the statement's property was put to the judge: its phrase and contrasts, and where they came from.
    profile: PropertyProfile | None = None
    # Where its time went: (stage, seconds) for kg, search, article, fetch, rank, judge and justify, in that order.
    stages: tuple[tuple[str, float], ...] = ()
    # What the item's authority records said (``--source`` kg or all); None when they were not read.
    corroboration: Corroboration | None = None

    @property
    def shown_outcome(self) -> str:
        """The outcome as curators read it: "no record states it" for a statement only records were read for and
        none stated (nothing was searched: "not found" would say more than was looked at)."""
        if self.outcome is Outcome.NOT_FOUND and not self.documents and not self.searches and \
                self.corroboration is not None:
            return NO_RECORD
        return self.outcome.value

    @property
    def judgements(self) -> list[Judged]:
        return [judged for document in self.documents for judged in document.judged]

    @property
    def asked(self) -> int:
        """LLM judgements made (paragraphs the model was asked about)."""
        return sum(1 for judged in self.judgements if judged.asked)

    @property
    def prompt_tokens(self) -> int:
        return sum(judged.judgement.prompt_tokens for judged in self.judgements)
