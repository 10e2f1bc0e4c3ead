"""`refbot eval`'s summary and printed report from a ledger written by hand: verdict classes, calibration, the
precision of support by path and the verdicts by kind of row, with no model."""

import json

import pytest

from bot.datamodel import Claim, Contradiction, Judgement, Verdict
from bot.errors import InputError
from bot.evaluation.dataset import LabelledStatement, read_dataset
from bot.evaluation.ledger import LedgerWriter, judgement_from_record, judgement_record, read_ledger
from bot.evaluation.report import format_table
from bot.evaluation.runner import Evaluation, decision_score

A, B, C, CONTRADICTS, UNPARSEABLE = (Verdict.SUPPORTS, Verdict.INDICATES, Verdict.NOT_INFERRABLE,
                                     Verdict.CONTRADICTS, Verdict.UNPARSEABLE)
MORE_GENERAL = "more general item Q515: city"
# id, label, kind, verdict, raw support, calibrated support, how the text writes the value
JUDGED = [
    ("o1", True, "original", A, 0.9, 0.95, "date"),
    ("o2", True, "original", A, 0.8, 0.85, ""),
    ("o3", True, "original", B, 0.6, 0.55, ""),
    ("o4", True, "original", C, 0.2, 0.15, ""),
    ("u1", True, "original", UNPARSEABLE, 0.0, None, ""),
    ("w1", False, "wrong-value:date", CONTRADICTS, 0.1, 0.05, ""),
    ("w2", False, "wrong-value:amount", A, 0.7, 0.75, ""),
    ("s1", False, "other-subject", C, 0.3, 0.25, "label"),
    ("s2", False, "other-subject", C, 0.1, None, ""),
    ("r1", False, "relation-swap", A, 0.9, 0.92, MORE_GENERAL),
]


def judgement(verdict, support, calibrated=None, written="", **more):
    return Judgement(verdict, support, verdict.value, "", "m", "refbot", 100 + int(support * 10), 2, 0.5,
                     written=written, written_form="1943" if written else "", calibrated=calibrated, **more)


def evaluation_of(judged, kinds=True):
    rows = [LabelledStatement(id_, Claim("s", "p", "o"), "text", label, kind=kind if kinds else None)
            for id_, label, kind, *_ in judged]
    records = {id_: judgement_record(id_, label, judgement(verdict, support, calibrated, written))
               for id_, label, _, verdict, support, calibrated, written in judged}
    return Evaluation(rows, records, 0, 0.0, "m", "refbot")


@pytest.fixture
def evaluation():
    return evaluation_of(JUDGED)


def test_refbot_is_scored_on_both_classes(evaluation):
    # TP o1 o2, FN o3 o4 u1 (only a counts as supported), FP w2 r1, TN w1 s1 s2.
    overall = evaluation.summary()["metrics"]["micro average"]["refbot"]["all"]
    assert (overall["tp"], overall["fn"], overall["fp"], overall["tn"]) == (2, 3, 2, 3)
    assert overall["specificity"] == pytest.approx(3 / 5)
    assert overall["f1"] == pytest.approx(4 / 9)  # P 1/2, R 2/5
    assert overall["f1_unsupported"] == pytest.approx(6 / 11)  # P 3/6, R 3/5
    assert overall["macro_f1"] == pytest.approx(49 / 99)


def test_the_verdicts_split_overall_and_per_label(evaluation):
    verdicts = evaluation.summary()["verdicts"]
    assert verdicts["all"] == {"supported": 4, "undecided": 1, "contradicted": 1, "not_supported": 3,
                               "unparseable": 1}
    assert verdicts["labelled_supported"] == {"supported": 2, "undecided": 1, "contradicted": 0,
                                              "not_supported": 1, "unparseable": 1}
    assert verdicts["labelled_unsupported"] == {"supported": 2, "undecided": 0, "contradicted": 1,
                                                "not_supported": 2, "unparseable": 0}


