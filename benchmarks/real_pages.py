#!/usr/bin/env python3
"""End to end on real reference pages: `refbot check` per statement of a dev set, its page served on loopback.

    benchmarks/real_pages.py DEV_DIR [--variant true|wrong|both] [--out FILE.jsonl] [--limit N] [--ids ID,…]
                             [--judge transformers|openai] [--judge-url URL] [--judge-model NAME] [--no-echo]
                             [--threads N] [--judge-dtype bfloat16|float32] [--value-words N] [--workers N]
                             [--seed 42]

``DEV_DIR`` holds ``dev.jsonl`` (statements: subject, predicate, object, property_id, datatype, label,
author_label, …), ``pages.jsonl`` (each row's saved page: ``page``, ``final_url``) and ``pages/``
(``../shared/data/wtr-dev``). Each statement is put, unsourced, into a Wikidata-shaped Oxigraph store under an
invented subject item, its property declared with a citation needed constraint; its value rendered as Wikidata holds
it (an item as an invented item labelled with the object, a date as a time value with its precision, a quantity as
an amount with a unit item labelled with the unit, a string as it is). The pages are served on loopback, one port per
original host, at their original paths; the search stand-in answers a query about a subject with that statement's
page and two other statements' pages (drawn with ``--seed``). Each statement is then checked as `refbot check` checks
an item (``bot.check_run.Run`` over a ``bot.wiring.Wiring``, the judge loaded once), with the product's default options
and ``--source web``.

Variants: ``true``, the statement as it is (label: the annotators'); ``wrong``, each supported statement with its
value made wrong while its page stays the same (``production_dev``'s changes: a date's year shifted, an amount
scaled, a string's digit changed, an item swapped for another row's value of the property), a value the page does
not state; expected: not supported, ideally contradicted.

Printed: precision, recall, specificity and F1 of both classes (true variant); outcomes by ``author_label``; the
share of true statements called contradicted; for the wrong variant the share not supported and the share
contradicted, by datatype; seconds per statement; and each miss (a supported statement not found) with its stage:
``value not in the page`` (the value, as ``bot.values.statement_finder`` looks for it, is nowhere in the page's
visible text), ``page not read`` (its fetch or extraction failed), ``dropped by extraction`` (in the visible text,
in no paragraph of the document refbot extracted), ``not ranked`` (in a paragraph, but none writing it was judged),
``not asked`` (judged without asking the model), ``judged no``; ``refbot error`` where refbot's own code failed.
Rows go to ``--out`` as JSON Lines as they finish; a row already there is not checked again (resumable).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import bot  # noqa: E402
from bot.checking.records import DocumentCheck, Outcome, StatementCheck  # noqa: E402
from bot.demo.world import DATA, DemoWorld, Reply, fold  # noqa: E402
from bot.judge.loading import wait_for_model  # noqa: E402
from bot.documents import paragraph_rules  # noqa: E402
from bot.documents.paragraphs import Unreadable, extract, normalise  # noqa: E402
from bot.options import load_options  # noqa: E402
from bot.ledger.ledger import RunLedger  # noqa: E402
from bot.check_run import Run  # noqa: E402
from bot.selection.worklists import Worklist  # noqa: E402
from bot.values import Finder, statement_finder  # noqa: E402
from bot.wiring import Wiring  # noqa: E402
from production_dev import changed_amount, changed_string, item_pool, shifted_date, swapped_item  # noqa: E402

VARIANTS = ("true", "wrong")
STAGES = ("page not read", "value not in the page", "dropped by extraction", "not ranked", "not asked", "judged no",
          "refbot error")
PROPERTY_TYPES = {"wikibase-item": "WikibaseItem", "time": "Time", "quantity": "Quantity", "string": "String",
                  "monolingualtext": "Monolingualtext", "external-id": "ExternalId", "url": "Url"}
GREGORIAN = "wd:Q1985727"
CITATION_NEEDED = "Q54554025"
_DATE = re.compile(r"^(?P<year>-?\d{1,4})(?:-(?P<month>\d\d)(?:-(?P<day>\d\d))?)?$")
_AMOUNT = re.compile(r"^(?P<amount>[+-]?\d+(?:\.\d+)?)(?:\s+(?P<unit>.+))?$")


@dataclass
class Page:
    """A row's saved page: where it is served and what a reader sees of it."""

    host: str
    address: str  # the path and query of its URL
    file: Path

    @property
    def content(self) -> bytes:
        return self.file.read_bytes()

    @functools.cached_property
    def visible(self) -> str:
        """The text of the page without scripts and styles."""
        return visible_text(self.content)

    @property
    def key(self) -> str:
        """The page's address as the world's handler reads a request for it."""
        parts = urlsplit(self.address)
        return address_key(unquote(parts.path), parse_qs(parts.query))


