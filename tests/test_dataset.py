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
