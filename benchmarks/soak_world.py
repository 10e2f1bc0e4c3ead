"""The soak benchmark's world: a generated Wikidata-shaped data directory in the demo world's layout, served by a
:class:`~bot.demo.world.DemoWorld` that injects faults, and a SPARQL proxy that answers 429 now and then.

``generate(directory, ...)`` writes ``world.ttl`` (the demo's property declarations and citation-needed constraints,
then invented people with unsourced statements), ``entities.json`` (sitelinks), ``search.json``, ``wayback.json``,
``sites/<host>/…``, ``archive/…``, ``wikipedia/<Title>.html`` and ``soak.json`` (the statements' GUIDs, the hostile
pages and records, the fault rates). Everything is drawn from one ``random.Random(seed)`` (the authority records from
a second one, so that adding them left the pages as they were): the same seed, the same world.

Authority records: most people carry an identifier of one of the demo header's authority files (GND in Turtle, BnF
in RDF/XML, VIAF in JSON-LD with a remote context; some two), whose record is served by that file's host (``dnb``,
``bnf``, ``viaf``). A plain record states the person's names, year of birth and field, none of the values of the
soak's statements, so that it corroborates and contradicts nothing. A share are hostile, every kind at least once
(``benchmarks/hostile_records.py``: a quadratic literal and a billion laughs in RDF/XML, 19,000 facts and a
250,014-triple dump in Turtle, JSON-LD naming contexts at refused addresses: a local file, a loopback port that is
not the world's, a link-local address), made when asked.

:class:`SoakWorld` serves it. Per request to a page host (robots.txt excepted) a hash of (seed, host, path, how
many times that page was asked before) decides: a 5xx, a hang past the read timeout, or the page. Dead pages are on
the demo's ``gone`` host, where nobody listens. Hostile pages (``/x/<kind>/…``) are made when asked (a 10 MB body
is not kept on disk). Authority records are served without faults; a hostile one is made when asked. A second
loopback server (:class:`RefusedServer`), outside the addresses the world lets refbot fetch from, counts what reaches
it: the hostile JSON-LD names it, and nothing may.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import hostile_records
from bot.demo.world import DATA, DEAD_SITE, SERVICES, DemoWorld, Reply

HOSTILE_KINDS = ("huge", "binary", "badutf8", "control", "script", "cdata", "textarea", "jslink", "paragraphs",
                 "pdf")
PWNED = "<script>document.title='pwned';window.soakPwned=1</script>"
# What a hostile page puts into its text (as text, not markup): the report must show it, inert.
HOSTILE_TEXT = {
    "script": PWNED,
    "cdata": "]]> <![CDATA[ x ]]> --> <!-- ",
    "textarea": "</textarea></title></style>" + PWNED,
    "jslink": "javascript:document.title='pwned'",
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
FIRST_NAMES = ("Anna", "Pavel", "Ilse", "Marek", "Jana", "Tomas", "Eva", "Karel", "Lena", "Ota", "Vera", "Jiri",
               "Hana", "Emil", "Klara", "Radim", "Olga", "Bruno", "Mira", "Stepan")
SYLLABLES = ("bar", "ven", "dol", "kri", "mas", "tel", "rov", "zan", "pel", "gor", "lin", "dus", "vek", "sam",
             "tor", "ber", "nik", "hol", "sev", "dra", "mul", "kas", "fen", "rid", "bol", "cen", "vim", "lok")
FIELDS = ("catalysis", "polymer chemistry", "bridge design", "medieval history", "glaciology", "number theory",
          "urban planning", "soil science", "violin performance", "marine biology")
FILLER = (
    "The committee met in the old town hall, where the discussion turned to budgets, schedules and the long list "
    "of repairs that the building has needed since the floods.",
    "Visitors arriving by train are advised to allow extra time this season, as the station forecourt is being "
    "rebuilt and the usual tram stop has moved two streets to the north.",
    "Local archives hold letters, photographs and ledgers from the period, most of them catalogued by volunteers "
    "over several winters and now open to researchers by appointment.",
    "Attendance at the spring lectures rose again, and the organisers say they will add a second evening session "
    "next year if the hall can be booked for the whole of April.",
    "The regional newspaper reported that the new cycle path along the river will be finished before the summer, "
    "linking three villages that until now had only a narrow road between them.",
    "Critics praised the exhibition's careful lighting and its catalogue, although several noted that the labels "
    "were printed in a type size too small to read from a comfortable distance.",
)
PROPERTIES = ("P166", "P69", "P108", "P570")
# The demo header's authority files: property → (host, record path, subject path, format); {} is the identifier, as
# $1 in the property's P1921 and P1630 formatters (generate() checks that the header says so).
AUTHORITIES = {"P227": ("dnb", "/gnd/{}/about/lds.ttl", "/gnd/{}", "Turtle"),
               "P268": ("bnf", "/ark/12148/cb{}.rdf", "/ark/12148/cb{}", "RDF/XML"),
               "P214": ("viaf", "/viaf/{}/viaf.jsonld", "/viaf/{}", "JSON-LD")}
IDENTIFIER_PREFIX = {"P227": "1177", "P268": "1277", "P214": "9977"}
VIAF_CONTEXT = "/contexts/viaf.jsonld"
# Hostile authority records, each under the authority file whose format it is in.
HOSTILE_RECORDS = {"quadratic-literal": "P268", "billion-laughs": "P268", "wide-turtle": "P227",
                   "dump-turtle": "P227", "contexts-file": "P214", "contexts-loopback": "P214",
                   "contexts-link-local": "P214"}
LINK_LOCAL = "http://169.254.169.254"
GNDO = "https://d-nb.info/standards/elementset/gnd#"


@dataclass(frozen=True)
class Rates:
    """Shares of page requests (5xx, hang) and of pages (dead, hostile); of SPARQL requests (429)."""

    error_5xx: float = 0.10
    hang: float = 0.05
    dead: float = 0.05
    hostile: float = 0.04
    sparql_429: float = 0.03
    service_5xx: float = 0.03  # of reads from the Wikidata API, Wikipedia, the Wayback Machine and search
    unidentified: float = 0.10  # of people: no identifier with an RDF record
    second_identifier: float = 0.20  # of people with one: a second, in another authority file (a plain record)
    hostile_record: float = 0.05  # of people with one: a hostile record (every kind at least once)


def coined(rng: random.Random, used: set[str], syllables: Sequence[str] = SYLLABLES) -> str:
    """A made-up name of two or three syllables, not in ``used`` (and added to it)."""
    while True:
        word = "".join(rng.choice(syllables) for _ in range(rng.choice((2, 3)))).capitalize()
        if word not in used:
            used.add(word)
            return word


def _guid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _ttl(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _page(title: str, paragraphs: list[str], *, head: str = "", links: str = "") -> str:
    body = "\n".join(f"<p>{p}</p>" for p in paragraphs)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>{head}</head>'
            f"<body><article><h1>{title}</h1>\n{body}\n{links}</article></body></html>\n")


def _header_turtle() -> str:
    """The demo world's prefixes, property declarations and constraints (its items left out)."""
    text = (DATA / "world.ttl").read_text(encoding="utf-8")
    start = text.index("@prefix")
    end = text.index("# ---------------------------------------------------------------- value items")
    return text[start:end]


