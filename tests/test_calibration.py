"""The calibrated support: curves, the fit on labelled scores, and where the shipped calibration applies."""

from __future__ import annotations

import json
import random

import pytest

from bot.judge.calibration import Calibration, Curve, accepting_threshold, fit, for_judge, shipped


def test_a_curve_interpolates_between_its_points_and_clips_at_its_ends():
    curve = Curve((0.2, 0.6, 0.9), (0.1, 0.5, 0.95))
    assert curve(0.0) == 0.1 and curve(1.0) == 0.95
    assert curve(0.4) == pytest.approx(0.3) and curve(0.75) == pytest.approx(0.725)
    assert curve(0.6) == pytest.approx(0.5)


def test_a_curve_that_goes_down_is_refused():
    with pytest.raises(ValueError, match="non-decreasing"):
        Curve((0.1, 0.5), (0.8, 0.2))


def test_the_fit_maps_scores_to_the_fraction_supported_and_accepts_where_precision_reaches_095():
    rng = random.Random(7)
    labels, scores = [], []
    for _ in range(600):  # the higher the raw score, the likelier supported; still 30 % wrong at 0.7
        score = rng.random()
        labels.append(rng.random() < score ** 2)
        scores.append(score)
    calibration = fit(labels, scores, ["item"] * 600, model="m", template="refbot")
    calibrated = [calibration.score(score, "wikibase-item") for score in scores]
    assert all(a <= b for a, b in zip(sorted(scores), sorted(scores)[1:]))
    assert calibration.score(0.1, "wikibase-item") < 0.1 < calibration.score(0.95, "wikibase-item")
    chosen = [label for label, score in zip(labels, calibrated) if score >= calibration.accept]
    assert sum(chosen) / len(chosen) >= 0.95 and len(chosen) < sum(labels)
    # Just below the accepting threshold, precision falls short: the threshold is the lowest that holds.
    below = max(score for score in calibrated if score < calibration.accept)
    chosen_below = [label for label, score in zip(labels, calibrated) if score >= below]
    assert sum(chosen_below) / len(chosen_below) < 0.95
    assert calibration.undecided == 0.5 < calibration.accept
    # Each kind with enough rows of both labels gets its own curve; the pooled one serves the others.
    assert set(calibration.curves) == {"all", "item"}
    assert calibration.score(0.5, "time") == pytest.approx(calibration.curves["all"](0.5), abs=1e-6)


def test_a_kind_with_too_few_rows_of_a_label_uses_the_pooled_curve():
    labels = [True] * 60 + [False] * 60 + [True] * 45 + [False] * 3
    scores = [0.9] * 60 + [0.2] * 60 + [0.8] * 45 + [0.1] * 3
    kinds = ["item"] * 120 + ["time"] * 48
    calibration = fit(labels, scores, kinds, model="m", template="refbot")
    assert "time" not in calibration.curves and "item" in calibration.curves


def test_no_threshold_reaching_the_precision_accepts_nothing():
    assert accepting_threshold([True, False, False, True], [0.9, 0.9, 0.5, 0.2], 0.95) == 1.0
    assert accepting_threshold([True, False, True], [0.9, 0.5, 0.7], 0.95) == 0.7


def test_the_calibration_round_trips_through_json_and_refuses_thresholds_out_of_order():
    calibration = Calibration("qwen2.5-coder-1.5b/transformers-bf16", "refbot",
                              {"all": Curve((0.0, 1.0), (0.0, 1.0))}, 0.8, 0.5, "dev")
    assert Calibration.from_json(json.loads(json.dumps(calibration.to_json()))) == calibration
    with pytest.raises(ValueError, match="out of order"):
        Calibration.from_json(calibration.to_json() | {"accept": 0.4, "undecided": 0.6})


def test_a_calibration_applies_to_its_model_whatever_the_runtime_and_to_its_template_only():
    calibration = Calibration("qwen2.5-coder-1.5b/transformers-bf16", "refbot",
                              {"all": Curve((0.0, 1.0), (0.0, 1.0))})
    assert calibration.applies_to("qwen2.5-coder-1.5b/transformers-fp32", "refbot")
    assert not calibration.applies_to("qwen2.5-coder-1.5b/transformers-bf16", "paper")
    assert not calibration.applies_to("meta-llama/Llama-3.1-8B-Instruct", "refbot")
    assert not Calibration.identity().applies_to("", "")


def test_the_shipped_calibration_reads_and_another_model_gets_the_raw_support():
    calibration = shipped()
    assert 0.0 <= calibration.undecided <= calibration.accept <= 1.0
    other = for_judge("some/other-model", "refbot")
    assert other.is_identity and other.score(0.73, "time") == 0.73 and other.accept == 0.5


def test_judgements_are_decided_again_with_a_calibration_fitted_after_them():
    from bot.judge.calibration import rescored

    calibration = Calibration("m", "refbot", {"all": Curve((0.0, 1.0), (0.0, 0.9))}, accept=0.7, undecided=0.5)
    records = {
        "yes": {"verdict": "a", "support": 0.95, "calibrated": 0.95},
        "unsure": {"verdict": "a", "support": 0.6, "calibrated": 0.6},
        "not-written": {"verdict": "c", "support": 0.0, "calibrated": None},
        "firm": {"verdict": "contradicts", "support": 0.0, "calibrated": None,
                 "contradiction": {"form": "1921", "sentence": "Born in 1921.", "support": 0.9}},
        "weak": {"verdict": "contradicts", "support": 0.0, "calibrated": None,
                 "contradiction": {"form": "1,907,382", "sentence": "Revenue 1,907,382.", "support": 0.6}},
    }
    again = rescored(records, {}, calibration)
    assert (again["yes"]["verdict"], again["yes"]["calibrated"]) == ("a", pytest.approx(0.855))
    assert again["unsure"]["verdict"] == "b" and again["not-written"] == records["not-written"]
    assert again["firm"]["verdict"] == "contradicts"
    assert again["weak"]["verdict"] == "c" and again["weak"]["contradiction"] is None
    assert records["weak"]["verdict"] == "contradicts", "the records given are left as they were"
