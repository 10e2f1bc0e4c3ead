"""The XML trace of a run (``xslt/trace.xsd``): built with lxml from the check records, validated before it is
written, and read back for ``refbot report``. A statement's element can be built on its own, so that a run's
ledger keeps finished statements and the trace is assembled from them at the end.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from bot import __version__
from bot.assets import asset_path
from bot.checking.items import ItemContext
from bot.checking.records import DocumentCheck, Judged, Outcome, StatementCheck
from bot.corroboration.stage import Corroboration
from bot.errors import InputError, TraceError
from bot.properties.profile import PropertyProfile
from bot.checking.ranking import match_spans
from bot.references import StatedIn
from bot.redaction import redact_text, redact_url
from bot.verifying.records import FINDINGS, ReferenceCheck

NS = "urn:refbot:trace:1"
SCHEMA_VERSION = "1.0"
# Characters XML 1.0 cannot hold (control characters a page or a model may produce).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
REFERENCE_LABELS = {"P248": "stated in",
                    "P854": "reference URL", "P813": "retrieved", "P1476": "title", "P407": "language of work",
                    "P1065": "archive URL", "P2960": "archive date", "P1683": "quotation"}


def tag(name: str) -> str:
    return f"{{{NS}}}{name}"


def clean(text: Any) -> str:
    return _NOT_XML.sub("", str(text))


def _element(element_name: str, parent: Any = None, text: str | None = None, /, **attributes: Any) -> Any:
    # None leaves an (optional) attribute out; a required one is written even when empty.
    attrs = {key.replace("_", "-"): clean(value) for key, value in attributes.items() if value is not None}
    if parent is not None:
        element = etree.SubElement(parent, tag(element_name), attrs)
    else:
        element = etree.Element(tag(element_name), attrs, nsmap={None: NS})
    if text is not None:
        element.text = clean(text)
    return element


# What a trace keeps of a record's fact: a record may hold a literal of megabytes, which would be copied into every
# statement's trace, the ledger and the report.
SHOWN_FACT = 500


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_FACT else text[:SHOWN_FACT - 1] + "…"


def _number(value: float) -> str:
    return f"{max(0.0, value):.3f}".rstrip("0").rstrip(".") if value else "0"


@dataclass(frozen=True)
class RunInfo:
    mode: str  # check or run
    started: str
    finished: str
    duration_s: float
    complete: bool
    judge_backend: str
    model: str
    template: str
    prompt_template: str
    threshold: float
    strategy: str
    top: int
    embeddings: str
    endpoints: Sequence[tuple[str, str]] = ()
    options: Sequence[tuple[str, str]] = ()
    notes: Sequence[str] = ()
    skipped: int = 0
    run_id: str = ""
    # The configured services' URLs (``bot.wiring.service_urls``): a URL under one shows no query value.
    services: Sequence[str] = ()
    # What an in-process judge computed in, and why (``bot.judge.arithmetic``); "" for a server's.
    arithmetic: str = ""


def _redacted(element: Any, services: Sequence[str]) -> Any:
    """``element`` with every URL in its attributes and texts redacted (``bot.redaction``), but for the text of
    a page's paragraph and of the sentence that gives another value, evidence quoted as it was published."""
    quoted = (tag("paragraph"), tag("match"), tag("contradiction"), tag("against"))
    for node in element.iter():
        for name, value in node.attrib.items():
            if "://" in value:
                node.set(name, redact_text(value, services=services))
        if node.text and node.tag not in quoted:
            node.text = redact_text(node.text, services=services)
        if node.tail and node.tag != tag("match"):
            node.tail = redact_text(node.tail, services=services)
    return element


def item_element(context: ItemContext, services: Sequence[str] = ()) -> Any:
    """The item's element; ``services``: the configured services' URLs (see :func:`_redacted`)."""
    item = _element("item", id=context.item, label=context.label or context.item, url=context.url,
                    revision=context.revision, permalink=context.permalink)
    if context.error:
        _element("error", item, context.error)
    if context.article is not None:
        article = context.article
        _element("article", item, wiki=article.sitelink.wiki, title=article.sitelink.title,
                 url=article.sitelink.url, revision=article.revision, permalink=article.permalink,
                 paragraphs=len(article.paragraphs))
    return _redacted(item, services)


