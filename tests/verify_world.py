"""A world for `refbot verify`: the demo world's store and sites, plus two invented people whose statements already
cite pages — one page for each finding a reference can end with — served on loopback with the Wayback stand-in.

    Q990401 Jana Dvořáková
      date of birth 1961-05-02     ← gazette/people/dvorakova.html           supports
      place of birth Olomouc       ← gazette/people/dvorakova-lab.html       does not support (Olomouc not written);
                                     the search stand-in finds gazette/people/dvorakova.html, which states it
      date of birth 1961-05-02     ← gazette person ID dvorakova-61 (P8901)   supports (an external identifier)
      employer Palacký University  ← gazette/people/gone.html (404), retrieved 2019-06-01: two snapshots, the one
                                     of 2019-05-20 (closest before) says it; that of 2015 does not
      educated at Charles Univ.    ← gone site (connection refused)         dead, no archive
      award: Olomouc Science Prize ← gazette/people/prize.html: "page not found" with status 200   dead, no archive
      occupation chemist           ← gazette/people/moved.html → 301 to the front page; a snapshot   dead, archived
      member of Czech Chemical Soc.← journal/members.html 403               unreadable
      field of work organic chem.  ← gazette/people/app.html (script only)  unreadable
    Q990402 Pavel Horák
      date of birth 1950-01-10     ← gazette/people/horak.html ("born on 3 March 1948")   contradicts
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.demo.world import DATA, DemoWorld, Reply

GAZETTE = "gazette"
JOURNAL = "journal"
SNAPSHOT_RIGHT = "20190520101500"
SNAPSHOT_OLD = "20150101000000"
SNAPSHOT_MOVED = "20200301000000"


def page(title: str, *paragraphs: str) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>"
            f"<body><header><nav><a href=\"/\">City Gazette</a></nav></header><main><article><h1>{title}</h1>"
            f"{body}</article></main></body></html>")


PAGES = {
    "people/dvorakova.html": page(
        "Jana Dvořáková, chemist",
        "Jana Dvořáková was born on 2 May 1961 in Olomouc. She studied chemistry in Prague and returned to Olomouc "
        "in 1990.",
        "Her group works on catalysts for the synthesis of medicines, and she has supervised forty doctoral "
        "students since then."),
    "people/dvorakova-lab.html": page(
        "The laboratory of organic synthesis",
        "Jana Dvořáková leads the laboratory of organic synthesis, which moved into a new building in 2015.",
        "The laboratory employs twelve researchers and trains students from the whole region every summer."),
    "id/dvorakova-61.html": page(
        "Dvořáková, Jana (1961–)",
        "Jana Dvořáková, Czech chemist, was born on 2 May 1961 in Olomouc.",
        "Record last updated by the Gazette's archive in 2022."),
    "people/horak.html": page(
        "Pavel Horák",
        "Pavel Horák was born on 3 March 1948 in Zlín. He worked as an engineer at the Zlín shoe factory.",
        "He retired in 2010 and lives in Zlín."),
    "people/prize.html": page(
        "Page not found",
        "Sorry, the page you asked for is not here any more. Try the search box or the front page."),
    "people/app.html": ("<!doctype html><html><head><title>Profile</title><script src=\"/app.js\"></script></head>"
                        "<body><div id=\"root\"></div><noscript>Enable JavaScript.</noscript></body></html>"),
    "index.html": page(
        "Olomouc Gazette",
        "News from Olomouc and the region: the town council meets on Thursday to discuss the new tram line.",
        "The university opens its doors to visitors on Saturday, with lectures for children."),
}
ARCHIVED = {
    (SNAPSHOT_RIGHT, "people/gone.html"): page(
        "Jana Dvořáková joins Palacký University",
        "Jana Dvořáková has joined Palacký University Olomouc as a professor of organic chemistry, the university "
        "announced on Monday. Her employer is Palacký University from 1 May 2019.",
        "She will lead a new laboratory of organic synthesis."),
    (SNAPSHOT_OLD, "people/gone.html"): page(
        "Jana Dvořáková wins a grant",
        "Jana Dvořáková of the Institute of Chemistry in Prague has won a grant for her work on catalysts.",
        "The grant runs for three years."),
    (SNAPSHOT_MOVED, "people/moved.html"): page(
        "Jana Dvořáková",
        "Jana Dvořáková is a chemist who has worked in Olomouc since 1990.",
        "She is known for her work on catalysts."),
}

TTL = """
# ---------------------------------------------------------------- verify: statements that cite pages
wd:P8901 a wikibase:Property ; rdfs:label "Olomouc Gazette person ID"@en ;
  schema:description "identifier of a person in the Olomouc Gazette's archive"@en ;
  wikibase:propertyType wikibase:ExternalId ; wikibase:claim p:P8901 ; wikibase:statementProperty ps:P8901 ;
  wikibase:reference pr:P8901 ; wikibase:directClaim wdt:P8901 .