@dataclass(frozen=True)
class Case:
    """One statement to check: a row in one variant, with the value it holds."""

    row: Mapping[str, Any]
    variant: str
    value: str
    item: str = ""  # the invented subject item

    @property
    def key(self) -> tuple[str, str]:
        return str(self.row["id"]), self.variant

    @property
    def label(self) -> bool:
        """Whether the page supports the statement: the annotators' label, never for a wrong value."""
        return self.variant == "true" and self.row["label"] is True


# -- the pages ---------------------------------------------------------------------------------------------------

def visible_text(content: bytes) -> str:
    """The page's text as a reader sees it: scripts, styles and templates left out."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(content.decode("utf-8", errors="replace"), "lxml")
    for hidden in soup(["script", "style", "noscript", "template"]):
        hidden.decompose()
    return normalise(soup.get_text(" "))


def address_key(path: str, query: Mapping[str, Sequence[str]]) -> str:
    """A request's path and query, the same however the query's parameters are ordered."""
    pairs = sorted((name, value) for name, values in query.items() for value in values)
    return path + ("?" + urlencode(pairs) if pairs else "")


def true_cases(dev: Path, limit: int | None = None) -> tuple[list[dict[str, Any]], dict[str, Page], list[Case]]:
    """The first ``limit`` rows of ``dev``'s dev.jsonl (all: None), their saved pages, and each row with a saved page
    as a statement with its true value (what `crashes.py` and `throughput.py` check)."""
    rows = [json.loads(line) for line in (dev / "dev.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()][:limit]
    pages = read_pages(dev, rows)
    return rows, pages, [Case(row, "true", str(row["object"])) for row in rows if row["id"] in pages]


def read_pages(dev: Path, rows: Sequence[Mapping[str, Any]]) -> dict[str, Page]:
    """Row id → its page, for the rows whose page is saved."""
    wanted = {str(row["id"]) for row in rows}
    pages = {}
    for line in (dev / "pages.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else None
        if not entry or entry["id"] not in wanted:
            continue
        parts = urlsplit(entry.get("final_url") or entry["reference_url"])
        file = dev / entry["page"]
        if file.is_file():
            address = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            pages[entry["id"]] = Page(parts.hostname or "page", address, file)
    return pages


# -- the wrong values --------------------------------------------------------------------------------------------

def wrong_values(rows: Sequence[Mapping[str, Any]], pages: Mapping[str, Page], seed: int) -> dict[str, str]:
    """Row id → a wrong value its page does not state, for each supported row that has one (production_dev's
    changes, looked for in the whole page rather than in the chosen passages)."""
    pool = item_pool(rows)
    held: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in rows:
        held[(str(row["subject"]).casefold(), str(row["property_id"]))].add(str(row["object"]).casefold())
    wrong = {}
    for row in rows:
        if row["label"] is not True or row["id"] not in pages:
            continue
        text, kind, value = pages[row["id"]].visible, row["datatype"], str(row["object"])
        rng = random.Random(f"{seed}:wrong:{row['id']}")
        new: str | None = None
        if kind == "time":
            new = shifted_date(value, text, rng)
        elif kind == "quantity":
            new = changed_amount(value, text, rng)
        elif kind in ("string", "monolingualtext", "external-id"):
            new = changed_string(value, text, rng)
        elif kind == "wikibase-item":
            taken = held[(str(row["subject"]).casefold(), str(row["property_id"]))]
            new = swapped_item({**row, "text": text}, pool, taken, rng)
        if new:
            wrong[str(row["id"])] = new
    return wrong


# -- the world ---------------------------------------------------------------------------------------------------

def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


class Turtle:
    """The store's statements: properties declared once, item values and units given one invented item each."""

    def __init__(self) -> None:
        prefixes = [line for line in (DATA / "world.ttl").read_text(encoding="utf-8").splitlines()
                    if line.startswith("@prefix")]
        self.parts = ["\n".join(prefixes) + "\n",
                      f'wd:{CITATION_NEEDED} rdfs:label "citation needed constraint"@en .\n']
        self.properties: set[str] = set()
        self.items: dict[str, str] = {}  # label → QID

    def text(self) -> str:
        return "".join(self.parts)

    def entity(self, label: str) -> str:
        """The invented item labelled ``label`` (one per label)."""
        if label not in self.items:
            self.items[label] = f"Q{9_950_001 + len(self.items)}"
            self.parts.append(f"wd:{self.items[label]} a wikibase:Item ; rdfs:label {_literal(label)}@en .\n")
        return self.items[label]

    def declare(self, row: Mapping[str, Any]) -> None:
        pid = str(row["property_id"])
        if pid in self.properties:
            return
        self.properties.add(pid)
        kind = PROPERTY_TYPES.get(str(row["datatype"]))
        if kind is None:
            raise ValueError(f"{row['id']}: no property type for datatype {row['datatype']!r}")
        description = str(row.get("predicate_description") or "")
        constraint = f"s:{pid}-{uuid.uuid5(uuid.NAMESPACE_URL, pid)}"
        self.parts.append(
            f"wd:{pid} a wikibase:Property ; rdfs:label {_literal(str(row['predicate']))}@en ;\n"
            + (f"  schema:description {_literal(description)}@en ;\n" if description else "")
            + f"  wikibase:propertyType wikibase:{kind} ; wikibase:claim p:{pid} ;\n"
            f"  wikibase:statementProperty ps:{pid} ; wikibase:statementValue psv:{pid} ;\n"
            f"  wikibase:qualifier pq:{pid} ; wikibase:reference pr:{pid} ; wikibase:directClaim wdt:{pid} .\n"
            f"wd:{pid} p:P2302 {constraint} .\n"
            f"{constraint} a wikibase:Statement ; wikibase:rank wikibase:NormalRank ;\n"
            f"  ps:P2302 wd:{CITATION_NEEDED} .\n")

    def statement(self, case: Case, number: int) -> str:
        """Put ``case`` unsourced under a new subject item; that item's id."""
        row, pid = case.row, str(case.row["property_id"])
        self.declare(row)
        item = f"Q{9_900_001 + number}"
        guid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{row['id']}:{case.variant}")).upper()
        node = f"s:{item}-{guid}"
        value, detail = self.value(str(row["datatype"]), case.value, f"{item}-{guid}")
        self.parts.append(
            f"wd:{item} a wikibase:Item ; rdfs:label {_literal(str(row['subject']))}@en .\n"
            f"wd:{item} p:{pid} {node} .\n{node} a wikibase:Statement, wikibase:BestRank ;\n"
            f"  wikibase:rank wikibase:NormalRank ; ps:{pid} {value}"
            + (f" ; psv:{pid} v:{uuid.uuid5(uuid.NAMESPACE_URL, node).hex} .\n" if detail else " .\n")
            + (f"v:{uuid.uuid5(uuid.NAMESPACE_URL, node).hex} {detail} .\n" if detail else ""))
        return item

    def value(self, datatype: str, text: str, where: str) -> tuple[str, str]:
        """(the statement's value, its value node's description or ""), as Wikidata's RDF writes them."""
        if datatype == "wikibase-item":
            return f"wd:{self.entity(text)}", ""
        if datatype == "time":
            match = _DATE.match(text.strip())
            if not match:
                raise ValueError(f"{where}: not a date Wikidata holds: {text!r}")
            year, month, day = match.group("year"), match.group("month"), match.group("day")
            precision = 11 if day else 10 if month else 9
            sign = "-" if year.startswith("-") else ""
            stamp = f"{sign}{year.lstrip('-').zfill(4)}-{month or '01'}-{day or '01'}T00:00:00Z"
            return (f'"{stamp}"^^xsd:dateTime',
                    f'a wikibase:TimeValue ; wikibase:timeValue "{stamp}"^^xsd:dateTime ;\n'
                    f'  wikibase:timePrecision "{precision}"^^xsd:integer ; wikibase:timeTimezone "0"^^xsd:integer ;\n'
                    f"  wikibase:timeCalendarModel {GREGORIAN}")
        if datatype == "quantity":
            match = _AMOUNT.match(text.strip())
            try:
                amount = Decimal(match.group("amount")) if match else None
            except InvalidOperation:
                amount = None
            if match is None or amount is None:
                raise ValueError(f"{where}: not an amount: {text!r}")
            written = ("+" if amount >= 0 else "") + format(amount, "f")
            unit = f"wd:{self.entity(match.group('unit'))}" if match.group("unit") else "wd:Q199"
            return (f'"{written}"^^xsd:decimal',
                    f'a wikibase:QuantityValue ; wikibase:quantityAmount "{written}"^^xsd:decimal ;\n'
                    f"  wikibase:quantityUnit {unit}")
        if datatype == "monolingualtext":
            return f"{_literal(text)}@en", ""
        return _literal(text), ""