def statement_element(context: ItemContext, check: StatementCheck, services: Sequence[str] = ()) -> Any:
    """The statement's element, its URLs redacted; ``services``: the configured services' URLs."""
    statement = check.statement
    element = _element("statement", guid=statement.guid, url=context.statement_url(statement.guid),
                       property=statement.property_id, property_label=statement.property_label,
                       datatype=statement.value.datatype, value=statement.value.raw, value_text=statement.value.text,
                       rank=statement.rank.value, outcome=check.outcome.value, started=check.started,
                       elapsed_s=_number(check.elapsed_s), judgements=check.asked, prompt_tokens=check.prompt_tokens)
    _element("reason", element, check.reason)
    _qualifiers(element, statement)
    for stage, seconds in check.stages:
        _element("stage", element, name=stage, seconds=_number(seconds))
    if check.profile is not None:
        _relation(element, check.profile)
    if check.corroboration is not None:
        _corroboration(element, check.corroboration)
    for search in check.searches:
        found = _element("search", element, engine=search.engine, query=search.query)
        if search.error:
            _element("error", found, search.error)
        for number, result in enumerate(search.results, start=1):
            _element("result", found, rank=result.rank or number, url=result.url, title=result.title)
    for document in check.documents:
        _document(element, document, statement)
    if check.reference is not None:
        reference = check.reference
        stated = isinstance(reference, StatedIn)
        node = _element("reference", element, url=reference.url,
                        archive_url=None if stated else (reference.archive_url or None),  # type: ignore[union-attr]
                        kind="stated-in" if stated else "web")
        for snak in reference.snaks():
            _element("snak", node, property=snak.property_id,
                     label=REFERENCE_LABELS.get(snak.property_id, "") or snak.label, value=snak.value,
                     text=snak.text, datatype=snak.datatype or None)
        _element("quickstatements", node, check.quickstatements)
    return _redacted(element, services)


def verification_element(context: ItemContext, check: ReferenceCheck, services: Sequence[str] = ()) -> Any:
    """One reference verified (``refbot verify``), its URLs redacted but the cited page's and its copy's."""
    statement, citation = check.statement, check.citation
    support = check.support
    element = _element("verification", guid=statement.guid, reference=citation.hash,
                       url=context.statement_url(statement.guid), property=statement.property_id,
                       property_label=statement.property_label, datatype=statement.value.datatype,
                       value=statement.value.raw, value_text=statement.value.text, outcome=check.finding.value,
                       archived=check.archived.value if check.archived is not None else None,
                       support=_number(support) if support is not None else None, started=check.started,
                       elapsed_s=_number(check.elapsed_s), judgements=check.asked)
    _element("reason", element, check.reason)
    _qualifiers(element, statement)
    _element("cited", element, url=citation.url, via=citation.via, identifier=citation.identifier or None,
             stated_in=citation.stated_in or None,
             retrieved=citation.retrieved.isoformat() if citation.retrieved else None,
             archive_url=citation.archive_url or None,
             archive_date=citation.archive_date.isoformat() if citation.archive_date else None)
    if check.sentence:
        _element("sentence", element, check.sentence)
    if check.other_value:
        _element("other-value", element, check.other_value)
    for stage, seconds in check.stages:
        _element("stage", element, name=stage, seconds=_number(seconds))
    if check.profile is not None:
        _relation(element, check.profile)
    if check.document is not None:
        _document(element, check.document, statement)
    fix = check.fix
    if fix is not None:
        node = _element("reference", element, url=fix.url, archive_url=fix.archive_url, kind="archive",
                        extends=fix.reference)
        for snak in fix.snaks():
            _element("snak", node, property=snak.property_id, label=REFERENCE_LABELS.get(snak.property_id, ""),
                     value=snak.value, text=snak.text)
        _element("quickstatements", node, "")
    return _redacted(element, services)


def checked_verification_element(context: ItemContext, check: ReferenceCheck, services: Sequence[str] = ()) -> Any:
    """The reference's element, validated on its own; if it cannot be (a bug), an ``error`` finding saying so."""
    element = verification_element(context, check, services)
    checker = schema()
    if checker.validate(etree.ElementTree(element)):
        return element
    problem = checker.error_log[0].message if len(checker.error_log) else "invalid"
    statement, citation = check.statement, check.citation
    fallback = _element("verification", guid=statement.guid, reference=citation.hash,
                        url=context.statement_url(statement.guid), property=statement.property_id,
                        property_label=statement.property_label, datatype=statement.value.datatype,
                        value=statement.value.raw, value_text=statement.value.text, outcome="error",
                        started=check.started, elapsed_s=_number(check.elapsed_s), judgements=check.asked)
    _element("reason", fallback, f"refbot could not record this check ({problem}); this is a bug, please report it")
    _element("cited", fallback, url=citation.url or "(none)", via=citation.via)
    return _redacted(fallback, services)


