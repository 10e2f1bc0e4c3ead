"""A record's statements about its subject, verbalised with the record's own labels. Pure: takes an rdflib Graph.

GPT-LODS verbalises each triple as "subject predicate object" with the labels the graph gives; a predicate the
record does not label is read from its local name (``dateOfBirth`` → "date of birth").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
# Predicates whose literal names the node they are about (rdfs:label, skos:prefLabel, schema:name, foaf:name, the
# GND's preferredNameFor…, the BnF's prefLabel, vCard's fn).
_NAMING = re.compile(r"^(label|prefLabel|name|preferredName\w*|title|fn)$")
# A record's bookkeeping says nothing of its subject.
_BOOKKEEPING = re.compile(r"^(sameAs|seeAlso|isPrimaryTopicOf|primaryTopic|describedBy|license|modified|created|"
                          r"inDataset|isDefinedBy|wasDerivedFrom|changeNote|editorialNote|identifier|"
                          r"gndIdentifier|oldAuthorityNumber|page|homepage|depiction)$")


@dataclass(frozen=True)
class Fact:
    """One triple of the record's subject: the predicate's URI and label, the object as the record writes it
    (a URI, or a literal's lexical form with its datatype and language) and the object's label."""

    predicate: str
    relation: str
    object: str
    object_text: str
    is_uri: bool = False
    datatype: str = ""
    language: str = ""

    def verbalised(self, subject: str) -> str:
        return f"{subject} {self.relation} {self.object_text}"


def local_name(uri: str) -> str:
    return re.split(r"[#/:]", uri.rstrip("/#"))[-1]


def words(name: str) -> str:
    """``dateOfBirth`` → "date of birth", ``P569`` stays, ``birth_place`` → "birth place"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_-]+", " ", name)
    return " ".join(spaced.split()).lower() if not re.fullmatch(r"[A-Z]\d+", name) else name


def subject_of(graph: Any, identifier: str, url: str) -> Any:
    """The node the record is about: of the URIs with statements, one naming the identifier (the most statements
    first), else the record's own URL, else the URI with the most statements; None for an empty record."""
    from rdflib import URIRef

    counts: dict[Any, int] = {}
    for subject in graph.subjects():
        if isinstance(subject, URIRef):
            counts[subject] = counts.get(subject, 0) + 1
    if not counts:
        return None
    naming = [node for node in counts if identifier and identifier in str(node)]
    if naming:
        return max(naming, key=lambda node: (counts[node], -len(str(node))))
    own = URIRef(url)
    if own in counts:
        return own
    return max(counts, key=lambda node: (counts[node], -len(str(node))))


def label(graph: Any, node: Any, languages: Sequence[str]) -> str:
    """The node's name in the first of ``languages`` the record has one in, else an untagged one, else any."""
    from rdflib import Literal

    best: tuple[int, str] | None = None
    order = {language: index for index, language in enumerate(languages)}
    for predicate, value in graph.predicate_objects(node):
        if not isinstance(value, Literal) or not _NAMING.match(local_name(str(predicate))):
            continue
        rank = order.get((value.language or "").lower(), len(order) if not value.language else len(order) + 1)
        text = " ".join(str(value).split())
        if text and (best is None or rank < best[0]):
            best = (rank, text)
    return best[1] if best else ""


def relation_label(graph: Any, predicate: Any, languages: Sequence[str]) -> str:
    own = label(graph, predicate, languages)
    if own:
        return own
    if str(predicate) == RDF_TYPE:
        return "type"
    return words(local_name(str(predicate)))


def facts(graph: Any, subject: Any, languages: Sequence[str] = ("en",), limit: int | None = None) -> list[Fact]:
    """The subject's triples as facts, in a stable order; naming and bookkeeping triples and blank objects with no
    name are left out. ``limit``: at most this many, the first by predicate and object (a record of thousands of
    facts about one subject is a dump: reading them all for every statement would cost minutes)."""
    from rdflib import BNode, Literal

    found: set[Fact] = set()
    relations: dict[Any, str] = {}
    for predicate, value in sorted(graph.predicate_objects(subject), key=lambda pair: (str(pair[0]), repr(pair[1]))):
        if limit is not None and len(found) >= limit:
            break
        name = local_name(str(predicate))
        if _NAMING.match(name) or _BOOKKEEPING.match(name):
            continue
        if predicate not in relations:
            relations[predicate] = relation_label(graph, predicate, languages)
        relation = relations[predicate]
        if isinstance(value, Literal):
            text = " ".join(str(value).split())
            if text:
                found.add(Fact(str(predicate), relation, str(value), text, False, str(value.datatype or ""),
                               (value.language or "").lower()))
        elif isinstance(value, BNode):
            text = label(graph, value, languages)
            if text:
                found.add(Fact(str(predicate), relation, text, text))
        else:
            text = label(graph, value, languages) or words(local_name(str(value)))
            found.add(Fact(str(predicate), relation, str(value), text, True))
    return sorted(found, key=lambda fact: (fact.relation, fact.object))