@dataclass
class PagesWorld(DemoWorld):
    """The demo world over a generated store, serving saved pages at their original hosts' paths, with a search
    stand-in that answers each subject's query with the pages chosen for it."""

    pages: dict[tuple[str, str], Path] = field(default_factory=dict)  # (host, Page.key) → file
    results: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # folded subject → results
    served: Counter = field(default_factory=Counter)

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "", *, method: str = "GET",
               params: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
               authorization: str = "") -> Reply:
        file = self.pages.get((site, address_key(path, query))) if method == "GET" else None
        if file is not None:
            self.served[site] += 1
            return Reply(200, file.read_bytes())
        return super().answer(site, path, query, raw_path, method=method, params=params, cookies=cookies,
                              authorization=authorization)

    def _search(self, path: str, query: dict[str, list[str]], _raw: str) -> Reply:
        if path.rstrip("/") != "/search":
            return Reply(404, b"")
        asked = fold((query.get("q") or [""])[0])
        # The subject the query names first (the longest where two start alike): its statement's pages.
        found = [(asked.find(subject), -len(subject), subject) for subject in self.results if subject in asked]
        results = self.results[min(found)[2]] if found else []
        body = {"query": (query.get("q") or [""])[0], "number_of_results": len(results),
                "results": [{**result, "engine": "pages", "engines": ["pages"]} for result in results]}
        return Reply(200, json.dumps(body).encode(), "application/json")

    def url(self, page: Page) -> str:
        return self.base(page.host) + page.address