def _qualifiers(parent: Any, statement: Any) -> None:
    for qualifier in statement.qualifiers:
        _element("qualifier", parent, property=qualifier.property_id,
                 label=qualifier.property_label or qualifier.property_id, datatype=qualifier.value.datatype,
                 value=qualifier.value.raw, value_text=qualifier.value.text)


def _corroboration(parent: Any, corroboration: Corroboration) -> None:
    node = _element("corroboration", parent, finding=corroboration.finding.value, records=len(corroboration.records),
                    not_read=corroboration.skipped or None, elapsed_s=_number(corroboration.elapsed_s),
                    error=corroboration.error or None)
    _element("reason", node, corroboration.reason)
    for check in corroboration.records:
        prop, record = check.identifier.prop, check.record
        element = _element("record", node, property=prop.property_id, property_label=prop.label,
                           identifier=check.identifier.value, database=prop.database or None,
                           database_label=prop.database_label or None, url=record.url,
                           page=prop.page_url(check.identifier.value) or None,
                           final_url=record.final_url if record.final_url != record.url else None,
                           status=record.status, format=record.format_name if record.format else None,
                           retrieved=record.retrieved or None, sha256=record.sha256 or None, triples=record.triples,
                           subject=check.subject or None, subject_label=check.subject_label or None,
                           facts=check.facts, step=check.step or None, finding=check.finding.value,
                           elapsed_s=_number(record.elapsed_s))
        _element("reason", element, check.reason)
        recognised = dict(check.relations)
        shown = list(check.candidates)
        if check.chosen is not None and check.chosen not in shown:
            shown.insert(0, check.chosen)
        for candidate in shown:
            fact = candidate.fact
            _element("candidate", element, relation=_shown(fact.relation), predicate=_shown(fact.predicate),
                     object=_shown(fact.object), object_text=_shown(fact.object_text), datatype=fact.datatype or None,
                     cosine=f"{candidate.cosine:.4f}", agreement=candidate.comparison.agreement.value,
                     compared=candidate.comparison.how, recognised=recognised.get(fact.relation) or None,
                     chosen="true" if candidate == check.chosen else None)
        if check.picks is not None:
            picks = check.picks
            picked = _element("picks", element, model=picks.model or "(unknown)", prompt_tokens=picks.prompt_tokens,
                              completion_tokens=picks.completion_tokens, latency_s=_number(picks.latency_s))
            _element("answer", picked, picks.answer)
            for name in picks.accepted:
                _element("accepted", picked, name)
            for name in picks.refused:
                _element("refused", picked, name)


def review_element(statement: Any, state: str, *, curator: str = "", decided: str = "", note: str = "",
                   reason: str = "", revision: int | None = None, written: str = "", revision_url: str = "",
                   decision_id: int | None = None) -> Any:
    """A statement's ``<review>`` (its proposal's state with curators and the wiki), replacing any it had;
    ``decision_id``: the latest decision's, which a decision made on this page must still find."""
    old = statement.find(tag("review"))
    if old is not None:
        statement.remove(old)
    element = _element("review", statement, state=state, curator=curator or None, decided=decided or None,
                       revision=revision, written=written or None, revision_url=revision_url or None,
                       decision_id=decision_id)
    if note:
        _element("note", element, note)
    if reason:
        _element("reason", element, reason)
    return _redacted(element, ())


def _relation(parent: Any, profile: PropertyProfile) -> None:
    node = _element("relation", parent, label=profile.label, phrase=profile.phrase,
                    other_phrases="; ".join(profile.other_phrases) or None,
                    phrase_source=profile.phrase_source, source=profile.source or "label only",
                    retrieved=profile.retrieved or None)
    for contrast in profile.contrasts:
        _element("contrast", node, property=contrast.property_id, label=contrast.label, phrase=contrast.phrase,
                 other_phrases="; ".join(contrast.other_phrases) or None,
                 phrase_source=contrast.phrase_source, sources=", ".join(contrast.sources))
    for note in profile.notes:
        _element("note", node, note)


