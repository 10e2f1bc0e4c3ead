"""The pure metrics of `refbot eval` beyond precision and recall, each checked on numbers worked out by hand."""

import pytest

from bot.evaluation.metrics import (NOT_WRITTEN, Confusion, expected_calibration_error, precision_by_path,
                                    reliability, shares, split_by_kind, verdict_split, written_path,
                                    wrong_values_contradicted)


def test_specificity_and_the_f1_of_each_class():
    confusion = Confusion(tp=2, tn=3, fp=1, fn=2)
    assert confusion.specificity == pytest.approx(3 / 4)
    assert confusion.f1 == pytest.approx(4 / 7)  # P 2/3, R 1/2
    assert confusion.f1_unsupported == pytest.approx(2 / 3)  # P 3/5, R 3/4
    assert confusion.macro_f1 == pytest.approx((4 / 7 + 2 / 3) / 2)
    assert confusion.as_dict()["specificity"] == pytest.approx(0.75)
    assert confusion.as_dict()["macro_f1"] == pytest.approx(13 / 21)


def test_the_f1_scores_agree_with_scikit_learn():
    from sklearn.metrics import f1_score

    labels = [True] * 4 + [False] * 6
    predicted = [True, True, False, False, True, False, False, False, False, False]
    confusion = Confusion.of(zip(labels, predicted))
    assert confusion.f1 == pytest.approx(f1_score(labels, predicted))
    assert confusion.f1_unsupported == pytest.approx(f1_score(labels, predicted, pos_label=False))
    assert confusion.macro_f1 == pytest.approx(f1_score(labels, predicted, average="macro"))


def test_a_judge_that_calls_everything_supported_has_no_specificity():
    confusion = Confusion.of([(True, True), (False, True), (False, True)])
    assert confusion.specificity == 0.0
    assert confusion.f1_unsupported is None and confusion.macro_f1 is None
    assert Confusion(tp=1).specificity is None  # no unsupported statement: undefined, not 0


def test_verdicts_split_into_five_classes_and_only_a_is_supported():
    split = verdict_split(["a", "b", "b", "contradicts", "c", "unparseable", "a"])
    assert split == {"supported": 2, "undecided": 2, "contradicted": 1, "not_supported": 1, "unparseable": 1}
    assert verdict_split([]) == dict.fromkeys(split, 0)
    assert shares({"supported": 1, "undecided": 3}) == {"supported": 0.25, "undecided": 0.75}
    assert shares({"supported": 0}) == {"supported": None}


def test_expected_calibration_error_on_a_known_example():
    labels = [False, True, True, True, False]
    scores = [0.05, 0.15, 0.85, 0.95, 0.9]
    # Bins 0, 1, 8 hold one statement each (gaps 0.05, 0.85, 0.15); bin 9 holds 0.95 and 0.9, mean 0.925,
    # half supported (gap 0.425, weight 2): (0.05 + 0.85 + 0.15 + 2 * 0.425) / 5.
    assert expected_calibration_error(labels, scores) == pytest.approx(0.38)
    assert expected_calibration_error([True, False], [1.0, 0.0]) == pytest.approx(0.0)
    assert expected_calibration_error([True, False], [0.0, 1.0]) == pytest.approx(1.0)
    assert expected_calibration_error([], []) is None


def test_the_reliability_table_keeps_empty_bins_and_puts_edges_in_the_upper_bin():
    bins = reliability([True, False, True, False, True], [0.3, 0.35, 1.0, 0.0, 0.7])
    assert len(bins) == 10
    assert [(b.low, b.high) for b in bins[:2]] == [(0.0, 0.1), (0.1, 0.2)]
    assert [b.n for b in bins] == [1, 0, 0, 2, 0, 0, 0, 1, 0, 1]
    assert (bins[1].mean_score, bins[1].fraction_supported) == (None, None)
    assert bins[3].mean_score == pytest.approx(0.325) and bins[3].fraction_supported == pytest.approx(0.5)
    assert bins[9].mean_score == 1.0 and bins[9].fraction_supported == 1.0  # 1.0 in the last bin
    assert bins[3].as_dict() == {"low": 0.3, "high": 0.4, "n": 2, "mean_score": pytest.approx(0.325),
                                 "fraction_supported": 0.5}


def test_precision_of_support_by_how_the_text_writes_the_value():
    table = precision_by_path([
        ("date", True, True), ("date", False, True), ("date", True, False),
        ("", True, True), ("", False, True), ("", False, True), ("", False, False),
        ("label", False, False),
        ("more general item Q515: city", True, True), ("more general item Q1549591: big city", False, True),
    ])
    assert list(table) == ["date", "label", "more general item", NOT_WRITTEN]
    assert table["date"] == {"statements": 3, "supported": 2, "true": 1, "precision": 0.5}
    assert table[NOT_WRITTEN] == {"statements": 4, "supported": 3, "true": 1, "precision": pytest.approx(1 / 3)}
    assert table["label"]["precision"] is None  # never called supported
    assert table["more general item"]["supported"] == 2


def test_written_paths_group_linked_items_by_their_link():
    assert written_path("") == NOT_WRITTEN
    assert written_path("alias") == "alias"
    assert written_path("more general item: city") == "more general item"
    assert written_path("label (de)") == "label (de)"


def test_verdicts_by_kind_and_the_wrong_values_called_contradicted():
    splits = split_by_kind([("original", "a"), ("original", "b"), ("wrong-value:date", "contradicts"),
                            ("wrong-value:date", "c"), ("wrong-value:amount", "contradicts"),
                            ("other-subject", "contradicts"), ("relation-swap", "a")])
    assert list(splits) == ["original", "other-subject", "relation-swap", "wrong-value:amount", "wrong-value:date"]
    assert splits["original"]["supported"] == 1 and splits["original"]["undecided"] == 1
    assert splits["wrong-value:date"] == {"supported": 0, "undecided": 0, "contradicted": 1, "not_supported": 1,
                                          "unparseable": 0}
    # other-subject's contradiction is not a wrong value's: 2 of the 3 wrong-value rows.
    assert wrong_values_contradicted(splits) == (2, 3)
    assert wrong_values_contradicted(split_by_kind([("original", "a")])) == (0, 0)