def page_title(page: Page) -> str:
    match = re.search(rb"<title[^>]*>(.*?)</title>", page.content[:200_000], re.S | re.I)
    return normalise(match.group(1).decode("utf-8", errors="replace")) if match else ""


def build_world(directory: Path, cases: Sequence[Case], rows: Sequence[Mapping[str, Any]],
                pages: Mapping[str, Page], seed: int) -> tuple[PagesWorld, list[Case]]:
    """The world's data under ``directory`` and the world (not started); the cases with their subject items."""
    turtle = Turtle()
    placed = [Case(case.row, case.variant, case.value, turtle.statement(case, number))
              for number, case in enumerate(cases)]
    (directory / "sites").mkdir(parents=True)
    for host in {page.host for page in pages.values()}:
        (directory / "sites" / host).mkdir()
    (directory / "world.ttl").write_text(turtle.text(), encoding="utf-8")
    for name, empty in (("entities.json", {}), ("search.json", []), ("wayback.json", []), ("expected.json", {})):
        (directory / name).write_text(json.dumps(empty), encoding="utf-8")
    world = PagesWorld(data=directory, workdir=directory)
    world.pages = {(page.host, page.key): page.file for page in pages.values()}
    others = [row for row in rows if row["id"] in pages]
    for case in placed:
        row = case.row
        rng = random.Random(f"{seed}:distractors:{row['id']}")
        strangers = [other for other in others
                     if other["id"] != row["id"] and fold(str(other["subject"])) != fold(str(row["subject"]))]
        distractors = rng.sample(strangers, min(2, len(strangers)))
        chosen = [pages[row["id"]], *(pages[other["id"]] for other in distractors)]
        rng.shuffle(chosen)
        world.results[fold(str(row["subject"]))] = [
            {"url": "", "host": page.host, "address": page.address, "title": page_title(page),
             "content": page.visible[:160]} for page in chosen]
    return world, placed


