#!/usr/bin/env python3
"""What a hostile authority record costs a check: seconds and peak memory, beside a plain record's.

    benchmarks/bounded_parse.py [--case NAME ...] [--no-embeddings]

Each case runs in a process of its own (so that peak memory is its own): a Wikidata-shaped store on loopback
(Oxigraph) holds two people, each with a GND identifier whose record is served on loopback, and seven unsourced
statements (dates of birth and death, places of birth and death, sex, occupation, award). The process loads the
embedding model as the product does, checks the plain person's statements (``Corroborator.corroborate``, a normal
record: the baseline), then the hostile person's, and prints for the hostile record: its size, what refbot made of
it, the seconds its seven statements took, how much higher the process's peak resident set went than after the
plain check, and the parser child's peak resident set (the record is parsed in a child process with a wall-clock
and address-space budget: ``bot.corroboration.parsing``). The records are ``benchmarks/hostile_records.py``'s.
The bar (issue 30): under 10 s, and under 500 MB more than a plain check.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import hostile_records  # noqa: E402

GNDO = "https://d-nb.info/standards/elementset/gnd#"
PLAIN = "1099020101"
HOSTILE = "1099020999"
CASES: dict[str, Callable[[str, str], tuple[bytes, str]]] = {
    "quadratic literal (2 MB RDF/XML)": lambda subject, base: hostile_records.quadratic_literal(subject, 2.0),
    "quadratic literal (19 MB RDF/XML)": lambda subject, base: hostile_records.quadratic_literal(subject, 19.0),
    "billion laughs (RDF/XML)": lambda subject, base: hostile_records.billion_laughs(subject),
    "19,000 facts (18 MB Turtle)": lambda subject, base: hostile_records.wide_turtle(subject),
    "6,000 facts (0.9 MB Turtle)": lambda subject, base: hostile_records.wide_turtle(subject, 6_000, literal=90),
    "250,014 triples (19.5 MB Turtle)": lambda subject, base: hostile_records.dump_turtle(subject),
    "contexts past the guard (JSON-LD)": lambda subject, base: hostile_records.hostile_contexts(
        subject, "http://127.0.0.1:9/context.jsonld", "file:///etc/passwd"),
}
STATEMENTS = (("P569", "date of birth", "time", "+1968-02-11T00:00:00Z/11", "11 February 1968"),
              ("P570", "date of death", "time", "+2020-05-01T00:00:00Z/11", "1 May 2020"),
              ("P19", "place of birth", "wikibase-item", "Q990223", "Brno"),
              ("P20", "place of death", "wikibase-item", "Q990223", "Brno"),
              ("P21", "sex or gender", "wikibase-item", "Q6581072", "female"),
              ("P106", "occupation", "wikibase-item", "Q593644", "chemist"),
              ("P166", "award received", "wikibase-item", "Q990211", "Purkyně Prize"))

STORE = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
wd:P227 wikibase:propertyType wikibase:ExternalId ; rdfs:label "GND ID"@en ; wikibase:directClaim wdt:P227 ;
  wikibase:claim p:P227 ; wikibase:statementProperty ps:P227 ; wdt:P1921 "{base}/gnd/$1/about/lds.ttl" ;
  wdt:P1630 "{base}/gnd/$1" ; wdt:P1629 wd:Q36578 .
wd:Q36578 rdfs:label "Integrated Authority File"@en .
wd:P569 wdt:P1628 <{gndo}dateOfBirth> . wd:P570 wdt:P1628 <{gndo}dateOfDeath> .
wd:P19 wdt:P1628 <{gndo}placeOfBirth> . wd:P20 wdt:P1628 <{gndo}placeOfDeath> .
wd:Q990223 rdfs:label "Brno"@en .
wd:Q990201 rdfs:label "Marta Novotná"@en ; p:P227 wd:Q990201-gnd . wd:Q990201-gnd ps:P227 "{plain}" ;
  wikibase:rank wikibase:NormalRank .
wd:Q990202 rdfs:label "Jana Dvořáková"@en ; p:P227 wd:Q990202-gnd . wd:Q990202-gnd ps:P227 "{hostile}" ;
  wikibase:rank wikibase:NormalRank .
"""


def plain_record(subject: str) -> tuple[bytes, str]:
    facts = "".join(f' ;\n  gndo:variantNameForThePerson "Marta Novotna {n}"' for n in range(12))
    return (f'@prefix gndo: <{GNDO}> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n'
            f'<{subject}> a gndo:DifferentiatedPerson ;\n  gndo:preferredNameForThePerson "Novotná, Marta" ;\n'
            f'  gndo:dateOfBirth "1968-02-11"^^xsd:date ;\n  gndo:professionOrOccupation "Chemikerin"{facts} .\n'
            ).encode(), "text/turtle"


