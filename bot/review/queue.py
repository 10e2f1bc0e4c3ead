"""The review queue's cards, read from a run's trace: one compact card per proposed reference (and per statement a
page or a record says is false), in the trace's order. Pure: takes lxml elements of a trace; the ledger keeps each
card as JSON (``bot.review.shelf``), so that a queue page reads one card, not the trace.

A card holds what a curator decides on: the statement with its qualifiers, the source (site, title, date, archived or
live), the supporting paragraph with the quotation marked, the reference's snaks with their labels, the support, and
the evidence against (paragraphs that negate the value, state a contrasting relation or give another value). The
judge's internals and the records that said nothing stay in the trace: the card links to them in the report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any
from urllib.parse import urlencode, urlsplit

from bot.checking.against import Against
from bot.datamodel import Qualifier, Value
from bot.judge.engine import ACROSS_ALPHABETS
from bot.judge.naming import NAMED
from bot.judge.periods import period, sentence_giving
from bot.output.trace import tag
from bot.references import snak_note
from bot.review.alternatives import Alternative, alternatives
from bot.review.proposals import statement_proposal
from bot.review.summaries import found_by

FILTERS = {
    "undecided": "undecided",
    "supported": "supported by a page",
    "corroborated": "corroborated by a record",
    "contradicted": "evidence against",
    "all": "all",
}
DEFAULT_FILTER = "undecided"


@dataclass(frozen=True)
class Marked:
    """A text in parts, each marked or not (the quotation in its paragraph, the names a paragraph matched)."""

    parts: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        return "".join(part for part, _ in self.parts)


@dataclass(frozen=True)
class Source:
    url: str
    site: str
    title: str
    language: str
    read: str  # "read 2026-11-27", "archived copy of 2019-06-12 (the page is gone)"
    archive_url: str = ""
    link: str = ""  # the URL when a page may link it (:func:`web`)
    archive_link: str = ""


@dataclass(frozen=True)
class Evidence:
    """A paragraph that says the statement is false: ``why`` (negated, a contrasting relation, another value)."""

    url: str
    site: str
    why: str
    paragraph: Marked
    title: str = ""

    @property
    def link(self) -> str:
        return web(self.url)


@dataclass(frozen=True)
class ShownSnak:
    property_id: str
    label: str
    text: str
    link: str = ""  # where the value leads (an item, a URL)
    note: str = ""  # what the text alone hides: a monolingual text's language, an item's id


@dataclass(frozen=True)
class Card:
    guid: str
    item: str
    item_label: str
    statement_url: str
    property_id: str
    property_label: str
    value_text: str
    rank: str
    qualifiers: tuple[tuple[str, str], ...]  # (property label, value text)
    outcome: str
    reason: str
    state: str  # proposed, approved, rejected, written, skipped; "" for a statement with nothing proposed
    curator: str
    decided: str
    decision_id: int
    kind: str  # web, stated-in, or "" (nothing proposed: a statement with evidence against)
    source: Source | None
    paragraph: Marked | None  # the supporting paragraph, the quotation marked
    snaks: tuple[ShownSnak, ...]
    support: float
    how: str  # "judged by MODEL, support 0.87" / "stated in Integrated Authority File, GND ID 1099020101"
    against: tuple[Evidence, ...]
    # What the supporting unit is on its page, as readers name it ("table", "header line"); "" for prose.
    block: str = ""
    # Where the page names the value another way and the model named the words (``bot.judge.naming``): the words
    # and how refbot checked them ("“the violist”, checked: same stem as “viola”"); "" otherwise.
    named: str = ""
    # Where the page is in another alphabet than the value's names and the model read it without refbot finding
    # the value there (``bot.judge.engine.ACROSS_ALPHABETS``): the curator is asked to check that it names it.
    unfound: bool = False
    # For a record's reference: the triple the record states (subject, predicate, object as the record writes them)
    # and the model that chose the relation, when a model did ("": recognised by the property's mapping).
    triple: tuple[str, str, str] = ("", "", "")
    chosen_by: str = ""
    note: str = ""  # the note kept with the decision
    # Beside each qualifier, for a page's reference: ("checked", the sentence of the paragraph that gives it),
    # ("dated", the page's date, within a time qualifier's) or ("unchecked", the page's date when it says one, else "").
    qualifier_checks: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()  # the optional snaks the curator left out of the approved reference
    # The other paragraphs that support the statement (``bot.review.alternatives``), and the one approved instead.
    alternatives: tuple[Alternative, ...] = ()
    chosen_paragraph: str = ""
    # A written reference's edit: its revision and where the wiki shows it (its difference).
    revision: int | None = None
    revision_url: str = ""
    # What found the reference, as its edit summary says it (``bot.review.applying.found_by``).
    found_by: str = ""

    @property
    def history_url(self) -> str:
        """The item's history on the wiki the edit was made on ("" without a written edit's address)."""
        index = self.revision_url.split("?", 1)[0] if web(self.revision_url) else ""
        return f"{index}?{urlencode({'title': self.item, 'action': 'history'})}" if index else ""

    @property
    def contributions_url(self) -> str:
        """The curator's contributions on that wiki (their edits, this one among them)."""
        index = self.revision_url.split("?", 1)[0] if web(self.revision_url) else ""
        return f"{index}?{urlencode({'title': 'Special:Contributions/' + self.curator})}" \
            if index and self.curator else ""

    @property
    def resolvable(self) -> bool:
        """A statement a source says is false, with nothing proposed: a curator acknowledges it or marks the value
        wrong."""
        return not self.kind and (bool(self.against) or self.outcome == "contradicted")

    @property
    def proposed(self) -> bool:
        return bool(self.kind)

    @property
    def quoted(self) -> bool:
        """Whether the quotation (P1683) is marked in the paragraph shown."""
        return self.paragraph is not None and any(marked for _, marked in self.paragraph.parts)

    @property
    def undecided(self) -> bool:
        return self.state == "proposed"

    @property
    def title(self) -> str:
        """"Marta Novotná · award received · Purkyně Prize for Chemistry"."""
        return f"{self.item_label or self.item} · {self.property_label or self.property_id} · {self.value_text}"

    def shown_in(self, name: str, property_id: str = "") -> bool:
        """Whether the filter ``name`` (and the property, when one is given) shows this card."""
        if property_id and self.property_id != property_id:
            return False
        if name == "undecided":
            return self.undecided or (self.resolvable and not self.state)
        if name == "supported":
            return self.kind == "web"
        if name == "corroborated":
            return self.kind == "stated-in"
        if name == "contradicted":
            return bool(self.against) or self.outcome == "contradicted"
        return True