def place_urls(world: PagesWorld) -> None:
    """The search results' URLs, once the world's ports are known."""
    for results in world.results.values():
        for result in results:
            result["url"] = world.base(result.pop("host")) + result.pop("address")


# -- checking ----------------------------------------------------------------------------------------------------

def check_case(parts: Wiring, case: Case) -> StatementCheck:
    """`refbot check` on the case's subject item: its one unsourced statement, checked as the command checks it."""
    with RunLedger(None, clock=parts.clock) as ledger, \
            Run.open(parts, Worklist.of_items([case.item]), ledger) as run:
        result = run.check()
    if result.failure is not None:
        raise RuntimeError(f"the run stopped: {result.failure}")
    if len(result.checked) != 1:
        raise RuntimeError(f"{len(result.checked)} statements checked for {case.item}, not 1 "
                           f"({len(result.selected)} selected)")
    return result.checked[0]


def writes(finder: Finder, text: str) -> bool:
    return finder(text) is not None


def miss_stage(check: StatementCheck, page: Page, url: str) -> str:
    """Where a supported statement that was not found lost its value (see the module)."""
    if check.outcome is Outcome.ERROR and check.fault is not None:
        return "refbot error"
    finder = statement_finder(check.statement)
    own: DocumentCheck | None = next((d for d in check.documents if d.candidate.url == url), None)
    if own is None or own.retrieved is None or not own.retrieved.used.ok:
        return "page not read"
    if not writes(finder, page.visible):
        return "value not in the page"
    paragraphs = own.retrieved.paragraphs
    if not any(writes(finder, paragraph.text) for paragraph in paragraphs):
        return "dropped by extraction"
    judged = [entry for entry in own.judged if writes(finder, entry.ranked.paragraph.text)]
    if not judged:
        return "not ranked"
    if not any(entry.asked for entry in judged):
        return "not asked"
    return "judged no"


def extracted_paragraphs(page: Page, url: str, parts: Wiring) -> int:
    """How many paragraphs refbot's extraction makes of the page (-1: it cannot read it)."""
    try:
        return len(extract(page.content, "text/html", url, paragraph_rules(parts.options.paragraph),
                           charset="utf-8").paragraphs)
    except Unreadable:
        return -1


def record(case: Case, check: StatementCheck | None, page: Page, url: str, seconds: float, parts: Wiring,
           error: str = "") -> dict[str, Any]:
    """The row written to --out."""
    row = case.row
    entry: dict[str, Any] = {
        "id": row["id"], "variant": case.variant, "subject": row["subject"], "property_id": row["property_id"],
        "predicate": row["predicate"], "datatype": row["datatype"], "value": case.value, "label": case.label,
        "author_label": str(row.get("author_label") or "").rstrip("."), "seconds": round(seconds, 2)}
    if check is None:
        return {**entry, "outcome": "harness error", "reason": error, "stage": ""}
    own = next((d for d in check.documents if d.candidate.url == url), None)
    supported_by = check.reference.url if check.reference is not None and hasattr(check.reference, "url") else ""
    found = check.outcome is Outcome.SUPPORTED
    stage = miss_stage(check, page, url) if case.label and not found else ""
    return {**entry, "outcome": check.outcome.value, "reason": check.reason, "stage": stage,
            "value_text": check.statement.value.text, "asked": check.asked, "stages": dict(check.stages),
            "page": own.retrieved.outcome.value if own is not None and own.retrieved is not None else "not fetched",
            "paragraphs": len(own.retrieved.paragraphs) if own is not None and own.retrieved is not None else 0,
            "extracted": extracted_paragraphs(page, url, parts) if stage == "page not read" else None,
            "supported_by": "" if not supported_by else "its page" if supported_by == url else "another page",
            "fault": str(check.fault) if check.fault is not None else ""}


# -- the summary -------------------------------------------------------------------------------------------------