def test_calibration_is_measured_on_the_score_the_verdict_is_decided_on(evaluation):
    calibration = evaluation.summary()["calibration"]
    assert calibration["score"] == "calibrated, else support" and calibration["calibrated_judgements"] == 8
    # Bins of the calibrated score (the raw one for u1 and s2): 0: 0.0 T, 0.05 F; 1: 0.15 T, 0.1 F; 2: 0.25 F;
    # 5: 0.55 T; 7: 0.75 F; 8: 0.85 T; 9: 0.95 T, 0.92 F.
    assert [b["n"] for b in calibration["bins"]] == [2, 2, 1, 0, 0, 1, 0, 1, 1, 2]
    assert calibration["bins"][9]["mean_score"] == pytest.approx(0.935)
    assert calibration["bins"][9]["fraction_supported"] == 0.5
    gaps = 2 * 0.475 + 2 * 0.375 + 0.25 + 0.45 + 0.75 + 0.15 + 2 * 0.435
    assert calibration["ece"] == pytest.approx(gaps / 10)
    # Worked out pair by pair over the 5 x 5 (supported, unsupported) pairs, ties counting a half.
    assert calibration["roc_auc_support"] == pytest.approx(13.5 / 25)
    assert calibration["roc_auc_calibrated"] == pytest.approx(14 / 25)


def test_without_calibration_the_raw_support_is_measured():
    uncalibrated = [(id_, label, kind, verdict, support, None, written)
                    for id_, label, kind, verdict, support, _, written in JUDGED]
    calibration = evaluation_of(uncalibrated).calibration()
    assert calibration["score"] == "support" and calibration["roc_auc_calibrated"] is None
    assert calibration["roc_auc_support"] == pytest.approx(13.5 / 25)
    assert [b["n"] for b in calibration["bins"]] == [1, 2, 1, 1, 0, 0, 1, 1, 1, 2]
    assert decision_score({"support": 0.4, "calibrated": None}) == 0.4
    assert decision_score({"support": 0.4, "calibrated": 0.0}) == 0.0


def test_support_from_a_text_that_does_not_write_the_value_is_measured_apart(evaluation):
    by_path = evaluation.summary()["by_path"]
    assert list(by_path) == ["date", "label", "more general item", "not written"]
    assert by_path["not written"] == {"statements": 7, "supported": 2, "true": 1, "precision": 0.5}
    assert by_path["date"] == {"statements": 1, "supported": 1, "true": 1, "precision": 1.0}
    assert by_path["label"] == {"statements": 1, "supported": 0, "true": 0, "precision": None}
    assert by_path["more general item"]["precision"] == 0.0


def test_verdicts_by_kind_of_row(evaluation):
    summary = evaluation.summary()
    by_kind = summary["by_kind"]
    assert list(by_kind) == ["original", "other-subject", "relation-swap", "wrong-value:amount", "wrong-value:date"]
    assert by_kind["original"] == {"n": 5, "supported": 0.4, "undecided": 0.2, "contradicted": 0.0,
                                   "not_supported": 0.2, "unparseable": 0.2}
    assert by_kind["other-subject"]["n"] == 2 and by_kind["other-subject"]["not_supported"] == 1.0
    assert by_kind["wrong-value:date"]["contradicted"] == 1.0
    assert summary["wrong_values_contradicted"] == {"contradicted": 1, "n": 2, "share": 0.5}


def test_rows_without_a_kind_give_no_kind_table():
    evaluation = evaluation_of(JUDGED, kinds=False)
    summary = evaluation.summary()
    assert summary["by_kind"] == {}
    assert summary["wrong_values_contradicted"] == {"contradicted": 0, "n": 0, "share": None}
    assert "verdicts by kind" not in format_table(evaluation)


def test_the_summary_is_json_and_keeps_the_cost(evaluation):
    summary = json.loads(json.dumps(evaluation.summary()))
    assert summary["cost"]["mean_latency_s"] == pytest.approx(0.5)
    assert summary["cost"]["mean_prompt_tokens"] == pytest.approx(sum(100 + int(j[4] * 10) for j in JUDGED) / 10)
    assert summary["cost"]["unparseable"] == 1


