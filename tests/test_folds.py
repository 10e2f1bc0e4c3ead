"""Cross-validation folds: no fact, subject or text on both sides of a split, and whole properties held out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.evaluation.dataset import read_dataset
from bot.evaluation.folds import assign, by_property, grouped_folds, groups


def rows_of(tmp_path: Path, rows: list[dict]):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return read_dataset(path)


def row(id_: str, subject: str, text: str, label: bool, **more) -> dict:
    return {"id": id_, "subject": subject, "predicate": "employer", "object": "Acme", "text": text,
            "label": label, **more}


def test_a_fact_told_in_several_languages_and_its_swapped_row_stay_in_one_fold(tmp_path):
    rows = rows_of(tmp_path, [
        row("de-1", "Ada Brenner", "Ada Brenner arbeitet bei Acme.", True, fact_id="f1", language="de"),
        row("fr-1", "Ada Brenner", "Ada Brenner travaille chez Acme.", True, fact_id="f1", language="fr"),
        row("de-1-swap", "Ada Brenner", "Ada Brenner arbeitet bei Acme.", False, fact_id="f1", language="de"),
        row("en-2", "Bo Lindqvist", "Bo Lindqvist works for Acme.", True),
        row("en-2-swap", "BO  LINDQVIST", "Bo Lindqvist works for Acme.", False),  # the name, written otherwise
        row("en-3", "Cy Okafor", "Cy Okafor founded Acme.", False, subject_qid="Q3"),
        row("en-4", "C. Okafor", "Acme hired C. Okafor in 1990.", True, subject_qid="Q3"),  # one subject, by id
        row("en-5", "Di Park", "Di Park works for Acme.", True),
    ])
    folds = grouped_folds(rows, 3)
    fold = {r.id: f for r, f in zip(rows, folds)}
    assert fold["de-1"] == fold["fr-1"] == fold["de-1-swap"]
    assert fold["en-2"] == fold["en-2-swap"]
    assert fold["en-3"] == fold["en-4"]
    assert sorted(set(folds)) == [0, 1, 2]


def test_a_row_sharing_keys_with_two_groups_joins_them():
    assert groups([["a"], ["b"], ["a", "b"], ["c"]]) == [0, 0, 0, 1]


def test_folds_are_balanced_by_size_then_by_positives_without_a_random_draw():
    group_of = [0, 0, 0, 1, 1, 2, 2, 3, 4, 5]
    labels = [True, False, True, True, False, True, False, True, False, False]
    folds = assign(group_of, labels, 3)
    assert folds == assign(group_of, labels, 3)
    sizes = [folds.count(f) for f in range(3)]
    assert max(sizes) - min(sizes) <= 1
    for group in set(group_of):
        assert len({f for f, g in zip(folds, group_of) if g == group}) == 1


def test_too_few_groups_for_the_folds_is_said():
    with pytest.raises(ValueError, match="2 group"):
        assign([0, 0, 1], [True, False, True], 3)
    with pytest.raises(ValueError, match="at least 2 folds"):
        assign([0, 1], [True, False], 1)


def test_holding_out_a_property_keeps_a_swapped_rows_text_with_its_original(tmp_path):
    rows = rows_of(tmp_path, [
        {**row("p1", "Ada Brenner", "Ada Brenner works for Acme.", True), "property_id": "P108"},
        {**row("p1-swap", "Ada Brenner", "Ada Brenner works for Acme.", False), "property_id": "P463",
         "predicate": "member of"},
        {**row("p2", "Eve Moss", "Eve Moss is a member of Acme.", True), "property_id": "P463",
         "predicate": "member of"},
    ])
    folds = by_property(rows)
    assert folds == [0, 0, 1]