def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "–"


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def summarise(entries: Sequence[Mapping[str, Any]], model_s: float | None) -> list[str]:
    lines = []
    checked = [entry for entry in entries if entry["outcome"] != "harness error"]
    if len(checked) != len(entries):
        lines.append(f"harness errors (not counted): {len(entries) - len(checked)}")
    true = [entry for entry in checked if entry["variant"] == "true"]
    if true:
        found = {entry["id"] for entry in true if entry["outcome"] == "supported"}
        tp = sum(1 for entry in true if entry["label"] and entry["id"] in found)
        fn = sum(1 for entry in true if entry["label"] and entry["id"] not in found)
        fp = sum(1 for entry in true if not entry["label"] and entry["id"] in found)
        tn = sum(1 for entry in true if not entry["label"] and entry["id"] not in found)
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        specificity, npv = _ratio(tn, tn + fp), _ratio(tn, tn + fn)
        f1_yes, f1_no = _f1(precision, recall), _f1(npv, specificity)
        lines += [f"== true variant: {len(true)} statements ({tp + fn} supported by their page, {tn + fp} not)",
                  f"P {precision:.3f}  R {recall:.3f}  specificity {specificity:.3f}  F1 supported {f1_yes:.3f}  "
                  f"F1 not supported {f1_no:.3f}  F1-macro {(f1_yes + f1_no) / 2:.3f}  (TP {tp} FN {fn} FP {fp} "
                  f"TN {tn})",
                  "true statements called contradicted: "
                  + _share(sum(1 for e in true if e["label"] and e["outcome"] == "contradicted"), tp + fn)]
        lines += outcome_table(true, "author_label")
        misses = [entry for entry in true if entry["label"] and entry["outcome"] != "supported"]
        stages = Counter(entry["stage"] for entry in misses)
        lines.append(f"misses: {len(misses)} — " + ", ".join(f"{stages[s]} {s}" for s in STAGES if stages[s]))
        by_type = Counter((entry["datatype"], entry["stage"]) for entry in misses)
        for datatype in sorted({entry["datatype"] for entry in misses}):
            lines.append(f"  {datatype:<16} " + ", ".join(f"{by_type[(datatype, s)]} {s}" for s in STAGES
                                                          if by_type[(datatype, s)]))
        for entry in sorted(misses, key=lambda e: (STAGES.index(e["stage"]) if e["stage"] in STAGES else 99,
                                                   e["id"])):
            lines.append(f"  {entry['stage']:<22} {entry['outcome']:<13} {entry['id']}  {entry['property_id']} "
                         f"{entry['datatype']}: {entry.get('value_text') or entry['value']}")
        lines += false_supports(true)
    wrong = [entry for entry in checked if entry["variant"] == "wrong"]
    if wrong:
        lines.append(f"== wrong variant: {len(wrong)} supported statements with a wrong value, the page the same")
        lines.append(f"{'datatype':<16} {'n':>4}  {'not supported':<20} contradicted")
        for datatype in [*sorted({entry["datatype"] for entry in wrong}), "all"]:
            group = [entry for entry in wrong if datatype in ("all", entry["datatype"])]
            lines.append(f"{datatype:<16} {len(group):>4}  "
                         f"{_share(sum(1 for e in group if e['outcome'] != 'supported'), len(group)):<20} "
                         f"{_share(sum(1 for e in group if e['outcome'] == 'contradicted'), len(group))}")
        lines += outcome_table(wrong, "datatype")
        lines += false_supports(wrong)
    seconds = [entry["seconds"] for entry in checked]
    if seconds:
        lines.append(f"seconds per statement: mean {statistics.mean(seconds):.1f}, median "
                     f"{statistics.median(seconds):.1f}, max {max(seconds):.1f} ({len(seconds)} statements)"
                     + (f"; judge loaded in {model_s:.1f} s" if model_s is not None else ""))
        timed = [entry for entry in checked if entry.get("stages")]
        if timed:
            def mean(stage: str) -> float:
                return statistics.mean(entry["stages"].get(stage, 0.0) for entry in timed)
            ranks = [entry["stages"].get("rank", 0.0) for entry in timed]
            lines.append(f"seconds per stage (mean a statement, {len(timed)} statements): fetch {mean('fetch'):.2f}, "
                         f"rank {mean('rank'):.2f} (median {statistics.median(ranks):.2f}, max {max(ranks):.2f}), "
                         f"judge {mean('judge'):.2f} ({statistics.mean(e.get('asked', 0) for e in timed):.2f} "
                         f"judgements)")
    return lines