def cards(root: Any) -> list[Card]:
    """Every card of a trace (its root element), in the trace's order."""
    judge = root.find(f"{tag('run')}/{tag('judge')}")
    model = judge.get("model", "") if judge is not None else ""
    found = []
    for item in root.iter(tag("item")):
        for element in item:
            if element.tag not in (tag("statement"), tag("verification")):
                continue
            card = card_of(item, element, model)
            if card is not None:
                found.append(card)
    return found


def card_of(item: Any, statement: Any, model: str) -> Card | None:
    """The card of one statement element (under its item element; ``model``: the run's judge), None when it shows
    none (nothing proposed, no evidence against). Its review state is the trace's, if the trace has one. A verify
    run's reference (a ``verification`` element) has a card when a fix is proposed for it (its dead page's archived
    copy) or its page gives another value; its guid is the reference's key in the run (``GUID#hash``)."""
    if statement.tag == tag("verification"):
        return _verification_card(item, statement, model)
    return _card(item, statement, model)


def _verification_card(item: Any, element: Any, model: str) -> Card | None:
    reference = element.find(tag("reference"))
    proposed = reference is not None and reference.get("kind") == "archive"
    outcome = element.get("outcome")
    against = tuple(_against(element))
    if not proposed and outcome != "contradicts":
        return None
    review = element.find(tag("review"))
    document = element.find(tag("document"))
    snaks = tuple(_snak(snak) for snak in reference.iter(tag("snak"))) if proposed else ()
    source = _source(document, reference) if proposed else None
    if source is not None:
        source = replace(source, read=f"{source.read}; the reference's page is dead")
    paragraph = None
    judgement = next((j for j in element.iter(tag("judgement")) if j.get("supports") == "true"), None)
    if judgement is not None:
        paragraph = _with_quotation(judgement, element.findtext(tag("sentence")) or "")
    said = (element.get("archived") or "").replace("-", " ")
    support = float(element.get("support") or 0.0)
    how = (f"the cited page is dead; its archived copy {said or 'was read'} the statement (judged by "
           f"{model or 'the judge'}, support {support:.2f}): add the copy to the reference") if proposed else \
        f"the cited page gives another value: {element.findtext(tag('other-value')) or ''}"
    return Card(
        guid=f"{element.get('guid')}#{element.get('reference')}", item=item.get("id"),
        item_label=item.get("label") or "", statement_url=web(element.get("url")),
        property_id=element.get("property"), property_label=element.get("property-label") or "",
        value_text=element.get("value-text") or "", rank="normal", qualifiers=tuple(_qualifiers(element)),
        outcome="contradicted" if outcome == "contradicts" else outcome, reason=element.findtext(tag("reason")) or "",
        state=review.get("state") if review is not None else ("proposed" if proposed else ""),
        curator=review.get("curator", "") if review is not None else "",
        decided=review.get("decided", "") if review is not None else "",
        decision_id=int(review.get("decision-id") or 0) if review is not None else 0,
        kind="archive" if proposed else "", source=source, paragraph=paragraph, snaks=snaks, support=support,
        how=how, against=against, note=(review.findtext(tag("note")) or "") if review is not None else "",
        found_by="archived copy of the reference's dead page" if proposed else "", **_edit(review))


