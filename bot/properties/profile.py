"""What the judge knows about a property: how a sentence states it, and which relations it must be told from.

Pure: profiles are built here from what the catalogue, the cache or a SPARQL endpoint supplied, never fetched.
A judge shown only the claimed relation answers "yes" whenever a text names both entities; given the
relations that could hold between the same subject and value instead (an inverse, an opposite, a property the
same items hold with the same values), it has to find which one the text states.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from bot.datamodel import Claim, Relation, Statement
from bot.values.countries import COUNTRY_VALUED

# Where a phrase or a contrast came from, as the trace records it.
CATALOGUE = "catalogue"
TEMPLATE = "template"
INVERSE = "inverse (P1696)"
OPPOSITE = "opposite (P461)"
RELATED = "related property (P1659)"
SAME_VALUE = "same values"
SHARED_TYPES = "shared type constraints"
SOURCES_BY_STRENGTH = (CATALOGUE, INVERSE, OPPOSITE, SAME_VALUE, RELATED, SHARED_TYPES)

# How many contrasting properties a claim is judged against at most: each costs a few tokens per paragraph.
MAX_CONTRASTS = 4


@dataclass(frozen=True)
class Contrast:
    """A property that could hold between the statement's subject and value instead of the claimed one."""

    property_id: str
    label: str
    phrase: str
    description: str = ""
    # Which of the SOURCES_BY_STRENGTH said so; several when more than one did.
    sources: tuple[str, ...] = ()
    phrase_source: str = TEMPLATE
    other_phrases: tuple[str, ...] = ()

    @property
    def relation(self) -> Relation:
        return Relation(self.label, self.description, self.phrase, self.other_phrases)


@dataclass(frozen=True)
class PropertyProfile:
    property_id: str
    label: str
    phrase: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    phrase_source: str = TEMPLATE
    contrasts: tuple[Contrast, ...] = ()
    # Where the profile's data came from ("catalogue", an endpoint's URL, "label only") and when it was read
    # (ISO date; empty for what ships with refbot).
    source: str = ""
    retrieved: str = ""
    # A property id whose profile could not be looked up (offline, unknown to the catalogue) still gets a
    # phrase from its label; the trace says so.
    notes: tuple[str, ...] = field(default=())
    # Other curated ways a sentence states the property ("taught at" beside "worked at").
    other_phrases: tuple[str, ...] = ()

    @property
    def relation(self) -> Relation:
        return Relation(self.label, self.description, self.phrase, self.other_phrases)

    def claim(self, subject: str, value: str) -> Claim:
        """The judge's claim: the statement's subject and value, this property's phrase and its contrasts."""
        return Claim(subject, self.label, value, self.description,
                     tuple(contrast.relation for contrast in self.contrasts), self.phrase, self.other_phrases,
                     as_sentence=self.phrase_source == CATALOGUE, single_valued=self.property_id in SINGLE_VALUED,
                     time_varying=self.property_id in TIME_VARYING,
                     country_valued=self.property_id in COUNTRY_VALUED)


# Item properties with Wikidata's single-value constraint (Q19474404) whose values texts name: a person is born and
# dies in one place, has one father and one mother; a ship sails under one flag; a group is formed in one place.
# Another such item a page gives for them contradicts the statement (bot.values.other_names); for properties with
# many values (employer, award, occupation) another value denies nothing.
SINGLE_VALUED = frozenset({"P19", "P20", "P22", "P25", "P740", "P8047"})
# Quantity properties whose values change over time: Wikidata requires a point in time (P585) on their statements
# (required qualifier constraint). Another figure a page gives for them is another year's.
TIME_VARYING = frozenset({"P1082", "P1128", "P2139", "P2226", "P2295", "P2403", "P3362", "P2218", "P1831",
                          "P2131", "P2132", "P2137", "P2138", "P4010", "P1174", "P1110", "P3872"})


# -- phrases from labels ---------------------------------------------------------------------------------------
_PREPOSITION_END = re.compile(r"\b(of|in|at|by|for|on|to|with|from|after|into|as)$")
_VERB_START = re.compile(r"^(has|have|is|was|are|contains|follows|replaces|applies|shares|uses|owns|"
                         r"depicts|describes|influenced)\b")
_RELATION_NOUNS = frozenset({"correlation", "association", "interaction", "relation", "relationship", "link",
                             "connection", "bond"})
_PARTICIPLE = re.compile(r"[a-z]+(?:ed|eld|ught|ade|own|orn|tten)")
_PARTICIPLE_AFTER_NOUN = re.compile(r"^(?P<noun>[a-z]+) (?P<verb>[a-z]+(?:ed|eld|ught|ade|won))$")