def checked_statement_element(context: ItemContext, check: StatementCheck, services: Sequence[str] = ()) -> Any:
    """The statement's element, validated on its own; if it cannot be (a bug), an ``error`` element saying so,
    so that a run's ledger never holds an element that would make its trace invalid."""
    element = statement_element(context, check, services)
    checker = schema()
    if checker.validate(etree.ElementTree(element)):
        return element
    problem = checker.error_log[0].message if len(checker.error_log) else "invalid"
    statement = check.statement
    fallback = _element("statement", guid=statement.guid, url=context.statement_url(statement.guid),
                        property=statement.property_id, property_label=statement.property_label,
                        datatype=statement.value.datatype, value=statement.value.raw,
                        value_text=statement.value.text, rank=statement.rank.value, outcome="error",
                        started=check.started, elapsed_s=_number(check.elapsed_s), judgements=check.asked,
                        prompt_tokens=check.prompt_tokens)
    _element("reason", fallback, f"refbot could not record this check ({problem}); this is a bug, please report it")
    _qualifiers(fallback, statement)
    return _redacted(fallback, services)


def _document(parent: Any, document: DocumentCheck, statement: Any) -> None:
    candidate, retrieved = document.candidate, document.retrieved
    attributes: dict[str, Any] = {"origin": candidate.origin, "evidence": "true" if document.evidence else "false",
                                  "url": candidate.url, "title": candidate.title or None,
                                  "search_rank": (candidate.rank or None) if candidate.origin == "search" else None,
                                  "cited_in_paragraph": candidate.cited_in,
                                  "access_date": candidate.access_date.isoformat() if candidate.access_date else None}
    if retrieved is None:
        attributes |= {"outcome": "ok" if document.judged else "not-fetched", "paragraphs": len(document.judged)}
    else:
        used, page = retrieved.used, retrieved.document
        attributes |= {"outcome": used.outcome.value, "final_url": used.final_url or None,
                       "status": used.status or None,
                       "content_type": used.content_type or None, "retrieved": used.retrieved or None,
                       "sha256": used.sha256 if used.ok else None, "paragraphs": len(retrieved.paragraphs),
                       "archive_url": used.archive_url or None, "archive_timestamp": used.archive_timestamp or None}
        if page is not None:
            attributes |= {"title": page.title or candidate.title or None, "language": page.language or None,
                           "published": page.published or None}
    attributes["not_judged"] = document.not_judged
    attributes["not_ranked"] = document.not_ranked or None
    node = _element("document", parent, **attributes)
    if retrieved is not None:
        if retrieved.used.reason:
            _element("reason", node, retrieved.used.reason)
        live = retrieved.live
        said = f"live page: {live.outcome.value}: {live.reason}" if not retrieved.gone else \
            f"live page: gone: {retrieved.gone}"
        for note in ((said,) if retrieved.archived is not None or retrieved.gone else ()) + retrieved.notes:
            _element("note", node, note)
    for judged in document.judged:
        _judgement(node, judged)


def _judgement(parent: Any, judged: Judged) -> None:
    ranked, judgement = judged.ranked, judged.judgement
    paragraph = ranked.paragraph
    node = _element("judgement", parent, position=paragraph.position, start=paragraph.start, end=paragraph.end,
                    kind=paragraph.kind, score=_number(ranked.score), subject_score=_number(ranked.subject),
                    object_score=_number(ranked.object),
                    semantic_score=_number(ranked.semantic) if ranked.semantic is not None else None,
                    subject_rule=ranked.subject_rule or None, value_form=ranked.value_form or None,
                    value_match=ranked.value_match or None, context=ranked.context or None,
                    written=judgement.written, written_form=judgement.written_form,
                    verdict=judgement.verdict.value,
                    supports="true" if judgement.supported else "false",
                    support=_number(judgement.support),
                    calibrated=_number(judgement.calibrated) if judgement.calibrated is not None else None,
                    asked="true" if judged.asked else "false",
                    prompt_tokens=judgement.prompt_tokens, completion_tokens=judgement.completion_tokens,
                    latency_s=_number(judgement.latency_s),
                    justification_s=_number(judgement.justification_s) if judgement.justification_s else None,
                    attempts=judgement.attempts, parts=judgement.parts)
    text = _element("paragraph", node)
    _marked(text, paragraph.text, match_spans(paragraph.text, ranked.matched))
    if judgement.excerpt:
        _element("excerpt", node, judgement.excerpt)
    for index, compared in enumerate(judgement.compared):
        _element("compared", node, label=compared.label, phrase=compared.phrase, score=f"{compared.score:.4f}",
                 share=_number(compared.share), claimed="true" if index == 0 else "false")
    if judgement.contradiction is not None:
        contradiction = judgement.contradiction
        _element("contradiction", node, contradiction.sentence, form=contradiction.form,
                 support=_number(contradiction.support))
    if judged.against is not None:
        _element("against", node, judged.against.sentence, kind=judged.against.kind, cue=judged.against.cue,
                 reason=judged.against.reason)
    _element("answer", node, judgement.answer)
    if judgement.justification:
        _element("justification", node, judgement.justification)