wd:P8901 wdt:P1630 "{site:gazette}/id/$1.html" .
wd:P106 a wikibase:Property ; rdfs:label "occupation"@en ;
  schema:description "occupation of a person"@en ;
  wikibase:propertyType wikibase:WikibaseItem ; wikibase:claim p:P106 ; wikibase:statementProperty ps:P106 ;
  wikibase:statementValue psv:P106 ; wikibase:reference pr:P106 ; wikibase:directClaim wdt:P106 .
wd:P463 a wikibase:Property ; rdfs:label "member of"@en ;
  schema:description "organization, club or musical group to which the subject belongs"@en ;
  wikibase:propertyType wikibase:WikibaseItem ; wikibase:claim p:P463 ; wikibase:statementProperty ps:P463 ;
  wikibase:statementValue psv:P463 ; wikibase:reference pr:P463 ; wikibase:directClaim wdt:P463 .
wd:P101 a wikibase:Property ; rdfs:label "field of work"@en ;
  schema:description "specialization of a person or organization"@en ;
  wikibase:propertyType wikibase:WikibaseItem ; wikibase:claim p:P101 ; wikibase:statementProperty ps:P101 ;
  wikibase:statementValue psv:P101 ; wikibase:reference pr:P101 ; wikibase:directClaim wdt:P101 .
