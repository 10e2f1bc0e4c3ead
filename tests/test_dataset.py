import json

import pytest

from bot.errors import InputError
from bot.evaluation.dataset import read_dataset, read_descriptions, stratified_sample
from conftest import DATA


def write(tmp_path, lines):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


ROW = {"id": "1", "subject": "s", "predicate": "p", "object": "o", "text": "t", "label": True}


def test_reads_the_fixture_with_groups_and_published_verdicts():
    rows = read_dataset(DATA / "mini.jsonl")
    assert len(rows) == 6
    assert rows[0].concept_pair == "Person-Award"
    assert rows[0].relation == "award received"
    assert rows[0].paper_verdict is True
    assert rows[4].paper_verdict is None


def test_a_malformed_line_is_named_by_its_number(tmp_path):
    path = write(tmp_path, [json.dumps(ROW), "", '{"id": "2", "subject": ', json.dumps(ROW | {"id": "3"})])
    with pytest.raises(InputError, match=r"set.jsonl:3: not valid JSON"):
        read_dataset(path)


@pytest.mark.parametrize("row, message", [
    ({k: v for k, v in ROW.items() if k != "text"}, "missing field"),
    (ROW | {"label": "yes"}, "label must be true or false"),
    (ROW | {"object": ""}, "object must be a non-empty string"),
    ([1, 2], "JSON object"),
])
def test_invalid_rows_say_what_is_wrong(tmp_path, row, message):
    with pytest.raises(InputError, match=message) as raised:
        read_dataset(write(tmp_path, [json.dumps(row)]))
    assert ":1:" in str(raised.value)


def test_duplicate_ids_are_refused(tmp_path):
    with pytest.raises(InputError, match=r":2: id '1' already appeared on line 1"):
        read_dataset(write(tmp_path, [json.dumps(ROW), json.dumps(ROW)]))


def test_descriptions_come_from_the_row_or_the_description_file(tmp_path):
    descriptions = tmp_path / "d.json"
    descriptions.write_text(json.dumps({"p": "what p means"}))
    lines = [json.dumps(ROW), json.dumps(ROW | {"id": "2", "predicate_description": "own"})]
    rows = read_dataset(write(tmp_path, lines), read_descriptions(descriptions))
    assert [row.claim.predicate_description for row in rows] == ["what p means", "own"]


def test_stratified_sample_is_fixed_and_keeps_the_strata():
    rows = read_dataset(DATA / "mini.jsonl") * 1
    big = [row.__class__(**{**row.__dict__, "id": f"{row.id}/{i}"}) for i in range(20) for row in rows]
    sample = stratified_sample(big, 30)
    assert len(sample) == 30
    assert sample == stratified_sample(big, 30)
    assert sum(row.label for row in sample) == 15
    assert [big.index(row) for row in sample] == sorted(big.index(row) for row in sample)


def test_contrasting_relations_are_attached_to_each_claim(tmp_path):
    descriptions = tmp_path / "d.json"
    descriptions.write_text(json.dumps({"p": {"description": "p means", "contrasts": ["q"]}, "q": "q means"}))
    rows = read_dataset(write(tmp_path, [json.dumps(ROW)]), read_descriptions(descriptions))
    assert [(r.label, r.description) for r in rows[0].claim.alternatives] == [("q", "q means")]


def test_contrasts_must_be_described(tmp_path):
    descriptions = tmp_path / "d.json"
    descriptions.write_text(json.dumps({"p": {"description": "p means", "contrasts": ["r"]}}))
    with pytest.raises(InputError, match="without a description: r"):
        read_descriptions(descriptions)


def test_rows_are_judged_against_the_contrasts_of_their_property_as_check_would(tmp_path):
    from bot.properties import PropertyProfiles

    rows = [ROW | {"id": "1", "predicate": "instance of", "property_id": "P31"},
            ROW | {"id": "2", "predicate": "subclass of", "property_id": "P279", "label": False},
            ROW | {"id": "3", "predicate": "award received"},  # no id: found by its label
            ROW | {"id": "4", "predicate": "wingspan"},
            ROW | {"id": "5", "predicate": "p", "property_id": "P31"}]
    descriptions = tmp_path / "d.json"
    descriptions.write_text(json.dumps({"p": {"description": "p means", "phrase": "ps", "contrasts": []}}))
    read = read_dataset(write(tmp_path, [json.dumps(row) for row in rows]), read_descriptions(descriptions),
                        PropertyProfiles(cache=None))
    claims = [row.claim for row in read]
    assert (claims[0].predicate, claims[0].predicate_phrase) == ("instance of", "is a")
    assert [(r.label, r.phrase) for r in claims[0].alternatives] == [("subclass of", "is a type of")]
    assert [r.label for r in claims[1].alternatives] == ["instance of"]
    assert read[1].relation == "P279"
    assert claims[2].predicate_phrase == "received" and claims[2].alternatives[0].label == "nominated for"
    assert (claims[3].predicate_phrase, claims[3].alternatives) == ("'s wingspan is", ())
    assert (claims[4].predicate_phrase, claims[4].alternatives) == ("ps", ())  # the file overrides the profile
    with pytest.raises(InputError, match="property_id must be a Wikidata property id"):
        read_dataset(write(tmp_path, [json.dumps(ROW | {"property_id": "Q5"})]), None, PropertyProfiles())


def test_a_rows_datatype_makes_its_value_found_as_texts_write_it(tmp_path):
    from bot.values import value_finder

    born = ROW | {"id": "b", "predicate": "date of birth", "property_id": "P569", "object": "1943-01-14",
                  "datatype": "time", "text": "Born January 14, 1943."}
    rows = read_dataset(write(tmp_path, [json.dumps(born), json.dumps(ROW)]))
    assert rows[0].datatype == "time" and rows[0].claim.value.datatype == "time"
    assert value_finder(rows[0].claim.value)(rows[0].text).form == "January 14, 1943"
    assert rows[1].datatype is None and rows[1].claim.value is None  # looked for as a name, as before
    with pytest.raises(InputError, match="datatype must be"):
        read_dataset(write(tmp_path, [json.dumps(born | {"datatype": 7})]))


def test_labels_in_the_texts_language_state_the_claim_when_asked_for(tmp_path):
    row = ROW | {"subject": "Munich", "object": "Germany", "subject_local": "München", "object_local": "Deutschland",
                 "text": "München liegt in Deutschland.", "language": "de"}
    path = write(tmp_path, [json.dumps(row), json.dumps(ROW | {"id": "2"})])
    given, local = read_dataset(path), read_dataset(path, labels="local")
    assert (given[0].claim.subject, given[0].claim.object) == ("Munich", "Germany")
    assert (local[0].claim.subject, local[0].claim.object) == ("München", "Deutschland")
    assert (local[1].claim.subject, local[1].claim.object) == ("s", "o")  # a row without local labels keeps its own
    assert [row.language for row in local] == ["de", None]


def test_a_blank_local_label_is_refused(tmp_path):
    with pytest.raises(InputError, match=r":1: object_local must be a non-empty string"):
        read_dataset(write(tmp_path, [json.dumps(ROW | {"object_local": " "})]))