PUBLIC_ARCHIVE = "https://web.archive.org"


def archived_where_read(card: Card, archive_web: str) -> Card:
    """The card with its archived copy linked where this refbot reads archived copies (``[archive] web_url``: a
    mirror, or the demo world's stand-in, whose copies of loopback pages the public archive never had); the
    reference keeps the public archive's address, which is what Wikidata is given."""
    base = archive_web.rstrip("/")
    source = card.source
    if source is None or not base or base == PUBLIC_ARCHIVE or not source.archive_link.startswith(PUBLIC_ARCHIVE + "/"):
        return card
    return replace(card, source=replace(source, archive_link=base + source.archive_link[len(PUBLIC_ARCHIVE):]))


def card_json(card: Card) -> str:
    """The card as the ledger keeps it (``bot.review.shelf``)."""
    return json.dumps(asdict(card), ensure_ascii=False, separators=(",", ":"))


def card_from_json(text: str) -> Card:
    data = json.loads(text)
    source = Source(**data["source"]) if data["source"] else None
    paragraph = _marked_from(data["paragraph"]) if data["paragraph"] else None
    return Card(**{**data, "qualifiers": tuple(tuple(pair) for pair in data["qualifiers"]), "source": source,
                   "qualifier_checks": tuple(tuple(pair) for pair in data.get("qualifier_checks") or ()),
                   "dropped": tuple(data.get("dropped") or ()),
                   "alternatives": tuple(Alternative(**other) for other in data.get("alternatives") or ()),
                   "triple": tuple(data.get("triple") or ("", "", "")),
                   "paragraph": paragraph, "snaks": tuple(ShownSnak(**snak) for snak in data["snaks"]),
                   "against": tuple(Evidence(**{**evidence, "paragraph": _marked_from(evidence["paragraph"])})
                                    for evidence in data["against"])})