wd:Q990420 a wikibase:Item ; rdfs:label "City Gazette"@en .
wd:Q990411 a wikibase:Item ; rdfs:label "Palacký University Olomouc"@en ; skos:altLabel "Palacký University"@en .
wd:Q990412 a wikibase:Item ; rdfs:label "Olomouc"@en .
wd:Q990413 a wikibase:Item ; rdfs:label "Charles University"@en .
wd:Q990414 a wikibase:Item ; rdfs:label "Olomouc Science Prize"@en .
wd:Q990415 a wikibase:Item ; rdfs:label "chemist"@en .
wd:Q990416 a wikibase:Item ; rdfs:label "Czech Chemical Society"@en .
wd:Q990417 a wikibase:Item ; rdfs:label "organic chemistry"@en .
wd:Q990401 a wikibase:Item ; rdfs:label "Jana Dvořáková"@en ; schema:description "Czech chemist"@en .
wd:Q990402 a wikibase:Item ; rdfs:label "Pavel Horák"@en ; schema:description "Czech engineer"@en .
"""


@dataclass(frozen=True)
class Cited:
    item: str
    guid: str
    property_id: str
    value: str  # Turtle
    reference: str  # hash
    snaks: str  # Turtle: pr:… objects
    date: str = ""  # a time value's timestamp: the statement gets its value node (day precision)


CITED = (
    Cited("Q990401", "Q990401-0A000001-0000-4000-8000-000000000001", "P569", '"1961-05-02T00:00:00Z"^^xsd:dateTime',
          "a1" * 20, 'pr:P854 <{site:gazette}/people/dvorakova.html> ; pr:P813 "2021-03-01T00:00:00Z"^^xsd:dateTime',
          "1961-05-02"),
    Cited("Q990401", "Q990401-0A000002-0000-4000-8000-000000000002", "P19", "wd:Q990412",
          "a2" * 20, "pr:P854 <{site:gazette}/people/dvorakova-lab.html>"),
    Cited("Q990401", "Q990401-0A000001-0000-4000-8000-000000000001", "P569", "",
          "a3" * 20, 'pr:P8901 "dvorakova-61" ; pr:P248 wd:Q990420'),
    Cited("Q990401", "Q990401-0A000004-0000-4000-8000-000000000004", "P108", "wd:Q990411",
          "a4" * 20, 'pr:P854 <{site:gazette}/people/gone.html> ; pr:P813 "2019-06-01T00:00:00Z"^^xsd:dateTime'),
    Cited("Q990401", "Q990401-0A000005-0000-4000-8000-000000000005", "P69", "wd:Q990413",
          "a5" * 20, "pr:P854 <{site:gone}/alumni/dvorakova.html>"),
    Cited("Q990401", "Q990401-0A000006-0000-4000-8000-000000000006", "P166", "wd:Q990414",
          "a6" * 20, "pr:P854 <{site:gazette}/people/prize.html>"),
    Cited("Q990401", "Q990401-0A000007-0000-4000-8000-000000000007", "P106", "wd:Q990415",
          "a7" * 20, "pr:P854 <{site:gazette}/people/moved.html>"),
    Cited("Q990401", "Q990401-0A000008-0000-4000-8000-000000000008", "P463", "wd:Q990416",
          "a8" * 20, "pr:P854 <{site:journal}/members.html>"),
    Cited("Q990401", "Q990401-0A000009-0000-4000-8000-000000000009", "P101", "wd:Q990417",
          "a9" * 20, "pr:P854 <{site:gazette}/people/app.html>"),
    Cited("Q990402", "Q990402-0B000001-0000-4000-8000-000000000001", "P569", '"1950-01-10T00:00:00Z"^^xsd:dateTime',
          "b1" * 20, "pr:P854 <{site:gazette}/people/horak.html>", "1950-01-10"),
)
# What each reference should come to, by its hash.
EXPECTED = {"a1" * 20: "supports", "a2" * 20: "does-not-support", "a3" * 20: "supports",
            "a4" * 20: "dead-archived", "a5" * 20: "dead-no-archive", "a6" * 20: "dead-no-archive",
            "a7" * 20: "dead-archived", "a8" * 20: "unreadable", "a9" * 20: "unreadable", "b1" * 20: "contradicts"}
ITEMS = ("Q990401", "Q990402")


def turtle() -> str:
    parts = [TTL]
    statements: dict[str, Cited] = {}
    for cited in CITED:
        if cited.guid not in statements:
            statements[cited.guid] = cited
            node = f"s:{cited.guid}"
            detail = ""
            if cited.date:
                value_node = f"v:{cited.guid[-12:]}0000000000000000000d"
                detail = (f" ; psv:{cited.property_id} {value_node} .\n{value_node} a wikibase:TimeValue ; "
                          f'wikibase:timeValue "{cited.date}T00:00:00Z"^^xsd:dateTime ; '
                          'wikibase:timePrecision "11"^^xsd:integer ; wikibase:timeTimezone "0"^^xsd:integer ; '
                          "wikibase:timeCalendarModel wd:Q1985727")
            parts.append(f"wd:{cited.item} p:{cited.property_id} {node} .\n{node} a wikibase:Statement, "
                         f"wikibase:BestRank ; wikibase:rank wikibase:NormalRank ; "
                         f"ps:{cited.property_id} {cited.value}{detail} .\n")
        parts.append(f"s:{cited.guid} prov:wasDerivedFrom ref:{cited.reference} .\n"
                     f"ref:{cited.reference} a wikibase:Reference ; {cited.snaks} .\n")
    return "".join(parts)


def build(directory: Path) -> Path:
    """The world's data: the demo world's, with the verify items, pages and snapshots added."""
    data = directory / "data"
    shutil.copytree(DATA, data)
    with (data / "world.ttl").open("a", encoding="utf-8") as ttl:
        ttl.write(turtle())
    for name, html in PAGES.items():
        target = data / "sites" / GAZETTE / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    (data / "sites" / JOURNAL).mkdir()
    snapshots = json.loads((data / "wayback.json").read_text(encoding="utf-8"))
    for (stamp, name), html in ARCHIVED.items():
        target = data / "archive" / stamp / GAZETTE / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        snapshots.append({"url": f"{{site:{GAZETTE}}}/{name}", "timestamp": stamp,
                          "file": f"archive/{stamp}/{GAZETTE}/{name}"})
    (data / "wayback.json").write_text(json.dumps(snapshots), encoding="utf-8")
    results = json.loads((data / "search.json").read_text(encoding="utf-8"))
    results.append({"url": f"{{site:{GAZETTE}}}/people/dvorakova.html", "title": "Jana Dvořáková, chemist",
                    "content": "Jana Dvořáková was born on 2 May 1961 in Olomouc.",
                    "keywords": ["dvořáková", "olomouc"]})
    (data / "search.json").write_text(json.dumps(results), encoding="utf-8")
    entities = json.loads((data / "entities.json").read_text(encoding="utf-8"))
    for number, item in enumerate(ITEMS):
        entities[item] = {"type": "item", "id": item, "lastrevid": 2301240000 + number, "sitelinks": {}}
    (data / "entities.json").write_text(json.dumps(entities), encoding="utf-8")
    return data


@dataclass
class VerifyWorld(DemoWorld):
    """The demo world with the verify items' pages, a page that moved (301 to the front page) and a paywall (403)."""

    replies: dict[tuple[str, str], Reply] = field(default_factory=dict)

    def answer(self, site: str, path: str, query: dict[str, list[str]], raw_path: str = "", *, method: str = "GET",
               params: dict[str, str] | None = None, cookies: dict[str, str] | None = None,
               authorization: str = "") -> Reply:
        if site == GAZETTE and path == "/people/moved.html":
            return Reply(301, b"", headers=(("Location", f"{self.base(GAZETTE)}/"),))
        if site == GAZETTE and path == "/":
            return super().answer(site, "/index.html", query, raw_path, method=method, params=params,
                                  cookies=cookies, authorization=authorization)
        if site == JOURNAL and path == "/members.html":
            return Reply(403, b"<!doctype html><title>Subscribe</title><p>Subscribers only.</p>")
        if (site, path) in self.replies:
            return self.replies[(site, path)]
        return super().answer(site, path, query, raw_path, method=method, params=params, cookies=cookies,
                              authorization=authorization)


def start(directory: Path, **world: Any) -> VerifyWorld:
    return VerifyWorld(data=build(directory), workdir=directory, **world).start()