class Peaks:
    """The largest resident set of this process's Python descendants (the fork server and the parser's children;
    not Oxigraph), sampled every 20 ms."""

    def __init__(self) -> None:
        self.child_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        me, python = os.getpid(), os.readlink("/proc/self/exe")
        while not self._stop.wait(0.02):
            parents: dict[int, int] = {}
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/stat") as stat:
                            parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
                    except (OSError, ValueError, IndexError):
                        continue
            for pid in parents:
                ancestor, depth = parents.get(pid), 0
                while ancestor and ancestor != me and depth < 5:
                    ancestor, depth = parents.get(ancestor), depth + 1
                if ancestor == me and _exe(pid) == python:
                    self.child_kb = max(self.child_kb, _status(pid, "VmRSS"))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _status(pid: int | str, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_case(name: str, embeddings: bool) -> int:
    from bot.corroboration import Corroborator
    from bot.datamodel import Statement, Value
    from bot.demo.sparql import start_oxigraph
    from bot.demo.world import free_port
    from bot.documents.fetching import Fetcher, FetchRules
    from bot.options import Options
    from bot.selection.endpoint import SparqlEndpoint

    pages: dict[str, tuple[bytes, str]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body, kind = pages.get(self.path, (b"User-agent: *\nAllow: /\n", "text/plain")) \
                if self.path == "/robots.txt" or self.path in pages else (b"not found", "text/plain")
            self.send_response(200 if self.path in pages or self.path == "/robots.txt" else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refbot stopped reading (a body over the cap)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages[f"/gnd/{PLAIN}/about/lds.ttl"] = plain_record(f"{base}/gnd/{PLAIN}")
    pages[f"/gnd/{HOSTILE}/about/lds.ttl"] = CASES[name](f"{base}/gnd/{HOSTILE}", base)
    size = len(pages[f"/gnd/{HOSTILE}/about/lds.ttl"][0])
    with tempfile.TemporaryDirectory(prefix="refbot-bounded-") as scratch:
        store = Path(scratch) / "store.ttl"
        store.write_text(STORE.format(base=base, gndo=GNDO, plain=PLAIN, hostile=HOSTILE), encoding="utf-8")
        oxigraph = start_oxigraph(store, Path(scratch) / "db", free_port(), truthy=False)
        try:
            embed = None
            if embeddings:
                from bot.wiring import Wiring

                embed = Wiring(Options.flat(threads=0)).embedder
            fetcher = Fetcher(__import__("requests").Session(), FetchRules(user_agent="refbot-benchmark", retries=0))
            corroborator = Corroborator(SparqlEndpoint(oxigraph.url, "refbot-benchmark"), fetcher, embed=embed)

            def statements(item: str, label: str) -> list[Statement]:
                return [Statement(item, label, f"{item}${pid}", pid, plabel, Value(kind, raw, text))
                        for pid, plabel, kind, raw, text in STATEMENTS]

            for statement in statements("Q990201", "Marta Novotná"):
                corroborator.corroborate(statement)
            plain_peak = _status("self", "VmHWM")
            peaks = Peaks()
            started = time.monotonic()
            findings = [corroborator.corroborate(s) for s in statements("Q990202", "Jana Dvořáková")]
            seconds = time.monotonic() - started
            peaks.stop()
            extra = max(0, _status("self", "VmHWM") - plain_peak)
        finally:
            oxigraph.stop()
            server.shutdown()
    record = findings[0].records[0].record
    outcome = f"refused: {record.error}" if not record.ok else f"read: {record.triples:,} triples"
    print(f"{name:<36} {size / 1e6:>6.1f} MB {seconds:>7.2f} s {extra / 1024:>8.0f} MB {peaks.child_kb / 1024:>8.0f} MB"
          f"   {outcome[:90]}", flush=True)
    return 0 if seconds < 10 and (extra + peaks.child_kb) / 1024 < 500 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", action="append", choices=list(CASES), help="one case (repeatable); all by default")
    parser.add_argument("--no-embeddings", action="store_true", help="no MiniLM (the cascade ranks by RapidFuzz)")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # one case, in this process
    args = parser.parse_args()
    if args.run:
        return run_case(args.run, not args.no_embeddings)
    print(f"{'record':<36} {'size':>9} {'7 statements':>9} {'+peak RSS':>11} {'parser peak':>11}   outcome")
    failed = 0
    for name in args.case or list(CASES):
        command = [sys.executable, __file__, "--run", name] + (["--no-embeddings"] if args.no_embeddings else [])
        failed += subprocess.run(command, cwd=ROOT).returncode != 0
    print(f"bounded-parse: {'passed' if not failed else f'{failed} case(s) over 10 s or 500 MB'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
