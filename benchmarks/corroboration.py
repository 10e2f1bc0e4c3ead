#!/usr/bin/env python3
"""Corroboration from authority records measured (bot.corroboration), per record format.

    benchmarks/corroboration.py [--people 300] [--seed 1] [--no-embeddings] [--workers 2]

It generates a Wikidata-shaped store (Oxigraph, on loopback) of invented people, each with one identifier in one of
three invented authority files, whose records are served on loopback in one format each — Turtle, RDF/XML and
JSON-LD (the JSON-LD with a remote @context, fetched through refbot's fetcher). Each person has three unsourced
statements: a date of birth, a place of birth and an award. The records were drawn so that the answer is known:

- date of birth: the same day (→ corroborated), another day or year (→ contradicted), the year alone (→ silent);
- place of birth: the database's own URI for the place, which maps back to the place's item through its identifier,
  or (JSON-LD) the place's name (→ corroborated), or another place (→ silent: another place does not deny one);
- award: never in a record (→ silent);
- a record in twenty is missing (404) and one in twenty malformed (→ silent).

Statements are checked the way `refbot check --source kg` checks them (``Corroborator``, the embedding model as
the product loads it, no model picks: every relation here is recognised by Wikidata's P1628 or by its label). It
prints, per format: records fetched, triples read, statements corroborated / contradicted / silent, how many of
those match the drawn answer, and seconds per statement; then the totals.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.corroboration import Corroborator  # noqa: E402
from bot.datamodel import Statement, Value  # noqa: E402
from bot.demo.sparql import start_oxigraph  # noqa: E402
from bot.demo.world import free_port  # noqa: E402
from bot.documents.fetching import Fetcher, FetchRules  # noqa: E402
from bot.options import Options  # noqa: E402
from bot.pool import in_flight  # noqa: E402
from bot.selection.endpoint import SparqlEndpoint  # noqa: E402

FORMATS = {"turtle": ("P227", "Q36578", "GND ID", ".ttl", "text/turtle"),
           "rdfxml": ("P268", "Q19938912", "BnF ID", ".rdf", "application/rdf+xml"),
           "jsonld": ("P214", "Q54919", "VIAF ID", ".jsonld", "application/ld+json")}
NAMES = ("Anna", "Pavel", "Ilse", "Marek", "Jana", "Tomas", "Eva", "Karel", "Lena", "Ota", "Vera", "Jiri")
SURNAMES = ("Dvorak", "Kral", "Novak", "Benes", "Horak", "Marek", "Sykora", "Vlcek", "Kolar", "Urban", "Pokorny")
PLACES = ("Brno", "Olomouc", "Prague", "Ostrava", "Plzen", "Liberec", "Zlin", "Opava", "Jihlava", "Tabor")
GNDO = "https://d-nb.info/standards/elementset/gnd#"
RDA = "http://rdvocab.info/ElementsGr2/"

HEAD = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
"""


