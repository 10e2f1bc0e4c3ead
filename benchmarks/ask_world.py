"""The `refbot select --ask` benchmark's world: a generated Wikidata-shaped graph in the demo world's layout, so that
``bot.demo.world.DemoWorld`` serves it (Oxigraph with the truthy triples derived, the Wikibase API stand-in with
``wbsearchentities`` over its labels).

Real Wikidata ids and labels for the schema (properties, classes, occupations, countries), invented people, towns,
universities and awards. Properties with the citation needed constraint: P166 award received, P69 educated at,
P569 date of birth, P570 date of death, P1082 population, P571 inception, P108 employer; without: P31, P279, P27,
P106, P17, P131, P19. About half the statements carry a reference (``prov:wasDerivedFrom``), a few are deprecated.
Everything is drawn from one ``random.Random(seed)``.
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any

from soak_world import coined

PREFIXES = """@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix pq: <http://www.wikidata.org/prop/qualifier/> .
@prefix pr: <http://www.wikidata.org/prop/reference/> .
@prefix s: <http://www.wikidata.org/entity/statement/> .
@prefix ref: <http://www.wikidata.org/reference/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

"""
# id: (label, datatype, description, aliases, citation needed)
PROPERTIES = {
    "P31": ("instance of", "WikibaseItem", "that class of which this subject is a particular example and member",
            ("is a", "type"), False),
    "P279": ("subclass of", "WikibaseItem", "this item is a subclass of that item", ("subtype of",), False),
    "P27": ("country of citizenship", "WikibaseItem", "the object is a country that recognizes the subject as its "
            "citizen", ("citizenship", "nationality"), False),
    "P106": ("occupation", "WikibaseItem", "occupation of a person", ("profession", "job"), False),
    "P17": ("country", "WikibaseItem", "sovereign state that this item is in", ("land",), False),
    "P131": ("located in the administrative territorial entity", "WikibaseItem",
             "the item is located on the territory of the following administrative entity", ("located in",), False),
    "P19": ("place of birth", "WikibaseItem", "most specific known birth location of a person",
            ("birthplace", "born in"), False),
    "P166": ("award received", "WikibaseItem", "award or recognition received by a person, organization or "
             "creative work", ("awards", "prize received", "honours"), True),
    "P69": ("educated at", "WikibaseItem", "educational institution attended by subject", ("alma mater",
            "studied at"), True),
    "P569": ("date of birth", "Time", "date on which the subject was born", ("birth date", "born on"), True),
    "P570": ("date of death", "Time", "date on which the subject died", ("death date", "died on"), True),
    "P1082": ("population", "Quantity", "number of people inhabiting the place", ("inhabitants",
              "population figure"), True),
    "P571": ("inception", "Time", "time when an entity begins to exist", ("founded", "date of foundation",
             "established"), True),
    "P108": ("employer", "WikibaseItem", "person or organization for which the subject works or worked",
             ("works for", "employed by"), True),
}
CLASSES = {"Q5": ("human", "common name of Homo sapiens", ("person", "people")),
           "Q486972": ("human settlement", "community of people", ("settlement",)),
           "Q3957": ("town", "settlement that is bigger than a village", ()),
           "Q515": ("city", "large human settlement", ()),
           "Q3918": ("university", "academic institution", ()),
           "Q618779": ("award", "something given in recognition of an excellence", ("prize",)),
           "Q6256": ("country", "distinct territorial body or political entity", ())}
SUBCLASSES = {"Q3957": "Q486972", "Q515": "Q486972"}
OCCUPATIONS = {"Q1028181": "painter", "Q593644": "chemist", "Q42973": "architect", "Q36180": "writer",
               "Q82955": "politician"}
COUNTRIES = {"Q213": ("Czechia", "Czech"), "Q214": ("Slovakia", "Slovak"), "Q40": ("Austria", "Austrian"),
             "Q36": ("Poland", "Polish"), "Q183": ("Germany", "German")}
SYLLABLES = ("ka", "ro", "li", "ven", "dor", "mi", "sa", "tel", "bru", "no", "vik", "ha", "zel", "pra", "ost",
             "mar", "len", "tis", "gor", "val", "bel", "kra", "dun", "sel")
FIRST = ("Anna", "Jan", "Eva", "Petr", "Marta", "Karel", "Ida", "Otto", "Vera", "Emil", "Lena", "Hugo", "Nora",
         "Felix", "Irma", "Leo", "Olga", "Adam", "Zora", "Max")


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng, self.lines, self.references = rng, [PREFIXES], 0

    def item(self, qid: str, label: str, description: str = "", aliases: tuple[str, ...] = ()) -> None:
        text = f'wd:{qid} a wikibase:Item ; rdfs:label "{label}"@en'
        if description:
            text += f' ;\n  schema:description "{description}"@en'
        for alias in aliases:
            text += f' ;\n  skos:altLabel "{alias}"@en'
        self.lines.append(text + " .\n")

    def statement(self, qid: str, pid: str, value: str, *, referenced: bool | None = None,
                  deprecated: bool = False) -> None:
        """One statement (p:/ps:, best rank typed as WDQS types it); ``referenced`` None: a coin decides."""
        node = f"s:{qid}-{str(uuid.UUID(int=self.rng.getrandbits(128), version=4)).upper()}"
        rank = "wikibase:DeprecatedRank" if deprecated else "wikibase:NormalRank"
        types = "wikibase:Statement" if deprecated else "wikibase:Statement, wikibase:BestRank"
        text = f"wd:{qid} p:{pid} {node} .\n{node} a {types} ; wikibase:rank {rank} ; ps:{pid} {value}"
        if referenced is None:
            referenced = self.rng.random() < 0.5
        if referenced:
            self.references += 1
            text += f" ;\n  prov:wasDerivedFrom ref:r{self.references}"
            self.lines.append(f'ref:r{self.references} pr:P854 "https://example.org/source/{self.references}" .\n')
        self.lines.append(text + " .\n")


def _date(year: int, rng: random.Random) -> str:
    return f'"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z"^^xsd:dateTime'


def generate(directory: Path, *, people: int = 800, seed: int = 1) -> dict[str, Any]:
    """Write the world into ``directory``; the ids of its named things by kind and the labels of the places,
    universities and awards (also ``ask-world.json``)."""
    rng = random.Random(seed)
    for name in ("sites", "archive", "wikipedia"):
        (directory / name).mkdir(parents=True, exist_ok=True)
    out = _Writer(rng)
    for pid, (label, datatype, description, aliases, needed) in PROPERTIES.items():
        text = (f'wd:{pid} a wikibase:Property ; rdfs:label "{label}"@en ; schema:description "{description}"@en ;\n'
                f"  wikibase:propertyType wikibase:{datatype} ; wikibase:claim p:{pid} ; "
                f"wikibase:statementProperty ps:{pid} ;\n  wikibase:directClaim wdt:{pid}")
        for alias in aliases:
            text += f' ;\n  skos:altLabel "{alias}"@en'
        out.lines.append(text + " .\n")
        if needed:
            out.lines.append(f"wd:{pid} p:P2302 s:{pid}-constraint .\ns:{pid}-constraint ps:P2302 wd:Q54554025 ; "
                             "wikibase:rank wikibase:NormalRank .\n")
    out.lines.append('wd:Q54554025 rdfs:label "citation needed constraint"@en .\n')
    for qid, (label, description, aliases) in CLASSES.items():
        out.item(qid, label, description, aliases)
        if qid in SUBCLASSES:
            out.statement(qid, "P279", f"wd:{SUBCLASSES[qid]}", referenced=True)
    for qid, label in OCCUPATIONS.items():
        out.item(qid, label, "occupation")
    used: set[str] = set()
    kinds: dict[str, list[str]] = {"towns": [], "cities": [], "universities": [], "awards": [], "people": []}
    labels: dict[str, str] = {}
    next_id = iter(range(8_800_001, 9_900_000))
    places: dict[str, list[str]] = {}
    for country, (name, adjective) in COUNTRIES.items():
        out.item(country, name, "country in Central Europe", (adjective,))
        out.statement(country, "P31", "wd:Q6256", referenced=True)
        for number in range(10):
            qid, kind = f"Q{next(next_id)}", ("cities" if number < 3 else "towns")
            labels[qid] = coined(rng, used, SYLLABLES)
            out.item(qid, labels[qid], f"{kind[:-1] if kind == 'towns' else 'city'} in {name}")
            out.statement(qid, "P31", "wd:Q515" if kind == "cities" else "wd:Q3957", referenced=True)
            out.statement(qid, "P17", f"wd:{country}", referenced=True)
            for year in rng.sample(range(1990, 2024), rng.choice((1, 1, 2, 3))):
                out.statement(qid, "P1082", f'"+{rng.randint(2_000, 900_000)}"^^xsd:decimal',
                              deprecated=rng.random() < 0.05)
            kinds[kind].append(qid)
            places.setdefault(country, []).append(qid)
    universities: dict[str, list[str]] = {}
    for country, (name, adjective) in COUNTRIES.items():
        for _ in range(3):
            qid, town = f"Q{next(next_id)}", rng.choice(places[country])
            labels[qid] = f"University of {coined(rng, used, SYLLABLES)}"
            out.item(qid, labels[qid], f"university in {name}")
            out.statement(qid, "P31", "wd:Q3918", referenced=True)
            out.statement(qid, "P17", f"wd:{country}", referenced=True)
            out.statement(qid, "P131", f"wd:{town}", referenced=True)
            out.statement(qid, "P571", _date(rng.randint(1348, 1990), rng))
            universities.setdefault(country, []).append(qid)
            kinds["universities"].append(qid)
    awards = []
    for country, (name, adjective) in COUNTRIES.items():
        for pattern in ("{} Prize", "{} Medal", "{} Award"):
            qid = f"Q{next(next_id)}"
            labels[qid] = pattern.format(coined(rng, used, SYLLABLES))
            out.item(qid, labels[qid], f"{adjective} award")
            out.statement(qid, "P31", "wd:Q618779", referenced=True)
            out.statement(qid, "P17", f"wd:{country}", referenced=True)
            out.statement(qid, "P571", _date(rng.randint(1850, 2010), rng))
            awards.append(qid)
            kinds["awards"].append(qid)
    every_university = [qid for kept in universities.values() for qid in kept]
    for _ in range(people):
        qid = f"Q{next(next_id)}"
        country = rng.choice(list(COUNTRIES))
        occupation = rng.choice(list(OCCUPATIONS))
        born = rng.randint(1800, 1995)
        out.item(qid, f"{rng.choice(FIRST)} {coined(rng, used, SYLLABLES)}",
                 f"{COUNTRIES[country][1]} {OCCUPATIONS[occupation]} (born {born})")
        out.statement(qid, "P31", "wd:Q5", referenced=True)
        out.statement(qid, "P27", f"wd:{country}", referenced=rng.random() < 0.7)
        out.statement(qid, "P106", f"wd:{occupation}", referenced=rng.random() < 0.7)
        out.statement(qid, "P19", f"wd:{rng.choice(places[country])}", referenced=rng.random() < 0.7)
        out.statement(qid, "P569", _date(born, rng), deprecated=rng.random() < 0.04)
        if born < 1940:
            out.statement(qid, "P570", _date(min(2024, born + rng.randint(30, 95)), rng))
        for university in rng.sample(universities[country] if rng.random() < 0.8 else every_university,
                                     rng.choice((0, 1, 1, 2))):
            out.statement(qid, "P69", f"wd:{university}")
        for award in rng.sample(awards, rng.choice((0, 0, 1, 1, 2, 3))):
            out.statement(qid, "P166", f"wd:{award}", deprecated=rng.random() < 0.04)
        if rng.random() < 0.5:
            out.statement(qid, "P108", f"wd:{rng.choice(every_university)}")
        kinds["people"].append(qid)
    for number in range(3):  # alumni the question on the fifth university's architects finds, whatever the draw
        qid = f"Q{next(next_id)}"
        out.item(qid, f"{rng.choice(FIRST)} {coined(rng, used, SYLLABLES)}", "architect")
        out.statement(qid, "P31", "wd:Q5", referenced=True)
        out.statement(qid, "P106", "wd:Q42973", referenced=True)
        out.statement(qid, "P69", f"wd:{every_university[4]}")
        out.statement(qid, "P108", f"wd:{rng.choice(every_university)}", referenced=number > 0)
        kinds["people"].append(qid)
    (directory / "world.ttl").write_text("".join(out.lines), encoding="utf-8")
    for name, content in (("entities.json", "{}"), ("search.json", "[]"), ("wayback.json", "[]"),
                          ("expected.json", "{}")):
        (directory / name).write_text(content, encoding="utf-8")
    manifest = {**kinds, "labels": labels}
    (directory / "ask-world.json").write_text(json.dumps(manifest), encoding="utf-8")
    return manifest
