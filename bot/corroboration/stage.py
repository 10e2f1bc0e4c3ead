"""Corroborating one statement from the item's authority records: the records read, each record's candidates and
relations, and the outcome — ``corroborated`` (a record states the value: a "stated in" reference is proposed),
``contradicted`` (a record states another date or amount for the same relation: flagged, never written) or
``silent``.

How a relation is recognised, most certain first: the predicate is one Wikidata declares equivalent to the
property (P1628), or its label is the property's label or an alias (RapidFuzz ≥ 90); only these can contradict.
When a record states the statement's value under a relation neither recognises, the judge's model is asked which of
those relations state the property, and its answer is validated against them (``bot.corroboration.picking``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from enum import Enum
from typing import TYPE_CHECKING, Any

from bot.clock import Clock, day_of
from bot.corroboration.facts import Fact, facts, label, subject_of
from bot.corroboration.identifiers import (Identifier, IdentifierCache, IdentifierProperty, equivalent_uris,
                                           item_identifiers, items_with, rdf_identifier_properties)
from bot.corroboration.matching import Agreement, Candidate, Comparison, cascade, compare, contradicts, \
    names_relation
from bot.corroboration.picking import Picks, pick_relations
from bot.corroboration.parsing import BoundedParser, ParseBounds
from bot.corroboration.records import Record, read_record
from bot.datamodel import Statement
from bot.errors import BackendUnavailable, JudgeError, QueryError
from bot.references import StatedIn

if TYPE_CHECKING:
    from bot.documents.fetching import Fetcher
    from bot.judge.backend import Backend
    from bot.properties.profile import PropertyProfile
    from bot.selection.endpoint import SparqlEndpoint

Embed = Callable[[list[str]], list[list[float]]]
# How many answers of each kind a Corroborator keeps: records (graphs) and items' identifier lists for the items in
# progress, reverse lookups and equivalent properties for the whole run.
KEEP = {"record": 64, "facts": 64, "item": 64, "uri": 4096, "equivalents": 4096, "properties": 1}
# Embeddings kept (a record's facts are ranked again for each of the item's statements).
KEEP_VECTORS = 4096
# A record's URIs mapped back to items by asking the endpoint, at most (a record of thousands of URIs would ask as
# many queries); the others compare by name.
MAX_LOOKUPS = 64
# A record's facts about its subject weighed against a statement, at most (a person's record has tens or hundreds).
MAX_FACTS = 2_000


class Finding(str, Enum):
    CORROBORATED = "corroborated"
    CONTRADICTED = "contradicted"
    SILENT = "silent"


@dataclass(frozen=True)
class RecordCheck:
    """One record read for a statement, and what it said."""

    identifier: Identifier
    record: Record
    finding: Finding
    reason: str
    subject: str = ""
    subject_label: str = ""
    facts: int = 0
    step: str = ""  # the cascade's step: value, relation or subject
    candidates: tuple[Candidate, ...] = ()
    # (relation label, how it was recognised: equivalent, label or model) for the candidates' relations.
    relations: tuple[tuple[str, str], ...] = ()
    picks: Picks | None = None
    chosen: Candidate | None = None


@dataclass(frozen=True)
class Corroboration:
    finding: Finding
    reason: str
    records: tuple[RecordCheck, ...] = ()
    reference: StatedIn | None = None
    elapsed_s: float = 0.0
    # Identifiers the item has whose records were not read (beyond ``max_records``).
    skipped: int = 0
    # Why the item's identifiers could not be listed (the endpoint's trouble); then no record was read.
    error: str = ""

    @property
    def model_prompt_tokens(self) -> int:
        return sum(check.picks.prompt_tokens for check in self.records if check.picks is not None)


class Remembered:
    """An embedding model that embeds each text once while it is among the latest ``keep``: an item's statements
    rank the same record's facts again and again."""

    def __init__(self, embed: Embed, keep: int = KEEP_VECTORS) -> None:
        self.embed = embed
        self.keep = keep
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._guard = threading.Lock()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        with self._guard:
            known = {text: self._vectors[text] for text in texts if text in self._vectors}
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            known |= dict(zip(missing, self.embed(missing)))
        with self._guard:
            for text in texts:
                self._vectors[text] = known[text]
                self._vectors.move_to_end(text)
            while len(self._vectors) > self.keep:
                self._vectors.popitem(last=False)
        return [known[text] for text in texts]