def outcome_table(entries: Sequence[Mapping[str, Any]], by: str) -> list[str]:
    outcomes = [o.value for o in Outcome if any(entry["outcome"] == o.value for entry in entries)]
    counts = Counter((entry[by], entry["outcome"]) for entry in entries)
    lines = [f"outcomes by {by}:", f"  {by:<16}" + "".join(f"{o:>14}" for o in outcomes) + f"{'n':>6}"]
    for group in sorted({entry[by] for entry in entries}):
        lines.append(f"  {group:<16}" + "".join(f"{counts[(group, o)]:>14}" for o in outcomes)
                     + f"{sum(counts[(group, o)] for o in outcomes):>6}")
    return lines


def false_supports(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    wrong = [entry for entry in entries if not entry["label"] and entry["outcome"] == "supported"]
    return [f"  supported, expected not: {entry['id']} {entry['property_id']} {entry['datatype']}: "
            f"{entry.get('value_text') or entry['value']} (by {entry['supported_by']})" for entry in wrong]


# -- the command -------------------------------------------------------------------------------------------------

def read_done(path: Path | None) -> dict[tuple[str, str], dict[str, Any]]:
    """The rows --out holds already (a harness error is tried again)."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if path is None or not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short when the run was killed
        if entry.get("outcome") != "harness error":
            done[(entry["id"], entry["variant"])] = entry
    return done


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", type=Path, metavar="DEV_DIR", help="dev.jsonl, pages.jsonl and pages/")
    parser.add_argument("--variant", choices=("true", "wrong", "both"), default="both")
    parser.add_argument("--out", type=Path, metavar="FILE", help="per-row results (JSON Lines); resumed if it exists")
    parser.add_argument("--limit", type=int, metavar="N", help="the first N rows of the data set only")
    parser.add_argument("--ids", action="extend", type=lambda text: [i for i in re.split(r"[,\s]+", text) if i],
                        metavar="ID,…", help="these rows only (repeatable)")
    parser.add_argument("--seed", type=int, default=42, help="draws the distractor pages and the wrong values")
    parser.add_argument("--judge", choices=("transformers", "openai"),
                        help="the judge's backend (default: refbot's, transformers; openai with --judge-url)")
    parser.add_argument("--judge-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--judge-model", help="the judge's model (default: refbot's)")
    parser.add_argument("--no-echo", action="store_true",
                        help="[judge] echo = false: relations compared by the first token (vLLM's prefix cache)")
    parser.add_argument("--threads", type=int, help="CPU threads of the in-process judge (default: refbot's)")
    parser.add_argument("--judge-dtype", choices=("bfloat16", "float32"),
                        help="the in-process judge's weights (default: refbot's, bfloat16; float32 where the CPU has "
                             "no native bfloat16: the same verdicts, several times faster)")
    parser.add_argument("--value-words", type=int, metavar="N",
                        help="[check] value_words: units judged besides where a page writes a word of an item value's "
                             "names (default: refbot's)")
    parser.add_argument("--workers", type=int, default=1, help="statements checked at once (1)")
    args = parser.parse_args()
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.judge == "transformers" and args.judge_url:
        parser.error("--judge-url needs --judge openai")
    return args


def main() -> int:
    args = arguments()
    print(f"real_pages: bot from {Path(bot.__file__).parent}", flush=True)
    try:
        rows = [json.loads(line) for line in (args.dev / "dev.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        print(f"real_pages: cannot read {args.dev / 'dev.jsonl'}: {error}", file=sys.stderr)
        return 2
    chosen = [row for row in rows if not args.ids or row["id"] in args.ids][: args.limit]
    if args.ids and len(chosen) < len(set(args.ids)):
        print(f"real_pages: unknown ids: {sorted(set(args.ids) - {row['id'] for row in chosen})}", file=sys.stderr)
        return 2
    started = time.monotonic()
    pages = read_pages(args.dev, rows)
    unsaved = [row["id"] for row in chosen if row["id"] not in pages]
    wrong = wrong_values(chosen, pages, args.seed) if args.variant != "true" else {}
    variants = VARIANTS if args.variant == "both" else (args.variant,)
    cases = [Case(row, "true", str(row["object"])) for row in chosen if "true" in variants and row["id"] in pages]
    cases += [Case(row, "wrong", wrong[row["id"]]) for row in chosen if "wrong" in variants and row["id"] in wrong]
    print(f"real_pages: {len(chosen)} rows, {len(pages)} pages read in {time.monotonic() - started:.1f} s; "
          f"{sum(c.variant == 'true' for c in cases)} true and {sum(c.variant == 'wrong' for c in cases)} wrong-value "
          f"statements" + (f"; no saved page for {', '.join(unsaved)}" if unsaved else "")
          + (f"; no wrong value the page does not state for "
             f"{sum(1 for r in chosen if r['label'] is True and r['id'] in pages and r['id'] not in wrong)} "
             f"supported rows" if "wrong" in variants else ""), flush=True)
    done = read_done(args.out)
    todo = [case for case in cases if case.key not in done]
    entries = [done[case.key] for case in cases if case.key in done]
    model_s: float | None = None
    if todo:
        model_s = check_all(args, todo, cases, rows, pages, entries)
    print("\n".join(summarise(entries, model_s)))
    return 1 if any(entry["outcome"] in ("error", "harness error") for entry in entries) else 0


def check_all(args: argparse.Namespace, todo: Sequence[Case], cases: Sequence[Case], rows: Sequence[Mapping],
              pages: Mapping[str, Page], entries: list[dict[str, Any]]) -> float:
    """Check ``todo`` in a world holding every case (so that the subject items are the same on a resume), each row
    appended to ``entries`` and --out as it finishes; the seconds the judge took to load."""
    with tempfile.TemporaryDirectory(prefix="refbot-real-pages-") as folder:
        world, placed = build_world(Path(folder) / "world", cases, rows, pages, args.seed)
        items = {case.key: case.item for case in placed}
        todo = [Case(case.row, case.variant, case.value, items[case.key]) for case in todo]
        with world:
            place_urls(world)
            empty = Path(folder) / "empty.ini"
            empty.write_text("", encoding="utf-8")
            judge = args.judge or ("openai" if args.judge_url else None)
            options = load_options(empty, environ={}, overrides={
                **world.options(), "check_source": "web", "judge_backend": judge, "judge_url": args.judge_url,
                "judge_model": args.judge_model, "threads": args.threads, "judge_dtype": args.judge_dtype,
                "judge_echo": False if args.no_echo else None, "check_value_words": args.value_words})
            parts = Wiring(options)
            began = time.monotonic()
            parts.tools  # noqa: B018 (the judge loads here, once, not inside the first statement)
            wait_for_model(parts.backend)
            model_s = time.monotonic() - began
            served = options.judge.url if options.judge.backend == "openai" else options.judge.dtype
            print(f"real_pages: judge {options.judge.backend} {options.judge.model} ({served}) loaded in "
                  f"{model_s:.1f} s; "
                  f"{len(todo)} to check ({len(entries)} in {args.out} already)", flush=True)
            lock = threading.Lock()
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
            out = args.out.open("a", encoding="utf-8") if args.out else None

            def one(case: Case) -> None:
                page = pages[case.row["id"]]
                url = world.url(page)
                began = time.monotonic()
                check: StatementCheck | None = None
                error = ""
                try:
                    check = check_case(parts, case)
                except Exception as failure:  # the harness's own trouble, or a run that stopped: tried again
                    error = f"{type(failure).__name__}: {failure}"
                entry = record(case, check, page, url, time.monotonic() - began, parts, error)
                with lock:
                    entries.append(entry)
                    if out is not None:
                        out.write(json.dumps(entry, ensure_ascii=False) + "\n")
                        out.flush()
                    print(f"[{len(entries)}/{len(cases)}] {case.row['id']} {case.variant:<5} {entry['outcome']:<13} "
                          f"{entry['seconds']:>6.1f} s  {entry['stage'] or ''}"
                          + (f"  {error}" if error else ""), flush=True)

            try:
                with ThreadPoolExecutor(max_workers=args.workers) as pool:
                    list(pool.map(one, todo))
            finally:
                if out is not None:
                    out.close()
    return model_s


if __name__ == "__main__":
    sys.exit(main())
