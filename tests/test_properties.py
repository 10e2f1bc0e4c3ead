"""Property profiles: phrases and contrasting properties from the catalogue, the cache and a Wikidata-shaped
Oxigraph store."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from bot.datamodel import Rank, Statement, Value
from bot.options import Options
from bot.properties import PropertyProfiles
from bot.properties.cache import ProfileCache
from bot.properties.catalogue import catalogue, curated_profile, find_by_label, parse_catalogue
from bot.properties.profile import (CATALOGUE, INVERSE, OPPOSITE, RELATED, SAME_VALUE, SHARED_TYPES, TEMPLATE,
                                    Link, Named, build_profile, statement_claim, template_phrase)
from bot.wiring import Wiring

DATA = Path(__file__).parent / "data"
TODAY = date(2026, 11, 23)


# -- phrases ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("label, phrase", [
    ("located in the administrative territorial entity", "is located in the administrative territorial entity"),
    ("educated at", "is educated at"),
    ("part of", "is part of"),
    ("award received", "received"),
    ("position held", "held"),
    ("has part(s)", "has part"),
    ("shares border with", "shares border with"),
    ("employer", "'s employer is"),
    ("date of birth", "'s date of birth is"),
    ("work location", "'s work location is"),
    ("Positive_Correlation", "has a positive correlation with"),
    ("association", "has an association with"),
])
def test_a_phrase_is_made_from_the_label_when_none_is_curated(label, phrase):
    assert template_phrase(label) == phrase


# -- the catalogue ---------------------------------------------------------------------------------------------
def test_the_shipped_catalogue_is_valid_and_covers_the_common_properties():
    entries = catalogue()
    assert len(entries) >= 90
    for pid in ("P19", "P20", "P27", "P31", "P69", "P106", "P108", "P166", "P279", "P361", "P463", "P527",
                "P569", "P570", "P1411"):
        assert entries[pid].phrase, pid
    assert entries["P166"].contrasts[0] == "P1411"
    assert "P279" in entries["P31"].contrasts and "P31" in entries["P279"].contrasts
    assert "P361" in entries["P527"].contrasts and "P527" in entries["P361"].contrasts
    assert entries["P108"].other_phrases == ("taught at",)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["properties"].__setitem__("Q5", d["properties"].pop("P31")), "not a property id"),
    (lambda d: d["properties"]["P31"].pop("phrase"), "must have the fields"),
    (lambda d: d["properties"]["P31"].__setitem__("phrasing", []), "must have the fields"),
    (lambda d: d["properties"]["P31"].__setitem__("other_phrases", "is an"), "must be a list"),
    (lambda d: d["properties"]["P31"].__setitem__("other_phrases", ["is an "]), "plain words"),
    (lambda d: d["properties"]["P31"].__setitem__("other_phrases", ["is a"]), "differ from the phrase"),
    (lambda d: d["properties"]["P31"].__setitem__("phrase", " is a"), "plain words"),
    (lambda d: d["properties"]["P31"].__setitem__("contrasts", ["P31"]), "other property ids"),
    (lambda d: d["properties"]["P31"].__setitem__("contrasts", ["P279", "P279"]), "each once"),
    (lambda d: d["properties"]["P31"].__setitem__("contrasts", ["P99999"]), "not in the catalogue"),
    (lambda d: d["properties"]["P31"].__setitem__("label", 31), "must be a str"),
    (lambda d: d["properties"]["P31"].__setitem__("compatible", ["P279"]), "none of them a contrast"),
    (lambda d: d["properties"]["P31"].__setitem__("compatible", "P279"), "must be a list"),
])
def test_a_malformed_catalogue_entry_is_named(change, message):
    data = {"properties": {
        "P31": {"label": "instance of", "description": "", "phrase": "is a", "contrasts": ["P279"]},
        "P279": {"label": "subclass of", "description": "", "phrase": "is a type of", "contrasts": ["P31"]}}}
    assert len(parse_catalogue(json.loads(json.dumps(data)))) == 2
    change(data)
    with pytest.raises(ValueError, match=message):
        parse_catalogue(data)


def test_a_curated_profile_has_phrases_for_the_property_and_its_contrasts():
    profile = curated_profile("P166")
    assert (profile.phrase, profile.phrase_source, profile.source) == ("received", CATALOGUE, CATALOGUE)
    nominated = profile.contrasts[0]
    assert (nominated.property_id, nominated.label, nominated.phrase) == (
        "P1411", "nominated for", "was nominated for")
    assert nominated.sources == (CATALOGUE,)
    # Other phrasings travel with the property and its contrasts into the judge's claim.
    educated = curated_profile("P69")
    employer = next(c for c in educated.contrasts if c.property_id == "P108")
    claim = educated.claim("Tomáš Beneš", "Czech Technical University in Prague")
    assert claim.relation.other_phrases == ("graduated from",)
    assert employer.relation in claim.alternatives and employer.relation.other_phrases == ("taught at",)
    assert curated_profile("P9901") is None
    assert find_by_label("Award_Received") == "P166" and find_by_label("no such thing") is None


# -- building a profile (pure) ---------------------------------------------------------------------------------
def test_contrasts_are_ranked_by_their_strongest_source_then_weight():
    names = {pid: Named(pid.lower()) for pid in ("P1", "P2", "P3", "P4", "P5", "P6", "P7")}
    links = [Link("P3", SHARED_TYPES, 5), Link("P4", SAME_VALUE, 2), Link("P5", SAME_VALUE, 9),
             Link("P6", INVERSE), Link("P2", RELATED), Link("P4", RELATED), Link("P1", OPPOSITE),
             Link("P9", INVERSE)]  # P9 has no label: its phrase cannot be written, so it is left out
    profile = build_profile("P1", Named("p1", phrase="does one"), links, names, curated_contrasts=("P7",))
    assert [c.property_id for c in profile.contrasts] == ["P7", "P6", "P5", "P4"]  # at most four; P1 never
    assert profile.contrasts[3].sources == (SAME_VALUE, RELATED)
    assert profile.contrasts[0].phrase == "'s p7 is" and profile.contrasts[0].phrase_source == TEMPLATE
    assert profile.phrase == "does one" and profile.phrase_source == CATALOGUE


def test_a_compatible_property_is_never_a_contrast_whatever_wikidatas_data_says():
    # Items that hold "country" often hold "country of origin" with the same value, so Wikidata's data offers
    # it as a contrast; but a text saying a film is Indian supports "country: India" too.
    names = {"P17": Named("country"), "P495": Named("country of origin"), "P30": Named("continent")}
    links = [Link("P495", SAME_VALUE, 40), Link("P30", SAME_VALUE, 3)]
    profile = build_profile("P17", names["P17"], links, names, compatible=("P495",))
    assert [c.property_id for c in profile.contrasts] == ["P30"]
    country = curated_profile("P17")
    assert "P495" in catalogue()["P17"].compatible and not country.contrasts
    assert [c.property_id for c in curated_profile("P495").contrasts] == ["P17"]  # not the other way round


def test_a_statements_claim_carries_the_profiles_phrase_and_contrasts_with_wikidatas_labels():
    statement = Statement("Q1", "Jana Novotná", "Q1$1", "P166", "ocenění", Value("wikibase-item", "Q2", "Medal"),
                          Rank.NORMAL, "vyznamenání")
    claim = statement_claim(statement, curated_profile("P166"))
    assert (claim.subject, claim.predicate, claim.object) == ("Jana Novotná", "ocenění", "Medal")
    assert claim.predicate_description == "vyznamenání" and claim.predicate_phrase == "received"
    assert claim.as_sentence  # a curated phrase is asked as a sentence; one made from a label is not
    assert not PropertyProfiles().profile("P9999", "wingspan").claim("a", "b").as_sentence
    assert [(r.label, r.phrase) for r in claim.alternatives] == [("nominated for", "was nominated for")]
    assert statement_claim(statement, None).alternatives == ()


# -- the cache -------------------------------------------------------------------------------------------------
def test_the_cache_keeps_a_profile_with_its_retrieval_date_and_source(tmp_path):
    cache = ProfileCache(tmp_path / "profiles", max_age_days=30)
    profile = build_profile("P166", Named("award received", phrase="received", other_phrases=("won",)),
                            [Link("P1411", RELATED)],
                            {"P1411": Named("nominated for", other_phrases=("was shortlisted for",))},
                            source="http://wdqs.example/sparql", retrieved="2026-11-01")
    cache.put(profile)
    assert profile.contrasts[0].other_phrases == ("was shortlisted for",)
    assert cache.get("P166", TODAY) == profile
    assert cache.get("P166", TODAY, source="http://other.example/sparql") is None  # another endpoint's data
    assert cache.get("P166", date(2026, 12, 5)) is None  # read 34 days before: too old to trust online
    assert cache.get("P166", date(2026, 12, 5), any_age=True) == profile  # offline, old beats nothing
    (tmp_path / "profiles" / "P166.json").write_text("{not json", encoding="utf-8")
    assert cache.get("P166", TODAY) is None  # a damaged file is as good as none
    assert not list((tmp_path / "profiles").glob(".*.tmp"))


def test_offline_profiles_come_from_the_catalogue_then_the_cache_then_the_label(tmp_path):
    cache = ProfileCache(tmp_path)
    cache.put(build_profile("P9901", Named("upstream of"), [Link("P9902", OPPOSITE)], {"P9902": Named("downstream of")},
                            source="http://wdqs.example/sparql", retrieved="2025-01-01"))
    profiles = PropertyProfiles(cache=cache, today=lambda: TODAY)
    assert profiles.profile("P166").source == CATALOGUE
    cached = profiles.profile("P9901")
    assert cached.retrieved == "2025-01-01" and cached.contrasts[0].label == "downstream of"
    unknown = profiles.profile("P9999", "wingspan")
    assert (unknown.phrase, unknown.contrasts, unknown.source) == ("'s wingspan is", (), "label only")
    assert "no endpoint" in unknown.notes[0]


# -- from a Wikidata-shaped store ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def property_world(tmp_path_factory):
    from conftest import free_port
    from servers import start_oxigraph

    server = start_oxigraph(DATA / "property-world.ttl", tmp_path_factory.mktemp("oxigraph"), free_port())
    yield server.url
    server.stop()


class Counting:
    """The real endpoint client, counting the queries it sends."""

    def __init__(self, endpoint) -> None:
        self.endpoint, self.queries = endpoint, []

    def select(self, query):
        self.queries.append(query.name)
        return self.endpoint.select(query)


def _endpoint(url: str) -> Counting:
    return Counting(Wiring(Options.flat(sparql_endpoint=url, contact="tests@example.org")).endpoint)


def test_contrasts_are_derived_from_inverse_opposite_related_same_value_and_type_constraints(
        property_world, tmp_path):
    profiles = PropertyProfiles(endpoint=_endpoint(property_world), endpoint_name=property_world,
                                cache=ProfileCache(tmp_path), today=lambda: TODAY)
    award = profiles.profile("P166")
    assert award.label == "award received" and award.aliases == ("prize received",)
    assert award.phrase == "received" and award.phrase_source == CATALOGUE  # the catalogue's phrase is kept
    assert (award.source, award.retrieved) == (property_world, "2026-11-23")
    (nominated,) = award.contrasts
    assert nominated.property_id == "P1411"
    assert nominated.sources == (CATALOGUE, SAME_VALUE, RELATED)  # two items hold both with the same prize
    has_part = profiles.profile("P527")  # the inverse is stated on part of only
    assert [(c.property_id, c.sources) for c in has_part.contrasts] == [("P361", (CATALOGUE, INVERSE))]
    upstream = profiles.profile("P9901")  # not curated: Wikidata's data alone
    assert [(c.label, c.phrase, c.sources) for c in upstream.contrasts] == [
        ("downstream of", "is downstream of", (OPPOSITE,))]  # the related quantity property cannot hold an item
    assert upstream.phrase == "is upstream of" and upstream.phrase_source == TEMPLATE
    educated = profiles.profile("P69")
    shared = [c for c in educated.contrasts if SHARED_TYPES in c.sources]
    assert [c.property_id for c in shared] == ["P108"]  # "favourite colour" shares the subject type only


def test_profiles_are_cached_and_an_unreachable_endpoint_falls_back_to_catalogue_and_cache(
        property_world, tmp_path):
    cache = ProfileCache(tmp_path)
    first = _endpoint(property_world)
    PropertyProfiles(endpoint=first, endpoint_name=property_world, cache=cache, today=lambda: TODAY).profile("P9901")
    assert first.queries == ["property-links", "same-value-properties", "labels"]
    assert json.loads((tmp_path / "P9901.json").read_text())["retrieved"] == "2026-11-23"
    again = _endpoint(property_world)
    profile = PropertyProfiles(endpoint=again, endpoint_name=property_world, cache=cache,
                               today=lambda: TODAY).profile("P9901")
    assert again.queries == [] and profile.contrasts[0].label == "downstream of"

    dead = "http://127.0.0.1:9/sparql"
    options = Options.flat(sparql_endpoint=dead, contact="tests@example.org", sparql_retries=0)
    offline = PropertyProfiles(endpoint=Wiring(options).endpoint, endpoint_name=dead,
                               cache=ProfileCache(tmp_path / "x"), today=lambda: TODAY)
    award = offline.profile("P166")
    assert award.source == CATALOGUE and award.contrasts[0].property_id == "P1411"
    assert "could not be read" in award.notes[0] and dead in award.notes[0]