class Corroborator:
    """Reads the item's records and weighs them against a statement. Thread-safe: statements checked side by side
    read each item's identifiers, each record and each reverse lookup once."""

    def __init__(self, endpoint: SparqlEndpoint, fetcher: Fetcher, *, backend: Backend | None = None,
                 embed: Embed | None = None, languages: Sequence[str] = ("en", "mul"),
                 cache: IdentifierCache | None = None, endpoint_name: str = "", top: int = 5,
                 max_records: int = 5, clock: Clock | None = None,
                 bounds: ParseBounds = ParseBounds()) -> None:
        """``clock``: the day a record's reference is retrieved when its fetch has none (the fetcher's own);
        ``bounds``: what parsing one record may cost."""
        self.endpoint = endpoint
        self.fetcher = fetcher
        self.backend = backend
        self.embed = Remembered(embed) if embed is not None else None
        self.languages = tuple(languages)
        self.cache = cache
        self.endpoint_name = endpoint_name or "SPARQL endpoint"
        self.top = top
        self.max_records = max_records
        self.clock = clock or fetcher.clock
        self._properties: dict[str, IdentifierProperty] | None = None
        self._memo: dict[tuple[str, str], Any] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self.bounds = bounds
        self._parser = BoundedParser(bounds)
        self._contexts: dict[str, bytes] = {}  # remote JSON-LD context documents fetched, by URL

    # -- what is read once -----------------------------------------------------------------------------------
    def _once(self, kind: str, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` once per key; only the last ``KEEP[kind]`` answers of a kind are kept, so that a run over
        thousands of items does not hold every record it read (an item's statements are checked together)."""
        with self._guard:
            lock = self._locks.setdefault((kind, key), threading.Lock())
        with lock:
            if (kind, key) not in self._memo:
                value = make()
                with self._guard:
                    self._memo[(kind, key)] = value
                    self._forget(kind)
                return value
            return self._memo[(kind, key)]

    def _forget(self, kind: str) -> None:
        keys = [key for key in self._memo if key[0] == kind]
        for old in keys[:max(0, len(keys) - KEEP.get(kind, 4096))]:
            del self._memo[old]
            self._locks.pop(old, None)

    def properties(self) -> dict[str, IdentifierProperty]:
        """The identifier properties with RDF records: from the cache, else the endpoint (then cached); a stale copy
        when the endpoint fails; QueryError when there is none."""
        return self._once("properties", "", self._read_properties)

    def _read_properties(self) -> dict[str, IdentifierProperty]:
        today = day_of(self.clock)
        cached = self.cache.get(today, self.endpoint_name) if self.cache else None
        if cached is not None:
            return cached
        try:
            found = rdf_identifier_properties(self.endpoint, self.languages)
        except QueryError:
            stale = self.cache.get(today, self.endpoint_name, any_age=True) if self.cache else None
            if stale is not None:
                return stale
            raise
        if self.cache is not None:
            try:
                self.cache.put(found, today, self.endpoint_name)
            except OSError:
                pass  # a full or read-only disk costs the next run a lookup, no more
        return found

    def identifiers(self, item: str) -> list[Identifier]:
        known = self.properties()
        return self._once("item", item, lambda: item_identifiers(self.endpoint, item, known))

    def record(self, url: str) -> Record:
        def read() -> Record:
            return read_record(self.fetcher, url, self._contexts, self._parser, self.bounds)
        return self._once("record", url, read)

    def equivalents(self, property_id: str) -> tuple[str, ...]:
        def read() -> tuple[str, ...]:
            try:
                return equivalent_uris(self.endpoint, property_id)
            except QueryError:
                return ()  # then only labels and the model recognise the relation
        return self._once("equivalents", property_id, read)

    def items_for(self, uri: str) -> list[str]:
        """The Wikidata items a record's URI stands for, through the identifier it carries."""
        def look_up() -> list[str]:
            found: list[str] = []
            for prop in self.properties().values():
                identifier = prop.identifier_of(uri)
                if identifier:
                    try:
                        found += [item for item in items_with(self.endpoint, prop.property_id, identifier)
                                  if item not in found]
                    except QueryError:
                        continue
            return found
        return self._once("uri", uri, look_up)

    # -- one statement ---------------------------------------------------------------------------------------
    def corroborate(self, statement: Statement, profile: PropertyProfile | None = None) -> Corroboration:
        """QueryError when the item's identifiers cannot be read (the caller records it); BackendUnavailable
        when the model is needed and cannot be reached."""
        started = time.monotonic()
        identifiers = self.identifiers(statement.item)
        if not identifiers:
            return Corroboration(Finding.SILENT, "the item has no identifier whose record is published as RDF",
                                 elapsed_s=round(time.monotonic() - started, 3))
        names = _names(statement, profile)
        contrasts = _contrasts(profile)
        checks = [self._check(statement, identifier, names, contrasts)
                  for identifier in identifiers[:self.max_records]]
        finding, reason, reference = _combine(checks, statement, day_of(self.clock))
        return Corroboration(finding, reason, tuple(checks), reference, round(time.monotonic() - started, 3),
                             max(0, len(identifiers) - self.max_records))

    def _about(self, record: Record, identifier: str) -> tuple[Any, str, list[Fact]]:
        """What the record says of the node it is about (None when none), its name there, and its facts: read once
        for all the item's statements."""
        def read() -> tuple[Any, str, list[Fact]]:
            subject = subject_of(record.graph, identifier, record.final_url)
            if subject is None:
                return None, "", []
            return subject, label(record.graph, subject, self.languages), facts(record.graph, subject, self.languages,
                                                                                MAX_FACTS)
        return self._once("facts", f"{record.url} {identifier}", read)

    def _check(self, statement: Statement, identifier: Identifier, names: Sequence[str],
               contrasts: Sequence[tuple[str, str]] = ()) -> RecordCheck:
        record = self.record(identifier.record_url)
        if not record.ok:
            return RecordCheck(identifier, record, Finding.SILENT, f"the record could not be read: {record.error}")
        subject, own_label, found = self._about(record, identifier.value)
        if subject is None:
            return RecordCheck(identifier, record, Finding.SILENT, "the record holds no statement about a URI")
        subject_label = own_label or statement.item_label
        equivalents = self.equivalents(statement.property_id)
        claim_text = f"{statement.item_label} {names[0]} {statement.value.text}"
        items_for = _at_most(self.items_for, MAX_LOOKUPS)
        step, candidates = cascade(found, statement.value, claim_text, subject_label, names, equivalents,
                                   items_for, embed=self.embed, top=self.top)
        recognised = {fact.relation: how for fact in found if (how := names_relation(fact, names, equivalents))}
        base = dict(subject=str(subject), subject_label=subject_label, facts=len(found), step=step,
                    candidates=tuple(candidates))
        same = [c for c in candidates if c.comparison.agreement is Agreement.SAME]
        chosen = next((c for c in same if c.fact.relation in recognised), None)
        picks = None
        unrecognised = [c for c in same if c.fact.relation not in recognised]
        if chosen is None and unrecognised and self.backend is not None:
            picks = _without_contrasts(self._pick(statement, names, unrecognised), contrasts)
            picks = _close_to(picks, names[0], self.embed)
            recognised |= {relation: "model" for relation in picks.accepted}
            chosen = next((c for c in same if recognised.get(c.fact.relation) == "model"), None)
        relations = tuple(sorted({(c.fact.relation, recognised[c.fact.relation]) for c in candidates
                                  if c.fact.relation in recognised}))
        base |= dict(relations=relations, picks=picks)
        if chosen is not None:
            how = recognised[chosen.fact.relation]
            return RecordCheck(identifier, record, Finding.CORROBORATED,
                               f"states it: {chosen.fact.relation} {chosen.fact.object_text} ({_how(how)}, "
                               f"{chosen.comparison.how})", chosen=chosen, **base)  # type: ignore[arg-type]
        return self._not_stated(statement, identifier, record, found, recognised, base, items_for)

    def _pick(self, statement: Statement, names: Sequence[str], candidates: Sequence[Candidate]) -> Picks:
        relations: list[tuple[str, str]] = []
        for candidate in candidates:
            if candidate.fact.relation not in (name for name, _ in relations):
                relations.append((candidate.fact.relation, candidate.fact.object_text[:80]))
        try:
            return pick_relations(self.backend, names[0], statement.property_description, relations)
        except BackendUnavailable:
            raise
        except JudgeError as error:
            return Picks(f"no answer: {error}")

    def _not_stated(self, statement: Statement, identifier: Identifier, record: Record, found: Sequence[Fact],
                    recognised: dict[str, str], base: dict[str, Any],
                    items_for: Callable[[str], Sequence[str]]) -> RecordCheck:
        firm = [fact for fact in found if recognised.get(fact.relation) in ("equivalent", "label")]
        compared = [(fact, compare(statement.value, fact, items_for)) for fact in firm]
        other = [(f, c) for f, c in compared if c.agreement is Agreement.OTHER]
        coarser = [(f, c) for f, c in compared if c.agreement is Agreement.COARSER]
        if other and contradicts(statement.value.datatype) and not coarser:
            fact, comparison = other[0]
            chosen = Candidate(fact, "relation", 1.0, comparison)
            return RecordCheck(identifier, record, Finding.CONTRADICTED,
                               f"states another value: {fact.relation} {fact.object_text} "
                               f"({_how(recognised[fact.relation])}, compared by {comparison.how})", chosen=chosen,
                               **base)
        if coarser:
            fact, comparison = coarser[0]
            return RecordCheck(identifier, record, Finding.SILENT,
                               f"states it only to the {comparison.how}: {fact.relation} {fact.object_text}",
                               chosen=Candidate(fact, "relation", 1.0, comparison), **base)
        if other:
            fact, comparison = other[0]
            return RecordCheck(identifier, record, Finding.SILENT,
                               f"states {fact.relation} {fact.object_text}, not this value (another "
                               f"{'item' if comparison.how.startswith('item') else 'value'} does not deny it)",
                               **base)
        if firm:
            return RecordCheck(identifier, record, Finding.SILENT,
                               f"states {firm[0].relation}, but no value refbot can compare", **base)
        return RecordCheck(identifier, record, Finding.SILENT,
                           f"none of the record's {len(found)} fact(s) is recognised as "
                           f"{statement.property_label or statement.property_id}", **base)


def _at_most(items_for: Callable[[str], Sequence[str]], limit: int) -> Callable[[str], Sequence[str]]:
    """``items_for`` asked of at most ``limit`` distinct URIs; any further URI maps to no item."""
    asked: set[str] = set()

    def look_up(uri: str) -> Sequence[str]:
        if uri not in asked and len(asked) >= limit:
            return ()
        asked.add(uri)
        return items_for(uri)
    return look_up


def _contrasts(profile: PropertyProfile | None) -> list[tuple[str, str]]:
    """(name, property) for each relation the property is told apart from: its contrasts' labels and phrases."""
    if profile is None:
        return []
    return [(name, f"{contrast.label}, {contrast.property_id}") for contrast in profile.contrasts
            for name in (contrast.label, contrast.phrase, *contrast.other_phrases) if name]


def _without_contrasts(picks: Picks, contrasts: Sequence[tuple[str, str]]) -> Picks:
    """A pick named like one of the property's contrasts ("nominated for" when the statement is an award received)
    is refused: the judge tells those relations apart, and so must the records."""

    from rapidfuzz import fuzz, utils

    kept, refused = [], list(picks.refused)
    for relation in picks.accepted:
        clash = next((why for name, why in contrasts
                      if fuzz.ratio(relation, name, processor=utils.default_process) >= 90), "")
        if clash:
            refused.append(f"{relation} (a contrasting relation: {clash})")
        else:
            kept.append(relation)
    return replace(picks, accepted=tuple(kept), refused=tuple(refused))


# A model's pick is kept only when its label's MiniLM embedding is at least this close to the property's label
# (GPT-LODS ranks relations by this cosine): on benchmarks/relation_picks.py the picks that do mean the property
# score 0.35–0.59 ("alma mater" for educated at, "job title" for occupation), the wrong ones the model made 0.28
# ("affiliation" for educated at, "field of study" for occupation).
PICK_COSINE = 0.30


def _close_to(picks: Picks, label: str, embed: Embed | None) -> Picks:
    if embed is None or not picks.accepted:
        return picks

    vectors = embed([label, *picks.accepted])
    kept, refused = [], list(picks.refused)
    for relation, vector in zip(picks.accepted, vectors[1:]):
        cosine = sum(a * b for a, b in zip(vectors[0], vector))
        if cosine >= PICK_COSINE:
            kept.append(relation)
        else:
            refused.append(f"{relation} (too far from {label}: cosine {cosine:.2f})")
    return replace(picks, accepted=tuple(kept), refused=tuple(refused))


def _how(how: str) -> str:
    return {"equivalent": "a predicate Wikidata declares equivalent", "label": "the property's label",
            "model": "picked by the model"}.get(how, how)


def _names(statement: Statement, profile: PropertyProfile | None) -> list[str]:
    names = [statement.property_label or statement.property_id]
    if profile is not None:
        names += [profile.label, *profile.aliases]
    return [name for index, name in enumerate(names) if name and name not in names[:index]]


def _combine(checks: Sequence[RecordCheck], statement: Statement, today: date
             ) -> tuple[Finding, str, StatedIn | None]:
    """Any record that contradicts wins (records that disagree are a curator's question); else the first that
    corroborates gives the reference; else silent."""
    contradicting = [check for check in checks if check.finding is Finding.CONTRADICTED]
    corroborating = [check for check in checks if check.finding is Finding.CORROBORATED]
    if contradicting:
        first = contradicting[0]
        also = f"; {len(corroborating)} other record(s) state the value" if corroborating else ""
        return Finding.CONTRADICTED, (f"{_database(first)} {first.identifier.value} {first.reason}{also}"), None
    if corroborating:
        first = corroborating[0]
        return Finding.CORROBORATED, f"{_database(first)} {first.identifier.value} {first.reason}", \
            stated_in(first, today)
    read = sum(1 for check in checks if check.record.ok)
    return Finding.SILENT, f"{read} of {len(checks)} record(s) read; none states the value", None


def _database(check: RecordCheck) -> str:
    prop = check.identifier.prop
    return prop.database_label or prop.label


def stated_in(check: RecordCheck, today: date) -> StatedIn:
    prop, record = check.identifier.prop, check.record
    retrieved = _day(record.retrieved) or today
    moved = record.final_url if not _same_place(record.final_url, record.url) else ""
    return StatedIn(prop.database, prop.database_label, prop.property_id, prop.label, check.identifier.value,
                    retrieved, record.url, moved)


def _same_place(left: str, right: str) -> bool:
    def bare(url: str) -> str:
        return url.split("://", 1)[-1].rstrip("/")
    return not left or bare(left) == bare(right)


def _day(iso: str) -> date | None:
    try:
        return date.fromisoformat(iso[:10])
    except ValueError:
        return None


__all__ = ["Comparison", "Corroboration", "Corroborator", "Finding", "RecordCheck", "stated_in"]