def _marked(element: Any, text: str, spans: list[tuple[int, int]]) -> None:
    """``text`` as mixed content, each span in a <match> element."""
    element.text = clean(text[: spans[0][0]] if spans else text)
    for index, (start, end) in enumerate(spans):
        match = _element("match", element, text[start:end])
        following = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        match.tail = clean(text[end:following])


def run_element(info: RunInfo, statements: Sequence[Any]) -> Any:
    run = _element("run", tool="refbot", tool_version=__version__, mode=info.mode, id=info.run_id,
                   started=info.started, finished=info.finished, duration_s=_number(info.duration_s),
                   complete="true" if info.complete else "false")
    judge = _element("judge", run, backend=info.judge_backend, model=info.model or "(unknown)",
                     template=info.template, threshold=_number(info.threshold), strategy=info.strategy,
                     top=info.top, embeddings=info.embeddings or "none")
    if info.arithmetic:
        judge.set("arithmetic", clean(info.arithmetic))
    _element("prompt-template", judge, info.prompt_template)
    for service, url in info.endpoints:
        _element("endpoint", run, service=service, url=redact_url(url, service=True))
    for name, value in info.options:
        # A URL option is a service refbot talks to: it may hold user:password@ or a key under any name.
        shown = redact_url(value, service=True) if "://" in value else value
        etree.SubElement(run, tag("option"), {"name": clean(name), "value": clean(shown)})
    outcomes = [statement.get("outcome") for statement in statements]
    judgements = list(_judgements(statements))
    summary = {"statements": len(statements), "skipped": info.skipped,
               **{outcome.value: outcomes.count(outcome.value) for outcome in Outcome},
               "judgements": sum(1 for j in judgements if j.get("asked") == "true"),
               "prompt-tokens": sum(int(j.get("prompt-tokens")) for j in judgements),
               "completion-tokens": sum(int(j.get("completion-tokens")) for j in judgements)}
    if info.mode == "verify":  # references verified, counted by finding (and statements checked for support)
        verified = [element.get("outcome") for element in statements if element.tag == tag("verification")]
        summary |= {"references": len(verified), **{finding: verified.count(finding) for finding in FINDINGS}}
        summary["statements"] = len({statement.get("guid") for statement in statements})
    etree.SubElement(run, tag("summary"), {key: str(value) for key, value in summary.items()})
    for note in info.notes:
        _element("note", run, note)
    return _redacted(run, info.services)


def _judgements(statements: Iterable[Any]) -> Iterable[Any]:
    for statement in statements:
        yield from statement.iter(tag("judgement"))


def assemble(info: RunInfo, items: Sequence[tuple[Any, Sequence[Any]]]) -> Any:
    """The whole trace: the run, then each item element with its statement elements."""
    return assemble_elements(run_element(info, [statement for _, statements in items for statement in statements]),
                             items)


def assemble_elements(run: Any, items: Sequence[tuple[Any, Sequence[Any]]]) -> Any:
    """A trace from a run element already built (as a run's ledger keeps it) and the item elements."""
    root = etree.Element(tag("trace"), {"schema-version": SCHEMA_VERSION}, nsmap={None: NS})
    root.append(_copy(run))
    for item, statements in items:
        item = _copy(item)
        for statement in statements:
            item.append(_copy(statement))
        root.append(item)
    return etree.ElementTree(root)


def _copy(element: Any) -> Any:
    return etree.fromstring(etree.tostring(element), _parser())


def to_string(element: Any) -> str:
    """An element as XML text, for the run ledger."""
    return etree.tostring(element, encoding="unicode")


def from_string(text: str, source: str = "the run ledger") -> Any:
    """An element from its XML text (as :func:`to_string` wrote it); InputError naming ``source`` when the text
    declares a DTD (an entity could expand without bound or read a file)."""
    return _parse(text.encode("utf-8"), source)


