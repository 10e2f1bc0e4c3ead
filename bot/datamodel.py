"""The records every stage passes around: pure, frozen, and free of I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

# Wikidata's ids have 9 digits now (Q130000000); 12 leaves room and keeps a 10,000-digit "id" from any query.
ID_DIGITS = 12
QID_PATTERN = re.compile(rf"^Q[1-9][0-9]{{0,{ID_DIGITS - 1}}}\Z")
PID_PATTERN = re.compile(rf"^P[1-9][0-9]{{0,{ID_DIGITS - 1}}}\Z")
# Wikimedia language codes: en, pt-br, zh-hans, be-tarask, mul.
LANGUAGE_PATTERN = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,8})*\Z")
# How people write an entity: Q42, wd:Q42, https://www.wikidata.org/wiki/Q42, …/entity/Q42, …/wiki/Property:P166.
_ENTITY_FORMS = re.compile(r"^(?:wd:|https?://(?:www\.|m\.)?wikidata\.org/(?:wiki/(?:Property:)?|entity/))?"
                           r"([QqPp][0-9]+)/?$")


def parse_entity_id(text: str, kind: str = "item") -> str:
    """``"wd:Q42"``, ``"https://www.wikidata.org/wiki/Q42"`` → ``"Q42"``; ValueError names what is wrong."""
    match = _ENTITY_FORMS.match(text.strip())
    entity = match.group(1).upper() if match else ""
    pattern = QID_PATTERN if kind == "item" else PID_PATTERN
    if not pattern.match(entity):
        example = "Q42" if kind == "item" else "P166"
        shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:40] + "…"
        raise ValueError(f"not a Wikidata {kind} id: {shown!r} (expected an id like {example}, at most "
                         f"{ID_DIGITS} digits)")
    return entity


# The qualifiers that restrict a statement in time: P585 point in time, P580 start time, P582 end time.
TIME_QUALIFIERS = ("P585", "P580", "P582")


class Rank(str, Enum):
    PREFERRED = "preferred"
    NORMAL = "normal"
    DEPRECATED = "deprecated"


class Verdict(str, Enum):
    """The options of the published three-option prompt; only ``SUPPORTS`` counts as support.

    ``INDICATES`` is also the calibrated judge's undecided band (neither proposed nor called unsupported);
    ``CONTRADICTS``: the text states the statement's property with another value (``Judgement.contradiction``)."""

    SUPPORTS = "a"
    INDICATES = "b"
    NOT_INFERRABLE = "c"
    CONTRADICTS = "contradicts"
    UNPARSEABLE = "unparseable"


@dataclass(frozen=True)
class Value:
    """A statement's value: its Wikidata datatype, its canonical form and how people read it.

    ``raw`` is the value as QuickStatements writes it (``Q38104``, ``+1936-10-05T00:00:00Z/11``,
    ``1.96U11573``, ``en:"text"``, ``"string"``, ``@50.08/14.42``); ``text`` is what a page would say (a
    label, ``October 1936``, ``1.96 metre``); ``aliases`` are other names of an item value.
    """

    datatype: str
    raw: str
    text: str
    aliases: tuple[str, ...] = ()
    # Other names of an item value that Wikidata links to it, each with how ("label (de)", "more specific item
    # Q1549591: big city"): a text naming the value so is shown to curators with how it named it.
    related: tuple[tuple[str, str], ...] = ()

    @property
    def display(self) -> str:
        """For people reading a table: an item's label with its id."""
        return f"{self.text} ({self.raw})" if self.datatype.startswith("wikibase-") and self.text != self.raw \
            else self.text


@dataclass(frozen=True)
class Qualifier:
    """A statement's qualifier (``pq:``): what it says about the claim, such as when it held (P585 point in time,
    P580 start time, P582 end time) or in which role."""

    property_id: str
    property_label: str
    value: Value

    @property
    def display(self) -> str:
        """As people read it: "point in time: 2021"."""
        return f"{self.property_label or self.property_id}: {self.value.text}"

    def to_json(self) -> dict:
        return {"property": self.property_id, "property_label": self.property_label,
                "datatype": self.value.datatype, "value": self.value.raw, "value_text": self.value.text}

    @classmethod
    def from_json(cls, data: dict) -> "Qualifier":
        return cls(data["property"], data.get("property_label", ""),
                   Value(data["datatype"], data["value"], data.get("value_text") or data["value"]))


