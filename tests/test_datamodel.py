import pytest

from bot.datamodel import Claim, Judgement, Rank, Statement, Value, Verdict, parse_entity_id

AWARD = Value("wikibase-item", "Q38104", "Nobel Prize in Physics")


def test_a_statement_reads_as_the_claim_a_judge_verifies():
    statement = Statement("Q7186", "Marie Curie", "Q7186$1A2B", "P166", "award received", AWARD, Rank.PREFERRED,
                          "award or recognition received by a person")
    assert statement.claim == Claim("Marie Curie", "award received", "Nobel Prize in Physics",
                                    "award or recognition received by a person", value=AWARD)


def test_labels_fall_back_to_ids():
    assert Statement("Q7186", "", "Q7186$1", "P166", "", AWARD).claim.subject == "Q7186"


@pytest.mark.parametrize("item, prop", [("7186", "P166"), ("Q07186", "P166"), ("Q7186", "166"), ("Q1 ", "P1")])
def test_invalid_ids_are_refused(item, prop):
    with pytest.raises(ValueError, match="not an? (item|property) id"):
        Statement(item, "x", "g", prop, "p", AWARD)


def test_support_must_be_a_probability():
    with pytest.raises(ValueError, match="out of"):
        Judgement(Verdict.SUPPORTS, 1.5, "", "", "m", "refbot", 1, 1, 0.1)
    assert Judgement(Verdict.SUPPORTS, 0.9, "", "", "m", "refbot", 1, 1, 0.1).supported
    assert not Judgement(Verdict.INDICATES, 0.9, "", "", "m", "paper", 1, 1, 0.1).supported


@pytest.mark.parametrize("text, kind, expected", [
    ("Q42", "item", "Q42"), ("q42", "item", "Q42"), (" wd:Q42 ", "item", "Q42"),
    ("https://www.wikidata.org/wiki/Q42", "item", "Q42"), ("http://www.wikidata.org/entity/Q42", "item", "Q42"),
    ("https://m.wikidata.org/wiki/Q42", "item", "Q42"),
    ("P166", "property", "P166"), ("https://www.wikidata.org/wiki/Property:P166", "property", "P166"),
])
def test_entity_ids_are_read_in_the_forms_people_paste(text, kind, expected):
    assert parse_entity_id(text, kind) == expected


@pytest.mark.parametrize("text, kind", [("Q0", "item"), ("Q42x", "item"), ("P166", "item"), ("Q42", "property"),
                                        ("https://example.org/wiki/Q42", "item"), ("", "item")])
def test_anything_else_is_not_an_entity_id(text, kind):
    with pytest.raises(ValueError, match=f"not a Wikidata {kind} id"):
        parse_entity_id(text, kind)


def test_an_id_longer_than_any_wikidata_has_is_refused_before_it_is_sent_anywhere():
    assert parse_entity_id("Q130000000000", "item") == "Q130000000000"  # 12 digits: room to grow
    with pytest.raises(ValueError, match="at most 12 digits") as refused:
        parse_entity_id("Q" + "1" * 10_000, "item")
    assert len(str(refused.value)) < 200, "the message does not repeat the whole input"
    with pytest.raises(ValueError):
        Statement("Q" + "1" * 13, "x", "Q1$A", "P31", "instance of", Value("wikibase-item", "Q5", "human"))


def test_qualifiers_round_trip_through_the_json_lines_and_old_lines_still_load():
    from bot.datamodel import Qualifier

    when = Qualifier("P585", "point in time", Value("time", "+2021-00-00T00:00:00Z/9", "2021"))
    by = Qualifier("P1027", "conferred by", Value("wikibase-item", "Q990299", "Purkyně Foundation"))
    statement = Statement("Q990201", "Marta Novotná", "Q990201$1", "P166", "award received", AWARD,
                          qualifiers=(when, by))
    line = statement.to_json()
    assert line["qualifiers"] == [
        {"property": "P585", "property_label": "point in time", "datatype": "time",
         "value": "+2021-00-00T00:00:00Z/9", "value_text": "2021"},
        {"property": "P1027", "property_label": "conferred by", "datatype": "wikibase-item", "value": "Q990299",
         "value_text": "Purkyně Foundation"}]
    assert Statement.from_json(line) == statement
    assert statement.time_qualifiers == (when,) and statement.claim.when == (when,)
    old = Statement("Q7186", "Marie Curie", "Q7186$1", "P166", "award received", AWARD).to_json()
    assert "qualifiers" not in old  # a statement without qualifiers writes the line it always wrote
    assert Statement.from_json(old).qualifiers == ()