def template_phrase(label: str) -> str:
    """A phrase that states the property between subject and object, made from its label alone.

    "located in the administrative territorial entity", "part of" → "is …"; "award received" → "received";
    "has part(s)" → "has part"; a kind of relation ("positive correlation") → "has a positive correlation
    with"; any other noun, the value's role ("employer") → "'s employer is", which keeps the subject first as
    the summary sentence the judge completes needs ("Jana Novotná's employer is …").
    """
    words = re.sub(r"\((?:s|es)\)", "", label).replace("_", " ").strip().lower()
    words = re.sub(r"\s+", " ", words)
    if not words:
        return "is related to"
    first = words.split(" ", 1)[0]
    if _VERB_START.match(words):
        return words
    if (_PARTICIPLE.fullmatch(first) and " " in words) or _PREPOSITION_END.search(words):
        return f"is {words}"
    participle = _PARTICIPLE_AFTER_NOUN.match(words)
    if participle:
        return participle.group("verb")
    if words.rsplit(" ", 1)[-1] in _RELATION_NOUNS:  # a kind of relation, not the value's role
        return f"has {'an' if words[0] in 'aeiou' else 'a'} {words} with"
    return f"'s {words} is"


# -- building a profile ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Link:
    """One row of what Wikidata says relates the profiled property to another: ``other`` by ``kind``."""

    other: str
    kind: str  # one of INVERSE, OPPOSITE, RELATED, SAME_VALUE, SHARED_TYPES
    weight: float = 1.0  # how strongly (items sharing a value, type constraints shared)


@dataclass(frozen=True)
class Named:
    """A property's terms and, where curated, its phrase."""

    label: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    phrase: str = ""
    other_phrases: tuple[str, ...] = ()


def build_profile(property_id: str, named: Named, links: Iterable[Link], names: dict[str, Named], *,
                  curated_contrasts: Sequence[str] = (), compatible: Sequence[str] = (), source: str = "",
                  retrieved: str = "", limit: int = MAX_CONTRASTS) -> PropertyProfile:
    """The profile of ``property_id``: its phrase (curated, else from its label) and its strongest contrasts.

    Contrasts are ranked by their strongest source (curated first, then inverse, opposite, shared values,
    related, shared type constraints), then by weight; a property never contrasts with itself or with one the
    catalogue calls ``compatible``, and one whose label is unknown is left out (its phrase could not be
    written)."""
    evidence: dict[str, list[tuple[int, float]]] = {}
    for rank, other in enumerate(curated_contrasts):
        evidence.setdefault(other, []).append((0, float(len(curated_contrasts) - rank)))
    for link in links:
        if link.kind not in SOURCES_BY_STRENGTH:
            raise ValueError(f"unknown kind of property link: {link.kind!r}")
        evidence.setdefault(link.other, []).append((SOURCES_BY_STRENGTH.index(link.kind), link.weight))
    ranked = sorted((other for other in evidence
                     if other != property_id and other in names and other not in compatible),
                    key=lambda other: (min(s for s, _ in evidence[other]),
                                       -max(w for s, w in evidence[other] if s == min(x for x, _ in evidence[other])),
                                       _numeric(other)))
    contrasts = []
    for other in ranked[:limit]:
        terms = names[other]
        kinds = tuple(SOURCES_BY_STRENGTH[s] for s in sorted({s for s, _ in evidence[other]}))
        contrasts.append(Contrast(other, terms.label, terms.phrase or template_phrase(terms.label),
                                  terms.description, kinds, CATALOGUE if terms.phrase else TEMPLATE,
                                  terms.other_phrases))
    return PropertyProfile(property_id, named.label, named.phrase or template_phrase(named.label),
                           named.description, named.aliases, CATALOGUE if named.phrase else TEMPLATE,
                           tuple(contrasts), source, retrieved, other_phrases=named.other_phrases)


def statement_claim(statement: Statement, profile: PropertyProfile | None) -> Claim:
    """The judge's claim: the statement's labels (Wikidata's, in the user's language), the qualifiers that say when
    it holds, and its property's phrase and contrasts when its profile is known."""
    if profile is None:
        return statement.claim
    claim = profile.claim(statement.item_label or statement.item, statement.value.text)
    return replace(claim, predicate=statement.property_label or claim.predicate,
                   predicate_description=statement.property_description or claim.predicate_description,
                   value=statement.value, when=statement.time_qualifiers)


def label_only(property_id: str, label: str, description: str = "", note: str = "") -> PropertyProfile:
    """The profile of a property nothing is known about beyond its label: a template phrase, no contrasts."""
    return PropertyProfile(property_id, label or property_id, template_phrase(label or property_id), description,
                           source="label only", notes=(note,) if note else ())


def _numeric(entity: str) -> int:
    return int(entity[1:]) if entity[1:].isdigit() else 0