@dataclass(frozen=True)
class Relation:
    """A predicate as a reader sees it: its label and what it means (a Wikidata property description)."""

    label: str
    description: str = ""
    # How a sentence states it between subject and object ("increases", "was awarded"); default: the label.
    phrase: str = ""
    # Other ways texts state it ("taught at" for an employer): the judge weighs the relation by its best phrasing.
    other_phrases: tuple[str, ...] = ()


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
    predicate_other_phrases: tuple[str, ...] = ()
    # Ask the judge about the claim as the sentence its phrase makes ("Marta Novotná received the Brno
    # Innovation Award") rather than as a triple: for the catalogue's phrases, not those made from a label,
    # which read worse as sentences than the label does in a triple.
    as_sentence: bool = False
    # The statement's value with its datatype, so that the judge finds it as a text writes it ("January 14,
    # 1943" for 1943-01-14); without it, ``object`` is looked for as a name.
    value: Value | None = None
    # The property takes one value per subject (Wikidata's single-value constraint): another item the text gives
    # for it contradicts the statement, as another date or amount does for any property.
    single_valued: bool = False
    # The property's values change over time (revenue, population: Wikidata requires a point in time on them), so
    # another figure on a page is another year's, not a contradiction.
    time_varying: bool = False
    # The property takes a country (country, citizenship, origin): the value is also found by its ISO names and
    # the places in it ("Kerala" for India, ``bot.values.countries``).
    country_valued: bool = False
    # The statement's qualifiers that restrict it in time (P585, P580, P582): the claim holds then, and a text that
    # gives the value only for another time does not state it (``bot.judge.periods``).
    when: tuple[Qualifier, ...] = ()

    @property
    def relation(self) -> Relation:
        return Relation(self.predicate, self.predicate_description, self.predicate_phrase,
                        self.predicate_other_phrases)


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
    item_aliases: tuple[str, ...] = ()
    # Its qualifiers, in the order Wikidata lists them; the judge is shown those that restrict it in time.
    qualifiers: tuple[Qualifier, ...] = ()

    def __post_init__(self) -> None:
        if not QID_PATTERN.match(self.item):
            raise ValueError(f"not an item id: {self.item!r}")
        if not PID_PATTERN.match(self.property_id):
            raise ValueError(f"not a property id: {self.property_id!r}")

    def to_json(self) -> dict:
        """One line of `refbot select --json`; ``from_json`` reads it back."""
        return {"item": self.item, "item_label": self.item_label, "item_aliases": list(self.item_aliases),
                "guid": self.guid, "property": self.property_id, "property_label": self.property_label,
                "property_description": self.property_description, "rank": self.rank.value,
                "datatype": self.value.datatype, "value": self.value.raw, "value_text": self.value.text,
                "value_aliases": list(self.value.aliases),
                **({"qualifiers": [q.to_json() for q in self.qualifiers]} if self.qualifiers else {})}

    @classmethod
    def from_json(cls, data: dict) -> "Statement":
        """KeyError/ValueError/TypeError on a malformed record; callers name the file and line."""
        return cls(item=data["item"], item_label=data.get("item_label", ""), guid=data["guid"],
                   property_id=data["property"], property_label=data.get("property_label", ""),
                   value=Value(data["datatype"], data["value"], data.get("value_text") or data["value"],
                               tuple(data.get("value_aliases", ()))),
                   rank=Rank(data.get("rank", "normal")), property_description=data.get("property_description", ""),
                   item_aliases=tuple(data.get("item_aliases", ())),
                   qualifiers=tuple(Qualifier.from_json(q) for q in data.get("qualifiers", ())))

    @property
    def time_qualifiers(self) -> tuple[Qualifier, ...]:
        """The qualifiers that say when the statement holds: point in time, start time, end time."""
        return tuple(q for q in self.qualifiers if q.property_id in TIME_QUALIFIERS and q.value.datatype == "time")

    @property
    def claim(self) -> Claim:
        return Claim(self.item_label or self.item, self.property_label or self.property_id,
                     self.value.text, self.property_description, value=self.value, when=self.time_qualifiers)


@dataclass(frozen=True)
class Paragraph:
    """A passage of a grounding document; ``position`` counts paragraphs from 0 in document order, and
    ``start``/``end`` locate ``text`` in the document's cleaned text (``document.text[start:end] == text``)."""

    text: str
    source: str
    position: int = 0
    start: int = 0
    end: int = 0
    # What the block is on its page (``bot.documents.blocks``): "paragraph" (prose), "lines", "table",
    # "definitions", "header", "breadcrumb", "caption", "title".
    kind: str = "paragraph"


@dataclass(frozen=True)
class Compared:
    """One relation the judge weighed for a paragraph: the claimed one first, then its contrasts.

    ``score`` is the log-probability the model gives "<subject> <phrase> <object>" as the summary of the text;
    ``share`` its part of the relations' probabilities, which sum to 1."""

    label: str
    phrase: str
    score: float
    share: float


@dataclass(frozen=True)
class Contradiction:
    """Another value the text gives for the statement's property: the words as written, the sentence that writes
    them, and the judge's support for the claim with that value in place of the statement's."""

    form: str
    sentence: str
    support: float


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
    # The relations weighed against each other, the claimed one first; empty when the claim has no contrasts.
    compared: tuple[Compared, ...] = ()
    # Seconds spent generating the justification (not in ``latency_s``, which is the judging itself).
    justification_s: float = 0.0
    # How the text writes the statement's value (``bot.values``: "label", "alias", "date", "amount", …, or a
    # name of a linked item "more general item: …"); "" when it does not write it in any form refbot knows.
    written: str = ""
    # The words the text writes the value with ("January 14, 1943"); "" when it does not write it.
    written_form: str = ""
    # The support calibrated on labelled data (``bot.judge.calibration``): what the verdict is decided on.
    # None where no calibration applies (the judge was not asked, or its answer could not be read).
    calibrated: float | None = None
    # Another value the text gives for the property (verdict ``CONTRADICTS``).
    contradiction: Contradiction | None = None
    # The model's probability that the text states the claim (yes/no templates), before the relations' shares and
    # the calibration; None where it was not asked or answered neither. A feature of a learned verdict.
    p_yes: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.support <= 1.0:
            raise ValueError(f"support score out of [0, 1]: {self.support}")

    @property
    def supported(self) -> bool:
        return self.verdict is Verdict.SUPPORTS

    @property
    def contradicted(self) -> bool:
        return self.verdict is Verdict.CONTRADICTS

    @property
    def undecided(self) -> bool:
        """In the calibrated judge's undecided band: neither proposed nor called unsupported."""
        return self.verdict is Verdict.INDICATES