# What may come before a document's root element besides a DOCTYPE: space, the XML declaration, processing
# instructions and comments.
_PROLOG_PART = re.compile(rb"\s+|<\?.*?\?>|<!--.*?-->", re.S)
NO_DTD_HINT = "pass a trace written by `refbot check` or `refbot run`"


def _parser() -> Any:
    """lxml's parser with no entity expanded, no DTD loaded and nothing fetched from the network."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _declares_dtd(data: bytes) -> bool:
    """Whether the prolog holds a DOCTYPE, found before anything is parsed (no entity ever expands)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4]:  # UTF-16: read the prolog as UTF-8
        codec = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else (
            "utf-16-le" if data[1:2] == b"\x00" else "utf-16-be")
        data = data.decode(codec, "replace").encode("utf-8")
    position = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while (part := _PROLOG_PART.match(data, position)) is not None and part.end() > position:
        position = part.end()
    return data.startswith(b"<!DOCTYPE", position)


def _no_dtd(source: str) -> InputError:
    return InputError("a trace has no DOCTYPE; this file declares one (DTDs and entities are refused)", path=source,
                      hint=NO_DTD_HINT)


def _parse(data: bytes, source: str) -> Any:
    """The root element of ``data``; InputError naming ``source`` for a DTD or text that is not XML."""
    if _declares_dtd(data):
        raise _no_dtd(source)
    try:
        root = etree.fromstring(data, _parser(), base_url=source)
    except etree.XMLSyntaxError as error:
        raise InputError(f"not XML: {error.msg}", path=source, line=error.lineno, hint=NO_DTD_HINT) from None
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise _no_dtd(source)
    return root


_schema: Any = None


def schema() -> Any:
    global _schema
    if _schema is None:
        _schema = etree.XMLSchema(etree.parse(str(asset_path("xslt", "trace.xsd"))))
    return _schema


def validate(tree: Any) -> None:
    """TraceError with the schema's first complaint when ``tree`` is not a valid trace."""
    checker = schema()
    if not checker.validate(tree):
        error = checker.error_log[0] if len(checker.error_log) else None
        where = f"line {error.line}: " if error is not None and error.line else ""
        raise TraceError(f"the trace does not match trace.xsd: {where}{error.message if error else 'invalid'}",
                         hint="this is a bug in refbot; please report it with the run's options")


def write(tree: Any, path: Path) -> Path:
    """Validate, then write atomically (a reader never sees half a trace), readable by its owner only (0600)."""
    validate(tree)
    return write_atomically(path, etree.tostring(tree, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def write_atomically(path: Path, data: bytes) -> Path:
    """``data`` at ``path``, readable by its owner only (0600): written to a temporary file of its own beside it,
    then moved over ``path``, so that a reader never sees half a file and two writers of one path (two review
    servers of a run) never write into each other's temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


# The largest trace file refbot reads: a file is read whole and parsed into a tree several times its size, so a
# larger one (or a device or pipe that never ends, as /dev/zero) is refused before it could take the machine's memory.
# A run's trace is reviewed and reported from the run ledger (``--run ID``), statement by statement, whatever its size.
MAX_TRACE_BYTES = 256 * 1024 * 1024
TOO_LARGE_HINT = "a run's trace is reviewed and reported from the run ledger: pass --run ID instead of the file"


def read(path: Path) -> Any:
    """A trace read back and validated; InputError naming the file when it is not one, when it is larger than
    MAX_TRACE_BYTES (no more than that is read), or when it declares a DTD (refused before parsing: no entity is
    expanded, no file or URL it names is read)."""
    try:
        with path.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            data = stream.read(MAX_TRACE_BYTES + 1) if size <= MAX_TRACE_BYTES else b""
    except OSError as error:
        raise InputError(f"cannot read the trace: {error.strerror or error}", path=str(path)) from None
    if size > MAX_TRACE_BYTES or len(data) > MAX_TRACE_BYTES:
        raise InputError(f"the file is larger than the {MAX_TRACE_BYTES // 2**20} MiB a trace may be",
                         path=str(path), hint=TOO_LARGE_HINT)
    tree = _parse(data, str(path)).getroottree()
    if tree.getroot().tag != tag("trace"):
        raise InputError(f"not a refbot trace (root element {tree.getroot().tag})", path=str(path),
                         hint="pass a trace written by `refbot check` or `refbot run`")
    try:
        validate(tree)
    except TraceError as error:
        raise InputError(str(error).split(" (")[0], path=str(path),
                         hint="the file was changed after refbot wrote it; re-run the check") from None
    return tree
