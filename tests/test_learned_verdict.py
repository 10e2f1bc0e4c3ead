"""A verdict learned from labelled judgements: its features, its fit, and out-of-fold figures only."""

from __future__ import annotations

import json
import random

import pytest

from bot.evaluation.crossval import cross_validate, figures, table
from bot.evaluation.dataset import read_dataset
from bot.judge.features import NAMES, features, vector, written_group
from bot.judge.learned import LearnedVerdict, fit


def record(p_yes: float | None, share: float = 1.0, margin: float = 0.0, written: str = "label",
           verdict: str = "c") -> dict:
    compared = [] if share == 1.0 and margin == 0.0 else [
        {"label": "employer", "continuation": "", "score": -1.0, "share": share},
        {"label": "member of", "continuation": "", "score": -1.0 - margin, "share": 1 - share}]
    return {"p_yes": p_yes, "support": p_yes or 0.0, "compared": compared, "written": written, "verdict": verdict,
            "answer": "", "parts": 1, "excerpt": ""}


def test_a_judgement_the_model_was_not_asked_about_has_no_features():
    assert features(record(None), subject="Ada", text="Ada works for Acme.", datatype=None, language="en") is None


def test_an_older_record_gives_p_yes_in_its_answer():
    old = record(None) | {"answer": "P(yes) 0.875; share 0.9 of the summary's likelihood"}
    values = features(old, subject="Ada", text="Ada works for Acme.", datatype="wikibase-item", language=None)
    assert values is not None and values["p_yes"] == pytest.approx(1.9459, abs=1e-3)  # logit(0.875)
    assert values["kind: item"] == 1.0 and values["english"] == 1.0 and values["subject named"] == 1.0


def test_features_say_the_language_the_alphabet_and_how_the_value_is_written():
    values = features(record(0.9, share=0.8, margin=1.5, written="transcribed"), subject="Ада Бреннер",
                      text="Ада Бреннер работает в «Акме».", datatype="wikibase-item", language="ru")
    assert values is not None and list(values) == list(NAMES)
    assert values["english"] == 0.0 and values["latin letters"] == 0.0 and values["margin"] == 1.5
    assert values["written: other alphabet"] == 1.0 and values["contrasts"] == 1.0
    assert written_group("more general item Q515") == "linked" and written_group("inflected alias") == "declined"


def test_a_fitted_verdict_round_trips_and_ranks_as_it_learned():
    generator = random.Random(1)
    rows, labels = [], []
    for _ in range(200):
        label = generator.random() < 0.5
        p = generator.uniform(0.6, 1.0) if label else generator.uniform(0.0, 0.7)
        values = features(record(p, share=0.5 + 0.4 * label, margin=2.0 if label else -1.0), subject="Ada",
                          text="Ada works for Acme.", datatype=None, language="en")
        assert values is not None
        rows.append(vector(values))
        labels.append(label)
    learned = fit(rows, labels, model="qwen2.5-coder-1.5b", template="refbot")
    again = LearnedVerdict.from_json(json.loads(json.dumps(learned.to_json())))
    assert again == learned and again.digest() == learned.digest()
    high = dict(zip(NAMES, rows[labels.index(True)]))
    low = dict(zip(NAMES, rows[labels.index(False)]))
    assert learned.probability(high) > learned.probability(low)
    assert learned.applies_to("qwen2.5-coder-1.5b/transformers", "refbot") and not learned.applies_to("llama", "refbot")
    with pytest.raises(ValueError, match="one label"):
        fit(rows[:3], [True] * 3, model="m", template="t")


def test_figures_are_out_of_fold_and_no_subject_is_on_both_sides(tmp_path):
    generator = random.Random(7)
    lines, records = [], {}
    for n in range(60):
        for label in (True, False):
            id_ = f"r{n}-{label}"
            lines.append({"id": id_, "subject": f"Person {n}", "predicate": "employer", "object": "Acme",
                          "text": f"Person {n} {'works for' if label else 'visited'} Acme.", "label": label,
                          "property_id": "P108" if n % 2 else "P463", "language": "en" if n % 3 else "de"})
            p = generator.uniform(0.55, 1.0) if label else generator.uniform(0.3, 0.9)
            records[id_] = record(p, share=0.9 if label else 0.3, margin=2.0 if label else -2.0,
                                  verdict="a" if p > 0.8 else "c")
    records["r0-True"] = record(None)  # not asked: the rules' verdict stands in both columns
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    rows = read_dataset(path)
    decided = cross_validate(rows, records, folds=5, precision=0.9)
    assert len(decided) == len(rows)
    for d in decided:  # both rows of a subject in one fold
        assert {e.fold for e in decided if e.row.claim.subject == d.row.claim.subject} == {d.fold}
    unasked = next(d for d in decided if d.row.id == "r0-True")
    assert unasked.learned_score is None and unasked.learned == unasked.rules
    learned, rules = figures(decided, "learned"), figures(decided, "rules")
    assert learned.auc is not None and rules.auc is not None and learned.auc > rules.auc
    held_out = cross_validate(rows, records, hold_out="properties")
    assert {d.fold for d in held_out} == {0, 1}
    lines_out = table(decided, lambda row: row.language, "language")
    assert lines_out[1].startswith("all") and any(line.startswith("de") for line in lines_out)


def test_a_value_given_by_its_item_id_counts_as_an_item_whatever_the_data_set_says(tmp_path):
    from bot.evaluation.crossval import row_features

    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "1", "subject": "Ada", "predicate": "instance of", "object": "human",
                                "object_qid": "Q5", "text": "Ada is a human.", "label": True}) + "\n"
                    + json.dumps({"id": "2", "subject": "Ada", "predicate": "increases", "object": "aspirin",
                                  "text": "Ada increases aspirin.", "label": False}) + "\n", encoding="utf-8")
    item, unknown = read_dataset(path)
    assert row_features(item, record(0.9))["kind: item"] == 1.0  # a run knows every value's datatype
    assert row_features(unknown, record(0.9))["kind: all"] == 1.0
