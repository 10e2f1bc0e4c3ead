import pytest

from bot.evaluation.metrics import Confusion, grouped, label_match, precision_at_recall, roc_auc


def test_confusion_counts_and_scores():
    confusion = Confusion.of([(True, True), (True, True), (True, False), (False, True), (False, False)])
    assert (confusion.tp, confusion.tn, confusion.fp, confusion.fn) == (2, 1, 1, 1)
    assert confusion.precision == pytest.approx(2 / 3)
    assert confusion.recall == pytest.approx(2 / 3)
    assert confusion.f1 == pytest.approx(2 / 3)


def test_undefined_scores_are_none_not_zero():
    nothing_predicted = Confusion.of([(True, False), (False, False)])
    assert nothing_predicted.precision is None
    assert nothing_predicted.recall == 0.0
    assert nothing_predicted.f1 is None


def test_grouping_leaves_out_rows_without_a_group_or_prediction():
    rows = [("x", True, True), ("y", False, True), (None, True, True), ("x", True, None)]
    groups = grouped(rows, key=lambda r: r[0], pair=lambda r: None if r[2] is None else (r[1], r[2]))
    assert groups == {"x": Confusion(tp=1), "y": Confusion(fp=1)}


def test_auc_and_precision_at_recall():
    labels = [True, True, True, True, False, False, False, False]
    scores = [0.9, 0.8, 0.3, 0.2, 0.85, 0.1, 0.05, 0.01]
    assert roc_auc(labels, scores) == pytest.approx(13 / 16)
    # Recall 0.5 is first reached at 0.8 (two of three right), but the threshold 0.2 reaches recall 1.0 with
    # four of five right: the best precision at a recall of at least 0.5 is 0.8.
    assert precision_at_recall(labels, scores, 0.5) == pytest.approx(0.8)
    assert precision_at_recall(labels, scores, 1.0) == pytest.approx(0.8)
    assert precision_at_recall(labels, [0.9, 0.8, 0.1, 0.1, 0.2, 0.3, 0.3, 0.05], 0.5) == pytest.approx(1.0)
    assert roc_auc([True, True], [0.1, 0.2]) is None


def test_label_match_ignores_case_only():
    assert label_match("Nobel Prize", "she won the nobel prize in 1903")
    assert not label_match("Nobel Prizes", "she won the Nobel Prize")


def test_best_f1_names_its_threshold():
    from bot.evaluation.metrics import best_f1

    f1, threshold = best_f1([True, True, False, False], [0.9, 0.6, 0.5, 0.1])
    assert f1 == pytest.approx(1.0) and threshold == pytest.approx(0.6)
    assert best_f1([False, False], [0.1, 0.2]) is None
