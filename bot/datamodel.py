"""The records every stage passes around: pure, frozen, and free of I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

QID_PATTERN = re.compile(r"^Q[1-9][0-9]*$")
PID_PATTERN = re.compile(r"^P[1-9][0-9]*$")


class Rank(str, Enum):
    PREFERRED = "preferred"
    NORMAL = "normal"
    DEPRECATED = "deprecated"


class Verdict(str, Enum):
    """The options of the published three-option prompt; only ``SUPPORTS`` counts as support."""

    SUPPORTS = "a"
    INDICATES = "b"
    NOT_INFERRABLE = "c"
    UNPARSEABLE = "unparseable"


@dataclass(frozen=True)
class Value:
    """A statement's value: its datatype, its canonical form (a QID, an ISO date…) and how humans read it."""

    datatype: str
    raw: str
    text: str


@dataclass(frozen=True)
class Relation:
    """A predicate as a reader sees it: its label and what it means (a Wikidata property description)."""

    label: str
    description: str = ""
    # How a sentence states it between subject and object ("increases", "was awarded"); default: the label.
    phrase: str = ""


@dataclass(frozen=True)
class Claim:
    """What the judge verifies: a statement reduced to the labels a reader sees.

    ``alternatives`` are relations that could hold between the same subject and object instead of the claimed
    one (an opposite, an inverse, a weaker relation); a judge that is shown them must tell them apart rather
    than answer yes because both entities are mentioned.
    """

    subject: str
    predicate: str
    object: str
    predicate_description: str = ""
    alternatives: tuple[Relation, ...] = ()
    predicate_phrase: str = ""

    @property
    def relation(self) -> Relation:
        return Relation(self.predicate, self.predicate_description, self.predicate_phrase)


@dataclass(frozen=True)
class Statement:
    item: str
    item_label: str
    guid: str
    property_id: str
    property_label: str
    value: Value
    rank: Rank = Rank.NORMAL
    property_description: str = ""

    def __post_init__(self) -> None:
        if not QID_PATTERN.match(self.item):
            raise ValueError(f"not an item id: {self.item!r}")
        if not PID_PATTERN.match(self.property_id):
            raise ValueError(f"not a property id: {self.property_id!r}")

    @property
    def claim(self) -> Claim:
        return Claim(self.item_label or self.item, self.property_label or self.property_id,
                     self.value.text, self.property_description)


@dataclass(frozen=True)
class Paragraph:
    """A passage of a grounding document; ``position`` counts paragraphs from 0 in document order."""

    text: str
    source: str
    position: int = 0


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    support: float
    answer: str
    justification: str
    model: str
    template: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int = 1
    parts: int = 1
    # The part of the snippet the model was shown, when it was not shown all of it (bot.judge.focus).
    excerpt: str = ""

    def __post_init__(self) -> None:
        if not 0.0 <= self.support <= 1.0:
            raise ValueError(f"support score out of [0, 1]: {self.support}")

    @property
    def supported(self) -> bool:
        return self.verdict is Verdict.SUPPORTS