def _marked_from(data: dict[str, Any]) -> Marked:
    return Marked(tuple((text, bool(marked)) for text, marked in data["parts"]))


def _card(item: Any, statement: Any, model: str) -> Card | None:
    reference = statement.find(tag("reference"))
    outcome = statement.get("outcome")
    proposed = reference is not None and outcome in ("supported", "corroborated")
    against = tuple(_against(statement))
    if not proposed and not against and outcome != "contradicted":
        return None
    review = statement.find(tag("review"))
    kind = (reference.get("kind") or "web") if proposed else ""
    snaks = tuple(_snak(snak) for snak in reference.iter(tag("snak"))) if proposed else ()
    support, paragraph, source, block, named, unfound = 0.0, None, None, "", "", False
    qualifier_checks: tuple[tuple[str, str], ...] = ()
    if kind == "web":
        document, judgement = _supporting(statement, reference.get("url"))
        if judgement is not None:
            support = float(judgement.get("support"))
            block = BLOCK_NAMES.get(judgement.get("kind") or "paragraph", judgement.get("kind"))
            written = judgement.get("written") or ""
            if written.startswith(f"{NAMED}: "):
                named = f"“{judgement.get('written-form') or ''}”, checked: {written[len(NAMED) + 2:]}"
            unfound = written == ACROSS_ALPHABETS
            quotation = next((snak.text for snak in snaks if snak.property_id == "P1683"), "")
            paragraph = _with_quotation(judgement, quotation)
        qualifier_checks = _qualifier_checks(statement, paragraph.text if paragraph is not None else "",
                                             document.get("published") or "" if document is not None else "")
        source = _source(document, reference)
    proposal = statement_proposal(item, statement, "the trace") if proposed else None
    how, triple, chosen_by = "", ("", "", ""), ""
    if kind == "web":
        how = f"judged by {model or 'the judge'}, support {support:.2f}"
    elif kind == "stated-in":
        how, source, triple, chosen_by = _stated_in(snaks, statement)
    return Card(
        guid=statement.get("guid"), item=item.get("id"), item_label=item.get("label") or "",
        statement_url=web(statement.get("url")), property_id=statement.get("property"),
        property_label=statement.get("property-label") or "", value_text=statement.get("value-text") or "",
        rank=statement.get("rank") or "normal", qualifiers=tuple(_qualifiers(statement)), outcome=outcome,
        reason=statement.findtext(tag("reason")) or "",
        state=review.get("state") if review is not None else ("proposed" if proposed else ""),
        curator=review.get("curator", "") if review is not None else "",
        decided=review.get("decided", "") if review is not None else "",
        decision_id=int(review.get("decision-id") or 0) if review is not None else 0,
        kind=kind, source=source, paragraph=paragraph, snaks=snaks, support=support, how=how, against=against,
        block=block, named=named, unfound=unfound, triple=triple, chosen_by=chosen_by,
        note=(review.findtext(tag("note")) or "") if review is not None else "",
        qualifier_checks=qualifier_checks, alternatives=alternatives(statement) if kind == "web" else (),
        found_by=found_by(proposal, model) if proposal is not None else "", **_edit(review))


def _edit(review: Any) -> dict[str, Any]:
    """A written reference's edit, as the trace's ``<review>`` records it: its revision and link."""
    if review is None or not review.get("revision"):
        return {}
    return {"revision": int(review.get("revision")), "revision_url": review.get("revision-url") or ""}


def _qualifiers(statement: Any) -> Iterable[tuple[str, str]]:
    for qualifier in statement.iter(tag("qualifier")):
        yield (qualifier.get("label") or qualifier.get("property"), qualifier.get("value-text") or
               qualifier.get("value") or "")