class Records:
    """The authority files' records, served from memory: path → (status, content type, body)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, str, bytes]] = {}
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        records = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                with records.lock:
                    records.asked[self.path] += 1
                status, kind, body = records.pages.get(self.path, (404, "text/plain", b"not found"))
                if self.path == "/robots.txt":
                    status, kind, body = 200, "text/plain", b"User-agent: *\nAllow: /\n"
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        return Handler


def generate(people: int, seed: int, base: str, records: Records) -> tuple[str, list[tuple[Statement, str, str]]]:
    """The store's Turtle, and each statement with its record format and the drawn answer."""
    rng = random.Random(seed)
    lines = [HEAD]
    for name, (pid, database, label, _, _) in FORMATS.items():
        lines.append(f'wd:{pid} wikibase:propertyType wikibase:ExternalId ; rdfs:label "{label}"@en ; '
                     f'wikibase:directClaim wdt:{pid} ; wikibase:claim p:{pid} ; wikibase:statementProperty ps:{pid} ; '
                     f'wdt:P1921 "{base}/{name}/$1{FORMATS[name][3]}" ; wdt:P1630 "{base}/{name}/$1" ; '
                     f'wdt:P1629 wd:{database} .')
        lines.append(f'wd:{database} rdfs:label "{label[:-3]} authority file"@en .')
    lines.append(f"wd:P569 wdt:P1628 <http://schema.org/birthDate>, <{GNDO}dateOfBirth> .")
    lines.append(f"wd:P19 wdt:P1628 <http://schema.org/birthPlace>, <{GNDO}placeOfBirth> .")
    places = {}
    for index, place in enumerate(PLACES):
        qid = f"Q98{index:04d}"
        places[place] = qid
        lines.append(f'wd:{qid} rdfs:label "{place}"@en .')
        for name, (pid, *_rest) in FORMATS.items():
            lines.append(f'wd:{qid} p:{pid} wd:{qid}-{pid} . wd:{qid}-{pid} ps:{pid} "{name[0]}{index}" ; '
                         f'wikibase:rank wikibase:NormalRank . wd:{qid} wdt:{pid} "{name[0]}{index}" .')
    work = []
    names = list(FORMATS)
    for number in range(people):
        qid, kind = f"Q97{number:05d}", names[number % 3]
        pid = FORMATS[kind][0]
        label = f"{rng.choice(NAMES)} {rng.choice(SURNAMES)}"
        identifier = f"{kind[0]}{number:06d}"
        lines.append(f'wd:{qid} rdfs:label "{label}"@en ; p:{pid} wd:{qid}-id . wd:{qid}-id ps:{pid} "{identifier}" ; '
                     f'wikibase:rank wikibase:NormalRank .')
        year, month, day = rng.randint(1900, 1999), rng.randint(1, 12), rng.randint(1, 28)
        place = rng.choice(PLACES)
        draw = rng.random()
        if draw < 0.70:
            written, answer = f"{year}-{month:02d}-{day:02d}", "corroborated"
        elif draw < 0.85:
            written, answer = f"{year - rng.randint(1, 3)}-{month:02d}-{day:02d}", "contradicted"
        else:
            written, answer = f"{year}", "silent"
        other_place = rng.random() < 0.15
        stated_place = rng.choice([p for p in PLACES if p != place]) if other_place else place
        fate = rng.random()
        missing, broken = fate < 0.05, 0.05 <= fate < 0.10
        path = f"/{kind}/{identifier}{FORMATS[kind][3]}"
        if not missing:
            body = _record(kind, base, identifier, label, written, stated_place, places[stated_place], rng)
            if broken:
                body = body[: len(body) // 2]
            records.pages[path] = (200, FORMATS[kind][4], body.encode("utf-8"))
        unreadable = missing or broken
        born = Value("time", f"+{year}-{month:02d}-{day:02d}T00:00:00Z/11", f"{day} {month} {year}")
        work.append((Statement(qid, label, f"{qid}$B", "P569", "date of birth", born), kind,
                     "silent" if unreadable else answer))
        work.append((Statement(qid, label, f"{qid}$P", "P19", "place of birth",
                               Value("wikibase-item", places[place], place)), kind,
                     "silent" if unreadable or other_place else "corroborated"))
        work.append((Statement(qid, label, f"{qid}$A", "P166", "award received",
                               Value("wikibase-item", "Q96", "Order of the White Lion")), kind, "silent"))
    records.pages["/contexts/viaf.jsonld"] = (200, "application/ld+json", json.dumps(
        {"@context": {"@vocab": "http://schema.org/", "sameAs": {"@type": "@id"}}}).encode())
    return "\n".join(lines) + "\n", work


def _record(kind: str, base: str, identifier: str, label: str, born: str, place: str, place_qid: str,
            rng: random.Random) -> str:
    place_index = PLACES.index(place)
    filler = rng.randint(3, 12)
    if kind == "turtle":
        extra = "".join(f' ;\n  gndo:variantNameForThePerson "{label} {n}"' for n in range(filler))
        return (f"@prefix gndo: <{GNDO}> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                f'<{base}/turtle/{identifier}> a gndo:DifferentiatedPerson ;\n'
                f'  gndo:preferredNameForThePerson "{label}" ;\n'
                f'  gndo:dateOfBirth "{born}"^^xsd:{"date" if len(born) > 4 else "gYear"} ;\n'
                f'  gndo:placeOfBirth <{base}/turtle/t{place_index}>{extra} .\n'
                f'<{base}/turtle/t{place_index}> gndo:preferredNameForThePlaceOrGeographicName "{place}" .\n')
    if kind == "rdfxml":
        extra = "".join(f"<rdagroup2elements:fieldOfActivity>field {n}</rdagroup2elements:fieldOfActivity>"
                        for n in range(filler))
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-'
                f'syntax-ns#" xmlns:foaf="http://xmlns.com/foaf/0.1/" xmlns:rdagroup2elements="{RDA}">\n'
                f'<foaf:Person rdf:about="{base}/rdfxml/{identifier}#about"><foaf:name>{label}</foaf:name>'
                f'<rdagroup2elements:dateOfBirth>{born}</rdagroup2elements:dateOfBirth>'
                f'<rdagroup2elements:placeOfBirth rdf:resource="{base}/rdfxml/r{place_index}"/>{extra}'
                f'</foaf:Person>\n<rdf:Description rdf:about="{base}/rdfxml/r{place_index}"><foaf:name>{place}'
                f'</foaf:name></rdf:Description>\n</rdf:RDF>\n')
    return json.dumps({"@context": f"{base}/contexts/viaf.jsonld", "@id": f"{base}/jsonld/{identifier}",
                       "@type": "Person", "name": label, "birthDate": born, "birthPlace": place,
                       "alternateName": [f"{label} {n}" for n in range(filler)]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="statements checked at once (refbot's default 2)")
    parser.add_argument("--no-embeddings", action="store_true", help="rank candidates by RapidFuzz, not MiniLM")
    args = parser.parse_args()

    records = Records()
    server = ThreadingHTTPServer(("127.0.0.1", 0), records.handler())
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    turtle, work = generate(args.people, args.seed, base, records)
    with tempfile.TemporaryDirectory(prefix="refbot-kg-bench-") as scratch:
        store_file = Path(scratch) / "world.ttl"
        store_file.write_text(turtle, encoding="utf-8")
        oxigraph = start_oxigraph(store_file, Path(scratch) / "store", free_port(), truthy=False)
        try:
            return _measure(args, records, oxigraph.url, work)
        finally:
            oxigraph.stop()
            server.shutdown()


def _measure(args: argparse.Namespace, records: Records, sparql: str, work: list) -> int:
    embed = None
    if not args.no_embeddings:
        from bot.wiring import Wiring

        embed = Wiring(Options.flat(threads=0)).embedder
    fetcher = Fetcher(__import__("requests").Session(), FetchRules(user_agent="refbot-benchmark", retries=0))
    corroborator = Corroborator(SparqlEndpoint(sparql, "refbot-benchmark"), fetcher, embed=embed)
    started = time.monotonic()
    corroborator.properties()
    by_format: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: dict[str, float] = defaultdict(float)
    triples: dict[str, int] = defaultdict(int)
    seen_records: dict[str, set[str]] = defaultdict(set)

    def task(entry: tuple[Statement, str, str]):
        statement, kind, answer = entry
        clock = time.monotonic()
        found = corroborator.corroborate(statement)
        return statement, kind, answer, found, time.monotonic() - clock

    jobs = ((entry, lambda entry=entry: task(entry)) for entry in work)
    for _, (statement, kind, answer, found, spent) in in_flight(jobs, args.workers, name="statement"):
        tally = by_format[kind]
        tally[found.finding.value] += 1
        tally["right"] += found.finding.value == answer
        tally[f"answer {answer}"] += 1
        tally[f"{answer} as {found.finding.value}"] += 1
        seconds[kind] += spent
        for check in found.records:
            if check.record.url not in seen_records[kind]:
                seen_records[kind].add(check.record.url)
                triples[kind] += check.record.triples
    wall = time.monotonic() - started
    print(f"{len(work)} statements of {args.people} people, {args.workers} at once, embeddings "
          f"{'off' if embed is None else 'all-MiniLM-L6-v2'}; {wall:.1f} s in all\n")
    header = ("format", "records", "triples", "statements", "corroborated", "contradicted", "silent", "as drawn",
              "s/statement")
    print("{:<9} {:>8} {:>8} {:>10} {:>12} {:>12} {:>7} {:>9} {:>11}".format(*header))
    totals: Counter[str] = Counter()
    for kind in FORMATS:
        tally = by_format[kind]
        count = tally["corroborated"] + tally["contradicted"] + tally["silent"]
        fetched = sum(1 for path, n in records.asked.items() if path.startswith(f"/{kind}/"))
        print("{:<9} {:>8} {:>8} {:>10} {:>12} {:>12} {:>7} {:>9} {:>11.3f}".format(
            {"turtle": "Turtle", "rdfxml": "RDF/XML", "jsonld": "JSON-LD"}[kind], fetched, triples[kind], count,
            tally["corroborated"], tally["contradicted"], tally["silent"], f"{tally['right']}/{count}",
            seconds[kind] / max(1, count)))
        totals.update(tally)
        totals["records"] += fetched
        totals["triples"] += triples[kind]
    count = totals["corroborated"] + totals["contradicted"] + totals["silent"]
    print("{:<9} {:>8} {:>8} {:>10} {:>12} {:>12} {:>7} {:>9} {:>11.3f}".format(
        "all", totals["records"], totals["triples"], count, totals["corroborated"], totals["contradicted"],
        totals["silent"], f"{totals['right']}/{count}", sum(seconds.values()) / max(1, count)))
    for verdict in ("corroborated", "contradicted"):
        claimed = totals[verdict]
        right = totals[f"{verdict} as {verdict}"]
        drawn = totals[f"answer {verdict}"]
        print(f"{verdict}: precision {right}/{claimed}, recall {right}/{drawn}")
    asked_twice = sum(1 for path, n in records.asked.items() if n > 1 and path != "/robots.txt")
    print(f"records asked for more than once: {asked_twice} (each record is read once for all its statements)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