def test_the_printed_report_shows_the_new_measures_after_the_table(evaluation):
    text = format_table(evaluation)
    lines = text.splitlines()
    assert "specificity 0.600, F1 supported 0.444, F1 unsupported 0.545, macro F1 0.495" in lines
    assert lines.index(next(line for line in lines if line.startswith("micro average"))) < \
        lines.index("specificity 0.600, F1 supported 0.444, F1 unsupported 0.545, macro F1 0.495")
    verdicts = next(line for line in lines if line.startswith("  all")).split()
    assert verdicts[1:] == ["4", "1", "1", "3", "1"]
    assert "calibration: ECE 0.417 of the calibrated support (8 judgements; the raw support elsewhere), 10 " \
           "equal-width bins" in lines
    assert "ROC AUC of the raw support 0.540, of the calibrated support 0.560" in lines
    assert [line.split()[:2] for line in lines if line.startswith("  0.9-1.0")] == [["0.9-1.0", "2"]]
    assert not any(line.startswith("  0.3-0.4") for line in lines)  # empty bins are not printed
    assert next(line for line in lines if line.startswith("  not written")).split()[2:] == ["7", "2", "1", "0.500"]
    assert next(line for line in lines if line.startswith("  original")).split() == \
        ["original", "5", "0.400", "0.200", "0.000", "0.200", "0.200"]
    assert "wrong values reported as contradicted: 1 of 2 (0.500)" in lines
    assert lines[-1].startswith("cost: ")


# --- the ledger and the data set -------------------------------------------------------------------------------------

def test_a_contradiction_and_the_new_fields_round_trip_through_the_ledger(tmp_path):
    path = tmp_path / "out.jsonl"
    made = judgement(CONTRADICTS, 0.1, 0.05, "", contradiction=Contradiction("1944", "Born in 1944.", 0.87))
    writer = LedgerWriter(path)
    writer.append(judgement_record("x", False, made))
    writer.close()
    read = judgement_from_record(read_ledger(path)["x"])
    assert read == made
    assert read.contradiction == Contradiction("1944", "Born in 1944.", 0.87) and read.contradicted


def test_a_ledger_written_before_these_fields_still_reads_and_scores(tmp_path):
    path = tmp_path / "old.jsonl"
    old = {"id": "x", "label": True, "verdict": "a", "support": 0.8, "answer": "a", "justification": "",
           "model": "m", "template": "refbot", "prompt_tokens": 90, "completion_tokens": 1, "latency_s": 0.4,
           "attempts": 1, "parts": 1, "settings": {}}
    unsupported = old | {"id": "y", "label": False, "verdict": "c", "support": 0.1}
    path.write_text(json.dumps(old) + "\n" + json.dumps(unsupported) + "\n")
    records = read_ledger(path)
    read = judgement_from_record(records["x"])
    assert (read.written, read.calibrated, read.contradiction, read.compared) == ("", None, None, ())
    rows = [LabelledStatement(id_, Claim("s", "p", "o"), "text", label) for id_, label in (("x", True), ("y", False))]
    summary = Evaluation(rows, records, 0, 0.0, "m", "refbot").summary()
    assert summary["by_path"] == {"not written": {"statements": 2, "supported": 1, "true": 1, "precision": 1.0}}
    assert summary["calibration"]["score"] == "support"
    assert summary["calibration"]["ece"] == pytest.approx((0.2 + 0.1) / 2)


def test_a_malformed_contradiction_is_not_a_judgement_record(tmp_path):
    path = tmp_path / "out.jsonl"
    record = judgement_record("x", False, judgement(CONTRADICTS, 0.1))
    path.write_text(json.dumps(record | {"contradiction": {"form": "1944"}}) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError, match="out.jsonl:1: not a judgement record"):
        read_ledger(path)


def test_a_rows_kind_is_kept_and_checked(tmp_path):
    row = {"id": "1", "subject": "s", "predicate": "p", "object": "o", "text": "t", "label": True}
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (
        row | {"kind": "original"}, row | {"id": "2", "label": False, "kind": "wrong-value:date", "datatype": "time",
                                           "object": "1943-01-14"}, row | {"id": "3"})) + "\n")
    rows = read_dataset(path)
    assert [(r.kind, r.datatype) for r in rows] == [("original", None), ("wrong-value:date", "time"), (None, None)]
    path.write_text(json.dumps(row | {"kind": 3}) + "\n")
    with pytest.raises(InputError, match=r"set.jsonl:1: kind must be a string"):
        read_dataset(path)