def generate(directory: Path, *, statements: int = 1000, items: int = 300, hosts: int = 20, seed: int = 1,
             rates: Rates = Rates()) -> dict[str, Any]:
    """Write the world into ``directory`` (created); its manifest (also ``soak.json``)."""
    rng = random.Random(seed)
    items = max(1, min(items, statements))
    sites = [f"site{number:02d}" for number in range(hosts)]
    for name in ("sites", "archive", "wikipedia"):
        (directory / name).mkdir(parents=True, exist_ok=True)
    for site in sites:
        (directory / "sites" / site).mkdir(exist_ok=True)
    used: set[str] = set()
    turtle = [_header_turtle(), "wd:Q5 rdfs:label \"human\"@en .\n"]
    entities: dict[str, Any] = {}
    search: list[dict[str, Any]] = []
    wayback: list[dict[str, Any]] = []
    expected: dict[str, dict[str, Any]] = {}
    hostile: dict[str, dict[str, str]] = {}
    counts: Counter[str] = Counter()

    values: dict[str, list[tuple[str, str, str]]] = {"P166": [], "P69": [], "P108": []}  # (qid, label, keyword)
    patterns = {"P166": ("{} Prize for Science", "{} Medal", "{} Award"),
                "P69": ("University of {}", "{} Institute of Technology", "{} College"),
                "P108": ("{} Research Centre", "{} Foundation", "{} Works")}
    number = 7790000
    for property_id, shapes in patterns.items():
        for _ in range(max(10, statements // 20)):
            word = coined(rng, used)
            number += 1
            label = rng.choice(shapes).format(word)
            values[property_id].append((f"Q{number}", label, word.lower()))
            turtle.append(f'wd:Q{number} a wikibase:Item ; rdfs:label "{_ttl(label)}"@en ;\n'
                          f'  schema:description "an invented {property_id} value of the soak world"@en .\n')

    people: list[tuple[str, str, int, str]] = []  # (qid, label, year of birth, field)
    per_item = [statements // items + (1 if n < statements % items else 0) for n in range(items)]
    hostile_turn = 0
    every = max(1, statements // len(HOSTILE_KINDS))  # every kind at least once, however short the run
    made = 0
    for index, count in enumerate(per_item):
        qid = f"Q{7700001 + index}"
        surname = coined(rng, used)
        label = f"{rng.choice(FIRST_NAMES)} {surname}"
        topic = rng.choice(FIELDS)
        born = rng.randint(1920, 1980)
        p31 = f"s:{qid}-{_guid(rng)}"
        turtle.append(f'wd:{qid} a wikibase:Item ; rdfs:label "{label}"@en ;\n'
                      f'  schema:description "invented specialist in {topic} (born {born})"@en .\n'
                      f"wd:{qid} p:P31 {p31} .\n{p31} a wikibase:Statement, wikibase:BestRank ;\n"
                      "  wikibase:rank wikibase:NormalRank ; ps:P31 wd:Q5 .\n")
        people.append((qid, label, born, topic))
        chosen: list[str] = []
        cited: list[tuple[str, str, str]] = []  # (sentence, url, title) for the item's Wikipedia article
        taken: set[str] = set()
        for _ in range(count):
            choices = [p for p in PROPERTIES if p != "P570" or "P570" not in chosen]
            property_id = rng.choice(choices)
            chosen.append(property_id)
            guid = _guid(rng)
            node = f"s:{qid}-{guid}"
            year = rng.randint(born + 20, 2024)
            if property_id == "P570":
                day = date(rng.randint(born + 40, 2024), 1, 1) + timedelta(days=rng.randint(0, 364))
                value_text = f"{day.day} {MONTHS[day.month - 1]} {day.year}"
                keyword = "death"
                stamp = f"{day.isoformat()}T00:00:00Z"
                vnode = f"v:{hashlib.sha1(guid.encode()).hexdigest()}"
                turtle.append(
                    f"wd:{qid} p:P570 {node} .\n{node} a wikibase:Statement, wikibase:BestRank ;\n"
                    f'  wikibase:rank wikibase:NormalRank ; ps:P570 "{stamp}"^^xsd:dateTime ; psv:P570 {vnode} .\n'
                    f'{vnode} a wikibase:TimeValue ; wikibase:timeValue "{stamp}"^^xsd:dateTime ;\n'
                    '  wikibase:timePrecision "11"^^xsd:integer ; wikibase:timeTimezone "0"^^xsd:integer ;\n'
                    "  wikibase:timeCalendarModel wd:Q1985727 .\n")
                sentence = f"{label} died on {value_text} at home, the family said."
            else:
                pool = [v for v in values[property_id] if v[0] not in taken]
                value_qid, value_text, keyword = rng.choice(pool)
                taken.add(value_qid)
                turtle.append(f"wd:{qid} p:{property_id} {node} .\n{node} a wikibase:Statement, wikibase:BestRank ;\n"
                              f"  wikibase:rank wikibase:NormalRank ; ps:{property_id} wd:{value_qid} .\n")
                sentence = {"P166": f"{label} received the {value_text} in {year} for work on {topic}.",
                            "P69": f"{label} studied at the {value_text}, graduating in {year}.",
                            "P108": f"{label} has worked at the {value_text} since {year}."}[property_id]
            expected[f"{qid}${guid}"] = {"item": qid, "label": label, "property": property_id, "value": value_text}
            forced = made % every == 0 and made // every < len(HOSTILE_KINDS)
            made += 1
            for page in range(rng.choice((1, 2, 2, 3))):
                slug = f"{surname.lower()}-{property_id.lower()}-{page}"
                site = rng.choice(sites)
                draw = rng.random()
                supports = rng.random() < 0.7
                text = sentence if supports else f"{label} spoke at a meeting in {year} about {topic} and its future."
                paragraphs = rng.sample(FILLER, 3) + [text + " " + rng.choice(FILLER)] + rng.sample(FILLER, 2)
                title = f"{label}: news from {site}"
                if draw < rates.dead and not (forced and page == 0):
                    url = f"{{site:{DEAD_SITE}}}/{year}/{slug}.html"
                    counts["dead"] += 1
                    if rng.random() < 0.5:
                        stamp = f"{year}0{rng.randint(1, 9)}1{rng.randint(0, 9)}120000"
                        file = f"archive/{stamp}/{DEAD_SITE}/{year}/{slug}.html"
                        (directory / file).parent.mkdir(parents=True, exist_ok=True)
                        (directory / file).write_text(_page(title, paragraphs), encoding="utf-8")
                        wayback.append({"url": url, "timestamp": stamp, "file": file})
                        counts["dead-archived"] += 1
                elif draw < rates.dead + rates.hostile or (forced and page == 0):
                    kind = HOSTILE_KINDS[hostile_turn % len(HOSTILE_KINDS)]
                    hostile_turn += 1
                    path = f"/x/{kind}/{slug}.{'pdf' if kind == 'pdf' else 'html'}"
                    url = f"{{site:{site}}}{path}"
                    hostile[f"{site}{path}"] = {"kind": kind, "title": title, "sentence": sentence}
                    counts[f"hostile-{kind}"] += 1
                    if kind in HOSTILE_TEXT:
                        title = f"{title} {HOSTILE_TEXT[kind]}"
                else:
                    path = f"/{year}/{slug}.html"
                    url = f"{{site:{site}}}{path}"
                    target = directory / "sites" / site / path.lstrip("/")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(_page(title, paragraphs), encoding="utf-8")
                    counts["normal"] += 1
                    if supports:
                        cited.append((sentence, url, title))
                search.append({"url": url, "title": title, "content": text[:160],
                               "keywords": [surname.lower(), keyword]})
        if cited and rng.random() < 0.3:
            _article(directory, turtle, entities, qid, label, cited, rng)
            counts["articles"] += 1
        if rng.random() < 0.1:  # a sourced statement: not selected
            node, ref = f"s:{qid}-{_guid(rng)}", f"ref:{hashlib.sha1(qid.encode()).hexdigest()}"
            value_qid = rng.choice([v for v in values["P166"] if v[0] not in taken])[0]
            turtle.append(f"wd:{qid} p:P166 {node} .\n{node} a wikibase:Statement, wikibase:BestRank ;\n"
                          f"  wikibase:rank wikibase:NormalRank ; ps:P166 wd:{value_qid} ;\n"
                          f"  prov:wasDerivedFrom {ref} .\n{ref} a wikibase:Reference ; "
                          f"pr:P854 <https://example.org/{qid}> .\n")
            counts["sourced (not selected)"] += 1

    records, record_counts = _authority_records(directory, turtle, people, seed, rates)
    (directory / "world.ttl").write_text("".join(turtle), encoding="utf-8")
    (directory / "entities.json").write_text(json.dumps(entities, indent=1), encoding="utf-8")
    (directory / "search.json").write_text(json.dumps(search, ensure_ascii=False), encoding="utf-8")
    (directory / "wayback.json").write_text(json.dumps(wayback, indent=1), encoding="utf-8")
    (directory / "expected.json").write_text("{}", encoding="utf-8")
    manifest = {"seed": seed, "sites": sites, "statements": expected, "hostile": hostile, "counts": dict(counts),
                "records": records, "record_counts": dict(record_counts), "rates": rates.__dict__,
                "items": [f"Q{7700001 + n}" for n in range(items)]}
    (directory / "soak.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    return manifest


def _authority_records(directory: Path, turtle: list[str], people: list[tuple[str, str, int, str]], seed: int,
                       rates: Rates) -> tuple[dict[str, dict[str, str]], Counter[str]]:
    """Each person's identifiers (into ``turtle``) and records: plain ones written under ``sites/<authority host>/``,
    hostile ones returned (``host/path`` → kind, subject path: made when asked), and what was drawn."""
    header = turtle[0]
    for property_id, (host, record, subject, _) in AUTHORITIES.items():
        for name, path in (("P1921", record), ("P1630", subject)):
            stated = f'wdt:{name} "{{site:{host}}}{path.format("$1")}"'
            if stated not in header:
                raise ValueError(f"the demo header no longer states {property_id} {stated}")
    rng = random.Random(f"{seed}|records")
    viaf = directory / "sites" / "viaf" / VIAF_CONTEXT.lstrip("/")
    viaf.parent.mkdir(parents=True, exist_ok=True)
    viaf.write_text(json.dumps({"@context": {"@vocab": "http://schema.org/"}}), encoding="utf-8")
    for host, *_ in AUTHORITIES.values():
        (directory / "sites" / host).mkdir(parents=True, exist_ok=True)
    hostile: dict[str, dict[str, str]] = {}
    counts: Counter[str] = Counter()
    every = max(1, len(people) // len(HOSTILE_RECORDS))  # every kind at least once, however short the run
    turn = 0
    for index, (qid, label, born, topic) in enumerate(people):
        forced = index % every == 0 and index // every < len(HOSTILE_RECORDS)
        if not forced and rng.random() < rates.unidentified:
            counts["people without an identifier"] += 1
            continue
        kind = ""
        if forced or rng.random() < rates.hostile_record:
            kind = list(HOSTILE_RECORDS)[turn % len(HOSTILE_RECORDS)]
            turn += 1
            properties = [HOSTILE_RECORDS[kind]]
        else:
            properties = [rng.choice(list(AUTHORITIES))]
        if rng.random() < rates.second_identifier:
            properties.append(rng.choice([p for p in AUTHORITIES if p not in properties]))
        for property_id in properties:
            host, record_path, subject_path, form = AUTHORITIES[property_id]
            identifier = f"{IDENTIFIER_PREFIX[property_id]}{index + 1:05d}"  # the item's number
            node = f"s:{qid}-{_guid(rng)}"
            turtle.append(f"wd:{qid} p:{property_id} {node} .\n{node} a wikibase:Statement, wikibase:BestRank ;\n"
                          f'  wikibase:rank wikibase:NormalRank ; ps:{property_id} "{identifier}" .\n')
            path, subject = record_path.format(identifier), subject_path.format(identifier)
            if kind and property_id == properties[0]:
                hostile[f"{host}{path}"] = {"kind": kind, "subject": subject}
                counts[f"hostile {kind}"] += 1
                continue
            target = directory / "sites" / host / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_plain_record(form, f"{{site:{host}}}{subject}", label, born, topic), encoding="utf-8")
            counts[f"plain {form}"] += 1
    return hostile, counts


def _plain_record(form: str, subject: str, label: str, born: int, topic: str) -> str:
    """A person's record: names, year of birth, field; none of the values the soak's statements hold."""
    first, family = label.split(" ", 1)
    if form == "Turtle":
        return (f"@prefix gndo: <{GNDO}> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                f"<{subject}> a gndo:DifferentiatedPerson ;\n  gndo:preferredNameForThePerson \"{family}, {first}\" ;\n"
                f'  gndo:variantNameForThePerson "{label}" ;\n  gndo:dateOfBirth "{born}"^^xsd:gYear ;\n'
                f'  gndo:fieldOfStudy "{topic}" .\n')
    if form == "RDF/XML":
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="{hostile_records.RDF}" '
                'xmlns:foaf="http://xmlns.com/foaf/0.1/" xmlns:rda="http://rdvocab.info/ElementsGr2/">\n'
                f'<foaf:Person rdf:about="{subject}"><foaf:name>{_esc(label)}</foaf:name>'
                f"<foaf:familyName>{_esc(family)}</foaf:familyName><rda:dateOfBirth>{born}</rda:dateOfBirth>"
                f"<rda:fieldOfActivity>{_esc(topic)}</rda:fieldOfActivity></foaf:Person>\n</rdf:RDF>\n")
    return json.dumps({"@context": "{site:viaf}" + VIAF_CONTEXT, "@id": subject, "@type": "Person", "name": label,
                       "familyName": family, "birthDate": str(born), "knowsAbout": topic,
                       "alternateName": [f"{family}, {first}"]}, indent=1)


def hostile_record(kind: str, subject: str, refused: str) -> tuple[bytes, str]:
    """A hostile record's body and content type; ``refused``: the base URL of a loopback server refbot must not
    reach."""
    contexts = {"contexts-file": (f"{refused}/context.jsonld", "file:///etc/passwd"),
                "contexts-loopback": (f"{refused}/context.jsonld", f"{refused}/person.jsonld"),
                "contexts-link-local": (f"{LINK_LOCAL}/latest/meta-data/context.jsonld", f"{LINK_LOCAL}/person.jsonld")}
    if kind in contexts:  # refbot asks for the first in sorted order: the file, the loopback port, the link-local
        return hostile_records.hostile_contexts(subject, *contexts[kind])
    make = {"quadratic-literal": hostile_records.quadratic_literal, "billion-laughs": hostile_records.billion_laughs,
            "wide-turtle": hostile_records.wide_turtle, "dump-turtle": hostile_records.dump_turtle}[kind]
    return make(subject)


def _article(directory: Path, turtle: list[str], entities: dict[str, Any], qid: str, label: str,
             cited: list[tuple[str, str, str]], rng: random.Random) -> None:
    """A Parsoid-shaped English Wikipedia article whose sentences cite the item's pages."""
    title = label.replace(" ", "_")
    revision = rng.randint(1_100_000_000, 1_299_999_999)
    paragraphs, notes = [], []
    for number, (sentence, url, page_title) in enumerate(cited, start=1):
        note = f"cite_note-{number}"
        paragraphs.append(
            f"<p>{_esc(sentence)} {_esc(rng.choice(FILLER))}"
            "<sup class=\"mw-ref reference\" typeof=\"mw:Extension/ref\">"
            f"<a href=\"./{title}#{note}\"><span class=\"mw-reflink-text\">[{number}]</span></a></sup></p>")
        notes.append(f"<li id=\"{note}\"><span class=\"mw-reference-text reference-text\"><cite class=\"citation web\">"
                     f"<a rel=\"mw:ExtLink\" class=\"external text\" href=\"{url}\">{_esc(page_title)}</a>. "
                     f"Retrieved 2024-01-15.</cite></span></li>")
    html = (f'<!DOCTYPE html>\n<html about="https://en.wikipedia.org/wiki/Special:Redirect/revision/{revision}">'
            f'<head><meta charset="utf-8"/><title>{_esc(label)}</title></head><body>'
            f'<section data-mw-section-id="0"><p>{_esc(label)} is an invented person of the soak world, written '
            f'to exercise the article reader of refbot with citations.</p>{"".join(paragraphs)}</section>'
            f'<section data-mw-section-id="1"><h2>References</h2><div class="mw-references-wrap">'
            f'<ol class="mw-references references">{"".join(notes)}</ol></div></section></body></html>\n')
    (directory / "wikipedia" / f"{title}.html").write_text(html, encoding="utf-8")
    turtle.append(f"<https://en.wikipedia.org/wiki/{title}> a schema:Article ; schema:about wd:{qid} ;\n"
                  f'  schema:inLanguage "en" ; schema:isPartOf <https://en.wikipedia.org/> ; '
                  f'schema:name "{label}"@en .\n')
    entities[qid] = {"type": "item", "id": qid, "sitelinks": {"enwiki": {
        "site": "enwiki", "title": label, "badges": [], "url": f"https://en.wikipedia.org/wiki/{title}"}}}


def _unit(*parts: object) -> float:
    """A number in [0, 1) fixed by ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def hostile_body(kind: str, title: str, sentence: str, seed: int) -> tuple[bytes, str]:
    """A hostile page's body and content type."""
    rng = random.Random(f"{seed}|{kind}|{title}")
    html = "text/html; charset=utf-8"
    filler = list(FILLER)
    if kind == "huge":  # 10 MB of paragraphs, the sentence near the start
        block = "".join(f"<p>{rng.choice(filler)} {rng.choice(filler)} Note {n}.</p>\n" for n in range(200))
        body = _page(_esc(title), [sentence, *filler[:2]])
        repeat = 10_000_000 // len(block) + 1
        return (body.replace("</article>", block * repeat + "</article>")).encode(), html
    if kind == "paragraphs":  # 10,000 short paragraphs, the sentence in the middle
        paragraphs = [f"{rng.choice(filler)} ({n})" for n in range(10_000)]
        paragraphs[5_000] = sentence
        return _page(_esc(title), paragraphs).encode(), html
    if kind == "binary":
        return bytes(rng.getrandbits(8) for _ in range(200_000)), html
    if kind == "pdf":  # a header, a broken object, no cross-reference table, no end
        return (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
                b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Length 999999 >>\n"
                b"stream\nBT /F1 12 Tf (" + sentence.encode() + b") Tj ET\n" + bytes(range(256)) * 20), \
            "application/pdf"
    if kind == "badutf8":
        page = _page(_esc(title), [*filler[:2], _esc(sentence) + " @@BAD@@ " + filler[3], filler[4]])
        return page.encode().replace(b"@@BAD@@", b"\xff\xfe\xc3\x28 \xed\xa0\x80 \xf8\x88\x80\x80\x80"), html
    if kind == "control":
        junk = "\x00\x01\x02\x08\x0b\x0c\x1b[31m\x7f\u202e\ufeff\u200b\x85"
        return _page(_esc(title), [*filler[:2], _esc(sentence) + junk + filler[3] + junk, filler[4]]).encode(), html
    text = HOSTILE_TEXT[kind]
    head = PWNED + "<base href=\"javascript:alert(1)//\">" if kind == "script" else ""
    links = '<p><a href="javascript:document.title=\'pwned\'">Read more about this</a> and ' \
            '<a href="javascript:alert(1)">share</a>.</p>' if kind == "jslink" else ""
    paragraph = _esc(sentence) + " " + _esc(text) + " " + filler[3]
    if kind == "jslink":
        paragraph += f' <a href="{_esc(text)}">{_esc(text)}</a>'
    return _page(_esc(f"{title} {text}"), [*filler[:2], paragraph, PWNED if kind == "script" else filler[4]],
                 head=head, links=links).encode(), html


@dataclass
class SoakWorld(DemoWorld):
    """The demo world over generated data, with faults injected into page requests (see the module)."""

    seed: int = 1
    rates: Rates = field(default_factory=Rates)
    hang_s: float = 3.5
    stats: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        super().__post_init__()
        manifest = json.loads((self.data / "soak.json").read_text(encoding="utf-8"))
        self.hostile: dict[str, dict[str, str]] = manifest["hostile"]
        self.hostile_records: dict[str, dict[str, str]] = manifest["records"]
        self.page_sites = set(manifest["sites"])
        self.record_sites = {host: form for host, _, _, form in AUTHORITIES.values()}
        self.records_served: Counter[str] = Counter()
        self.refused: RefusedServer | None = None
        self._asked: Counter[str] = Counter()
        self.searches: Counter[str] = Counter()
        self._count_lock = threading.Lock()

    def start(self) -> "SoakWorld":
        self.refused = RefusedServer()
        super().start()
        for server in self._servers:  # a client that gave up on a hanging page: no traceback on stderr
            server.handle_error = lambda *_: None  # type: ignore[method-assign]
        return self

    def stop(self) -> None:
        super().stop()
        if self.refused is not None:
            self.refused.stop()

    def options(self) -> dict[str, Any]:
        """The demo's, with only the world's own ports allowed (not all of 127.0.0.1): the refused server's port is
        refused as any address outside the world would be."""
        ports = sorted(set(self.ports.values()))
        return {**super().options(), "fetch_allow_addresses": tuple(f"127.0.0.1:{port}" for port in ports)}

    def record(self, request: Any) -> None:  # the soak counts requests instead of keeping them all
        with self._count_lock:
            self.stats[f"requests {request.site if request.site in SERVICES else 'pages'}"] += 1

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "", *, method: str = "GET",
               params: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
               authorization: str = "") -> Reply:
        if site in self.page_sites and path != "/robots.txt":
            key = f"{site}{path}"
            with self._count_lock:
                asked = self._asked[key]
                self._asked[key] += 1
            draw = _unit(self.seed, key, asked)
            if draw < self.rates.error_5xx:
                self._count("5xx")
                status = (500, 502, 503, 504)[int(draw * 1000) % 4]
                return Reply(status, f"<!doctype html><title>{status}</title><p>Injected fault.</p>".encode())
            if draw < self.rates.error_5xx + self.rates.hang:
                self._count("hangs")
                time.sleep(self.hang_s)
            if key in self.hostile:
                spec = self.hostile[key]
                self._count(f"hostile {spec['kind']}")
                body, kind = hostile_body(spec["kind"], spec["title"], spec["sentence"], self.seed)
                return Reply(200, body, kind)
            self._count("pages served")
        elif site in self.record_sites and path != "/robots.txt" and method == "GET":
            spec = self.hostile_records.get(f"{site}{path}")
            if spec is not None and self.refused is not None:
                with self._count_lock:
                    self.records_served[f"hostile {spec['kind']}"] += 1
                body, kind = hostile_record(spec["kind"], self.base(site) + spec["subject"], self.refused.url)
                return Reply(200, body, kind)
            if path != VIAF_CONTEXT:
                with self._count_lock:
                    self.records_served[f"plain {self.record_sites[site]}"] += 1
        elif site in SERVICES and method == "GET":
            key = f"{site}{raw_path or path}"
            with self._count_lock:
                asked = self._asked[key]
                self._asked[key] += 1
            if _unit(self.seed, "service", key, asked) < self.rates.service_5xx:
                self._count(f"5xx from {site}")
                return Reply(503, b"<!doctype html><title>503</title><p>Injected fault: try again later.</p>")
            if site == "archive" and path.startswith("/web/"):
                self._count("archived copies asked")
            if site == "search":  # answered: a search asked again after a 503 is a retry, not a second check
                with self._count_lock:
                    self.searches[(query.get("q") or [""])[0]] += 1
        return super().answer(site, path, query, raw_path, method=method, params=params, cookies=cookies,
                              authorization=authorization)

    def _count(self, name: str) -> None:
        with self._count_lock:
            self.stats[name] += 1


class RefusedServer:
    """A loopback server at a port refbot is not allowed to fetch from: it answers a JSON-LD context (so that a
    request that got through would be read, not just fail) and counts every request; the soak's must be none."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        lock = threading.Lock()
        refused = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                with lock:
                    refused.requests[self.path] += 1
                body = json.dumps({"@context": {"@vocab": "http://schema.org/"}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/ld+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        self.server = _serve_on_loopback(Handler, "refused")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _serve_on_loopback(handler: type[BaseHTTPRequestHandler], name: str) -> ThreadingHTTPServer:
    """A quiet threaded server on a free loopback port, serving from a daemon thread until shut down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.handle_error = lambda *_: None  # type: ignore[method-assign]
    threading.Thread(target=server.serve_forever, name=name, daemon=True).start()
    return server


class SparqlProxy:
    """Loopback HTTP proxy in front of a SPARQL endpoint: ``rate`` of its requests are answered 429 with
    ``Retry-After: 1`` (chosen by a hash of the seed and the request's number), the others forwarded."""

    def __init__(self, target: str, *, rate: float = 0.03, seed: int = 1) -> None:
        import requests

        self.target, self.rate, self.seed = target.rsplit("/", 1)[0], rate, seed
        self.stats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._session = requests.Session()
        self._session.trust_env = False
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                proxy.serve(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                proxy.serve(self, "POST")

            def log_message(self, *_: Any) -> None:
                pass

        self.server = _serve_on_loopback(Handler, "sparql-proxy")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/query"

    def serve(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        with self._lock:
            number = self.stats["requests"]
            self.stats["requests"] += 1
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length > 0 else None
        if _unit(self.seed, "sparql", number) < self.rate:
            with self._lock:
                self.stats["429"] += 1
            reply, status, kind, extra = b"Too many requests", 429, "text/plain", [("Retry-After", "1")]
        else:
            headers = {name: handler.headers[name] for name in ("Content-Type", "Accept", "User-Agent")
                       if handler.headers.get(name)}
            try:
                answer = self._session.request(method, self.target + handler.path, data=body, headers=headers,
                                               timeout=60)
                reply, status, extra = answer.content, answer.status_code, []
                kind = answer.headers.get("Content-Type", "application/octet-stream")
            except Exception as error:  # noqa: BLE001 (the client sees a 502, as from a real proxy)
                reply, status, kind, extra = str(error).encode(), 502, "text/plain", []
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(reply)))
        for name, value in extra:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(reply)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