def _snak(snak: Any) -> ShownSnak:
    property_id, text = snak.get("property"), snak.get("text") or ""
    value = snak.get("value") or ""
    link = ""
    if property_id in ("P854", "P1065"):
        link = web(text)
    elif value[:1] == "Q" and value[1:].isdigit():
        link = f"https://www.wikidata.org/wiki/{value}"
    return ShownSnak(property_id, snak.get("label") or property_id, text, link, snak_note(value, text))


# The units of a page other than prose (``bot.documents.blocks``), as a curator names them.
BLOCK_NAMES = {"paragraph": "", "lines": "short lines", "table": "table", "definitions": "definition list",
               "header": "header line", "breadcrumb": "breadcrumb", "caption": "caption", "title": "title"}


def _qualifier_checks(statement: Any, paragraph: str, published: str) -> tuple[tuple[str, str], ...]:
    """Whether the supporting paragraph gives each qualifier (the sentence that does), else the page's date."""
    checks = []
    for element in statement.iter(tag("qualifier")):
        qualifier = Qualifier(element.get("property"), element.get("label") or "",
                              Value(element.get("datatype") or "", element.get("value") or "",
                                    element.get("value-text") or ""))
        sentence = sentence_giving(qualifier, paragraph) if paragraph else ""
        when = period([qualifier])
        if sentence:
            checks.append(("checked", sentence))
        elif when is not None and published[:4].isdigit() and when.holds_in(int(published[:4])):
            checks.append(("dated", published))  # the page's own date, within the qualifier's time
        else:
            checks.append(("unchecked", published))
    return tuple(checks)


def _supporting(statement: Any, url: str) -> tuple[Any, Any]:
    """The document the reference cites and its best supporting paragraph."""
    best: tuple[Any, Any] = (None, None)
    for document in statement.iter(tag("document")):
        if document.get("url") != url or document.get("evidence") != "true":
            continue
        for judgement in document.iter(tag("judgement")):
            if judgement.get("supports") == "true" and (
                    best[1] is None or float(judgement.get("support")) > float(best[1].get("support"))):
                best = (document, judgement)
        if best[0] is None:
            best = (document, None)
    return best


def _with_quotation(judgement: Any, quotation: str) -> Marked:
    paragraph = judgement.find(tag("paragraph"))
    text = "".join(paragraph.itertext()) if paragraph is not None else ""
    return mark(text, quotation)


def mark(text: str, quotation: str) -> Marked:
    """``text`` with ``quotation`` marked where it occurs (whitespace aside); unmarked when it does not."""
    squeezed = " ".join(text.split())
    wanted = " ".join(quotation.rstrip("…").split())
    at = squeezed.find(wanted) if wanted else -1
    if at < 0:
        return Marked(((squeezed, False),))
    end = at + len(wanted)
    return Marked(tuple(part for part in ((squeezed[:at], False), (squeezed[at:end], True), (squeezed[end:], False))
                        if part[0]))


def web(url: str | None) -> str:
    """``url`` when it is an http(s) address a page may link to, else "" (a trace's ``javascript:`` URL is shown as
    text, never linked)."""
    url = url or ""
    return url if urlsplit(url).scheme.lower() in ("http", "https") and "\n" not in url else ""


def _site(url: str) -> str:
    host = urlsplit(url).hostname or url
    return host[4:] if host.startswith("www.") else host


def _source(document: Any, reference: Any) -> Source:
    url = reference.get("url")
    snaks = {snak.get("property"): snak for snak in reference.iter(tag("snak"))}
    title = snaks["P1476"].get("text") if "P1476" in snaks else (document.get("title") if document is not None
                                                                 else "") or ""
    language = snaks["P407"].get("text") if "P407" in snaks else (document.get("language") if document is not None
                                                                  else "") or ""
    archive_url = reference.get("archive-url") or (snaks["P1065"].get("text") if "P1065" in snaks else "")
    if archive_url:
        archived = snaks["P2960"].get("text") if "P2960" in snaks else ""
        read = f"archived copy of {archived}" if archived else "archived copy"
        access = snaks["P813"].get("text") if "P813" in snaks else ""
        read += f"; the article's access date {access}" if access else ""
        read += " (the live page could not be read)"
    else:
        retrieved = snaks["P813"].get("text") if "P813" in snaks else ""
        read = f"live page, read {retrieved}" if retrieved else "live page"
    return Source(url, _site(url), title, language, read, archive_url, web(url), web(archive_url))


def _stated_in(snaks: Sequence[ShownSnak], statement: Any
               ) -> tuple[str, Source | None, tuple[str, str, str], str]:
    """What the record states ("Integrated Authority File 1099020101 states it: place of birth Brno …"), the record
    as the card's source (its page for people, P1630, first; the RDF it was read from beside it), the triple it
    states as the record writes it (subject, predicate, object), and the model that chose its relation, if one
    did."""
    database = next((snak.text for snak in snaks if snak.property_id == "P248"), "")
    identifier = next((snak for snak in snaks if snak.property_id not in ("P248", "P813", "P854")), None)
    corroboration = statement.find(tag("corroboration"))
    record = next((record for record in corroboration.iter(tag("record")) if record.get("finding") == "corroborated"),
                  None) if corroboration is not None else None
    named = f"{database or 'a record'}" + (f", {identifier.label} {identifier.text}" if identifier is not None else "")
    if record is None:
        return f"stated in {named}", None, ("", "", ""), ""
    said = f"stated in {named}: {record.findtext(tag('reason')) or ''}".rstrip(": ")
    chosen = next((candidate for candidate in record.iter(tag("candidate")) if candidate.get("chosen") == "true"),
                  None)
    triple = ("", "", "")
    if chosen is not None:
        obj = chosen.get("object-text") or ""
        if chosen.get("object") and chosen.get("object") != obj:
            obj = f"{obj} <{chosen.get('object')}>" if obj else f"<{chosen.get('object')}>"
        triple = (record.get("subject-label") or record.get("subject") or "", chosen.get("predicate") or "", obj)
    picks = record.find(tag("picks"))
    chosen_by = (picks.get("model") or "a model") if picks is not None and chosen is not None and \
        chosen.get("relation") in [name.text for name in picks.iter(tag("accepted"))] else ""
    page, rdf = record.get("page") or "", record.get("url") or ""
    retrieved = (record.get("retrieved") or "")[:10]
    read = f"record read {retrieved}" if retrieved else "record read"
    if record.get("format"):
        read += f" ({record.get('format')})"
    return said, Source(page or rdf, _site(page or rdf), named, "", read, "", web(page or rdf),
                        web(rdf) if page else ""), triple, chosen_by


def _against(statement: Any) -> Iterable[Evidence]:
    for document in statement.iter(tag("document")):
        if document.get("evidence") != "true":
            continue
        url = document.get("url")
        for judgement in document.iter(tag("judgement")):
            paragraph = judgement.find(tag("paragraph"))
            text = "".join(paragraph.itertext()) if paragraph is not None else ""
            against = judgement.find(tag("against"))
            contradiction = judgement.find(tag("contradiction"))
            if against is not None:
                why = against.get("reason") or Against(against.get("kind"), against.get("cue"), "").reason
                yield Evidence(url, _site(url), why, mark(text, against.text or ""), document.get("title") or "")
            elif contradiction is not None:
                why = f"it gives another value: “{contradiction.get('form')}”"
                yield Evidence(url, _site(url), why, mark(text, contradiction.text or ""), document.get("title") or "")
    corroboration = statement.find(tag("corroboration"))
    if corroboration is not None and corroboration.get("finding") == "contradicted":
        for record in corroboration.iter(tag("record")):
            if record.get("finding") == "contradicted":
                url = record.get("url")
                yield Evidence(url, _site(url), f"{record.get('database-label') or 'a record'} "
                               f"{record.get('identifier')} states another value",
                               Marked(((record.findtext(tag("reason")) or "", False),)))
